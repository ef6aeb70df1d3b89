#include "framework/render/text.hpp"

#include "framework/printable.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

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

// The bytes of `line` before its text: its indent, then a label ("Units:", "FAILED:", a number
// "1.", a dash) and the spaces after it, where it has one. Nothing for a line of a table (its
// columns apart by two spaces or more after that) or a ruler.
std::optional<std::size_t> hang_of(const std::string& line) {
  const std::size_t at = line.find_first_not_of(' ');
  if (at == std::string::npos) return std::nullopt;
  if (line.find_first_not_of("-=", at) == std::string::npos) return std::nullopt;  // a ruler
  std::size_t hang = at;
  const std::size_t word_end = std::min(line.find(' ', at), line.size());
  const char last = line[word_end - 1];
  const bool label = word_end < line.size() && word_end - at <= 24 &&
                     (last == ':' || (word_end - at == 1 && (last == '-' || last == '*')) ||
                      (last == '.' && std::isdigit(static_cast<unsigned char>(line[at])) != 0));
  if (label) hang = line.find_first_not_of(' ', word_end);
  if (hang == std::string::npos) return std::nullopt;
  if (line.find("  ", hang) != std::string::npos) return std::nullopt;  // a table's row
  return hang;
}

// What a stop reason means, after the number of cases it stopped: "3 took the samples asked for
// (count)". The reason's own word stays in brackets, as the records and the CSV spell it.
std::string stop_words(const std::string& reason, std::size_t n) {
  const bool one = n == 1;
  std::string meaning;
  if (reason == "count") {
    meaning = "took the number of samples asked for";
  } else if (reason == "spread") {
    meaning = one ? "stopped once its samples agreed" : "stopped once their samples agreed";
  } else if (reason == "time cap") {
    meaning = one ? "reached its time limit first" : "reached their time limit first";
  } else if (reason == "sample cap") {
    meaning = "reached the most samples allowed";
  } else if (reason == "gate failed") {
    meaning = "stopped at a failed byte check";
  } else if (reason == "not recorded") {
    return "from a record that does not say why sampling stopped";
  } else if (reason == "published figure") {
    return one ? "is a published figure, not sampled" : "are published figures, not sampled";
  } else {
    return "stopped: " + printable(reason);
  }
  return meaning + " (" + reason + ")";
}

}  // namespace

std::string wrap_paragraph(const std::string& text, const std::string& first,
                           const std::string& rest, std::size_t width) {
  std::string out;
  std::string line = first;
  bool empty = true;  // no word on `line` yet
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!empty && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line = rest;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
    at = end;
  }
  return out + line + "\n";
}

std::string wrap_text(const std::string& text, std::size_t width) {
  std::string out;
  out.reserve(text.size() + text.size() / 50);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    const std::string line = text.substr(at, end - at);
    const std::optional<std::size_t> hang =
        display_width(line) > width ? hang_of(line) : std::nullopt;
    if (!hang) {
      out += line;
    } else {
      // An unindented paragraph's later lines hang two columns in, so it still reads as one.
      const std::string head = line.substr(0, *hang);
      const std::size_t rest = std::max<std::size_t>(display_width(head), 2);
      std::string wrapped = wrap_paragraph(line.substr(*hang), head, std::string(rest, ' '), width);
      wrapped.pop_back();  // the line break is the text's own, below
      out += wrapped;
    }
    if (nl == std::string::npos) break;
    out += '\n';
    at = nl + 1;
  }
  return out;
}

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
  std::string out =
      fmt::format("\nSampling: {} {}; ", m.cases.size(), m.cases.size() == 1 ? "case" : "cases");
  for (std::size_t i = 0; i < stops.size(); ++i) {
    out += fmt::format("{}{} {}", i > 0 ? ", " : "", stops[i].second,
                       stop_words(stops[i].first, stops[i].second));
  }
  if (widest != nullptr) {
    out += fmt::format(
        ". Spread (standard deviation / mean of the times): median {:.2f}%, widest {:.2f}% ({})",
        100 * median(spreads), 100 * *widest->spread, printable(widest->label));
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
    out += fmt::format("  {}: {}: {}\n", printable(f.label), to_string(f.stability),
                       printable(f.detail));
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
  if (record.gates.empty()) {
    return "\nChecks\n  " + (record.cases.empty() ? kNothingMeasured : kNoGates) + "\n";
  }
  // The model's own words (report_model.cpp, passed_sentence): every report says it one way.
  return fmt::format("\nChecks\n  All {} gates passed: {}\n", record.gates.size(), what_passed);
}

std::string render_copy_gate_checks(const RunRecord& record) {
  return render_gate_checks(record,
                            "every sample of every case delivered exactly the reference bytes, "
                            "and every buffer is the kind it claims.");
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
    table.key_columns(t.key_columns);
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

std::string render_text(const ReportModel& m) {
  // The last guard: whatever a layout let through of a record's words, no control character
  // but a line break or a tab reaches the terminal.
  return wrap_text(printable_text(m.text.empty() ? render_model_text(m) : m.text));
}

std::string with_sampling(const RunRecord& record, const ReportModel& m, const std::string& body) {
  // An interrupted run says so before anything else, so no table is read as the whole run.
  const std::string cut = record.incomplete ? incomplete_note(record) + "\n\n" : "";
  // Every report ends the same way: how it sampled, its unstable cases, then its checks.
  const std::string sampling = render_sampling_text(m) + render_flags_text(m);
  const std::size_t checks = body.rfind("\nChecks\n");
  if (checks == std::string::npos) return cut + body + sampling;
  return cut + body.substr(0, checks) + sampling + body.substr(checks);
}

}  // namespace pinbench
