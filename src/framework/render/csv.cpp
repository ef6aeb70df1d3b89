#include "framework/render/csv.hpp"

#include "framework/printable.hpp"

#include <cctype>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

// Full enough precision to recompute a rate: 1 ns in ms, 1 MB/s in GB/s.
std::string ms(const std::optional<double>& v) {
  return v ? fmt::format("{:.6f}", *v) : std::string();
}

// A number as a spreadsheet reads one ("-1.5", "+2e3"): kept as it is, sign and all.
bool is_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) != 0) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && text.find_first_of("xXnN") == std::string::npos;
}

}  // namespace

std::string csv_field(const std::string& raw) {
  // No control character but a line break or a tab reaches a cell (printable.hpp).
  const std::string text = printable_text(raw);
  // A cell that a spreadsheet would run as a formula (a record's case or host name from a
  // stranger, "=HYPERLINK(...)") starts with an apostrophe, which the spreadsheet shows as text.
  const bool formula = !text.empty() &&
                       std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos &&
                       !is_number(text);
  const std::string cell = formula ? "'" + text : text;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string render_csv(const ReportModel& m) {
  // A record with no measured case (accel, doctor: what a program did) has its figures in its
  // tables: one row per cell, so a spreadsheet gets them rather than a header over nothing.
  if (m.cases.empty() && !m.tables.empty()) {
    std::string out = "experiment,table,row,column,value\r\n";
    for (const ReportTable& t : m.tables) {
      for (std::size_t r = 0; r < t.rows.size(); ++r) {
        for (std::size_t c = 0; c < t.rows[r].size() && c < t.header.size(); ++c) {
          out += fmt::format("{},{},{},{},{}\r\n", csv_field(m.experiment), csv_field(t.id), r + 1,
                             csv_field(t.header[c]), csv_field(t.rows[r][c]));
        }
      }
    }
    return out;
  }
  std::string out =
      "experiment,part,method,direction,memory,timing,bytes,size,samples,median_ms,min_ms,max_ms,"
      "gb_per_s,call_median_ms,verified,gate,extra,stop,rel_spread,stability,stability_detail,"
      "verdict_group,item,claim,verdict,evidence\r\n";
  const auto row = [&out](const std::vector<std::string>& fields) {
    bool first = true;
    for (const std::string& field : fields) {
      if (!first) out += ',';
      out += csv_field(field);
      first = false;
    }
    out += "\r\n";
  };
  for (const CaseLine& line : m.cases) {
    const Case& c = *line.source;
    const CaseFigures f = figures_of(c);
    std::optional<double> median, min, max;
    if (f.samples) {
      median = f.samples->median;
      min = f.samples->min;
      max = f.samples->max;
    }
    const std::string extra =
        c.extra.empty() ? std::string()
                        : c.extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    row({m.experiment,
         c.part,
         c.method,
         c.direction,
         c.memory,
         c.timing,
         std::to_string(c.bytes),
         format_size(c.bytes),
         std::to_string(c.samples_ms.size()),
         ms(median),
         ms(min),
         ms(max),
         f.gb_per_s ? fmt::format("{:.3f}", *f.gb_per_s) : std::string(),
         ms(f.call_median_ms),
         c.verified ? "true" : "false",
         c.gate,
         extra,
         line.stop,
         line.spread ? fmt::format("{:.6f}", *line.spread) : std::string(),
         f.samples ? to_string(line.stability.stability) : std::string(),
         line.stability.detail,
         "",
         "",
         "",
         "",
         ""});
  }
  // The verdicts after the cases, one row per claim with part "claim", so a spreadsheet that
  // filters on part keeps either; the case columns stay empty on them.
  for (const VerdictGroup& g : m.verdicts) {
    for (const Prediction& p : g.items) {
      for (const Claim& c : p.claims) {
        std::vector<std::string> fields(21);
        fields[0] = m.experiment;
        fields[1] = "claim";
        fields.insert(fields.end(), {g.id, std::to_string(p.number), c.text,
                                     verdict_word(c.verdict, g.judged), c.evidence});
        row(fields);
      }
    }
  }
  return out;
}

std::string render_csv(const RunRecord& r) {
  return render_csv(analyse(r));
}

}  // namespace pinbench
