// The CUDA side of the one case builder (framework/case_builder.hpp holds the rest): every
// experiment's record header (the machine, pinbench's version, the time), its wall time, and
// its memory-kind gates.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "framework/memory_kind.hpp"
#include "framework/record.hpp"
#include "measure/sampler.hpp"

namespace pinbench {

// A measured record of `experiment` on the selected device (cuda::select_device, --device), stamped
// with pinbench's version, the time and the machine's description. Throws NoGpuError without a
// usable GPU.
RunRecord start_record(const std::string& experiment, nlohmann::json config);

// The same header where no GPU is described (doctor before or without a calibration, a check
// on a host with no usable GPU): pinbench's version, the time, the host's CPU, memory and OS, and
// `no_device`, why no GPU is described ("no usable GPU: no CUDA-capable device").
RunRecord start_host_record(const std::string& experiment, const std::string& no_device);

// Sets the record's wall time, from `start` to now, and drops the cases that have no samples
// (their gate failed before timing; the failed gate stays in the record).
void finish_record(RunRecord& record, SteadyClock::time_point start);

// Whether a signal asked the run to stop (framework/interrupt.hpp). If so, marks `record`
// incomplete, naming the signal, so the caller ends after the case in flight; call it before each
// case.
bool stop_before_next_case(RunRecord& record);

// A gate that the driver (cudaPointerGetAttributes) sees `ptr` as `expected`: "pageable",
// "pinned", "device" or "managed".
Gate kind_gate(const std::string& name, const void* ptr, const std::string& expected);
// The same for a buffer allocated as `kind`.
Gate kind_gate(const std::string& name, const void* ptr, MemoryKind kind);

// Appends `gate` to the record and returns whether it passed.
bool add_gate(RunRecord& record, Gate gate);

}  // namespace pinbench
