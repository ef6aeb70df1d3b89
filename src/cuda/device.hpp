// Finding the GPU and describing the machine. No CUDA types in this header, so the CLI can
// include it without a CUDA include path.
#pragma once

#include <cstdint>
#include <string>

#include "core/record/record.hpp"

namespace pinbench::cuda {

// Number of devices CUDA can use here; 0 (never an exception) when there is no driver or GPU.
int device_count();

// Why no device is usable, in a few words ("no CUDA driver", "no CUDA-capable device"), or ""
// when one is.
std::string no_device_reason();

// Throws NoGpuError when device_count() is 0.
void require_device();

// Device properties, versions, PCIe link, NUMA node and host description for `device`.
MachineInfo query_machine(int device = 0);

// Free and total device memory, in bytes.
std::uint64_t device_free_bytes();

}  // namespace pinbench::cuda
