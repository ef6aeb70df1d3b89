#include "cli/paths.hpp"

#include <cstdlib>
#include <filesystem>

namespace pinbench::cli {

std::string data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("PINBENCH_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path() / "data";
    if (fs::is_directory(beside / "runs", ec)) return beside.string();
  }
  return PINBENCH_SOURCE_DATA_DIR;
}

}  // namespace pinbench::cli
