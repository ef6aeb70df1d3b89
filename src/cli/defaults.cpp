#include "cli/defaults.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench::cli {

std::string size_default(std::uint64_t bytes) {
  // As a user types it: "64MiB", not format_size's "64 MiB", so a default can be copied.
  std::string rounded = format_size(bytes);
  if (parse_size(rounded) != bytes) return std::to_string(bytes);
  rounded.erase(std::remove(rounded.begin(), rounded.end(), ' '), rounded.end());
  return rounded;
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

std::string flagged(const std::string& flag, const std::string& message) {
  return message.rfind(flag, 0) == 0 ? message : flag + ": " + message;
}

std::uint64_t parse_size_of(const std::string& flag, const std::string& text) {
  try {
    return parse_size(text);
  } catch (const InputError& e) {
    throw InputError(flagged(flag, e.what()));
  }
}

}  // namespace pinbench::cli
