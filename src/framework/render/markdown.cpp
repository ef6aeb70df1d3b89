#include "framework/render/markdown.hpp"

#include "framework/printable.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/report_model.hpp"

namespace pinbench {
namespace {

// A fenced code block, its lines as they are; the fence is longer than any run of backticks in
// the code, so none closes it early.
std::string fenced(const std::string& code) {
  std::size_t longest = 0, run = 0;
  for (char c : code) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return fence + "\n" + code + (code.back() == '\n' ? "" : "\n") + fence + "\n";
}

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
  if (!t.code.empty()) out += "\n" + fenced(t.code);
  return out + "\n";
}

std::string verdicts(const ReportModel& m) {
  std::string out;
  for (const VerdictGroup& g : m.verdicts) {
    out += fmt::format("### {}\n\n", markdown_escape(g.title));
    if (!g.note.empty()) out += markdown_escape(g.note) + "\n\n";
    const bool flat = std::all_of(g.items.begin(), g.items.end(), [](const Prediction& p) {
      return p.claims.size() == 1 && p.claims.front().text == p.statement;
    });
    if (flat) {
      out += "| goal | verdict | evidence |\n|---|---|---|\n";
      for (const Prediction& p : g.items) {
        out += fmt::format("| {}. {} | {} | {} |\n", p.number, markdown_escape(p.statement),
                           verdict_word(p.verdict, g.judged),
                           markdown_escape(p.claims.front().evidence));
      }
      out += "\n";
      continue;
    }
    for (const Prediction& p : g.items) {
      out += fmt::format("**{} {}: {}.** {}\n\n| claim | verdict | evidence |\n|---|---|---|\n",
                         judged_noun(g.judged), p.number, verdict_word(p.verdict, g.judged),
                         markdown_escape(p.statement));
      for (const Claim& c : p.claims) {
        out += fmt::format("| {} | {} | {} |\n", markdown_escape(c.text),
                           verdict_word(c.verdict, g.judged), markdown_escape(c.evidence));
      }
      out += "\n";
    }
  }
  return out;
}

std::string unstable_cases(const ReportModel& m) {
  if (m.flags.empty()) return "";
  std::string out =
      "### Unstable cases\n\nA median of a bimodal or drifting case describes neither state.\n\n";
  for (const CaseFlag& f : m.flags) {
    out += fmt::format("- **{}** {}: {}\n", to_string(f.stability), markdown_escape(f.label),
                       markdown_escape(f.detail));
  }
  return out + "\n";
}

std::string checks(const ReportModel& m) {
  std::string out = "### Checks\n\n";
  if (m.check_failures.empty()) return out + markdown_escape(m.checks_passed) + "\n";
  for (const std::string& f : m.check_failures) out += "- FAILED: " + markdown_escape(f) + "\n";
  return out;
}

}  // namespace

std::string markdown_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  // A line break inside a cell or a title is a space; every other control is shown escaped.
  std::string flat = text;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  std::replace(flat.begin(), flat.end(), '\r', ' ');
  for (char c : printable(flat)) {
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
      default:
        out += c;
    }
  }
  return out;
}

std::string render_markdown(const ReportModel& m) {
  std::string out = fmt::format("## {}\n\n", markdown_escape(m.title));
  out += fmt::format("**Machine:** {}  \n", markdown_escape(m.machine_line));
  out += fmt::format("**Record:** {}  \n", markdown_escape(m.record_line));
  for (const std::string& n : m.notes) out += markdown_escape(n) + "  \n";
  out += fmt::format(
      "**Units:** GB/s = 10^9 bytes/s, MiB = 2^20 bytes. {}; — marks a case that is missing or "
      "failed its gate.\n\n",
      m.figures_are);
  for (const ReportTable& t : m.tables) out += table(t);
  out += verdicts(m);
  out += unstable_cases(m);
  out += checks(m);
  out += "\n<details><summary>Every case, with why sampling stopped and its spread</summary>\n\n";
  out += table(case_table(m));
  return printable_text(out + "</details>\n");
}

}  // namespace pinbench
