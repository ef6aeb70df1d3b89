#include "core/text_file.hpp"

#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace pinbench {

void write_text_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}'", path));
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(fmt::format("writing '{}' failed", path));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("cannot move the file into place at '{}'", path));
  }
}

}  // namespace pinbench
