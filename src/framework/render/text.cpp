#include "framework/render/text.hpp"

#include "framework/printable.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/experiment.hpp"
#include "framework/render/text_table.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

std::string cuda_version(int v) {
  return v > 0 ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : std::string("unknown");
}

// Each line of `text` after `indent`, each ending in a line break; "" for no text.
std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    out += indent + text.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return out;
}

}  // namespace

std::string render_machine(const MachineInfo& m) {
  // A field the record leaves at zero was not known (a published record, an old driver): it
  // reads "unknown", as in every other format, never as a measured zero.
  const auto count = [](int n, const char* what) {
    return n > 0 ? fmt::format("{} {}", n, what) : fmt::format("{} unknown", what);
  };
  const auto size = [](std::uint64_t b, const char* what) {
    return b > 0 ? fmt::format("{} {}", format_size(b), what) : fmt::format("{} unknown", what);
  };
  const auto known = [](const std::string& s) {
    return s.empty() ? std::string("unknown") : printable(s);
  };
  std::string pcie = "PCIe link unknown";
  if (m.pcie.current_gen > 0 || m.pcie.current_width > 0) {
    pcie = fmt::format("PCIe gen {} x{} (max gen {} x{})", m.pcie.current_gen, m.pcie.current_width,
                       m.pcie.max_gen, m.pcie.max_width);
  }
  return fmt::format(
      "Device:  {}, compute capability {}, {}, {}, {}\n"
      "Link:    {}, bus {}, NUMA node {}\n"
      "Driver:  {} (CUDA {}), runtime CUDA {}\n"
      "Host:    {}, {}, {}, {}\n",
      known(m.device_name),
      m.cc_major > 0 ? fmt::format("{}.{}", m.cc_major, m.cc_minor) : std::string("unknown"),
      count(m.sm_count, "SMs"), count(m.copy_engines, "copy engines"),
      size(m.device_memory_bytes, "device memory"), pcie, known(m.pci_bus_id),
      m.numa_node >= 0 ? std::to_string(m.numa_node) : std::string("unknown"),
      m.driver_release.empty() ? std::string("release unknown") : printable(m.driver_release),
      cuda_version(m.driver_version), cuda_version(m.runtime_version), known(m.host_cpu),
      count(m.host_logical_cpus, "logical CPUs"), size(m.host_memory_bytes, "memory"), known(m.os));
}

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

std::string render_gate_checks(const RunRecord& record, const std::string& what_passed) {
  std::string failed;
  for (const Gate& g : record.gates) {
    if (!g.passed) {
      failed += fmt::format("  FAILED: gate {}: {}\n", printable(g.name), printable(g.detail));
    }
  }
  if (!failed.empty()) return "\nChecks\n" + failed;
  if (record.gates.empty()) return "\nChecks\n  " + kNoGates + "\n";
  return fmt::format("\nChecks\n  Passed ({} gates): {}\n", record.gates.size(), what_passed);
}

std::string render_model_text(const ReportModel& m) {
  // Every word from the record is printable(): a stranger's hostname holds no ESC sequence.
  std::string out = printable(m.title) + "\n\n";
  out += "Machine: " + printable(m.machine_line) + "\n";
  out += "Record:  " + printable(m.record_line) + "\n";
  for (const std::string& n : m.notes) out += printable(n) + "\n";
  out += fmt::format(
      "Units:   GB/s = 10^9 bytes/s, MiB = 2^20 bytes. {}; a dash marks a case that is missing "
      "or failed its gate.\n",
      m.figures_are);
  for (const ReportTable& t : m.tables) {
    // A text column reads from its left edge, header and cells alike; numbers line up right.
    TextTable table(t.header, t.numeric);
    for (const auto& row : t.rows) table.add_row(row);
    out += fmt::format("\n{}\n{}", printable(t.title), table.render());
    for (const std::string& n : t.notes) out += "  " + printable(n) + "\n";
    out += indent_lines(t.code, "      ");
  }
  for (const VerdictGroup& g : m.verdicts) {
    out += "\n" + g.title + "\n";
    for (const Prediction& p : g.items) {
      out +=
          fmt::format("  {}. {}: {}\n", p.number, p.statement, verdict_word(p.verdict, g.judged));
      for (const Claim& c : p.claims) {
        if (p.claims.size() > 1 || c.text != p.statement) {
          out += fmt::format("    - {}: {}\n", c.text, verdict_word(c.verdict, g.judged));
        }
        out += fmt::format("      {}\n", c.evidence);
      }
    }
  }
  out += render_sampling_text(m);
  out += render_flags_text(m);
  out += "\nChecks\n";
  if (m.check_failures.empty()) return out + "  " + m.checks_passed + "\n";
  for (const std::string& f : m.check_failures) out += "  FAILED: " + printable(f) + "\n";
  return out;
}

std::string render_text(const RunRecord& record, const ReportModel& m, const TextOptions& options) {
  return experiment_for(record.experiment).text(record, m, options);
}

std::string render_text(const RunRecord& record) {
  return render_text(record, analyse(record));
}

std::string with_sampling(const RunRecord& record, const ReportModel& m, const std::string& body) {
  // An interrupted run says so before anything else, so no table is read as the whole run.
  const std::string cut = record.incomplete ? incomplete_note(record) + "\n\n" : "";
  return cut + body + render_sampling_text(m) + render_flags_text(m);
}

}  // namespace pinbench
