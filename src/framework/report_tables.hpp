// The tables of the report model (report_model.hpp), as data: the machine, the record, and
// tables of labelled cells. Building the tables once and rendering them in every format keeps
// the formats in step. Any experiment gets one table per (part, method, direction), sizes down and
// memory kinds across; a lesson record gets the lesson's own tables instead, from analyse_lesson.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/record.hpp"

namespace pinbench {

// What a table shows for a missing figure (no samples, or the gate failed).
inline const std::string kDash = "—";

struct ReportTable {
  std::string id;     // a stable anchor, e.g. "copy-h2d"
  std::string title;  // a heading for the table
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column: right-aligned
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // sentences shown under the table
  // A snippet of code shown under the notes (the doctor's fix), one statement a line: every
  // printer keeps its line breaks.
  std::string code;
  // The leading columns that name a row: a terminal too narrow for the whole table prints it in
  // parts, each starting with these (render/text_table.hpp).
  std::size_t key_columns = 1;
};

// "host to device" for "h2d", and so on; unknown directions come back as they are.
std::string direction_words(const std::string& direction);

// For a program run by `who` (doctor, accel): "2 processes the program started were still running
// when doctor stopped waiting for them (pid 12 (sleep 30), pid 13 (worker))"; "" for none.
std::string still_running_words(const std::vector<std::string>& processes, const std::string& who);

// Whether a record's machine describes no GPU at all (doctor or accel of a program that used
// none, a check on a host with none, a machine without a CUDA driver): then its line and fields
// say so, and why, instead of a row of "unknown"s.
bool no_device_described(const MachineInfo& m);
// "no GPU described: no CUDA driver on this machine (...)"; a record that does not say why reads
// "no GPU described (the run had none to describe)".
std::string no_device_words(const MachineInfo& m);

// The machine on one line, and field by field.
std::string machine_line(const MachineInfo& m);
std::vector<std::pair<std::string, std::string>> machine_fields(const MachineInfo& m);

// How the GPU reaches pageable host memory (its addressing mode), in words: through the driver's
// staging buffers; by kernels through HMM; or through the host's own page tables (ATS, as on
// Grace Hopper), where page-locking is expected to buy little.
std::string pageable_addressing(const MachineInfo& m);
// Whether the GPU reads pageable memory through the host's page tables: there the lesson's
// premise, and doctor's pageable pitfalls, are expected not to hold (docs/doctor.md).
bool reads_pageable_through_host_page_tables(const MachineInfo& m);

// "lesson, recorded 2026-11-30T15:59:47Z by pinbench 0.1.0; measured; 33 of 33 gates passed;
// wall time 3.74 s"; a record with nothing gated says "no gates".
std::string record_line(const RunRecord& r);

// "33 of 33 gates passed", or "no gates" when there were none (never "0 of 0 gates passed").
std::string gates_words(std::size_t passed, std::size_t gates);

// Every gate that failed, as "gate NAME failed: DETAIL".
std::vector<std::string> failed_gates(const RunRecord& r);

// One series of a size sweep: a memory kind's median rate at each size (ascending). A size whose
// case failed its gate, or has no samples, has no rate.
struct SizeSeries {
  std::string memory;
  std::vector<std::pair<std::uint64_t, std::optional<double>>> gb_per_s;
};

// The cases of one (part, method, direction), series by memory kind in the record's order.
struct SizePanel {
  std::string part, method, direction;
  std::vector<SizeSeries> series;
  std::vector<std::string> failed;  // "write-combined 1 MiB (gate ...)": cases with no figure
  std::string title() const;        // "copy · cudaMemcpy · host to device"
  bool is_sweep() const;            // some series has two or more sizes with a rate
};
std::vector<SizePanel> size_panels(const RunRecord& r);

// The generic tables: one per size panel.
std::vector<ReportTable> report_tables(const RunRecord& r);

}  // namespace pinbench
