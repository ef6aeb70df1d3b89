// `pinbench doctor [options] -- PROGRAM [ARGS...]`: runs PROGRAM with pinbench's injection
// library (src/experiments/doctor/inject/), then turns what it collected into a doctor record,
// calibrates the machine's rates at the sizes the program copied, and prints the findings
// (experiments/doctor/analysis.hpp). `--replay FILE` prints a recorded run.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "cli/command_help.hpp"
#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "cli/outputs.hpp"
#include "cli/paths.hpp"
#include "cli/program.hpp"
#include "cli/program_command.hpp"
#include "cli/replay.hpp"
#include "cuda/cupti_trace.hpp"
#include "cuda/device.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/calibration.hpp"
#include "experiments/doctor/events.hpp"
#include "experiments/doctor/symbolise.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/interrupt.hpp"
#include "framework/printable.hpp"
#include "framework/program_config.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/text.hpp"
#include "framework/text_file.hpp"
#include "framework/trace_model.hpp"
#include "measure/run_record.hpp"

namespace pinbench::experiments::doctor {
namespace {

using namespace pinbench::cli;

constexpr const char* kInjectName = "libpinbench_doctor_inject.so";

struct DoctorFlags : ProgramFlags {
  std::string trace, rates, fail_on;
  bool no_calibration = false;
  bool no_python_gil = false;
  bool all_copies = false;
  int flush_ms = 100;  // how often the collector flushes CUPTI's activity records; 0: at the end
};

std::vector<std::string> parse_fail_on(const std::string& list) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t to = std::min(list.find(',', from), list.size());
    const std::string id = list.substr(from, to - from);
    const std::vector<std::string>& ids = doctor_finding_ids();
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      std::string names;
      for (const std::string& n : ids) names += (names.empty() ? "" : ", ") + n;
      throw InputError(fmt::format("--fail-on: unknown finding '{}' (one of {})", id, names));
    }
    out.push_back(id);
    from = to + 1;
  }
  return out;
}

// The registered experiments whose records --rates takes (their descriptors' copy_rates), for the
// message that refuses another: "lesson, sweep, bandwidthtest or doctor".
std::string rate_experiment_names() {
  std::vector<std::string> names;
  for (const Experiment* e : all_experiments()) {
    if (e->descriptor().copy_rates) names.push_back(e->descriptor().name);
  }
  return or_list(names);
}

// A case a program's copy can be judged by: host to device or back, from pinned or pageable
// memory, one buffer by the copy engine (a sweep's SM-kernel copies are not what cudaMemcpy
// gets; doctor's small-copy and NUMA parts are its own).
bool rate_case(const Case& c) {
  return (c.direction == "h2d" || c.direction == "d2h") &&
         (c.memory == "pinned" || c.memory == "pageable") && c.method != "sm" &&
         c.part != kSmallCopyPart && c.part != kNumaPart;
}

// The rates of a record whose experiment has copy_rates (a sweep, bandwidthtest, lesson or
// doctor record): its host-side cases, pinned and pageable. Checked before the program runs, so a
// bad file is exit 2 without a run wasted.
RunRecord load_rates(const std::string& path) {
  RunRecord rates = load_record(path);
  if (!experiment_for(rates.experiment).descriptor().copy_rates) {
    throw InputError(fmt::format(
        "--rates '{}' is a record of experiment '{}', whose cases are not rates of one copy: "
        "give a {} record",
        path, rates.experiment, rate_experiment_names()));
  }
  const bool pinned = std::any_of(rates.cases.begin(), rates.cases.end(), [](const Case& c) {
    return rate_case(c) && c.memory == "pinned";
  });
  if (!pinned) {
    throw InputError(
        fmt::format("--rates '{}': the record has no page-locked host-to-device or "
                    "device-to-host case to take rates from",
                    path));
  }
  return rates;
}

void take_rates(RunRecord& record, const RunRecord& rates, const std::string& path) {
  // The rates record's gates by name (the first of a name), and the names the record holds
  // already: a case's gate is found, not searched for, so a rates record of many cases is taken
  // in time proportional to it. A gate is taken once, where its first case comes.
  std::unordered_map<std::string, const Gate*> gates;
  for (const Gate& g : rates.gates) gates.emplace(g.name, &g);
  std::unordered_set<std::string> held;
  for (const Gate& h : record.gates) held.insert(h.name);
  for (const Case& c : rates.cases) {
    if (!rate_case(c)) continue;
    record.cases.push_back(c);
    const auto it = gates.find(c.gate);
    if (it == gates.end() || held.count(c.gate) > 0) continue;
    record.gates.push_back(*it->second);
    held.insert(c.gate);
  }
  DoctorRecordConfig written;
  written.rates_from =
      fmt::format("'{}', recorded {} on {}", path, rates.created_utc, rates.machine.device_name);
  put_fields(record.config, written);
}

int exit_for(const DoctorTrace& t, const RunRecord& record, const std::vector<std::string>& fail_on,
             int program_code) {
  if (program_code != 0) return program_code;
  if (fail_on.empty()) return 0;
  const DoctorAnalysis a = analyse_doctor(record, t);
  for (const DoctorFinding& f : a.findings) {
    if (std::find(fail_on.begin(), fail_on.end(), f.id) != fail_on.end()) return 1;
  }
  return 0;
}

// The collector's file (events::EventFile): its header, then room for the lines, sparse,
// so it takes on disk what the program writes. Its path; InputError when it cannot be made.
std::string create_collector_file() {
  using File = events::EventFile;
  const std::string dir = std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp";
  std::string path = dir + "/pinbench-doctor-XXXXXX";
  const int fd = mkstemp(path.data());
  const auto refuse = [&](const char* what) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) {
      close(fd);
      unlink(path.c_str());
    }
    throw InputError(fmt::format("cannot {} the collector's file in {}: {}", what, dir, why));
  };
  if (fd < 0) refuse("create");
  const File::Header header{File::kMagic, 0};
  if (pwrite(fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) refuse("write");
  if (ftruncate(fd, static_cast<off_t>(File::kHeaderBytes + File::kCapacity)) != 0) {
    refuse("size");
  }
  close(fd);
  return path;
}

// What the program's processes wrote: the mapped file's lines as far as its counter says, then
// the overflow file's. "" when neither can be read (the program never started the collector).
std::string read_collector_file(const std::string& path, const std::string& overflow,
                                std::uint64_t& cut) {
  using File = events::EventFile;
  cut = 0;
  std::string lines;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    File::Header header{};
    if (pread(fd, &header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
        header.magic == File::kMagic) {
      lines.resize(std::min(header.used, File::kCapacity));
      std::size_t got = 0;
      while (got < lines.size()) {
        const ssize_t n = pread(fd, lines.data() + got, lines.size() - got,
                                static_cast<off_t>(File::kHeaderBytes + got));
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      lines.resize(got);
    }
    close(fd);
  }
  std::string more;
  if (access(overflow.c_str(), F_OK) == 0) {
    try {
      more = read_input_file(overflow, std::uint64_t{1} << 34, "collector file");
    } catch (const InputError&) {
      more.clear();
    }
  }
  return collector_lines(lines, more, cut);
}

// The environment that loads doctor's library into every process of the program (with
// LD_PRELOAD, which run_with_library sets) and tells it where to write.
std::vector<std::string> collector_env(const std::string& inject, const std::string& events_path,
                                       const DoctorFlags& flags) {
  std::string cupti;
  for (const std::string& c :
       cuda::cupti_candidates(std::getenv("CUPTI_PATH"), std::getenv("CUDA_HOME"))) {
    cupti += (cupti.empty() ? "" : ":") + c;
  }
  // Preloaded too, so that a process ending without its exit handlers (_exit, exec) flushes
  // the collector first; the driver's load of the same path finds it loaded.
  std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + inject,
                                  "PINBENCH_DOCTOR_EVENTS=" + events_path,
                                  "PINBENCH_DOCTOR_CUPTI=" + cupti};
  if (flags.no_python_gil) env.push_back("PINBENCH_DOCTOR_PYTHON_GIL=0");
  // A timeline shows every copy, so every copy's device times are kept for it.
  if (flags.all_copies || !flags.trace.empty()) env.push_back("PINBENCH_DOCTOR_ALL_COPIES=1");
  env.push_back(fmt::format("PINBENCH_DOCTOR_FLUSH_MS={}", flags.flush_ms));
  return env;
}

// The program as doctor saw it run: its trace, how it ended, and when it started.
struct Collected {
  DoctorTrace trace;
  cli::ProgramExit done;
  SteadyClock::time_point start;
};

// Runs the program with doctor's library in it, and reads back what its processes wrote.
Collected run_collected(const cli::ProgramToRun& program, const DoctorFlags& flags) {
  // The collector's file: created here, written by every process of the program, read after.
  const std::string events_path = create_collector_file();
  const std::string overflow_path = events_path + events::EventFile::kOverflowSuffix;

  Collected out;
  out.start = SteadyClock::now();
  cli::ProgramExit& done = out.done;
  ProgramRun ran;
  try {
    done = cli::run_with_library(program, flags,
                                 {"doctor's library goes before it, which changes nothing it does",
                                  {"PINBENCH_DOCTOR_", "CUDA_INJECTION64_PATH="},
                                  collector_env(program.library, events_path, flags)},
                                 ran);
  } catch (...) {
    unlink(events_path.c_str());
    unlink(overflow_path.c_str());
    throw;
  }
  std::uint64_t cut = 0;
  const std::string text = read_collector_file(events_path, overflow_path, cut);
  unlink(events_path.c_str());
  unlink(overflow_path.c_str());

  DoctorTrace& t = out.trace;
  t = parse_doctor_events(text);
  if (cut > 0) {
    t.notes.push_back(
        fmt::format("{} event line(s) were cut short (a process died writing them)", cut));
  }
  static_cast<ProgramRun&>(t) = ran;
  t.sight.recorded = true;
  t.sight.driver = done.driver;
  pinbench::experiments::doctor::symbolise(t);
  for (const std::string& n : t.notes) {
    if (n.find("held by another profiler") != std::string::npos) {
      std::fprintf(stderr, "pinbench: note: %s; the program ran without doctor\n",
                   printable(n).c_str());
    }
  }
  return out;
}

// Why a record of this run describes no GPU where the collector started in no process: no driver;
// or, where a process asked for one, what pinbench's own CUDA says (asked now, the program gone);
// or that none was asked for.
std::string no_device_reason(const DoctorTrace& t) {
  if (t.sight.driver.missing()) return no_driver_words(t.sight.driver);
  if (t.processes == 0 && t.sight.cuda_unseen > 0) {
    const std::string why = cuda::no_device_reason();
    if (!why.empty()) return "no usable GPU: " + why;
  }
  return "not asked for: doctor saw no process of the program use CUDA";
}

// The record of the run: the machine, and the rates (a sweep record, or a short calibration now
// that the program is gone).
RunRecord doctor_record(const DoctorTrace& t, const DoctorFlags& flags,
                        const std::optional<RunRecord>& rates) {
  std::vector<std::pair<std::string, std::uint64_t>> copies;
  for (const DoctorCall& c : t.calls) {
    for (const Copy& k : c.copies) {
      if (k.src_kind == DriverMemoryKind::kPageable || k.dst_kind == DriverMemoryKind::kPageable)
        copies.emplace_back(to_string(k.direction), k.bytes);
    }
  }
  // The machine is described (and calibrated) only once the program is gone, so pinbench's own
  // CUDA context never shares the GPU with it; a program whose CUDA calls doctor did not see needs
  // neither, and the record says why it describes no GPU.
  RunRecord record = start_host_record("doctor", no_device_reason(t));
  if (t.processes > 0) {
    try {
      record = start_record("doctor", nlohmann::json::object());
      if (!copies.empty() && flags.rates.empty() && !flags.no_calibration) {
        calibrate_doctor(record, calibration_sizes(copies, 4, std::uint64_t{256} << 20));
      }
      if (flags.rates.empty() && !flags.no_calibration) {
        calibrate_doctor_plan(record, doctor_calibration_plan(record.machine, t));
      }
    } catch (const NoGpuError& e) {
      std::fprintf(stderr, "pinbench: note: no calibration (%s); time lost is not estimated\n",
                   e.what());
      record = start_host_record("doctor", e.what());
    }
  }
  if (rates) take_rates(record, *rates, flags.rates);
  put_fields(record.config, ProgramRecordConfig{flags.program.front()});
  record.sections[kDoctorSection] = to_json(t);
  return record;
}

int replay_doctor(const CLI::App& sub, const DoctorFlags& flags,
                  const std::vector<std::string>& fail_on) {
  const RunRecord record = load_program_replay(sub, flags, "doctor", {"--fail-on"});
  const nlohmann::json& section = record.section(kDoctorSection);
  if (section.is_null()) {
    throw InputError(fmt::format("run record '{}' holds no doctor trace", flags.replay));
  }
  const int code = print_run(record, {}, true);
  return exit_for(doctor_trace_from_json(section), record, fail_on, code);
}

int run_doctor(const CLI::App& sub, DoctorFlags& flags) {
  const std::vector<std::string> fail_on = parse_fail_on(flags.fail_on);
  if (!flags.replay.empty()) return replay_doctor(sub, flags, fail_on);
  if (const char* other = std::getenv("CUDA_INJECTION64_PATH"); other != nullptr && *other) {
    throw InputError(fmt::format(
        "CUDA_INJECTION64_PATH is already set ({}): another CUDA tool is attached, and doctor "
        "needs that variable for its own library",
        other));
  }
  const cli::ProgramToRun program =
      cli::program_to_run(flags, "doctor", kInjectName, "pinbench_doctor_inject");
  std::vector<NamedPath> inputs = program.inputs;
  inputs.push_back({flags.rates, "rates record"});
  check_output_paths({flags.json, "", "", flags.trace}, kProgramOutput, inputs);
  std::optional<RunRecord> rates;
  if (!flags.rates.empty()) rates = load_rates(flags.rates);

  const Collected run = run_collected(program, flags);
  const DoctorTrace& t = run.trace;
  RunRecord record = doctor_record(t, flags, rates);
  finish_record(record, run.start);

  const ReportModel model = analyse(record);
  std::fputs("\n", stderr);
  std::fputs(render_text(model).c_str(), stderr);
  if (!flags.json.empty()) {
    save_record(record, flags.json);
    std::fprintf(stderr, "Record written to %s (pinbench doctor --replay %s)\n",
                 printable(flags.json).c_str(), printable(flags.json).c_str());
  }
  if (!flags.trace.empty()) {
    write_perfetto(doctor_timeline(t), flags.trace);
    std::fprintf(stderr, "Timeline written to %s (open it in ui.perfetto.dev)\n",
                 printable(flags.trace).c_str());
  }
  return exit_for(t, record, fail_on, cli::exit_status_of(run.done));
}

Command add_doctor(CLI::App& app) {
  CLI::App* sub = add_command(app, "doctor");
  auto flags = std::make_shared<DoctorFlags>();
  sub->add_option("--trace", flags->trace, "Write a Perfetto timeline of what was seen to FILE")
      ->type_name("FILE");
  sub->add_option("--rates", flags->rates,
                  "Take the machine's rates from a sweep record instead of calibrating")
      ->type_name("FILE");
  sub->add_flag("--no-calibration", flags->no_calibration,
                "Skip the calibration after the program: no estimate of time lost");
  sub->add_flag("--all-copies", flags->all_copies,
                "Record every copy's device times, page-locked ones too (the default pauses that "
                "after 1024 page-locked copies in a row; --trace implies it)");
  sub->add_flag("--no-python-gil", flags->no_python_gil,
                "Read Python frames only where the calling thread holds the GIL already");
  whole<int>(sub->add_option(
                 "--flush-ms", flags->flush_ms,
                 "How often each process flushes CUPTI's activity records, in ms (0: only as it "
                 "ends). A process killed outright loses what was not flushed, and its copies are "
                 "judged from the calls"),
             0, 60000)
      ->capture_default_str()
      ->type_name("MS");
  sub->add_option("--fail-on", flags->fail_on,
                  "Exit 1 when one of these findings exists (comma-separated finding ids, as "
                  "the report shows them in brackets: docs/doctor.md lists them)")
      ->type_name("LIST");
  add_program_options(sub, *flags, "doctor");
  return {sub, [sub, flags] { return run_doctor(*sub, *flags); }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_doctor(app)};
}

}  // namespace pinbench::experiments::doctor
