// `pinbench doctor` on small programs that each commit one pitfall (doctor_programs/), checked
// for exact counts and bytes; a clean program must give no finding. Each test runs the real
// pinbench binary and its injection library, as a user would, and reads the record it wrote.
// What it runs is found beside this binary (a GPU bundle: `make gpu-bundle`), else in the build
// tree; PINBENCH_DOCTOR_DIR names a folder holding pinbench, the injection library,
// doctor_pitfalls and doctor_programs/ instead. Records and output go to a fresh temporary
// folder, or PINBENCH_DOCTOR_OUT.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::doctor;
namespace {

// $PINBENCH_DOCTOR_DIR/NAME where it is set, else NAME beside this binary, else the build tree's.
std::string found(const std::string& name, const std::string& built) {
  const char* d = std::getenv("PINBENCH_DOCTOR_DIR");
  return d != nullptr ? std::string(d) + "/" + name : test::beside_this_binary(name, built);
}

std::string pinbench_bin() {
  return found("pinbench", PINBENCH_BUILD_DIR "/pinbench");
}
std::string programs() {
  return found("doctor_pitfalls", PINBENCH_BUILD_DIR "/doctor_pitfalls");
}
std::string scripts() {
  return found("doctor_programs", PINBENCH_DOCTOR_SCRIPTS);
}
// Where the runs' records and output go: $PINBENCH_DOCTOR_OUT, else a fresh folder of this
// process under the system's temporary folder (not the build tree, which a GPU bundle lacks).
std::string out_dir() {
  if (const char* d = std::getenv("PINBENCH_DOCTOR_OUT")) return d;
  static const std::string dir = [] {
    const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                    ("pinbench-doctor-gpu-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p.string();
  }();
  return dir;
}

struct DoctorRun {
  int code = -1;
  RunRecord record;
  DoctorTrace trace;
  DoctorAnalysis analysis;
  const DoctorFinding* find(const std::string& id) const {
    for (const DoctorFinding& f : analysis.findings) {
      if (f.id == id) return &f;
    }
    return nullptr;
  }
};

DoctorRun doctor(const std::string& name, const std::string& command,
                 const std::string& options = "") {
  DoctorRun r;
  const std::string json = out_dir() + "/doctor-" + name + ".json";
  std::remove(json.c_str());
  const std::string line = pinbench_bin() + " doctor --json " + json + " " + options + " -- " +
                           command + " >" + out_dir() + "/doctor-" + name + ".out 2>&1";
  const int status = std::system(line.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.record = load_record(json);
  r.trace = doctor_trace_from_json(r.record.section("doctor"));
  r.analysis = analyse_doctor(r.record, r.trace);
  return r;
}

TEST(DoctorGpu, PageableAsyncCopiesBothDirectionsAreCountedWithTheirBytes) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("pageable-async", programs() + " pageable-async");
  EXPECT_EQ(r.code, 0);
  // To the device: pageable-async; into pageable memory: pageable-async-d2h, a finding of its own.
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 8u);
  EXPECT_EQ(f->bytes, 8 * 4 * kMiB);
  ASSERT_TRUE(f->lost_ms.has_value());  // the calibration gave rates
  EXPECT_GT(*f->lost_ms, 0.0);
  EXPECT_EQ(f->sites.size(), 1u);  // the h2d loop
  const DoctorFinding* d = r.find("pageable-async-d2h");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->count, 4u);
  EXPECT_EQ(d->bytes, 4 * 4 * kMiB);
  EXPECT_EQ(d->sites.size(), 1u);  // the d2h loop
  EXPECT_EQ(r.analysis.kernels, 8u);
  EXPECT_EQ(r.find("pageable-sync-loop"), nullptr);
}

TEST(DoctorGpu, DriverApiCopiesAreSeen) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("driver-async", programs() + " driver-async");
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 5u);
  EXPECT_EQ(f->bytes, 5 * kMiB);
}

TEST(DoctorGpu, ABatchIsOneCallOfFourCopies) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("batch", programs() + " batch");
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);
  EXPECT_EQ(f->bytes, 4 * kMiB);
}

TEST(DoctorGpu, EveryThreadIsSeen) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("threads", programs() + " threads");
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 20u);
  EXPECT_EQ(f->bytes, 20 * kMiB);
}

TEST(DoctorGpu, BlockingPageableCopiesInALoop) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("sync-loop", programs() + " sync-loop");
  const DoctorFinding* f = r.find("pageable-sync-loop");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 6u);
  EXPECT_EQ(f->bytes, 12 * kMiB);
  EXPECT_EQ(r.find("pageable-async"), nullptr);
}

TEST(DoctorGpu, PinnedAllocationChurn) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("alloc-churn", programs() + " alloc-churn");
  const DoctorFinding* f = r.find("alloc-churn");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 5u);
  EXPECT_EQ(f->bytes, 5 * kMiB);
  EXPECT_EQ(r.analysis.peak_pinned_bytes, kMiB);
  EXPECT_EQ(r.find("pageable-async"), nullptr);
}

// A registration that failed, and the copies from its range that then went pageable: named with
// the failed call, its error, the copies and their bytes.
TEST(DoctorGpu, AFailedRegistrationAndItsPageableCopies) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("failed-register", programs() + " failed-register");
  EXPECT_EQ(r.code, 0) << "the program's registrations did not fail as meant";
  const DoctorFinding* f = r.find("pinning-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 4u);
  EXPECT_EQ(f->bytes, 8 * kMiB);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_NE(f->sites[0].where.find("failed_register"), std::string::npos) << f->sites[0].where;
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_NE(f->evidence[0].find("cudaHostRegister of "), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("returned error "), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("then 4 copy calls (8 MiB)"), std::string::npos) << f->evidence[0];
  // The collector read the range's state after the call: not page-locked.
  bool read = false;
  for (const DoctorCall& c : r.trace.calls) {
    if (c.kind == "register" && c.status != 0) {
      ASSERT_TRUE(c.locked.has_value());
      EXPECT_FALSE(*c.locked);
      read = true;
    }
  }
  EXPECT_TRUE(read);
  // The calibration's page-locked rate stands beside the copies' own.
  EXPECT_TRUE(std::any_of(f->evidence.begin(), f->evidence.end(), [](const std::string& e) {
    return e.find("GB/s page-locked") != std::string::npos;
  }));
}

TEST(DoctorGpu, ManagedMigrationsWhereCuptiReportsThem) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("managed", programs() + " managed");
  const DoctorFinding* f = r.find("managed-migration");
  if (f == nullptr) GTEST_SKIP() << "CUPTI reported no unified memory counters here";
  EXPECT_GE(f->bytes, 64 * kMiB);
}

TEST(DoctorGpu, ACleanProgramHasNoFinding) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r =
      doctor("clean", programs() + " clean", "--fail-on pageable-async,alloc-churn");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(r.analysis.findings.empty());
  EXPECT_EQ(r.analysis.copy_calls, 20u);
  EXPECT_EQ(r.analysis.bytes_h2d, 40 * kMiB);
  EXPECT_EQ(r.analysis.bytes_d2h, 40 * kMiB);
  EXPECT_EQ(r.analysis.pageable_copy_calls, 0u);
}

TEST(DoctorGpu, FailOnExitsOneWhenTheFindingExists) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("fail-on", programs() + " sync-loop", "--fail-on pageable-sync-loop");
  EXPECT_EQ(r.code, 1);
}

TEST(DoctorGpu, TheProgramsOwnExitStatus) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("exit7", programs() + " exit7");
  EXPECT_EQ(r.code, 7);
  EXPECT_EQ(r.trace.exit_status, 7);
}

TEST(DoctorGpu, AProgramKilledBySegfaultKeepsEverythingSeen) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("crash", programs() + " crash");
  EXPECT_EQ(r.code, 128 + 11);
  EXPECT_EQ(r.trace.signal, "SIGSEGV");
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 3u);
  EXPECT_EQ(f->bytes, 3 * kMiB);  // the memory kinds came from activity flushed at the signal
}

// --- every process, however it ends (doctor_ends, torch_ends.py) ------------------------------

std::string ends() {
  return found("doctor_ends", PINBENCH_BUILD_DIR "/doctor_ends");
}

// The pageable copies to the device the record holds, and how many were judged from the API side.
struct Seen {
  std::uint64_t calls = 0, bytes = 0, from_api = 0;
};
Seen pageable_h2d(const DoctorTrace& t) {
  Seen s;
  for (const DoctorCall& c : t.calls) {
    for (const Copy& k : c.copies) {
      if (k.direction == CopyDirection::kH2D && k.src_kind == DriverMemoryKind::kPageable) {
        ++s.calls;
        s.bytes += k.bytes;
        s.from_api += c.from_api ? 1 : 0;
      }
    }
  }
  return s;
}

std::string end_of(const DoctorTrace& t, std::size_t i) {
  return i < t.process_list.size() ? t.process_list[i].end : "(no process)";
}

TEST(DoctorGpuEnds, ANormalExitKeepsEveryCopy) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("end-exit", ends() + " exit");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.bytes, 4 * kMiB);
  EXPECT_EQ(s.from_api, 0u);
  ASSERT_EQ(r.trace.process_list.size(), 1u);
  EXPECT_EQ(end_of(r.trace, 0), "exit");
}

TEST(DoctorGpuEnds, UnderscoreExitFlushesFirst) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("end-_exit", ends() + " _exit", "--flush-ms 0");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.bytes, 4 * kMiB);
  EXPECT_EQ(s.from_api, 0u);  // the activity records came from the flush in _exit
  EXPECT_EQ(end_of(r.trace, 0), "_exit");
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 4u);
}

TEST(DoctorGpuEnds, ExecKeepsBothImages) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("end-exec", ends() + " exec", "--flush-ms 0");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 6u);  // 4 before the exec, 2 after
  EXPECT_EQ(s.bytes, 6 * kMiB);
  EXPECT_EQ(s.from_api, 0u);
  ASSERT_EQ(r.trace.process_list.size(), 1u);  // one pid, two images
  EXPECT_EQ(end_of(r.trace, 0), "exec, exit");
}

TEST(DoctorGpuEnds, ASignalKeepsEverySeenCopy) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("end-signal", ends() + " signal", "--flush-ms 0");
  EXPECT_EQ(r.code, 128 + 15);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.from_api, 0u);
  EXPECT_EQ(end_of(r.trace, 0), "signal SIGTERM");
}

TEST(DoctorGpuEnds, AChildKilledOutrightIsJudgedFromItsCalls) {
  PINBENCH_REQUIRE_GPU();
  // No periodic flush: the child's activity records die with it, its calls do not.
  const DoctorRun r = doctor("end-kill-child", ends() + " kill-child", "--flush-ms 0");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 8u);  // 5 in the killed child, 3 in the parent
  EXPECT_EQ(s.bytes, 8 * kMiB);
  EXPECT_EQ(s.from_api, 5u);
  ASSERT_EQ(r.trace.process_list.size(), 2u);
  int silent = 0;
  for (const DoctorProcess& p : r.trace.process_list) silent += p.end.empty() ? 1 : 0;
  EXPECT_EQ(silent, 1);  // the child said nothing as it died
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 8u);
  EXPECT_EQ(f->bytes, 8 * kMiB);
}

bool have_torch();

TEST(DoctorGpuEnds, PythonOsExit) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r = doctor("end-torch-os-exit", "python3 " + scripts() + "/torch_ends.py os_exit",
                             "--flush-ms 0");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.bytes, 4 * kMiB);
  EXPECT_EQ(s.from_api, 0u);
  EXPECT_EQ(end_of(r.trace, 0), "_exit");
}

TEST(DoctorGpuEnds, PythonMultiprocessingWorkers) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r = doctor("end-torch-workers", "python3 " + scripts() + "/torch_ends.py workers",
                             "--flush-ms 0");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 10u);
  EXPECT_EQ(s.bytes, 10 * kMiB);
  EXPECT_EQ(s.from_api, 0u);
  ASSERT_EQ(r.trace.process_list.size(), 2u);
  for (const DoctorProcess& p : r.trace.process_list) EXPECT_EQ(p.end, "_exit") << p.pid;
}

TEST(DoctorGpuEnds, PythonExec) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r =
      doctor("end-torch-exec", "python3 " + scripts() + "/torch_ends.py exec", "--flush-ms 0");
  EXPECT_EQ(r.code, 0);
  const Seen s = pageable_h2d(r.trace);
  EXPECT_EQ(s.calls, 6u);
  EXPECT_EQ(s.bytes, 6 * kMiB);
  EXPECT_EQ(end_of(r.trace, 0), "exec, exit");
}

TEST(DoctorGpu, AProgramWithoutCudaMadeNoCudaCalls) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("no-cuda", "/bin/true");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(r.analysis.no_cuda);
  EXPECT_TRUE(r.analysis.findings.empty());
}

TEST(DoctorGpu, TheReplayPrintsTheSameFindings) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("replayed", programs() + " sync-loop");
  const std::string json = out_dir() + "/doctor-replayed.json";
  const std::string out = out_dir() + "/doctor-replayed.replay";
  const int status = std::system((pinbench_bin() + " doctor --replay " + json +
                                  " --fail-on pageable-sync-loop >" + out + " 2>&1")
                                     .c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("[pageable-sync-loop]: 6 calls, 12 MiB"), std::string::npos) << text;
}

bool have_torch() {
  return std::system(
             "python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() "
             "else 1)' >/dev/null 2>&1") == 0;
}

TEST(DoctorGpu, TorchPageableNonBlockingCopiesAreFlagged) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r = doctor("torch-pageable", "python3 " + scripts() + "/torch_pageable.py");
  EXPECT_EQ(r.code, 0);
  const DoctorFinding* f = r.find("pageable-async");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 10u);
  EXPECT_EQ(f->bytes, 10 * 4 * kMiB);
  ASSERT_FALSE(f->sites.empty());
  EXPECT_NE(f->sites.front().where.find("torch_pageable.py:6"), std::string::npos)
      << f->sites.front().where;
}

TEST(DoctorGpu, TorchPinnedCopiesAreNotFlagged) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r = doctor("torch-pinned", "python3 " + scripts() + "/torch_pinned.py");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.find("pageable-async"), nullptr);
  EXPECT_GE(r.analysis.copy_calls, 10u);
}

// --- Issue 23: the findings one GPU and one NUMA node allow (doctor_pitfalls' later modes) ---

// Where each finding's call site lies: a native site names the program's source file.
bool names_program(const DoctorFinding& f) {
  return !f.sites.empty() && f.sites.front().where.find("doctor_pitfalls.cu") != std::string::npos;
}

TEST(DoctorGpu, PinnedMemoryHeldBeyondWhatItsCopiesUse) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("pinned-unused", programs() + " pinned-unused");
  EXPECT_EQ(r.code, 0);
  const DoctorFinding* f = r.find("pinned-unused");
  ASSERT_NE(f, nullptr) << "copies must carry their host pointer (A line) for this finding";
  EXPECT_EQ(f->count, 1u);
  EXPECT_EQ(f->bytes, 60 * kMiB);  // 64 MiB page-locked, 4 MiB reached by the copies
  EXPECT_TRUE(names_program(*f)) << f->sites.front().where;
  EXPECT_EQ(r.find("pinning-critical-path"), nullptr);  // allocated before the first copy
  EXPECT_EQ(r.find("sync-after-copy"), nullptr);        // one synchronisation after five copies
}

TEST(DoctorGpu, ASlowPinnedAllocationOnTheCriticalPathIsNamed) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("slow-pin", programs() + " slow-pin");
  EXPECT_EQ(r.code, 0);
  const DoctorFinding* f = r.find("pinning-critical-path");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);  // the start-up cudaMallocHost is not on the path
  EXPECT_EQ(f->bytes, 256 * kMiB);
  EXPECT_GT(f->host_ms, kSlowPinningMs);
  ASSERT_TRUE(f->lost_ms.has_value());
  EXPECT_DOUBLE_EQ(*f->lost_ms, f->host_ms);
  EXPECT_TRUE(names_program(*f)) << f->sites.front().where;
  EXPECT_EQ(r.find("pinned-unused"), nullptr);  // both buffers copied whole
}

TEST(DoctorGpu, AStormOfSmallCopiesWithTheCalibratedCostOfABatch) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("storm", programs() + " storm");
  EXPECT_EQ(r.code, 0);
  const DoctorFinding* f = r.find("small-copy-storm");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 2000u);
  EXPECT_EQ(f->bytes, 2000u * 4096u);
  EXPECT_EQ(f->sites.size(), 1u);
  // The calibration measured 256 copies of 4 KiB three ways, each gated.
  int small = 0;
  for (const Case& c : r.record.cases) {
    if (c.part != kSmallCopyPart) continue;
    ++small;
    EXPECT_TRUE(c.verified) << c.method;
    EXPECT_EQ(c.bytes, kSmallCopyBatch * 4096u) << c.method;
  }
  EXPECT_EQ(small, 3);
  ASSERT_TRUE(f->lost_ms.has_value()) << "no batched figure: " << r.record.note;
  EXPECT_GE(*f->lost_ms, 0.0);
  EXPECT_EQ(r.find("pinned-unused"), nullptr);  // the buffer is exactly what the copies use
  EXPECT_EQ(r.find("pageable-async"), nullptr);
}

TEST(DoctorGpu, ASynchronisationAfterEveryCopy) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("sync-each", programs() + " sync-each");
  EXPECT_EQ(r.code, 0);
  const DoctorFinding* f = r.find("sync-after-copy");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 10u);
  EXPECT_EQ(f->bytes, 10 * kMiB);
  ASSERT_TRUE(f->lost_ms.has_value());
  EXPECT_GE(*f->lost_ms, 0.0);
  EXPECT_EQ(r.find("small-copy-storm"), nullptr);
}

TEST(DoctorGpu, DeviceToHostCopiesIntoPageableMemoryAskedAsAsynchronous) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r =
      doctor("pageable-d2h", programs() + " pageable-d2h", "--fail-on pageable-async-d2h");
  EXPECT_EQ(r.code, 1);  // --fail-on names the new finding
  const DoctorFinding* f = r.find("pageable-async-d2h");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 6u);
  EXPECT_EQ(f->bytes, 6 * 2 * kMiB);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_TRUE(names_program(*f)) << f->sites.front().where;
  ASSERT_TRUE(f->lost_ms.has_value());
  EXPECT_EQ(r.find("pageable-async"), nullptr);
  EXPECT_FALSE(r.analysis.headline.empty());
}

// The H200 machine has one NUMA node: placement is not judged, and the report says why.
TEST(DoctorGpu, OnOneNumaNodePlacementIsNotJudged) {
  PINBENCH_REQUIRE_GPU();
  const DoctorRun r = doctor("numa", programs() + " pinned-unused");
  const MachineInfo& m = r.record.machine;
  EXPECT_LE(m.pageable_memory_access_uses_host_page_tables, m.pageable_memory_access);
  if (m.host_numa_nodes != 1) GTEST_SKIP() << "this host has " << m.host_numa_nodes << " nodes";
  EXPECT_EQ(r.find("numa-placement"), nullptr);
  const auto it = std::find_if(r.analysis.not_judged.begin(), r.analysis.not_judged.end(),
                               [](const DoctorNotJudged& n) { return n.id == "numa-placement"; });
  ASSERT_NE(it, r.analysis.not_judged.end());
  EXPECT_NE(it->reason.find("one NUMA node"), std::string::npos) << it->reason;
  for (const Case& c : r.record.cases) EXPECT_NE(c.part, kNumaPart);  // nothing measured
}

TEST(DoctorGpu, TorchPinMemoryOfOddSizesIsRoundedUpAndHeldBeyondUse) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r = doctor("torch-pin-odd", "python3 " + scripts() + "/torch_pin_odd.py");
  EXPECT_EQ(r.code, 0);
  const DoctorFinding* f = r.find("pinned-unused");
  ASSERT_NE(f, nullptr);
  // 5, 9 and 17 MiB pinned as 8, 16 and 32 MiB by PyTorch's caching host allocator.
  EXPECT_EQ(f->count, 3u);
  EXPECT_EQ(f->bytes, (3 + 7 + 15) * kMiB);
  ASSERT_FALSE(f->sites.empty());
  EXPECT_NE(f->sites.front().where.find("torch_pin_odd.py:7"), std::string::npos)
      << f->sites.front().where;
  EXPECT_NE(f->fix_code.find("cudaHostRegister"), std::string::npos);  // PyTorch's fix
  EXPECT_EQ(r.find("pageable-async"), nullptr);
}

TEST(DoctorGpu, TorchCpuCopiesInALoopAreFlaggedAndNonBlockingOnesAreNot) {
  PINBENCH_REQUIRE_GPU();
  if (!have_torch()) GTEST_SKIP() << "no python3 with a CUDA torch";
  const DoctorRun r = doctor("torch-d2h", "python3 " + scripts() + "/torch_d2h.py");
  EXPECT_EQ(r.code, 0);
  // .cpu(): PyTorch's cudaMemcpyAsync into pageable memory, then cudaStreamSynchronize.
  const DoctorFinding* f = r.find("pageable-async-d2h");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 10u);
  EXPECT_EQ(f->bytes, 10 * 4 * kMiB);
  ASSERT_EQ(f->sites.size(), 1u);
  EXPECT_NE(f->sites.front().where.find("torch_d2h.py:8"), std::string::npos)
      << f->sites.front().where;
  const DoctorFinding* s = r.find("sync-after-copy");
  ASSERT_NE(s, nullptr);
  ASSERT_FALSE(s->sites.empty());
  EXPECT_NE(s->sites.front().where.find("torch_d2h.py:8"), std::string::npos)
      << s->sites.front().where;
  EXPECT_EQ(s->sites.front().count, 10u);
  // .to("cpu", non_blocking=True) copies into memory PyTorch page-locks for it: none of them is
  // in a pageable finding, and all 20 copies went to the host.
  EXPECT_EQ(r.analysis.bytes_d2h, 20 * 4 * kMiB);
  for (const DoctorFinding& g : r.analysis.findings) {
    for (const DoctorSiteCost& site : g.sites) {
      if (g.id.rfind("pageable", 0) == 0) {
        EXPECT_EQ(site.where.find("torch_d2h.py:10"), std::string::npos) << g.id;
      }
    }
  }
}

}  // namespace
}  // namespace pinbench
