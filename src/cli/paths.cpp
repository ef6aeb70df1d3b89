#include "cli/paths.hpp"

#include <unistd.h>
#include <climits>
#include <cstdlib>

#include <filesystem>

#include <fmt/format.h>

#include "framework/errors.hpp"

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
  const fs::path above = fs::path(binary_dir()).parent_path();
  for (const fs::path& p : {above / "data", above / "share" / "pinbench" / "data"}) {
    if (fs::is_directory(p / "runs", ec)) return p.string();
  }
  return PINBENCH_SOURCE_DATA_DIR;
}

std::string python_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("PINBENCH_PYTHON_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const fs::path bin = binary_dir();
  for (const fs::path& p : {bin / "python", bin.parent_path() / "python",
                            bin.parent_path() / "lib" / "pinbench" / "python"}) {
    if (fs::is_regular_file(p / "pinbench" / "torch_paths.py", ec)) return p.string();
  }
  return "";
}

std::string c_library_beside_binary() {
  std::error_code ec;
  const std::filesystem::path bin = binary_dir();
  for (const std::filesystem::path& lib :
       {bin / "libpinbench_c.so", bin.parent_path() / "lib" / "libpinbench_c.so"}) {
    if (std::filesystem::is_regular_file(lib, ec)) return lib.string();
  }
  return "";
}

std::string program_library(const std::string& file_name, const std::string& target) {
  const std::string dir = binary_dir();
  for (const std::string& p : {dir + "/" + file_name, dir + "/../lib/pinbench/" + file_name}) {
    if (access(p.c_str(), R_OK) == 0) {
      char real[PATH_MAX];
      return realpath(p.c_str(), real) != nullptr ? std::string(real) : p;
    }
  }
  throw InputError(
      fmt::format("pinbench's {} is not beside {} nor in {}/../lib/pinbench "
                  "(build the {} target)",
                  file_name, dir + "/pinbench", dir, target));
}

std::vector<NamedPath> own_files() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<NamedPath> files = {{ec ? "/proc/self/exe" : exe.string(), "pinbench program"}};
  const fs::path bin = binary_dir();
  for (const fs::path& dir :
       {bin, bin.parent_path() / "lib", bin.parent_path() / "lib" / "pinbench"}) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("libpinbench", 0) == 0 && name.find(".so") != std::string::npos) {
        files.push_back({entry.path().string(), "pinbench library"});
      } else if (name == "pinbench_neighbour") {  // the program `pinbench pin` starts
        files.push_back({entry.path().string(), "pinbench program"});
      }
    }
  }
  return files;
}

}  // namespace pinbench::cli
