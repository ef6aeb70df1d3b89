// Writing output files whole or not at all.
#pragma once

#include <string>

namespace pinbench {

// Writes `text` to a temporary file beside `path` and renames it into place, so a failed write
// never leaves half a file where a whole one was. `-` writes to standard output. Throws
// InputError naming the path when the file cannot be written.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace pinbench
