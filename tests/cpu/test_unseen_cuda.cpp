// doctor and accel say what they could not see, never "there was nothing": on a machine without a
// CUDA driver a program's CUDA calls fail before the collector can start, and the report must say
// the driver was missing, not that the program made no CUDA calls. The real binary on a small CUDA
// program (programs/pageable_copies.cu), skipped where a driver is present; and hand-made
// sections and records for each case: nothing recorded (an older record), every process seen to
// its end without CUDA (only then "made no CUDA calls"), a process not seen to its end, one still
// running, one that asked for a driver that did not load. Also the HTML machine table of a record
// whose GPU could not be described.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "doctor_fixtures.hpp"
#include "experiments/accel/summary.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/trace.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/render/html.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/report_tables.hpp"

namespace pinbench {
using namespace experiments::accel;
using namespace experiments::doctor;
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
const std::string kProgram = PINBENCH_COPY_PROGRAM;

// A CUDA driver here would let the program's calls reach the GPU: then these runs say nothing
// about a machine without one.
bool driver_present() {
  return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD) != nullptr ||
         dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
}

#define SKIP_WHERE_A_DRIVER_IS_PRESENT()                                                        \
  if (driver_present())                                                                         \
  GTEST_SKIP() << "libcuda.so.1 loads here: the program's CUDA calls reach a driver, and this " \
                  "test is of a machine without one"

std::string text_of(const RunRecord& r) {
  return test::unwrapped(render_text(analyse(r)));
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- the real binary, on a machine without a CUDA driver --------------------------------------

TEST(UnseenCuda, DoctorSaysTheDriverWasMissingNotThatTheProgramMadeNoCudaCalls) {
  SKIP_WHERE_A_DRIVER_IS_PRESENT();
  const std::string dir = test::temp_dir();
  const test::Result r = test::run(kBin + "doctor --json " + dir + "/run.json -- " + kProgram);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the program's own status: its calls failed
  EXPECT_TRUE(has(r.out, "cudaMalloc: CUDA driver version is insufficient")) << r.out;
  const std::string err = test::unwrapped(r.err);
  EXPECT_TRUE(has(err, "No CUDA driver on this machine (libcuda.so.1 could not be loaded: "))
      << err;
  EXPECT_TRUE(has(err,
                  "the program's CUDA calls failed before they reached the GPU, and doctor "
                  "could not see them."))
      << err;
  EXPECT_FALSE(has(err, "made no CUDA calls")) << err;
  EXPECT_FALSE(has(err, "nothing to diagnose")) << err;
  EXPECT_FALSE(has(err, "no CUPTI")) << err;

  const RunRecord rec = load_record(dir + "/run.json");
  const DoctorTrace t = doctor_trace_from_json(rec.section("doctor"));
  EXPECT_TRUE(t.sight.recorded);
  EXPECT_TRUE(t.sight.driver.missing());
  EXPECT_TRUE(has(t.sight.driver.error, "libcuda.so.1")) << t.sight.driver.error;
  EXPECT_EQ(t.sight.collector, "not-started");
  EXPECT_EQ(t.sight.started, 1);
  EXPECT_EQ(t.sight.cuda_unseen, 1);  // it asked for the driver
  EXPECT_EQ(t.sight.without_cuda, 0);
  EXPECT_TRUE(has(rec.machine.no_device, "no CUDA driver on this machine"))
      << rec.machine.no_device;

  // The HTML page says so where its machine table had a row of "unknown"s.
  const test::Result html =
      test::run(kBin + "report " + dir + "/run.json --html " + dir + "/page.html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = test::read_file(dir + "/page.html");
  EXPECT_TRUE(has(page, "no GPU described: no CUDA driver on this machine")) << page;
  EXPECT_FALSE(has(page, "<dd>unknown</dd>")) << page;
  EXPECT_FALSE(has(page, "made no CUDA calls")) << page;
}

TEST(UnseenCuda, AccelSaysTheDriverWasMissingNotThatNoProcessUsedCuda) {
  SKIP_WHERE_A_DRIVER_IS_PRESENT();
  const std::string dir = test::temp_dir();
  const test::Result r = test::run(kBin + "accel --json " + dir + "/run.json -- " + kProgram);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string err = test::unwrapped(r.err);
  EXPECT_TRUE(has(err, "No CUDA driver on this machine (libcuda.so.1 could not be loaded: "))
      << err;
  EXPECT_TRUE(has(err,
                  "the program's CUDA calls failed before they reached the GPU, and accel "
                  "could not see or route them."))
      << err;
  EXPECT_FALSE(has(err, "used CUDA.")) << err;
  EXPECT_FALSE(has(err, "made no CUDA calls")) << err;
  // The processes table's cell, read whole from the CSV (the terminal's table may wrap it).
  const test::Result csv = test::run(kBin + "report " + dir + "/run.json --csv -");
  EXPECT_TRUE(has(csv.out, "none: the CUDA driver did not load")) << csv.out;

  const RunRecord rec = load_record(dir + "/run.json");
  const AccelRun run = accel_run_from_json(rec.section("accel"));
  EXPECT_TRUE(run.driver.missing());
  ASSERT_EQ(run.processes.size(), 1u);
  EXPECT_TRUE(run.processes[0].asked_driver);
  EXPECT_EQ(cuda_seen(run, 0), CudaSeen::kAsked);
}

// A program that makes no CUDA call is seen to make none, driver or no driver: the library saw
// every process to its end, and none asked for the driver.
TEST(UnseenCuda, AProgramWithoutCudaIsSeenToMakeNoneWithOrWithoutADriver) {
  const std::string dir = test::temp_dir();
  const test::Result r =
      test::run(kBin + "doctor --json " + dir + "/run.json -- sh -c 'true; " + "ls / >/dev/null'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "The program made no CUDA calls: nothing to diagnose.")) << r.err;
  const DoctorTrace t = doctor_trace_from_json(load_record(dir + "/run.json").section("doctor"));
  EXPECT_GE(t.sight.started, 2);  // the shell, and ls forked from it
  EXPECT_EQ(t.sight.without_cuda, t.sight.started);
}

// The dlopen that doctor's and accel's libraries define notes a load of the driver and changes
// nothing else: a library that finds another through its own run path still finds it (a dlopen
// that called the C library's, instead of jumping to it, would search the wrong object's paths).
TEST(UnseenCuda, TheLibrariesDlopenLeavesTheCallersRunPathsInForce) {
  const std::string program = PINBENCH_RUNPATH_PROGRAM;
  const std::string dir = std::filesystem::path(PINBENCH_BINARY).parent_path().string();
  const test::Result plain = test::run(program);
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  for (const char* library : {"libpinbench_doctor_inject.so", "libpinbench_accel.so"}) {
    const test::Result r = test::run("LD_PRELOAD=" + dir + "/" + library + " " + program);
    EXPECT_EQ(r.exit_code, 0) << library << ": " << r.out << r.err;
    EXPECT_EQ(r.out, "answer 42\n") << library;
  }
}

// --- hand-made doctor traces -------------------------------------------------------------------

DoctorTrace recorded(const std::string& lines, bool driver) {
  DoctorTrace t = parse_doctor_events(lines);
  t.command = {"./app"};
  t.sight.recorded = true;
  t.sight.driver.state = driver ? DriverSight::State::kLoaded : DriverSight::State::kMissing;
  if (!driver) t.sight.driver.error = "libcuda.so.1: cannot open shared object file";
  return t;
}

// The record as doctor writes it and reads it back.
RunRecord doctor_record(const DoctorTrace& t) {
  RunRecord r = test::record_with(t, false);
  r.sections[kDoctorSection] = to_json(t);
  return r;
}

TEST(UnseenCuda, DoctorSaysMadeNoCudaCallsOnlyWhereEveryProcessWasSeenWithoutIt) {
  // Every process seen to its end (W), none asked for the driver: made no CUDA calls.
  const DoctorTrace seen = recorded("L\t10\nL\t11\nW\t11\t0\t0\nW\t10\t0\t0\n", true);
  EXPECT_EQ(seen.sight.started, 2);
  EXPECT_EQ(seen.sight.without_cuda, 2);
  EXPECT_EQ(seen.sight.collector, "not-started");
  EXPECT_TRUE(seen_without_cuda(seen));
  EXPECT_TRUE(analyse_doctor(doctor_record(seen), seen).no_cuda);
  EXPECT_TRUE(has(text_of(doctor_record(seen)), "The program made no CUDA calls"));

  // One process killed before its end: whether it called CUDA was not seen.
  const DoctorTrace killed = recorded("L\t10\nL\t11\nW\t11\t0\t0\n", true);
  EXPECT_EQ(processes_unseen(killed), 1);
  EXPECT_FALSE(seen_without_cuda(killed));
  const std::string k = text_of(doctor_record(killed));
  EXPECT_FALSE(has(k, "made no CUDA calls")) << k;
  EXPECT_TRUE(has(k, "1 process ended without doctor's library seeing its end")) << k;
  EXPECT_TRUE(has(k, "No CUDA call was seen")) << k;

  // One still running when doctor stopped waiting.
  DoctorTrace running = recorded("L\t10\nW\t10\t0\t0\nL\t12\n", true);
  running.still_running = {"pid 12 (worker)"};
  EXPECT_FALSE(seen_without_cuda(running));
  const std::string s = text_of(doctor_record(running));
  EXPECT_FALSE(has(s, "made no CUDA calls")) << s;
  EXPECT_TRUE(has(s, "the processes still running may make them")) << s;
  EXPECT_FALSE(has(s, "ended without doctor's library")) << s;  // it is still running, not ended

  // One asked for a driver that loads, and the collector never started in it.
  const DoctorTrace failed = recorded("L\t10\nW\t10\t1\t1\n", true);
  EXPECT_EQ(failed.sight.cuda_unseen, 1);
  const std::string f = text_of(doctor_record(failed));
  EXPECT_FALSE(has(f, "made no CUDA calls")) << f;
  EXPECT_TRUE(has(f,
                  "1 process asked for or had the CUDA driver, but doctor's collector never "
                  "started in it"))
      << f;
}

TEST(UnseenCuda, DoctorWithoutADriverSaysSoAndWhetherTheProgramAsked) {
  const DoctorTrace asked = recorded("L\t10\nW\t10\t1\t0\n", false);
  const std::string a = text_of(doctor_record(asked));
  EXPECT_TRUE(has(a,
                  "No CUDA driver on this machine (libcuda.so.1 could not be loaded: "
                  "libcuda.so.1: cannot open shared object file): the program's CUDA calls "
                  "failed before they reached the GPU, and doctor could not see them."))
      << a;
  EXPECT_FALSE(has(a, "made no CUDA calls")) << a;

  // Killed before its end, without a driver: any call it made was not seen.
  const DoctorTrace killed = recorded("L\t10\n", false);
  const std::string k = text_of(doctor_record(killed));
  EXPECT_TRUE(has(k,
                  "any CUDA call the program made failed before it reached the GPU, and "
                  "doctor could not see it."))
      << k;
  EXPECT_FALSE(has(k, "made no CUDA calls")) << k;

  // No driver, and every process seen to its end without asking: made none all the same.
  const DoctorTrace none = recorded("L\t10\nW\t10\t0\t0\n", false);
  EXPECT_TRUE(has(text_of(doctor_record(none)), "The program made no CUDA calls"));
}

TEST(UnseenCuda, DoctorWithoutCuptiSaysTheCallsRanUnseen) {
  DoctorTrace t = recorded(
      "L\t10\nN\t10\tno-cupti\tCUPTI not found (libcupti.so.13: cannot open shared object "
      "file)\nW\t10\t1\t1\n",
      true);
  EXPECT_EQ(t.sight.collector, "no-cupti");
  const std::string s = text_of(doctor_record(t));
  EXPECT_TRUE(has(s, "CUPTI not found")) << s;
  EXPECT_TRUE(has(s, "the program's CUDA calls ran unseen")) << s;
  EXPECT_FALSE(has(s, "made no CUDA calls")) << s;
}

// A record made before doctor wrote what it saw (no "sight"): not known, and said so.
TEST(UnseenCuda, AnOlderDoctorRecordSaysWhatItSawWasNotRecorded) {
  const DoctorTrace t = parse_doctor_events("");
  RunRecord r = test::record_with(t, false);
  nlohmann::json section = to_json(t);
  ASSERT_FALSE(section.contains("sight"));
  r.sections[kDoctorSection] = section;
  const DoctorTrace back = doctor_trace_from_json(section);
  EXPECT_FALSE(back.sight.recorded);
  EXPECT_FALSE(analyse_doctor(r, back).no_cuda);
  const std::string s = text_of(r);
  EXPECT_FALSE(has(s, "made no CUDA calls")) << s;
  EXPECT_FALSE(has(s, "no CUPTI")) << s;
  EXPECT_TRUE(has(s, "was not recorded")) << s;
}

TEST(UnseenCuda, TheDoctorSightRoundTripsAndABadOneIsRefused) {
  const DoctorTrace t = recorded("L\t10\nW\t10\t1\t0\n", false);
  const nlohmann::json j = to_json(t);
  ASSERT_TRUE(j.contains("sight"));
  EXPECT_EQ(j["sight"]["driver"], "missing");
  const DoctorTrace back = doctor_trace_from_json(j);
  EXPECT_TRUE(back.sight.driver.missing());
  EXPECT_EQ(back.sight.driver.error, t.sight.driver.error);
  EXPECT_EQ(back.sight.cuda_unseen, 1);
  const auto refused = [&](const char* key, const nlohmann::json& value, const std::string& why) {
    nlohmann::json bad = j;
    bad["sight"][key] = value;
    try {
      doctor_trace_from_json(bad);
      ADD_FAILURE() << key << " was not refused";
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), std::string("'doctor.sight.") + key + "'")) << e.what();
      EXPECT_TRUE(has(e.what(), why)) << e.what();
    }
  };
  refused("collector", "maybe", "not one of ran, not-started");
  refused("driver", "perhaps", "not one of loaded, missing");
  refused("processes_started", 0, "fewer than the 1 processes");
  refused("collector", "ran", "but 0 processes initialised CUDA");
}

// --- hand-made accel runs ----------------------------------------------------------------------

AccelProcess process(int pid, bool exit_ran, bool asked) {
  AccelProcess p;
  p.pid = pid;
  p.program = "./app";
  p.exit_ran = exit_ran;
  p.asked_driver = asked;
  return p;
}

std::string accel_text(const AccelRun& run) {
  RunRecord r;
  r.experiment = "accel";
  r.sections[kAccelSection] = to_json(run);
  return text_of(r);
}

TEST(UnseenCuda, AccelSaysNoProcessUsedCudaOnlyWhereItSawThemEnd) {
  AccelRun run;
  run.command = {"./app"};
  run.driver.state = DriverSight::State::kLoaded;
  run.processes = {process(10, true, false)};
  EXPECT_EQ(cuda_seen(run, 0), CudaSeen::kNone);
  EXPECT_TRUE(has(accel_text(run), "None of the program's 1 process used CUDA."));

  // Ended without its exit handlers (a signal), before asking for anything: not seen.
  run.processes = {process(10, false, false)};
  EXPECT_EQ(cuda_seen(run, 0), CudaSeen::kUnseen);
  std::string s = accel_text(run);
  EXPECT_FALSE(has(s, "used CUDA.")) << s;
  EXPECT_TRUE(has(s, "whether it used CUDA was not seen")) << s;

  // Replaced by exec (a later image of the same pid), without asking: seen to that end.
  run.processes = {process(10, false, false), process(10, true, false)};
  EXPECT_EQ(cuda_seen(run, 0), CudaSeen::kNone);

  // No driver, and the process asked for it.
  run.driver = {DriverSight::State::kMissing, "libcuda.so.1: cannot open shared object file"};
  run.processes = {process(10, false, true)};
  EXPECT_EQ(cuda_seen(run, 0), CudaSeen::kAsked);
  s = accel_text(run);
  EXPECT_TRUE(has(s, "No CUDA driver on this machine")) << s;
  EXPECT_TRUE(has(s, "accel could not see or route them")) << s;
  EXPECT_FALSE(has(s, "used CUDA.")) << s;

  // No driver, and the process seen to its end without asking: it used none all the same.
  run.processes = {process(10, true, false)};
  s = accel_text(run);
  EXPECT_TRUE(has(s, "None of the program's 1 process used CUDA.")) << s;
  EXPECT_FALSE(has(s, "could not see or route")) << s;

  // A record made before accel wrote the driver: whether the processes used CUDA is not known.
  run.driver = DriverSight{};
  run.processes = {process(10, true, false)};
  EXPECT_EQ(cuda_seen(run, 0), CudaSeen::kUnseen);
  s = accel_text(run);
  EXPECT_FALSE(has(s, "used CUDA.")) << s;
  EXPECT_TRUE(has(s, "was not recorded")) << s;
}

// --- the machine of a record that describes no GPU, for any experiment --------------------------

TEST(UnseenCuda, AMachineWithoutAGpuSaysWhyNotARowOfUnknowns) {
  MachineInfo m;
  m.hostname = "box";
  m.host_cpu = "Some CPU";
  m.host_logical_cpus = 4;
  m.host_memory_bytes = std::uint64_t{8} << 30;
  m.os = "Linux 6.1 x86_64";
  m.no_device = "no CUDA driver on this machine (libcuda.so.1 could not be loaded)";
  ASSERT_TRUE(no_device_described(m));
  const auto fields = machine_fields(m);
  for (const auto& [key, value] : fields) EXPECT_NE(value, "unknown") << key;
  const auto device =
      std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.first == "Device"; });
  ASSERT_NE(device, fields.end());
  EXPECT_EQ(device->second, "no GPU described: " + m.no_device);
  EXPECT_EQ(machine_line(m).rfind("no GPU described: no CUDA driver", 0), 0u) << machine_line(m);

  // Every experiment's record: a check record here, its page without a row of "unknown"s.
  RunRecord check;
  check.experiment = "check";
  check.pinbench_version = "0.1.0";
  check.created_utc = "2026-12-06T10:00:00Z";
  check.machine = m;
  const std::string page = render_html(check, analyse(check), HtmlExtras{});
  EXPECT_TRUE(has(page, "no GPU described: no CUDA driver on this machine")) << page;
  EXPECT_FALSE(has(page, "<dd>unknown</dd>")) << page;

  // The record keeps the reason; a reason beside a described GPU is refused.
  const RunRecord back = record_from_json(to_json(check));
  EXPECT_EQ(back.machine.no_device, m.no_device);
  nlohmann::json bad = to_json(check);
  bad["machine"]["device_name"] = "NVIDIA H200";
  EXPECT_THROW(record_from_json(bad), InputError);
}

}  // namespace
}  // namespace pinbench
