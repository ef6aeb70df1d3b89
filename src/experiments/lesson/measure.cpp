// The lesson's driver: checks that the run fits, then runs the three parts in the page's order
// and stamps the record with the machine, the configuration and the wall time. Every part
// samples its cases through run_case: a gate copy checked before anything is timed, warm-ups,
// then a fixed count of timed samples (the page's 3 warm-ups + 10 timed by default), with the
// destination checked again after them.
#include "experiments/lesson/measure.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/device.hpp"
#include "experiments/lesson/measure_parts.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"

namespace pinbench::experiments::lesson {

CopyBuffers::CopyBuffers(std::size_t bytes, std::uint64_t seed)
    : expected(bytes, MemoryKind::kPageable),
      pageable(bytes, MemoryKind::kPageable),
      pinned(bytes, MemoryKind::kPinned),
      check(bytes, MemoryKind::kPinned),
      device(bytes) {
  fill_pattern(expected.data(), bytes, seed);
}

void CopyBuffers::gate_kinds(RunRecord& record, const std::string& part, bool gate_check) {
  const std::string prefix = "kind/" + part + "/";
  pageable_ok = add_gate(record, kind_gate(prefix + "pageable", pageable.data(), "pageable"));
  pinned_ok = add_gate(record, kind_gate(prefix + "pinned", pinned.data(), "pinned"));
  if (gate_check) add_gate(record, kind_gate(prefix + "check", check.data(), "pinned"));
}

Case run_case(PartContext& ctx, CaseSpec spec, bool kind_ok, const CaseMethod& method) {
  if (const auto mismatch = method.gate_copy()) {
    spec.gate += " (before timing)";
    const Gate g = bytes_gate(spec.gate, mismatch, spec.bytes);
    ctx.record.gates.push_back(g);
    Timed none;
    none.fail(g.detail);
    return make_case(spec, none, kind_ok);
  }
  Sampler sampler(method.rule, method.clock, method.max_batch);
  const Timed t = sampler.run(method.batch, method.warmup);
  ctx.record.gates.push_back(
      sampled_gate(spec.gate, t, bytes_gate(spec.gate, std::nullopt, spec.bytes).detail));
  return make_case(spec, t, kind_ok);
}

RunRecord run_lesson(const LessonConfig& config, const ProgressFn& progress) {
  const auto start = SteadyClock::now();
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
  // A signal ends the lesson between its parts: each part's cases stand or fall together.
  for (void (*part)(lesson::PartContext&) :
       {lesson::run_copies, lesson::run_async, lesson::run_zero_copy}) {
    if (stop_before_next_case(record)) break;
    part(ctx);
  }

  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::lesson
