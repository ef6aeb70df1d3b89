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

// The header row of `columns`, CRLF-ended.
std::string header_of(const std::vector<CsvColumn>& columns) {
  std::string out;
  for (const CsvColumn& c : columns) out += (out.empty() ? "" : ",") + std::string(c.name);
  return out + "\r\n";
}

}  // namespace

const std::vector<CsvColumn>& csv_case_columns() {
  static const std::vector<CsvColumn> columns = {
      {"experiment", "the record's experiment (lesson, sweep, ...)"},
      {"part", "the part of the experiment the case belongs to; \"claim\" on a verdict's row"},
      {"method", "how the bytes moved (memcpy, kernel, staged, ...)"},
      {"direction", "h2d, d2h or both"},
      {"memory", "the host memory kind (pageable, pinned, registered, managed, ...)"},
      {"timing", "how the samples were timed: cuda_events or host_clock"},
      {"bytes", "bytes per copy"},
      {"size", "the same, as a size (64 MiB)"},
      {"samples", "timed samples"},
      {"median_ms", "median sample, in ms"},
      {"min_ms", "fastest sample, in ms"},
      {"max_ms", "slowest sample, in ms"},
      {"gb_per_s",
       "bytes / median time, in GB/s (10^9 bytes per second); empty when its gate failed"},
      {"call_median_ms", "median time inside the copy call on the host, in ms, where recorded"},
      {"verified", "true when every sample's bytes were checked and matched"},
      {"gate", "the correctness gate that covers the case"},
      {"extra", "the case's other annotations, as one JSON object"},
      {"stop",
       "why sampling stopped: spread, time cap, sample cap, gate failed, or \"not recorded\" in "
       "older records"},
      {"rel_spread", "standard deviation / mean of the times"},
      {"stability", "steady, bimodal, drifting or too few samples"},
      {"stability_detail", "the figures behind the stability word"},
      {"verdict_group", "on a claim's row: predictions or goals"},
      {"item", "on a claim's row: the prediction's or goal's number"},
      {"claim", "on a claim's row: what was claimed"},
      {"verdict",
       "on a claim's row: held, died (a prediction), missed (a goal), undecided or not evaluated"},
      {"evidence", "on a claim's row: the figures it was judged on"}};
  return columns;
}

const std::vector<CsvColumn>& csv_table_columns() {
  static const std::vector<CsvColumn> columns = {
      {"experiment", "the record's experiment (accel, doctor)"},
      {"table", "the table's id"},
      {"row", "the row, from 1"},
      {"column", "the column's header"},
      {"value", "the cell"}};
  return columns;
}

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
    std::string out = header_of(csv_table_columns());
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
  std::string out = header_of(csv_case_columns());
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
        // The case columns stay empty: all but the last five.
        std::vector<std::string> fields(csv_case_columns().size() - 5);
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

}  // namespace pinbench
