// The CSV reader: one pass, a small state machine, no allocation beyond the fields it returns.
#include "core/importers/csv.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/input_limits.hpp"
#include "core/text_file.hpp"

namespace pinbench {

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // A NUL byte never occurs in text a profiler writes; saying "binary" beats a confusing
  // complaint about quotes or columns further down.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < nul; ++i) line += text[i] == '\n' ? 1 : 0;
    throw InputError(
        fmt::format("{} line {}: binary data (a NUL byte), not CSV text", source, line));
  }

  std::vector<CsvRecord> records;
  CsvRecord current;
  std::string field;
  std::size_t line = 1;
  current.line = 1;
  bool in_quotes = false;
  bool after_quote = false;  // just closed a quoted field: only a separator may follow
  bool field_started = false;
  std::size_t quote_line = 0;

  auto end_field = [&] {
    current.fields.push_back(std::move(field));
    field.clear();
    after_quote = false;
    field_started = false;
  };
  auto end_record = [&] {
    end_field();
    // A blank line is one empty field; it carries nothing.
    if (!(current.fields.size() == 1 && current.fields[0].empty())) {
      records.push_back(std::move(current));
    }
    current = CsvRecord{};
  };

  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_quotes) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
          after_quote = true;
        }
      } else {
        if (ch == '\n') ++line;
        field += ch;
      }
      continue;
    }
    if (ch == ',') {
      end_field();
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      ++line;
      current.line = line;
    } else if (after_quote) {
      throw InputError(fmt::format("{} line {}: unexpected '{}' after a closing quote", source,
                                   line, ch >= 0x20 && ch < 0x7f ? std::string(1, ch) : "\\x.."));
    } else if (ch == '"' && !field_started) {
      in_quotes = true;
      field_started = true;
      quote_line = line;
    } else {
      // A quote inside an unquoted field is not RFC 4180, but it is unambiguous: keep it.
      field += ch;
      field_started = true;
    }
  }
  if (in_quotes) {
    throw InputError(fmt::format("{} line {}: a quoted field is never closed (truncated file?)",
                                 source, quote_line));
  }
  if (field_started || !current.fields.empty() || after_quote) end_record();
  return records;
}

std::string read_text_file(const std::string& path) {
  return read_input_file(path, kMaxNsysExportBytes, "nsys export");
}

}  // namespace pinbench
