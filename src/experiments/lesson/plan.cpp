#include "experiments/lesson/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench {

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
  return json{{"sizes_bytes", c.sizes},
              {"warmups", c.warmups},
              {"iterations", c.iterations},
              {"async_bytes", c.async_bytes},
              {"async_warmups", c.async_warmups},
              {"async_iterations", c.async_iterations},
              {"kernel_bytes", c.kernel_bytes},
              {"kernel_warmups", c.kernel_warmups},
              {"kernel_iterations", c.kernel_iterations},
              {"ratio_bytes", c.ratio_bytes}};
}

LessonConfig lesson_config_from(const json& j) {
  LessonConfig d = LessonConfig::defaults();
  if (!j.is_object()) throw InputError("run record: 'config' is not an object");
  try {
    LessonConfig c;
    c.sizes = j.value("sizes_bytes", d.sizes);
    c.warmups = j.value("warmups", d.warmups);
    c.iterations = j.value("iterations", d.iterations);
    c.async_bytes = j.value("async_bytes", d.async_bytes);
    c.async_warmups = j.value("async_warmups", d.async_warmups);
    c.async_iterations = j.value("async_iterations", d.async_iterations);
    c.kernel_bytes = j.value("kernel_bytes", d.kernel_bytes);
    c.kernel_warmups = j.value("kernel_warmups", d.kernel_warmups);
    c.kernel_iterations = j.value("kernel_iterations", d.kernel_iterations);
    c.ratio_bytes = j.value("ratio_bytes", d.ratio_bytes);
    c.normalize();
    return c;
  } catch (const json::exception& e) {
    throw InputError(
        fmt::format("run record: 'config' has a field of the wrong type ({})", e.what()));
  }
}

}  // namespace pinbench
