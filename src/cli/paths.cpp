#include "cli/paths.hpp"

#include <cstdlib>
#include <filesystem>

namespace pinbench::cli {

std::string binary_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

std::string data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("PINBENCH_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const fs::path beside = fs::path(binary_dir()).parent_path() / "data";
  if (fs::is_directory(beside / "runs", ec)) return beside.string();
  return PINBENCH_SOURCE_DATA_DIR;
}

std::string python_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("PINBENCH_PYTHON_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const fs::path bin = binary_dir();
  for (const fs::path& p : {bin / "python", bin.parent_path() / "python"}) {
    if (fs::is_regular_file(p / "pinbench" / "torch_paths.py", ec)) return p.string();
  }
  return "";
}

std::string c_library_beside_binary() {
  std::error_code ec;
  const std::filesystem::path bin = binary_dir();
  const std::filesystem::path lib = bin / "libpinbench_c.so";
  return std::filesystem::is_regular_file(lib, ec) ? lib.string() : "";
}

}  // namespace pinbench::cli
