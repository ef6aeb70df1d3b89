// An RFC 4180 CSV reader for the files profilers export: quoted fields with doubled quotes,
// commas and line breaks inside quotes, CRLF or LF line ends, a UTF-8 byte order mark. Every
// record keeps the line it started on, so an error can say "FILE line N". Malformed input throws
// InputError with the file and line; it never crashes, whatever the bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

struct CsvRecord {
  std::size_t line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

// One record as scan_csv sees it: views into the text (or into a buffer of the scan's own for a
// quoted field with doubled quotes), valid only during the callback.
struct CsvRow {
  std::size_t line = 0;  // 1-based line where the record starts
  std::vector<std::string_view> fields;
};

// Calls `on_row` for every record of `text`, in order, without keeping any: memory stays at the
// text plus one record. Same rules and errors as parse_csv; an error is thrown when the scan
// reaches it, after the records before it were handed out.
void scan_csv(std::string_view text, const std::string& source,
              const std::function<void(const CsvRow&)>& on_row);

// Parses `text`; `source` names it in errors (usually the file name). Blank lines are skipped.
// Throws InputError for binary data (a NUL byte), an unterminated quoted field, or characters
// between a closing quote and the next separator.
std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& source);

// Reads a whole export, at most kMaxNsysExportBytes (framework/input_limits.hpp); throws InputError
// naming the file when it is missing, a directory, too large, or cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace pinbench
