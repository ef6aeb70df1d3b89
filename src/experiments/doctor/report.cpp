// The doctor record as the report model shows it (analysis.hpp): every printer, text,
// markdown, HTML and CSV, renders these tables and this chart.
#include <algorithm>

#include <fmt/format.h>

#include "experiments/doctor/analysis.hpp"
#include "framework/program_sight.hpp"
#include "framework/report_model.hpp"
#include "framework/report_tables.hpp"
#include "framework/trace_model.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor {
namespace {

std::string doctor_ms(const std::optional<double>& v) {
  return v ? fmt::format("{:.3f}", *v) : std::string("-");
}

std::string gbps(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v) : std::string("-");
}

}  // namespace

Trace doctor_timeline(const DoctorTrace& t) {
  Trace out;
  out.source = "pinbench doctor (" + t.cupti + ")";
  out.notes = t.notes;
  out.dropped_records = t.dropped_records;
  std::uint32_t correlation = 0;
  for (const DoctorCall& c : t.calls) {
    ++correlation;
    out.api_calls.push_back({doctor_api_name(c.api), c.start_ns, c.end_ns, c.thread,
                             c.copies.empty() ? 0u : correlation});
    for (Copy k : c.copies) {
      k.correlation = correlation;
      out.copies.push_back(k);
    }
  }
  for (Kernel k : t.kernels) {
    k.name = "kernel";
    out.kernels.push_back(std::move(k));
  }
  return out;
}

namespace {

// What the collector saw through, for the Program line: CUPTI and its version, why CUPTI could
// not be used, or that the collector started in no process.
std::string collector_words(const DoctorTrace& t) {
  // "CUPTI 130001" is the version CUPTI (NVIDIA's tracing library) reported: say what it is.
  if (t.cupti.rfind("CUPTI ", 0) == 0) {
    return fmt::format(
        "calls and copies seen through CUPTI, NVIDIA's tracing library (API version {})",
        t.cupti.substr(6));
  }
  if (!t.cupti.empty()) return t.cupti;
  return "no process started doctor's collector, so no call or copy was seen";
}

// What doctor could not see, and why: no driver, no CUPTI, processes whose CUDA did not start
// under the collector or whose end it did not see; and, for a record made before doctor wrote it,
// that it was not recorded. One sentence each.
void add_unseen_notes(const DoctorTrace& t, ReportModel& m) {
  const DoctorSight& s = t.sight;
  if (!s.recorded) {
    if (t.processes == 0) {
      m.notes.push_back(
          "What doctor saw of the program's processes was not recorded (a record made before "
          "pinbench wrote it): whether they called CUDA is not known.");
    }
    return;
  }
  const bool seen_all = seen_without_cuda(t);
  if (s.started == 0) {
    m.notes.push_back(
        "doctor's library was loaded into no process of the program (it did not start, or it "
        "was started without LD_PRELOAD): nothing of it was seen.");
  }
  if (s.driver.missing() && !seen_all) {
    m.notes.push_back(no_driver_sentence(s.driver, "doctor", "see", s.cuda_unseen > 0));
  } else if (t.processes == 0 && (s.collector == "no-cupti" || s.collector == "cupti-failed")) {
    m.notes.push_back("CUPTI could not be used, so the program's CUDA calls ran unseen by doctor.");
  } else if (s.cuda_unseen > 0) {
    m.notes.push_back(fmt::format(
        "{} asked for or had the CUDA driver, but doctor's collector never started in {} (a "
        "child forked from a process using CUDA, or CUDA that did not start there): {} CUDA "
        "calls, if any, were not seen.",
        processes_words(s.cuda_unseen), s.cuda_unseen == 1 ? "it" : "them",
        s.cuda_unseen == 1 ? "its" : "their"));
  }
  const int ended_unseen = processes_unseen(t) - static_cast<int>(t.still_running.size());
  if (ended_unseen > 0) {
    m.notes.push_back(fmt::format(
        "{} ended without doctor's library seeing {} end (a signal, most likely): whether {} "
        "called CUDA was not seen.",
        processes_words(ended_unseen), ended_unseen == 1 ? "its" : "their",
        ended_unseen == 1 ? "it" : "they"));
  }
}

// The notes on the program: the headline, how it ended, what the collector saw, and what it could
// not. False when no CUDA call was seen, and there is nothing more to show.
bool add_program_notes(const DoctorTrace& t, const DoctorAnalysis& a, ReportModel& m) {
  std::string program;
  for (const std::string& arg : t.command) program += (program.empty() ? "" : " ") + arg;
  m.title = fmt::format("pinbench doctor: {}", program.empty() ? "(no program)" : program);
  const std::string ended =
      t.signal.empty()
          ? fmt::format("exited with status {}", t.exit_status)
          : fmt::format("was killed by {}; everything seen up to it is reported", t.signal);
  // The report's first line: what fixing the findings would save.
  if (!a.headline.empty()) m.notes.push_back(a.headline);
  m.notes.push_back(
      fmt::format("Program: {} after {:.1f} ms; {}.", ended, t.wall_ms, collector_words(t)));
  for (const std::string& n : t.notes) m.notes.push_back("Collector: " + n);
  const std::string unseen = still_running_words(t.still_running, "doctor");
  if (!unseen.empty()) {
    m.notes.push_back(unseen +
                      ": what they did after it, and what they had not yet flushed, is not seen");
  }
  add_unseen_notes(t, m);
  if (a.nothing_seen) {
    // "Made no CUDA calls" only where doctor saw every process to its end without asking for
    // the CUDA driver; else what it could not see is said above.
    m.notes.push_back(a.no_cuda ? "The program made no CUDA calls: nothing to diagnose."
                      : !t.still_running.empty() && !t.sight.driver.missing()
                          ? "No CUDA call was seen; the processes still running may make them, "
                            "out of doctor's sight: wait for them (--wait-descendants) to "
                            "diagnose them."
                      : t.sight.cuda_unseen > 0
                          ? "Nothing to diagnose: none of the program's CUDA calls was seen."
                          : "No CUDA call was seen, for the reasons above: doctor cannot say "
                            "that the program made none.");
    return false;
  }
  if (!t.symbolizer.empty()) m.notes.push_back("Call sites: " + t.symbolizer + ".");
  if (!a.pageable_note.empty()) m.notes.push_back(a.pageable_note);
  return true;
}

ReportTable summary_table(const DoctorTrace& t, const DoctorAnalysis& a) {
  ReportTable summary;
  summary.id = "doctor-summary";
  summary.title = "What the program did";
  summary.header = {"what", "count", "detail"};
  summary.numeric = {false, true, false};
  summary.rows.push_back({"copy calls", std::to_string(a.copy_calls),
                          fmt::format("{} to the device, {} to the host", format_size(a.bytes_h2d),
                                      format_size(a.bytes_d2h))});
  summary.rows.push_back(
      {"  from or to pageable memory", std::to_string(a.pageable_copy_calls),
       fmt::format("{:.3f} ms of host time inside them", a.pageable_blocked_ms)});
  summary.rows.push_back({"kernels", std::to_string(a.kernels), ""});
  summary.rows.push_back({"synchronisations", std::to_string(a.syncs), ""});
  summary.rows.push_back({"page-locked allocations and registrations",
                          std::to_string(a.pinned_allocations),
                          fmt::format("peak {} held at once", format_size(a.peak_pinned_bytes))});
  summary.rows.push_back({"processes with CUDA", std::to_string(t.processes), ""});
  if (a.blocked_share) {
    summary.notes.push_back(fmt::format(
        "{:.1f}% of the program's wall time was spent blocked in copies from or to pageable "
        "memory.",
        100 * *a.blocked_share));
  }
  return summary;
}

ReportTable processes_table(const DoctorAnalysis& a) {
  ReportTable processes;
  processes.id = "doctor-processes";
  processes.title = "Each process, and how it ended";
  processes.header = {"pid", "ended", "copy calls", "bytes", "judged from the call"};
  processes.numeric = {true, false, true, true, true};
  for (const DoctorProcessCount& p : a.processes) {
    processes.rows.push_back(
        {std::to_string(p.pid),
         p.end.empty() ? "without a word (SIGKILL, or an end no hook saw)" : p.end,
         std::to_string(p.copy_calls), format_size(p.bytes), std::to_string(p.from_api)});
  }
  processes.notes.push_back(
      "A copy judged from the call had no activity record: its process ended before it was "
      "flushed, or page-locked copies' device times were paused; its bytes, direction and host "
      "memory are what the call said.");
  return processes;
}

// Finding number `n` as a table: its call sites as rows, its evidence, fix and code under it;
// each site also a bar of the chart of time lost.
ReportTable finding_table(const DoctorFinding& f, int n, ChartSpec& chart) {
  ReportTable ft;
  ft.id = "finding-" + f.id;
  // "1 call", "1 allocation", "1 copy": the unit without its plural ending.
  const std::string counted = f.count != 1              ? f.counted
                              : f.counted == "copies"   ? std::string("copy")
                              : f.counted.back() == 's' ? f.counted.substr(0, f.counted.size() - 1)
                                                        : f.counted;
  ft.title = fmt::format("Finding {}: {} [{}]: {} {}, {}, {} ms host time, {} ms lost", n, f.title,
                         f.id, f.count, counted, format_size(f.bytes),
                         fmt::format("{:.3f}", f.host_ms), doctor_ms(f.lost_ms));
  ft.header = {"call site", f.counted, "bytes", "host ms", "lost ms", "called from"};
  ft.numeric = {false, true, true, true, true, false};
  for (const DoctorSiteCost& s : f.sites) {
    std::string below;
    for (const std::string& fr : s.frames) below += (below.empty() ? "" : " < ") + fr;
    ft.rows.push_back({s.where, std::to_string(s.count), format_size(s.bytes),
                       fmt::format("{:.3f}", s.host_ms), doctor_ms(s.lost_ms), below});
    chart.bars.push_back(
        {s.where, f.id, s.lost_ms,
         fmt::format("{}: {} {}, {}", f.id, s.count, f.counted, format_size(s.bytes))});
  }
  for (const std::string& e : f.evidence) ft.notes.push_back(e + ".");
  ft.notes.push_back("Fix: " + f.fix + ".");
  ft.code = f.fix_code;
  return ft;
}

// The rates used, as a table; or, where none was calibrated, a note saying so.
void add_rates(const DoctorAnalysis& a, ReportModel& m) {
  ReportTable rates;
  rates.id = "doctor-rates";
  rates.title = "Rates used (from " + a.rates_from + ")";
  rates.header = {"direction", "size", "pageable GB/s", "pinned GB/s", "pinned call ms"};
  rates.numeric = {false, true, true, true, true};
  // The engine's column only where the calibration measured it (records before it did not).
  const bool engine = std::any_of(a.rates.begin(), a.rates.end(),
                                  [](const DoctorRate& rt) { return rt.engine_gb_per_s; });
  if (engine) {
    rates.header.push_back("accel GB/s");
    rates.numeric.push_back(true);
  }
  for (const DoctorRate& rt : a.rates) {
    rates.rows.push_back({rt.direction, format_size(rt.bytes), gbps(rt.pageable_gb_per_s),
                          gbps(rt.pinned_gb_per_s), doctor_ms(rt.pinned_call_ms)});
    if (engine) rates.rows.back().push_back(gbps(rt.engine_gb_per_s));
  }
  if (engine) {
    rates.notes.push_back(
        "accel GB/s: pageable memory through the staged engine, as pinbench accel copies it.");
  }
  rates.notes.push_back(
      "Each copy size takes the record's nearest calibrated size; without rates, time lost is "
      "shown as a dash.");
  // A table of dashes says nothing a sentence does not: without any rate, one note.
  const bool calibrated = std::any_of(a.rates.begin(), a.rates.end(), [](const DoctorRate& rt) {
    return rt.pageable_gb_per_s || rt.pinned_gb_per_s || rt.pinned_call_ms;
  });
  if (calibrated) {
    m.tables.push_back(std::move(rates));
  } else if (!a.rates.empty()) {
    m.notes.push_back(
        "No rates were calibrated (the record holds no calibration of its copy sizes), so time "
        "lost against page-locked memory is not estimated (a dash).");
  }
}

ReportTable small_copies_table(const DoctorAnalysis& a) {
  ReportTable small{"doctor-small-copies",
                    "Small copies, per copy to completion (from the calibration)",
                    {"direction", "copy size", "copies", "one call each us", "one batch us",
                     "one contiguous copy us"},
                    {false, true, true, true, true, true},
                    {},
                    {},
                    {}};
  const auto us = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", 1000 * *v) : std::string("-");
  };
  for (const DoctorSmallCopyRate& rt : a.small_copy_rates) {
    small.rows.push_back({rt.direction, format_size(rt.copy_bytes), std::to_string(rt.copies),
                          us(rt.each_ms), us(rt.batched_ms), us(rt.contiguous_ms)});
  }
  small.notes.push_back(
      "One batch is cudaMemcpyBatchAsync; one contiguous copy moves the same bytes in one "
      "cudaMemcpyAsync. A storm's time saved is its copies at one call each less in one batch.");
  return small;
}

ReportTable numa_rates_table(const DoctorAnalysis& a) {
  ReportTable numa{"doctor-numa-rates",
                   "Rates with the host buffer on each NUMA node (from the calibration)",
                   {"direction", "memory", "size", "host node", "GB/s"},
                   {false, false, true, true, true},
                   {},
                   {},
                   {}};
  for (const DoctorNumaRate& rt : a.numa_rates) {
    numa.rows.push_back({rt.direction, rt.memory, format_size(rt.bytes),
                         fmt::format("{}{}", rt.node, rt.gpu_node ? " (the GPU's)" : ""),
                         gbps(rt.gb_per_s)});
  }
  return numa;
}

// The program's calls as a timeline, which the HTML report draws where no trace sits beside the
// record; none where doctor saw no call.
std::optional<Trace> calls_timeline(const DoctorTrace& t) {
  Trace calls = doctor_timeline(t);
  // A program that made no CUDA call, or whose calls doctor could not see, leaves nothing to
  // draw.
  if (calls.api_calls.empty() && calls.copies.empty() && calls.kernels.empty()) {
    return std::nullopt;
  }
  return calls;
}

}  // namespace

void build_doctor_model(const RunRecord& r, ReportModel& m) {
  const nlohmann::json& section = r.section(kDoctorSection);
  if (section.is_null()) {
    m.notes.push_back("This doctor record holds no trace of a program.");
    return;
  }
  const DoctorTrace t = doctor_trace_from_json(section);
  m.timeline = calls_timeline(t);
  const DoctorAnalysis a = analyse_doctor(r, t);
  if (!add_program_notes(t, a, m)) return;
  m.tables.push_back(summary_table(t, a));
  if (!a.processes.empty()) m.tables.push_back(processes_table(a));

  ChartSpec chart = make_chart(ChartKind::kBars, "doctor-lost", "Time lost per call site");
  chart.axis_title = "ms lost";
  chart.value_suffix = " ms";
  chart.decimals = 3;
  chart.caption = "Host time each call site lost against the fix, from the record's rates";
  int n = 0;
  for (const DoctorFinding& f : a.findings) m.tables.push_back(finding_table(f, ++n, chart));
  if (a.findings.empty() && !a.nothing_seen) {
    m.notes.push_back(
        "No finding: none of doctor's pitfalls (docs/doctor.md) was seen in what the program "
        "did.");
  }
  if (!a.not_judged.empty()) {
    ReportTable nj{
        "doctor-not-judged", "Not judged", {"finding", "why"}, {false, false}, {}, {}, {}};
    for (const DoctorNotJudged& x : a.not_judged) nj.rows.push_back({x.id, x.reason});
    m.tables.push_back(std::move(nj));
  }
  add_rates(a, m);
  if (!a.small_copy_rates.empty()) m.tables.push_back(small_copies_table(a));
  if (!a.numa_rates.empty()) m.tables.push_back(numa_rates_table(a));
  add_chart(m, std::move(chart));
}

}  // namespace pinbench::experiments::doctor
