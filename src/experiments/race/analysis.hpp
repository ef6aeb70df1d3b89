// The race's rows: per source and what the host did after the call, how many of the words the
// device received were the old bytes, the host's new ones, or neither.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::race {

// What `pinbench race` was asked for (measure.hpp), as the record's config holds it.
struct RaceConfig {
  std::uint64_t bytes = 64ull << 20;
  int trials = 5;

  // The record's config: each key written (put_fields) and validated (config_fields) from here.
  static constexpr auto fields() {
    return std::make_tuple(field("bytes", &RaceConfig::bytes, FieldKind::kSize),
                           field("trials", &RaceConfig::trials, FieldKind::kCount));
  }
};

struct RaceRow {
  std::string memory, method;
  std::uint64_t bytes = 0;
  double call_ms = 0.0;  // median time the call held the thread
  std::uint64_t old_words = 0, new_words = 0, other_words = 0;  // summed over trials
  int trials = 0;
  double new_fraction = 0.0;  // of all words, over all trials
};
std::vector<RaceRow> race_rows(const RunRecord& record);

}  // namespace pinbench::experiments::race
