#include "framework/render/text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/stats.hpp"

#include "experiments/lesson/text.hpp"
#include "experiments/staged/text.hpp"
#include "experiments/sweep/text.hpp"
#include "framework/render/text_table.hpp"

namespace pinbench {
namespace {

std::string verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kHeld:
      return "HELD";
    case Verdict::kDied:
      return "DIED";
    case Verdict::kUndecided:
      return "UNDECIDED";
    case Verdict::kNotEvaluated:
      return "NOT EVALUATED";
  }
  return "?";
}

}  // namespace

std::string render_sampling_text(const ReportModel& m) {
  if (m.cases.empty()) return "";
  std::vector<std::pair<std::string, std::size_t>> stops;
  std::vector<double> spreads;
  const CaseLine* widest = nullptr;
  for (const CaseLine& c : m.cases) {
    auto it =
        std::find_if(stops.begin(), stops.end(), [&](const auto& s) { return s.first == c.stop; });
    if (it == stops.end()) {
      stops.emplace_back(c.stop, 0);
      it = stops.end() - 1;
    }
    ++it->second;
    if (!c.spread) continue;
    spreads.push_back(*c.spread);
    if (widest == nullptr || *c.spread > *widest->spread) widest = &c;
  }
  std::string out = fmt::format("\nSampling: {} cases; why sampling stopped:", m.cases.size());
  for (std::size_t i = 0; i < stops.size(); ++i) {
    out += fmt::format("{} {} {}", i > 0 ? "," : "", stops[i].first, stops[i].second);
  }
  if (widest != nullptr) {
    out += fmt::format(
        ". Spread (standard deviation / mean of the times): median {:.2f}%, widest {:.2f}% ({})",
        100 * median(spreads), 100 * *widest->spread, widest->label);
  }
  return out + ".\n";
}

std::string render_flags_text(const ReportModel& m) {
  if (m.flags.empty()) return "";
  std::string out = fmt::format(
      "\nUnstable cases ({}): a median of samples that do not tell one story describes neither "
      "state\n",
      m.flags.size());
  for (const CaseFlag& f : m.flags) {
    out += fmt::format("  {}: {}: {}\n", f.label, to_string(f.stability), f.detail);
  }
  return out;
}

std::string render_model_text(const ReportModel& m) {
  std::string out = m.title + "\n\n";
  out += "Machine: " + m.machine_line + "\n";
  out += "Record:  " + m.record_line + "\n";
  for (const std::string& n : m.notes) out += n + "\n";
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. {}; a dash marks a case that is missing "
      "or failed its gate.\n",
      m.figures_are);
  for (const ReportTable& t : m.tables) {
    TextTable table(t.header);
    for (const auto& row : t.rows) table.add_row(row);
    out += fmt::format("\n{}\n{}", t.title, table.render());
    for (const std::string& n : t.notes) out += "  " + n + "\n";
  }
  for (const VerdictGroup& g : m.verdicts) {
    out += "\n" + g.title + "\n";
    for (const Prediction& p : g.items) {
      out += fmt::format("  {}. {}: {}\n", p.number, p.statement, verdict_word(p.verdict));
      for (const Claim& c : p.claims) {
        if (p.claims.size() > 1 || c.text != p.statement) {
          out += fmt::format("    - {}: {}\n", c.text, verdict_word(c.verdict));
        }
        out += fmt::format("      {}\n", c.evidence);
      }
    }
  }
  out += render_sampling_text(m);
  out += render_flags_text(m);
  out += "\nChecks\n";
  if (m.check_failures.empty()) return out + "  " + m.checks_passed + "\n";
  for (const std::string& f : m.check_failures) out += "  FAILED: " + f + "\n";
  return out;
}

std::string render_text(const RunRecord& record) {
  return render_text(record, analyse(record));
}

std::string render_text(const RunRecord& record, const ReportModel& m,
                        const std::optional<ReferenceComparison>& reference) {
  const std::string& e = record.experiment;
  std::string out;
  if (e == "lesson") {
    out = render_lesson_text(record, *m.lesson, reference);
  } else if (e == "sweep") {
    out = render_sweep_text(record);
  } else if (e == "bandwidthtest") {
    out = render_bandwidthtest_text(record);
  } else if (e == "race") {
    out = render_race_text(record);
  } else if (e == "staged") {
    out = render_staged_text(record);
  } else if (e == "staged-tune") {
    out = render_staged_tune_text(record);
  } else if (e == "pipeline") {
    out = render_pipeline_text(record);
  } else {
    return render_model_text(m);  // its notes say INCOMPLETE where the run was cut
  }
  // An interrupted run says so before anything else, so no table is read as the whole run.
  const std::string cut = record.incomplete ? incomplete_note(record) + "\n\n" : "";
  return cut + out + render_sampling_text(m) + render_flags_text(m);
}

}  // namespace pinbench
