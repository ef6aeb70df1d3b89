#include "report/markdown.hpp"

#include <fmt/format.h>

#include "report/report_tables.hpp"

namespace pinbench {
namespace {

std::string table(const ReportTable& t) {
  std::string out = fmt::format("### {}\n\n|", markdown_escape(t.title));
  for (const std::string& h : t.header) out += " " + markdown_escape(h) + " |";
  out += "\n|";
  for (bool numeric : t.numeric) out += numeric ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const std::string& cell : row) out += " " + markdown_escape(cell) + " |";
    out += "\n";
  }
  for (const std::string& n : t.notes) out += "\n" + markdown_escape(n) + "\n";
  return out + "\n";
}

std::string predictions(const LessonAnalysis& a) {
  std::string out = "### Predictions\n\n";
  for (const Prediction& p : a.predictions) {
    out += fmt::format("**{}. {}.** {}\n\n| claim | verdict | evidence |\n|---|---|---|\n",
                       p.number, to_string(p.verdict), markdown_escape(p.statement));
    for (const Claim& c : p.claims) {
      out += fmt::format("| {} | {} | {} |\n", markdown_escape(c.text), to_string(c.verdict),
                         markdown_escape(c.evidence));
    }
    out += "\n";
  }
  return out;
}

std::string checks(const RunRecord& r, const LessonAnalysis* lesson) {
  std::vector<std::string> failures = lesson != nullptr ? lesson->check_failures : failed_gates(r);
  std::string out = "### Checks\n\n";
  if (failures.empty() && r.source == "published") {
    return out +
           "Figures copied from published tables: pinbench did not verify their bytes or "
           "buffers.\n";
  }
  if (failures.empty()) {
    return out + fmt::format("All {} gates passed.\n", r.gates.size());
  }
  for (const std::string& f : failures) out += "- FAILED: " + markdown_escape(f) + "\n";
  return out;
}

}  // namespace

std::string markdown_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\':
      case '|':
      case '*':
      case '`':
      case '<':
      case '[':
        out += '\\';
        out += c;
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_markdown(const RunRecord& r, const LessonAnalysis* lesson) {
  std::string out = fmt::format("## pinbench report: {} on {}\n\n", markdown_escape(r.experiment),
                                markdown_escape(r.machine.device_name));
  out += fmt::format("**Machine:** {}  \n", markdown_escape(machine_line(r.machine)));
  out += fmt::format("**Record:** {}  \n", markdown_escape(record_line(r)));
  if (!r.note.empty()) out += fmt::format("**Note:** {}  \n", markdown_escape(r.note));
  out +=
      "**Units:** GB/s = 10^9 bytes/s, MiB = 2^20 bytes. Figures are medians of the timed samples; "
      "— marks a case that is missing or failed its gate.\n\n";
  for (const ReportTable& t : report_tables(r, lesson)) out += table(t);
  if (lesson != nullptr) out += predictions(*lesson);
  out += checks(r, lesson);
  return out;
}

}  // namespace pinbench
