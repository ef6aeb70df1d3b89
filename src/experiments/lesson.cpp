// The lesson's driver: checks that the run fits, then runs the three parts in the page's order
// and stamps the record with the machine, the configuration and the wall time.
#include "experiments/lesson.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/units.hpp"
#include "cuda/buffers.hpp"
#include "cuda/device.hpp"
#include "experiments/lesson_parts.hpp"
#include "experiments/run_record.hpp"

namespace pinbench {
namespace lesson {

std::string case_key(const std::string& part, const std::string& direction,
                     const std::string& memory, std::size_t bytes) {
  std::string size = format_size(bytes);
  size.erase(std::remove(size.begin(), size.end(), ' '), size.end());
  return fmt::format("{}/{}/{}/{}", part, direction, memory, size);
}

bool add_gate(RunRecord& record, const std::string& name, std::optional<std::size_t> mismatch,
              std::size_t bytes) {
  Gate g;
  g.name = name;
  g.passed = !mismatch.has_value();
  g.detail = g.passed ? fmt::format("all {} bytes match", bytes)
                      : fmt::format("first difference at byte {} of {}", *mismatch, bytes);
  record.gates.push_back(g);
  return g.passed;
}

bool add_kind_gate(RunRecord& record, const std::string& name, const void* ptr,
                   const std::string& expected) {
  const std::string seen = cuda::observed_memory_kind(ptr);
  Gate g;
  g.name = name;
  g.passed = seen == expected;
  g.detail = fmt::format("cudaPointerGetAttributes says {}, expected {}", seen, expected);
  record.gates.push_back(g);
  return g.passed;
}

}  // namespace lesson

RunRecord run_lesson(const LessonConfig& config, const ProgressFn& progress) {
  const auto start = std::chrono::steady_clock::now();
  config.validate();
  cuda::require_device();

  const std::uint64_t largest = *std::max_element(config.sizes.begin(), config.sizes.end());
  // The parts run one after another and free what they allocate, so the peak is the largest part.
  const std::uint64_t device_need =
      std::max({largest, config.async_bytes, 2 * config.kernel_bytes});
  const std::uint64_t free_bytes = cuda::device_free_bytes();
  if (device_need > free_bytes) {
    throw InputError(fmt::format("the lesson needs {} of device memory and the device has {} free",
                                 format_size(device_need), format_size(free_bytes)));
  }
  // Part 1 holds four host buffers of the largest size: reference bytes, pageable, pinned and a
  // pinned check buffer. Pinning most of the host's memory can stall the whole machine.
  const std::uint64_t host_need =
      std::max({4 * largest, 4 * config.async_bytes, 4 * config.kernel_bytes});
  const std::uint64_t host_free = host_available_bytes();
  if (host_free > 0 && host_need > host_free / 2) {
    throw InputError(fmt::format(
        "the lesson needs {} of host memory (half of it pinned) and only {} is available",
        format_size(host_need), format_size(host_free)));
  }

  RunRecord record = start_record("lesson", to_json(config));

  lesson::PartContext ctx{config, record, progress};
  lesson::run_copies(ctx);
  lesson::run_async(ctx);
  lesson::run_zero_copy(ctx);

  finish_record(record, start);
  return record;
}

}  // namespace pinbench
