// What `pinbench lesson` measures: the Day 53 page's sizes, warm-ups and timed counts.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/config_schema.hpp"

namespace pinbench::experiments::lesson {

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
  static constexpr auto fields() {
    return std::make_tuple(
        field("sizes_bytes", &LessonConfig::sizes, FieldKind::kSizes),
        field("warmups", &LessonConfig::warmups, FieldKind::kCount),
        field("iterations", &LessonConfig::iterations, FieldKind::kCount),
        field("async_bytes", &LessonConfig::async_bytes, FieldKind::kSize),
        field("async_warmups", &LessonConfig::async_warmups, FieldKind::kCount),
        field("async_iterations", &LessonConfig::async_iterations, FieldKind::kCount),
        field("kernel_bytes", &LessonConfig::kernel_bytes, FieldKind::kSize),
        field("kernel_warmups", &LessonConfig::kernel_warmups, FieldKind::kCount),
        field("kernel_iterations", &LessonConfig::kernel_iterations, FieldKind::kCount),
        field("ratio_bytes", &LessonConfig::ratio_bytes, FieldKind::kSize));
  }
};

nlohmann::json to_json(const LessonConfig& c);
LessonConfig lesson_config_from(const nlohmann::json& j);  // throws InputError

}  // namespace pinbench::experiments::lesson
