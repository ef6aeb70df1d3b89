// Part 1 of the lesson: blocking cudaMemcpy from a pageable and from a pinned host buffer at
// each size, and the exercise's reverse sweep (device to host). Both host buffers hold the same
// bytes. Before a path is timed, one copy of it is checked byte for byte against the reference
// bytes; after its timed copies, the destination is checked again. Each timed copy sits between
// two CUDA events on the legacy default stream, after the configured warm-ups; the timed copies
// are queued back to back and waited for once. The destination is cleared between the warm-ups
// and the timed copies, so the check after timing proves that the timed copies themselves
// delivered the bytes.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/nvtx_domain.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "experiments/lesson/measure_parts.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"

namespace pinbench::experiments::lesson {
namespace {

constexpr std::uint64_t kSeed = 0x5EED0053;

// Copies the device's first `bytes` into the check buffer and compares them with the reference.
std::optional<std::size_t> verify_device(const CopyBuffers& b, std::size_t bytes) {
  std::memset(b.check.data(), 0, bytes);
  PINBENCH_CUDA_TRY(cudaMemcpy(b.check.data(), b.device.data(), bytes, cudaMemcpyDeviceToHost));
  return first_mismatch(b.check.data(), b.expected.data(), bytes);
}

void copy_once(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  PINBENCH_CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
}

// `kind_ok`: the host buffer passed its memory-kind gate; a rate is only verified if it did.
Case measure(PartContext& ctx, const CopyBuffers& b, bool h2d, cuda::HostBuffer& host,
             std::size_t bytes, bool kind_ok) {
  const LessonConfig& cfg = ctx.config;
  const std::string direction = h2d ? "h2d" : "d2h";
  const std::string memory = to_string(host.kind());
  const CaseSpec spec{
      "copy",        direction, memory,      "cudaMemcpy",
      "cuda_events", bytes,     cfg.warmups, gate_name({"copy", direction, memory}, bytes)};

  void* dst = h2d ? b.device.data() : host.data();
  const void* src = h2d ? host.data() : b.device.data();
  const cudaMemcpyKind kind = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  auto clear = [&] {
    if (h2d) {
      PINBENCH_CUDA_TRY(cudaMemset(b.device.data(), 0, bytes));
    } else {
      std::memset(host.data(), 0, bytes);
    }
  };
  auto verify = [&] {
    return h2d ? verify_device(b, bytes) : first_mismatch(host.data(), b.expected.data(), bytes);
  };

  CaseMethod method;
  method.rule = StopRule::fixed(cfg.iterations);
  method.max_batch = method.rule.max_samples;  // the timed copies run back to back, then one wait
  // Gate: one copy into a cleared destination must deliver exactly the reference bytes.
  method.gate_copy = [&] {
    clear();
    copy_once(dst, src, bytes, kind);
    return verify();
  };
  method.warmup = [&] {
    for (int i = 0; i < cfg.warmups; ++i) copy_once(dst, src, bytes, kind);
  };
  method.batch = [&](Sampler& s, int, int count, Timed& out) {
    clear();
    for (int i = 0; i < count; ++i) {
      s.start(i);
      copy_once(dst, src, bytes, kind);
      s.stop(i);
    }
    s.wait(count - 1);
    for (int i = 0; i < count; ++i) out.samples_ms.push_back(s.elapsed_ms(i));
    // After timing, the destination must still hold exactly the reference bytes.
    if (const auto bad = verify()) out.fail(mismatch_detail(*bad, bytes));
  };
  return run_case(ctx, spec, kind_ok, method);
}

}  // namespace

void run_copies(PartContext& ctx) {
  const auto& sizes = ctx.config.sizes;
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  ctx.progress(
      fmt::format("part 1: allocating {} pageable and pinned buffers", format_size(largest)));
  CopyBuffers b(largest, kSeed);
  std::memcpy(b.pageable.data(), b.expected.data(), largest);
  std::memcpy(b.pinned.data(), b.expected.data(), largest);
  b.gate_kinds(ctx.record, "copy", /*gate_check=*/true);

  for (const bool h2d : {true, false}) {
    if (!h2d) {
      // The reverse sweep reads the reference bytes from the device.
      PINBENCH_CUDA_TRY(
          cudaMemcpy(b.device.data(), b.pinned.data(), largest, cudaMemcpyHostToDevice));
    }
    for (cuda::HostBuffer* host : {&b.pageable, &b.pinned}) {
      const std::string group =
          fmt::format("part1 {} {}", h2d ? "h2d" : "d2h", to_string(host->kind()));
      const PhaseRange range(group);
      for (std::size_t bytes : sizes) {
        ctx.progress(fmt::format("{} {}", group, format_size(bytes)));
        ctx.record.cases.push_back(measure(ctx, b, h2d, *host, bytes, b.kind_ok(host)));
      }
    }
  }
}

}  // namespace pinbench::experiments::lesson
