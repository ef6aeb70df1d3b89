#include "compare/text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "framework/printable.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench::compare {
namespace {

// "+29.4%"; a change that rounds to zero is "+0.0%", never "-0.0%".
std::string change(double ratio) {
  const double pct = 100.0 * (ratio - 1.0);
  return fmt::format("{:+.1f}%", std::fabs(pct) < 0.05 ? 0.0 : pct);
}

std::string key_list(const std::vector<CaseKey>& keys) {
  std::string out;
  for (const CaseKey& k : keys) out += "  " + printable(describe(k)) + "\n";
  return out;
}

std::string record_words(const RunRecord& r, const std::string& name) {
  return printable(fmt::format("{} ({}, {}, {}{})", name, r.experiment, r.machine.device_name,
                               r.created_utc, r.source == "published" ? ", published tables" : ""));
}

}  // namespace

std::string render_comparison(const Comparison& c, const RunRecord& a, const std::string& a_name,
                              const RunRecord& b, const std::string& b_name) {
  return render_records_compared(c.machine_differences, a, a_name, b, b_name) +
         render_cases_compared(c);
}

std::string render_records_compared(const std::vector<std::string>& machine_differences,
                                    const RunRecord& a, const std::string& a_name,
                                    const RunRecord& b, const std::string& b_name) {
  std::string out;
  if (machine_differences.empty()) {
    out += printable(
               fmt::format("Same machine: {}, driver {}, host CPU {}.", a.machine.device_name,
                           a.machine.driver_release.empty() ? "unknown" : a.machine.driver_release,
                           a.machine.host_cpu)) +
           "\n";
  } else {
    out += fmt::format(
        "Different machines ({}): differences may come from the machines, not the runs.\n",
        printable(fmt::format("{}", fmt::join(machine_differences, "; "))));
  }
  out += fmt::format("A: {}\nB: {}\n", record_words(a, a_name), record_words(b, b_name));
  return out;
}

std::string render_cases_compared(const Comparison& c) {
  std::string out;
  const double pct = 100.0 * c.threshold;
  out += fmt::format(
      "Median GB/s of each case's verified samples (GB/s = 10^9 bytes/s). B/A above 1: B is "
      "faster. Flagged when B/A differs from 1 by more than {:g}%.\n\n",
      pct);

  // The flag is words: it reads from its left edge, and wraps there in a narrow terminal.
  TextTable t({"case", "size", "A GB/s", "B GB/s", "B/A", "change", "flag"},
              {false, true, true, true, true, true, false});
  t.key_columns(2);  // a case is named by both
  for (const ComparedCase& k : c.common) {
    std::string flag;
    if (!k.ratio) {
      flag = fmt::format("not compared: no verified figure in {}", !k.a_gb_per_s && !k.b_gb_per_s
                                                                       ? "A or B"
                                                                   : !k.a_gb_per_s ? "A"
                                                                                   : "B");
    } else if (k.differs) {
      flag = fmt::format("differs by more than {:g}%", pct);
    }
    const std::string& shape = k.key.shape.text;
    t.add_row({fmt::format("{} {} {} {}", k.key.part, k.key.method, k.key.direction, k.key.memory),
               shape.empty() ? format_size(k.key.bytes) : shape, figure_cell(k.a_gb_per_s),
               figure_cell(k.b_gb_per_s),
               k.ratio ? fmt::format("{:.3f}", *k.ratio) : std::string("—"),
               k.ratio ? change(*k.ratio) : std::string("—"), flag});
  }
  out += t.render();

  out += fmt::format("\n{} case{} in common; ", c.common.size(), c.common.size() == 1 ? "" : "s");
  const int differing = c.differing();
  if (differing == 0) {
    out += fmt::format("none differs by more than {:g}%", pct);
  } else {
    out += fmt::format("{} differ{} by more than {:g}%", differing, differing == 1 ? "s" : "", pct);
  }
  if (c.not_compared() > 0) out += fmt::format("; {} not compared", c.not_compared());
  out += ".\n";
  if (!c.only_a.empty()) {
    out += fmt::format("\nOnly in A ({}):\n{}", c.only_a.size(), key_list(c.only_a));
  }
  if (!c.only_b.empty()) {
    out += fmt::format("\nOnly in B ({}):\n{}", c.only_b.size(), key_list(c.only_b));
  }
  return out;
}

std::string render_not_judged(const std::vector<std::string>& condition_differences,
                              const std::optional<Comparison>& cases) {
  std::string out =
      "Not judged: A and B were measured under different conditions, so a difference between "
      "their figures is the conditions' as much as the runs'. They differ in:\n";
  for (const std::string& d : condition_differences) out += "  - " + printable(d) + "\n";
  if (!cases) return out + "\nThe two records have no case in common.\n";
  out +=
      "\nMedian GB/s of each case's verified samples, side by side (GB/s = 10^9 bytes/s); no "
      "case is judged.\n\n";
  TextTable t({"case", "size", "A GB/s", "B GB/s"}, {false, true, true, true});
  t.key_columns(2);
  for (const ComparedCase& k : cases->common) {
    const std::string& shape = k.key.shape.text;
    t.add_row({fmt::format("{} {} {} {}", k.key.part, k.key.method, k.key.direction, k.key.memory),
               shape.empty() ? format_size(k.key.bytes) : shape, figure_cell(k.a_gb_per_s),
               figure_cell(k.b_gb_per_s)});
  }
  out += t.render();
  out += fmt::format("\n{} case{} in both, none judged.\n", cases->common.size(),
                     cases->common.size() == 1 ? "" : "s");
  if (!cases->only_a.empty()) {
    out += fmt::format("\nOnly in A ({}):\n{}", cases->only_a.size(), key_list(cases->only_a));
  }
  if (!cases->only_b.empty()) {
    out += fmt::format("\nOnly in B ({}):\n{}", cases->only_b.size(), key_list(cases->only_b));
  }
  return out;
}

}  // namespace pinbench::compare
