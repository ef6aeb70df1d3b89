// What `pinbench lesson` measures: the Day 53 page's sizes, warm-ups and timed counts.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/config_schema.hpp"

namespace pinbench {

struct LessonConfig {
  std::vector<std::uint64_t> sizes;  // part 1 sweep
  int warmups = 3;
  int iterations = 10;
  std::uint64_t async_bytes = 0;  // part 2
  int async_warmups = 1;
  int async_iterations = 10;
  std::uint64_t kernel_bytes = 0;  // part 3
  int kernel_warmups = 3;
  int kernel_iterations = 10;
  std::uint64_t ratio_bytes = 0;  // the size at which the exercise compares directions

  static LessonConfig defaults();  // the page's: 1-256 MiB, 3 + 10, 64 MiB probes
  void validate() const;           // throws InputError
  // Sorts and de-duplicates the sizes, and reads the exercise's ratios at `ratio_bytes` if it is
  // one of them, else at the largest size.
  void normalize();

  // Every field under its record key and kind: one list for writing, reading and validating
  // (framework/config_schema.hpp).
  template <class Self, class Visit>
  static void for_each_field(Self& c, Visit&& visit) {
    visit("sizes_bytes", c.sizes, FieldKind::kSizes);
    visit("warmups", c.warmups, FieldKind::kCount);
    visit("iterations", c.iterations, FieldKind::kCount);
    visit("async_bytes", c.async_bytes, FieldKind::kSize);
    visit("async_warmups", c.async_warmups, FieldKind::kCount);
    visit("async_iterations", c.async_iterations, FieldKind::kCount);
    visit("kernel_bytes", c.kernel_bytes, FieldKind::kSize);
    visit("kernel_warmups", c.kernel_warmups, FieldKind::kCount);
    visit("kernel_iterations", c.kernel_iterations, FieldKind::kCount);
    visit("ratio_bytes", c.ratio_bytes, FieldKind::kSize);
  }
};

nlohmann::json to_json(const LessonConfig& c);
LessonConfig lesson_config_from(const nlohmann::json& j);  // throws InputError

}  // namespace pinbench
