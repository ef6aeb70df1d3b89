// accel's section of the report model (report.hpp): a table of processes, one of every outcome
// with copies, and the routed copies by size with the rate the program's threads saw (bytes over
// the time they spent in the calls: for a copy to the device that returns once its source is
// read, slightly above the copy's own rate).
#include "experiments/accel/report.hpp"

#include <algorithm>
#include <iterator>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/accel/summary.hpp"
#include "framework/program_sight.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::accel {
namespace {

std::optional<double> rate_of(const AccelTally& t) {
  if (t.host_ms <= 0 || t.bytes == 0) return std::nullopt;
  return static_cast<double>(t.bytes) / (t.host_ms * 1e6);
}

std::string rate_cell(const AccelTally& t) {
  const std::optional<double> r = rate_of(t);
  return r ? fmt::format("{:.2f}", *r) : kDash;
}

std::string mib_of(std::uint64_t bytes) {
  return fmt::format("{:.1f}", static_cast<double>(bytes) / (1 << 20));
}

std::string ended(const AccelProcess& p) {
  if (p.exit_ran) return fmt::format("exit, {:.0f} ms", p.wall_ms);
  return "no exit handlers (_exit, exec or a signal)";
}

std::string reach(const AccelProcess& p) {
  if (out_of_reach(p)) return "out of reach";
  if (p.called && p.via_driver) {
    return p.via_runtime ? "shared runtime and driver" : "driver entry points";
  }
  if (p.called) return p.cupy ? "shared runtime; CuPy out of reach" : "shared runtime";
  if (p.asked_driver) return "none: the CUDA driver did not load";
  if (!p.exit_ran) return "no copy calls seen";
  return p.driver ? "out of reach" : "no CUDA";
}

// Whether the calls of an outcome hold the program's thread until their copy is done (or, to
// the device, its source read), so that bytes over host time is a rate: the engine's, and the
// runtime's copies of pageable memory. Page-locked, managed and device-to-device copies may
// return at once from an asynchronous call, and a captured, refused, failed or erroneous call (a
// forked child's CUDA is unusable) may copy nothing: their host time says nothing of a copy.
bool host_time_is_copy_time(const std::string& outcome) {
  static const char* const kHeld[] = {"routed", "small", "engine-unavailable", "other-device"};
  return std::find(std::begin(kHeld), std::end(kHeld), outcome) != std::end(kHeld);
}

std::vector<std::string> tally_cells(const AccelTally& t, bool rate = true) {
  return {std::to_string(t.copies), mib_of(t.bytes), fmt::format("{:.3f}", t.host_ms),
          rate ? rate_cell(t) : std::string(kDash)};
}

// The notes on the run: how the program ended, what went through the engine, and what each
// process could not show.
void add_run_notes(const AccelRun& run, ReportModel& m) {
  m.notes.push_back(
      run.signal.empty()
          ? fmt::format("Program: exited with status {} after {:.1f} ms.", run.exit_status,
                        run.wall_ms)
          : fmt::format("Program: killed by {} after {:.1f} ms; what its processes counted up "
                        "to then is kept.",
                        run.signal, run.wall_ms));
  const AccelTally routed = total(run, "", "routed");
  const AccelTally all = total(run, "", "");
  m.notes.push_back(
      all.copies == 0
          ? std::string("No copy call reached accel.")
          : fmt::format("{} of {} copy calls went through the staged engine ({} of {} MiB); the "
                        "rest passed on to the CUDA runtime unchanged.",
                        routed.copies, all.copies, mib_of(routed.bytes), mib_of(all.bytes)));
  int unreached = 0;
  for (const AccelProcess& p : run.processes) {
    if (out_of_reach(p)) ++unreached;
    if (p.cupy && p.called && !p.via_driver) {
      m.notes.push_back(fmt::format(
          "Process {} loaded CuPy: CuPy's own copies reach the driver without the shared "
          "runtime, out of accel's reach; only the shared runtime's copies are counted.",
          p.pid));
    }
    if (p.engines > 0 && p.engine_setup_ms > 0) {
      m.notes.push_back(fmt::format(
          "Process {} made {} engine{} ({} MiB page-locked for staging) in {:.1f} ms, inside its "
          "first routed copies: their host time includes it.",
          p.pid, p.engines, p.engines == 1 ? "" : "s", mib_of(p.staging_bytes), p.engine_setup_ms));
    }
    if (!p.note.empty()) {
      m.notes.push_back(fmt::format("Process {}: no engine: {}", p.pid, p.note));
    }
  }
  if (unreached > 0) {
    m.notes.push_back(fmt::format(
        "{} process{} used CUDA but made no copy call accel could see: {} copies were out of "
        "its reach (a program that found the driver some way other than its entry-point lookup "
        "or libcuda's symbols, or a library accel was not preloaded into); they ran as without "
        "accel.",
        unreached, unreached == 1 ? "" : "es", unreached == 1 ? "its" : "their"));
  }
  if (const std::string left = still_running_words(run.still_running, "accel"); !left.empty()) {
    m.notes.push_back(left +
                      ": their copies up to then are counted where their counter files could be "
                      "read, and none after it.");
  }
  if (run.unreadable > 0) {
    m.notes.push_back(fmt::format("{} process counter file{} could not be read.", run.unreadable,
                                  run.unreadable == 1 ? "" : "s"));
  }
}

// What accel could not see, and why: no driver; processes whose end it did not see; a record
// made before it wrote what it saw. One sentence each. `none`: the processes seen to their end
// without CUDA; `unseen`: those it could not tell.
void add_unseen_notes(const AccelRun& run, int none, int unseen, ReportModel& m) {
  // Where every process was seen without CUDA, the missing driver hid nothing.
  const bool seen_all = none == static_cast<int>(run.processes.size()) && none > 0 &&
                        run.unreadable == 0 && run.still_running.empty();
  if (run.driver.missing() && !seen_all) {
    const bool tried = std::any_of(run.processes.begin(), run.processes.end(),
                                   [](const AccelProcess& p) { return p.asked_driver; });
    m.notes.push_back(no_driver_sentence(run.driver, "accel", "see or route", tried));
  }
  if (unseen == 0) return;
  m.notes.push_back(
      run.driver.recorded()
          ? fmt::format("{} ended without {} exit handlers (_exit or a signal) before asking for "
                        "the CUDA driver: whether {} used CUDA was not seen.",
                        processes_words(unseen), unseen == 1 ? "its" : "their",
                        unseen == 1 ? "it" : "they")
          : fmt::format("Whether {} used CUDA was not recorded (a record made before pinbench "
                        "wrote it).",
                        processes_words(unseen)));
}

// The processes that used CUDA or asked for its driver, as a table; then what the others did, as
// far as accel saw: "made no CUDA calls" only for those seen to their end without asking.
void add_processes(const AccelRun& run, ReportModel& m) {
  ReportTable procs;
  procs.id = "accel-processes";
  procs.title = "Processes";
  procs.header = {"pid", "parent", "program", "ended", "copies reached accel by", "engines"};
  procs.numeric = {true, true, false, false, false, true};
  int none = 0, unseen = 0;
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const AccelProcess& p = run.processes[i];
    const CudaSeen seen = cuda_seen(run, i);
    if (seen == CudaSeen::kNone) ++none;
    if (seen == CudaSeen::kUnseen) ++unseen;
    if (seen == CudaSeen::kNone || seen == CudaSeen::kUnseen) continue;  // counted below
    procs.rows.push_back({std::to_string(p.pid), std::to_string(p.parent_pid), p.program, ended(p),
                          reach(p), std::to_string(p.engines)});
  }
  add_unseen_notes(run, none, unseen, m);
  // Counts up to then, for a process still running when accel stopped waiting.
  const char* by_then = run.still_running.empty() ? ""
                                                  : " (as far as accel saw before it "
                                                    "stopped waiting)";
  if (run.processes.empty()) {
    m.notes.push_back(
        "accel's library was loaded into no process of the program (it did not start, or it was "
        "started without LD_PRELOAD): nothing of it was seen.");
  } else if (procs.rows.empty() && unseen == 0 && run.unreadable == 0) {
    m.notes.push_back(
        fmt::format("None of the program's {} used CUDA{}.", processes_words(none), by_then));
  } else if (procs.rows.empty()) {
    if (none > 0) {
      m.notes.push_back(fmt::format("{} made no CUDA calls{}.", processes_words(none), by_then));
    }
  } else {
    if (none > 0) {
      procs.notes.push_back(fmt::format("{} other {} made no CUDA calls{}.", none,
                                        none == 1 ? "process" : "processes", by_then));
    }
    m.tables.push_back(std::move(procs));
  }
}

ReportTable outcomes_table(const AccelRun& run) {
  ReportTable copies;
  copies.id = "accel-copies";
  copies.title = "Copy calls by outcome";
  copies.header = {"pid", "direction", "outcome", "calls", "MiB", "host ms", "GB/s"};
  copies.numeric = {true, false, false, true, true, true, true};
  for (const AccelProcess& p : run.processes) {
    for (const AccelOutcome& o : p.outcomes) {
      std::vector<std::string> row = {std::to_string(p.pid), direction_words(o.direction),
                                      o.outcome + ": " + outcome_text(o.outcome)};
      for (std::string& cell : tally_cells(o.tally, host_time_is_copy_time(o.outcome))) {
        row.push_back(std::move(cell));
      }
      copies.rows.push_back(std::move(row));
    }
  }
  copies.notes.push_back(
      "GB/s is bytes over the time the program's threads spent in the calls (10^9 bytes per "
      "second); a copy to the device returns once its source is read, as the runtime's does. "
      "No GB/s (a dash) where a call may return before its copy is done, or copy nothing "
      "(page-locked, managed, device to device, captured, refused, failed): its time is not a "
      "copy's.");
  return copies;
}

ReportTable sizes_table(const AccelRun& run) {
  ReportTable sizes;
  sizes.id = "accel-sizes";
  sizes.title = "Routed copies by size";
  sizes.header = {"pid", "direction", "size from", "calls", "MiB", "host ms", "GB/s"};
  sizes.numeric = {true, false, true, true, true, true, true};
  for (const AccelProcess& p : run.processes) {
    for (const AccelSize& s : p.routed_sizes) {
      std::vector<std::string> row = {std::to_string(p.pid), direction_words(s.direction),
                                      format_size(s.from_bytes)};
      for (std::string& cell : tally_cells(s.tally)) row.push_back(std::move(cell));
      sizes.rows.push_back(std::move(row));
    }
  }
  sizes.notes.push_back("Each row holds copies from its size up to twice it.");
  return sizes;
}

// The page's picture: how many bytes each outcome carried, each way, over every process.
ChartSpec bytes_chart(const AccelRun& run) {
  ChartSpec chart = make_chart(ChartKind::kBars, "accel-bytes", "Bytes by outcome");
  chart.axis_title = "MiB";
  chart.value_suffix = " MiB";
  chart.decimals = 1;
  chart.caption =
      "The bytes of the program's copy calls, by direction and by what accel did "
      "with them (routed through the staged engine, or passed on and why), over "
      "every process";
  for (const char* direction : {"h2d", "d2h", "other"}) {
    for (const std::string& outcome : outcome_names()) {
      const AccelTally t = total(run, direction, outcome);
      if (t.copies == 0) continue;
      chart.bars.push_back({direction_words(direction) + ", " + outcome, outcome,
                            static_cast<double>(t.bytes) / (1 << 20),
                            fmt::format("{} calls", t.copies)});
    }
  }
  return chart;
}

}  // namespace

void build_accel_model(const RunRecord& r, ReportModel& m) {
  const nlohmann::json& section = r.section(kAccelSection);
  if (section.is_null()) {
    m.notes.push_back("This accel record holds no counts of a program.");
    return;
  }
  const AccelRun run = accel_run_from_json(section);
  std::string program;
  for (const std::string& arg : run.command) program += (program.empty() ? "" : " ") + arg;
  m.title = fmt::format("pinbench accel: {}", program.empty() ? "(no program)" : program);
  m.nothing_checked = true;
  m.figures_are =
      "Figures are what accel's library counted in each process: calls, bytes, and the time the "
      "program's threads spent in them";
  add_run_notes(run, m);
  add_processes(run, m);
  ReportTable copies = outcomes_table(run);
  if (!copies.rows.empty()) m.tables.push_back(std::move(copies));
  ReportTable sizes = sizes_table(run);
  if (!sizes.rows.empty()) m.tables.push_back(std::move(sizes));
  ChartSpec chart = bytes_chart(run);
  if (!chart.bars.empty()) m.charts.push_back(std::move(chart));
}

ExperimentComparison compare_accel(const RunRecord& a, const RunRecord& b) {
  const auto run_of = [](const RunRecord& r) {
    const nlohmann::json& section = r.section(kAccelSection);
    return section.is_null() ? AccelRun{} : accel_run_from_json(section);
  };
  const AccelRun ra = run_of(a);
  const AccelRun rb = run_of(b);
  ExperimentComparison out;
  TextTable t({"direction", "outcome", "A calls", "A MiB", "A GB/s", "B calls", "B MiB", "B GB/s",
               "B/A", "flag"},
              {false, false, true, true, true, true, true, true, true, false});
  t.key_columns(2);
  std::vector<std::string> worse;
  for (const char* direction : {"h2d", "d2h", "other"}) {
    for (const std::string& outcome : outcome_names()) {
      const AccelTally x = total(ra, direction, outcome), y = total(rb, direction, outcome);
      if (x.copies == 0 && y.copies == 0) continue;
      const bool rated = host_time_is_copy_time(outcome);
      const std::optional<double> rx = rated ? rate_of(x) : std::nullopt;
      const std::optional<double> ry = rated ? rate_of(y) : std::nullopt;
      std::optional<double> ratio;
      if (rx && ry) ratio = *ry / *rx;
      std::string flag;
      if (outcome == "routed" && y.copies < x.copies) {
        flag = "fewer routed";
        worse.push_back(fmt::format("{}: B routed {} calls, A {}", direction_words(direction),
                                    y.copies, x.copies));
      } else if (outcome == "routed" && ratio && *ratio < 1.0 - kAccelSlower) {
        flag = fmt::format("slower by more than {:g}%", 100 * kAccelSlower);
        worse.push_back(fmt::format("{}: routed copies at {:.2f} GB/s in B against {:.2f} in A",
                                    direction_words(direction), *ry, *rx));
      }
      const auto cell = [](const std::optional<double>& v) {
        return v ? fmt::format("{:.2f}", *v) : kDash;
      };
      t.add_row({direction_words(direction), outcome, std::to_string(x.copies), mib_of(x.bytes),
                 cell(rx), std::to_string(y.copies), mib_of(y.bytes), cell(ry),
                 ratio ? fmt::format("{:.3f}", *ratio) : kDash, flag});
    }
  }
  out.text =
      "What accel routed and passed on, A against B (GB/s: bytes over the time the program's "
      "threads spent in the calls, 10^9 bytes per second; none where a call may return before "
      "its copy is done):\n\n" +
      t.render();
  const AccelTally all_a = total(ra, "", ""), all_b = total(rb, "", "");
  if (all_a.copies == 0 && all_b.copies == 0)
    out.text += "  (no copy call reached accel in either)\n";
  out.differs = !worse.empty();
  out.text += worse.empty()
                  ? fmt::format("\nB routes as much as A, at no more than {:g}% below its rate.\n",
                                100 * kAccelSlower)
                  : fmt::format("\nB is worse: {}.\n", fmt::join(worse, "; "));
  return out;
}

}  // namespace pinbench::experiments::accel
