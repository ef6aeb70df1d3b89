// What `pinbench doctor` saw a program do, as the run record's "doctor" section carries it:
// every copy, synchronisation and page-locked allocation call (with the copies the driver made
// for it and their memory kinds), kernels, unified-memory migrations and the call sites named
// by the calls. The copies and kernels are the trace model's own (framework/trace_model.hpp);
// the calls, call sites and process are the doctor's. It is read from the injection library's
// event lines (experiments/doctor/events.hpp) and from a record's JSON; docs/record-schema.md
// lists the fields. No CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/program_sight.hpp"
#include "framework/trace_model.hpp"

namespace pinbench::experiments::doctor {

// One frame of a call site: native (module and offset, named by function and file:line where a
// symboliser found debug information) or Python (file:line and function).
struct DoctorFrame {
  bool python = false;
  std::string module;        // native: the shared object or executable
  std::uint64_t offset = 0;  // native: the return address, from the module's load address
  std::string function;      // the dynamic symbol, or what the symboliser named
  std::string file;          // "" where no debug information said
  int line = 0;
};

struct DoctorSite {
  std::string id;  // 16 hex digits, per process
  int pid = 0;
  std::vector<DoctorFrame> frames;  // native frames innermost first, then Python frames
};

struct DoctorCall {
  int pid = 0;
  std::string api;     // "cudaMemcpyAsync_v3020", as CUPTI names it
  std::string domain;  // "runtime" or "driver"
  // "copy", "copy_async", "batch", "sync", "alloc", "free", "register", "unregister"
  std::string kind;
  std::uint32_t thread = 0;
  std::int64_t start_ns = 0;  // host time inside the call
  std::int64_t end_ns = 0;
  int status = 0;  // the call's return value; 0 is success
  // alloc, free, register, unregister: the host pointer; copies whose parameters say: the
  // pointer on the host side
  std::uint64_t ptr = 0;
  std::uint64_t bytes = 0;  // alloc/register: the size; copies: the size argument where known
  std::string site;         // the DoctorSite id, "" for calls that keep none
  // Copies, as the collector saw them at the call (the API side), where the parameters say:
  // the direction ("h2d", "d2h", "d2d"; "" for cudaMemcpyDefault or an API that does not say)
  // and where the host side lies ("pinned": a range the process page-locked or registered, or
  // one the driver calls page-locked; "pageable"; "managed"; "none" for device to device; ""
  // unknown).
  std::string direction;
  std::string host;
  // Set when the driver's activity records of the call were lost (the process ended by
  // _exit, exec or SIGKILL before they were flushed) and `copies` holds one copy made from the
  // API side instead: its bytes, direction and memory kinds from the call, its times the call's
  // own host times, its stream 0.
  bool from_api = false;
  // alloc/register: the NUMA node most of the range's pages lie on; a copy from or to pageable
  // memory of at least events::kNumaSampleBytes (1 MiB): the node of its host pages; -1
  // where not read.
  int numa_node = -1;
  // alloc/register: whether the driver called the range page-locked once the call returned (its
  // first and last byte): false for a call that failed and left it pageable, or that returned
  // success and still did; true for one that failed on a range page-locked already. Absent where
  // not read: another kind of call, no range, or a record made before the collector read it.
  std::optional<bool> locked;
  // The copies the driver made for the call (CUPTI's memcpy activity records), times from the
  // trace's origin; a direction the record calls "other" is CopyDirection::kUnknown. No
  // correlation: a copy belongs to its call.
  std::vector<Copy> copies;
};

// A unified-memory counter record: "htod" / "dtoh" bytes migrated, "cpu_faults" / "gpu_faults".
struct DoctorMigration {
  std::string kind;
  std::uint64_t value = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

// One process of the program that initialised CUDA under the injection library, and how it
// ended as it told the collector: "exit" (exit handlers ran), "_exit" (_exit or os._exit:
// none ran), "exec" (replaced by another program; "exec, exit" when that one exited too),
// "signal SIGSEGV", or "" when it said nothing (SIGKILL, or an end no hook saw).
struct DoctorProcess {
  int pid = 0;
  std::string end;
};

// What doctor could see of the program's processes, and why not (framework/program_sight.hpp).
// `recorded` is false in records made before pinbench wrote it: what doctor saw then is not
// known, and a report says so rather than "made no CUDA calls".
struct DoctorSight {
  bool recorded = false;
  DriverSight driver;  // whether libcuda.so.1 could be loaded where the program ran
  // "ran": the collector started in at least one process; "not-started": in none (no process
  // initialised CUDA, or its CUDA failed before the collector could start); "no-cupti": CUPTI was
  // not found or lacks a function pinbench needs; "cupti-failed": CUPTI could not subscribe
  // (another profiler holds it, or the error it gave).
  std::string collector;
  int started = 0;       // process images doctor's library was loaded into
  int without_cuda = 0;  // of them, seen to their end without asking for the CUDA driver
  int cuda_unseen = 0;   // asked for (or had) the driver, and the collector never started in them
};

// The record's names for DoctorSight::collector.
inline constexpr const char* kDoctorCollectorStates[] = {"ran", "not-started", "no-cupti",
                                                         "cupti-failed"};

// The program's run (ProgramRun: its command, how it ended, what it left running, whose calls after
// doctor stopped waiting for them, and what they had not yet flushed, are not in the trace) and
// what doctor's collector saw of it.
struct DoctorTrace : ProgramRun {
  int processes = 0;       // processes that initialised CUDA under the injection library
  std::string cupti;       // "CUPTI 130100", or why there was none
  std::string symbolizer;  // what named the native frames (docs/doctor.md)
  std::vector<std::string> notes;
  std::uint64_t dropped_records = 0;
  std::uint64_t unmatched_copies = 0;  // memcpy records no API call claimed
  std::uint64_t kernels_total = 0;     // kernels seen; `kernels` may hold fewer (kMaxKernels)
  std::vector<DoctorCall> calls;
  std::vector<Kernel> kernels;  // start, end and stream only: the record keeps no names
  std::vector<DoctorMigration> migrations;
  std::vector<DoctorSite> sites;
  std::vector<DoctorProcess> process_list;  // by pid; empty in records before pinbench 0.2
  DoctorSight sight;

  // The site of that id in that process, or nullptr. Looked up in an index of `sites` built as
  // it grows (and rebuilt should a site be changed in place), so a record of 100,000 calls at
  // 100,000 sites is read in time proportional to its length.
  const DoctorSite* find_site(const std::string& id, int pid) const;

 private:
  mutable std::map<std::pair<int, std::string>, std::size_t> site_index_;
  mutable std::size_t sites_indexed_ = 0;
};

// Process images neither collecting nor seen to their end (killed by a signal, or still running
// when doctor stopped waiting): whether they called CUDA was not seen. 0 where not recorded.
int processes_unseen(const DoctorTrace& t);

// Whether doctor saw the program make no CUDA call: it recorded what it saw, every process it was
// loaded into was seen to its end without asking for the CUDA driver, and none was left running.
// Only then may a report say "made no CUDA calls".
bool seen_without_cuda(const DoctorTrace& t);

// The most kernels a record keeps (their start, end and stream, for the overlap estimate).
constexpr std::size_t kMaxDoctorKernels = 200000;

// Parses the injection library's event lines. A truncated last line (the program died while
// writing it) and unknown lines are skipped and counted in the notes; nothing else is lost.
DoctorTrace parse_doctor_events(std::string_view text);

// The event lines of the collector's file (events.hpp, EventFile): `lines` is its region after
// the header, as far as the header's counter says, `overflow` the overflow file's text. A line
// claimed but not written whole (it runs into NUL bytes) is left out and counted in `cut`.
std::string collector_lines(std::string_view lines, std::string_view overflow, std::uint64_t& cut);

// A doctor record's section (RunRecord::sections) holds its DoctorTrace as to_json writes it.
inline constexpr const char* kDoctorSection = "doctor";

nlohmann::json to_json(const DoctorTrace& t);
// Validates as record_from_json does: InputError naming the field ("doctor.calls[3].bytes").
DoctorTrace doctor_trace_from_json(const nlohmann::json& j);

}  // namespace pinbench::experiments::doctor
