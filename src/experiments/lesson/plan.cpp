#include "experiments/lesson/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::lesson {

using nlohmann::json;

LessonConfig LessonConfig::defaults() {
  LessonConfig c;
  c.sizes = {1 * kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB, 256 * kMiB};
  c.async_bytes = 64 * kMiB;
  c.kernel_bytes = 64 * kMiB;
  c.ratio_bytes = 64 * kMiB;
  return c;
}

void LessonConfig::validate() const {
  if (sizes.empty()) throw InputError("the part 1 size list is empty");
  for (std::uint64_t s : sizes) {
    if (s == 0) throw InputError("a part 1 size is zero");
  }
  if (async_bytes == 0) throw InputError("the async probe size is zero");
  if (kernel_bytes < sizeof(float) || kernel_bytes % sizeof(float) != 0) {
    throw InputError(fmt::format("the kernel size must be a positive multiple of 4 bytes, not {}",
                                 kernel_bytes));
  }
  if (warmups < 0 || async_warmups < 0 || kernel_warmups < 0) {
    throw InputError("warm-up counts cannot be negative");
  }
  if (iterations < 1 || async_iterations < 1 || kernel_iterations < 1) {
    throw InputError("timed counts must be at least 1");
  }
}

void LessonConfig::normalize() {
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (!sizes.empty() && std::find(sizes.begin(), sizes.end(), ratio_bytes) == sizes.end()) {
    ratio_bytes = sizes.back();
  }
}

json to_json(const LessonConfig& c) {
  json j = json::object();
  put_fields(j, c);
  return j;
}

LessonConfig lesson_config_from(const json& j) {
  if (!j.is_object()) refuse_field("config", "is not an object");
  try {
    LessonConfig c = LessonConfig::defaults();  // a key the record lacks keeps its default
    get_fields(j, c);
    c.normalize();
    return c;
  } catch (const json::exception& e) {
    refuse_field("config", fmt::format("has a field of the wrong type ({})", e.what()));
  }
}

}  // namespace pinbench::experiments::lesson
