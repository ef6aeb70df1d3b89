#include "cli/defaults.hpp"

#include <fmt/format.h>

#include "framework/units.hpp"

namespace pinbench::cli {

std::string size_default(std::uint64_t bytes) {
  const std::string rounded = format_size(bytes);
  return parse_size(rounded) == bytes ? rounded : fmt::format("{} B", bytes);
}

std::string size_list_default(const std::vector<std::uint64_t>& sizes) {
  std::string out;
  for (std::uint64_t s : sizes) out += (out.empty() ? "" : ",") + size_default(s);
  return out;
}

std::string size_range_default(std::uint64_t first, std::uint64_t last, int factor) {
  return fmt::format("{}:{}:x{}", size_default(first), size_default(last), factor);
}

std::string count_list_default(const std::vector<int>& counts) {
  std::string out;
  for (int c : counts) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

}  // namespace pinbench::cli
