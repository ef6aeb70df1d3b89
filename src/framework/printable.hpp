// Text from a record, as a terminal or a markdown page may show it. Records come from strangers
// (a fleet's hosts, a colleague's run): a hostname or a device name holding ESC sequences would
// retitle the terminal, move its cursor or erase the row it stands in. Every printer that puts a
// record's words on a terminal or into markdown passes them through `printable`.
#pragma once

#include <string>
#include <string_view>

namespace pinbench {

// `text` with every control character shown escaped: C0 controls (tab, newline and carriage
// return included) and DEL as \xNN, C1 controls (U+0080 to U+009F) as \uNNNN, and every byte
// that is not part of a well-formed UTF-8 sequence as \xNN. Everything else is kept as it is.
std::string printable(std::string_view text);

// The same for a whole page of text (a report, a CSV file, an HTML page): newlines and tabs are
// kept, every other control character is shown escaped as printable() shows it. The last guard
// of every printer: whatever a field let through, no ESC, BEL, CR, BS or NUL reaches a reader.
std::string printable_text(std::string_view text);

// The offset of the first byte of `text` that is not part of a well-formed UTF-8 sequence, or
// std::string_view::npos when every byte is.
std::size_t first_non_utf8(std::string_view text);

}  // namespace pinbench
