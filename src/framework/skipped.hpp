// What an experiment chose not to measure, as its record's config lists it ("skipped": one
// object per case left out, with why), read back once as structs for the printers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pinbench {

// One case left out. A field the entry lacks reads empty (bytes: 1).
struct SkippedCase {
  std::string memory;
  std::string method;
  std::string direction;
  std::string reason;
  std::uint64_t bytes = 1;
};

// The config's "skipped" list, in order; empty where it has none.
std::vector<SkippedCase> skipped_from(const nlohmann::json& config);

}  // namespace pinbench
