// The CSV reader: one pass, a small state machine. scan_csv hands out views into the text, so a
// reader that keeps only the columns it needs holds little more than the file itself.
#include "framework/csv_reader.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "framework/text_file.hpp"

namespace pinbench {

void scan_csv(std::string_view text, const std::string& source,
              const std::function<void(const CsvRow&)>& on_row) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // A NUL byte never occurs in text a profiler writes; saying "binary" beats a confusing
  // complaint about quotes or columns further down.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < nul; ++i) line += text[i] == '\n' ? 1 : 0;
    throw InputError(
        fmt::format("{} line {}: binary data (a NUL byte), not CSV text", source, line));
  }

  // A field is a slice of `text`, or, when it held doubled quotes, of `scratch`; the views are
  // made once the record is complete, when `scratch` no longer moves.
  struct Piece {
    bool in_scratch;
    std::size_t offset;
    std::size_t size;
  };
  std::vector<Piece> pieces;
  std::string scratch;
  CsvRow row;
  std::size_t line = 1;
  row.line = 1;
  bool in_quotes = false;
  bool after_quote = false;  // just closed a quoted field: only a separator may follow
  bool field_started = false;
  bool escaped = false;   // the quoted field being read is copied into `scratch`
  std::size_t start = 0;  // where the field's text begins
  std::size_t scratch_start = 0;
  Piece closed{false, 0, 0};  // the quoted field just closed
  std::size_t quote_line = 0;

  auto end_field = [&](std::size_t end) {
    if (after_quote) {
      pieces.push_back(closed);
    } else if (field_started) {
      pieces.push_back(Piece{false, start, end - start});
    } else {
      pieces.push_back(Piece{false, 0, 0});
    }
    after_quote = false;
    field_started = false;
    escaped = false;
  };
  auto end_record = [&](std::size_t end) {
    end_field(end);
    // A blank line is one empty field; it carries nothing.
    if (!(pieces.size() == 1 && pieces[0].size == 0)) {
      row.fields.clear();
      for (const Piece& p : pieces) {
        row.fields.push_back(p.in_scratch ? std::string_view(scratch).substr(p.offset, p.size)
                                          : text.substr(p.offset, p.size));
      }
      on_row(row);
    }
    pieces.clear();
    scratch.clear();
  };

  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_quotes) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          if (!escaped) {
            scratch_start = scratch.size();
            scratch.append(text.substr(start, i - start));
            escaped = true;
          }
          scratch += '"';
          ++i;
        } else {
          in_quotes = false;
          after_quote = true;
          closed = escaped ? Piece{true, scratch_start, scratch.size() - scratch_start}
                           : Piece{false, start, i - start};
        }
      } else {
        if (ch == '\n') ++line;
        if (escaped) scratch += ch;
      }
      continue;
    }
    if (ch == ',') {
      end_field(i);
    } else if (ch == '\n' || ch == '\r') {
      const std::size_t end = i;
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record(end);
      ++line;
      row.line = line;
    } else if (after_quote) {
      throw InputError(fmt::format("{} line {}: unexpected '{}' after a closing quote", source,
                                   line, ch >= 0x20 && ch < 0x7f ? std::string(1, ch) : "\\x.."));
    } else if (ch == '"' && !field_started) {
      in_quotes = true;
      field_started = true;
      start = i + 1;
      quote_line = line;
    } else if (!field_started) {
      // A quote inside an unquoted field is not RFC 4180, but it is unambiguous: keep it.
      field_started = true;
      start = i;
    }
  }
  if (in_quotes) {
    throw InputError(fmt::format("{} line {}: a quoted field is never closed (truncated file?)",
                                 source, quote_line));
  }
  if (field_started || !pieces.empty() || after_quote) end_record(text.size());
}

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& source) {
  std::vector<CsvRecord> records;
  scan_csv(text, source, [&](const CsvRow& r) {
    CsvRecord rec;
    rec.line = r.line;
    rec.fields.assign(r.fields.begin(), r.fields.end());
    records.push_back(std::move(rec));
  });
  return records;
}

std::string read_text_file(const std::string& path) {
  return read_input_file(path, kMaxNsysExportBytes, "nsys export");
}

}  // namespace pinbench
