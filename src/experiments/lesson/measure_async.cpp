// Part 2 of the lesson: how long does cudaMemcpyAsync hold the host thread? One copy of the
// probe size on a non-blocking stream, from (or to) a pageable and a pinned buffer, in both
// directions. The host clock is read only at settled points: before the call, when the call has
// returned, and when cudaStreamSynchronize has returned. The warm-up copy doubles as the gate:
// its destination is checked byte for byte before anything is timed. The destination is then
// cleared, and checked again after the timed copies. All set-up work goes on the probe's own
// stream, so nothing on another stream can race it.
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

constexpr std::uint64_t kSeed = 0xA5C0053;

}  // namespace

void run_async(PartContext& ctx) {
  const LessonConfig& cfg = ctx.config;
  const std::size_t bytes = cfg.async_bytes;
  CopyBuffers b(bytes, kSeed);
  cuda::Stream stream(cudaStreamNonBlocking);
  b.gate_kinds(ctx.record, "async", /*gate_check=*/false);
  cuda::HostBuffer& expected = b.expected;
  cuda::HostBuffer& check = b.check;
  cuda::DeviceBuffer& device = b.device;

  for (const bool h2d : {true, false}) {
    for (cuda::HostBuffer* host : {&b.pageable, &b.pinned}) {
      const std::string direction = h2d ? "h2d" : "d2h";
      const std::string memory = to_string(host->kind());
      const std::string group = fmt::format("part2 async {} {}", direction, memory);
      ctx.progress(fmt::format("{} {}", group, format_size(bytes)));
      const PhaseRange range(group);

      const int warmups = std::max(1, cfg.async_warmups);  // the first copy is also the gate
      const CaseSpec spec{
          "async",      direction, memory,  "cudaMemcpyAsync",
          "host_clock", bytes,     warmups, gate_name({"async", direction, memory}, bytes)};

      void* dst = h2d ? device.data() : host->data();
      const void* src = h2d ? host->data() : device.data();
      const cudaMemcpyKind kind = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
      auto clear_destination = [&] {
        if (h2d) {
          PINBENCH_CUDA_TRY(cudaMemsetAsync(device.data(), 0, bytes, stream.get()));
          stream.synchronize();
        } else {
          std::memset(host->data(), 0, bytes);
        }
      };
      auto verify = [&]() -> std::optional<std::size_t> {
        if (!h2d) return first_mismatch(host->data(), expected.data(), bytes);
        std::memset(check.data(), 0, bytes);
        PINBENCH_CUDA_TRY(cudaMemcpyAsync(check.data(), device.data(), bytes,
                                          cudaMemcpyDeviceToHost, stream.get()));
        stream.synchronize();
        return first_mismatch(check.data(), expected.data(), bytes);
      };

      CaseMethod method;
      method.clock = SampleClock::kHostClock;
      method.rule = StopRule::fixed(cfg.async_iterations);
      method.max_batch = method.rule.max_samples;  // one check after all of them, as the page does
      method.gate_copy = [&] {
        // Each path starts from a cleared destination and a source holding the reference bytes.
        if (h2d) {
          std::memcpy(host->data(), expected.data(), bytes);
        } else {
          PINBENCH_CUDA_TRY(cudaMemcpyAsync(device.data(), expected.data(), bytes,
                                            cudaMemcpyHostToDevice, stream.get()));
          stream.synchronize();
        }
        clear_destination();
        for (int i = 0; i < warmups; ++i) {
          PINBENCH_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()));
          stream.synchronize();
        }
        return verify();
      };
      method.warmup = clear_destination;
      // The host clock is read only at settled points: before the call, when the call has
      // returned, and when cudaStreamSynchronize has returned.
      method.batch = [&](Sampler& s, int, int count, Timed& out) {
        for (int i = 0; i < count; ++i) {
          s.start(i);
          PINBENCH_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()));
          out.call_ms.push_back(s.ms_since_start(i));  // the call has returned
          stream.synchronize();
          s.stop(i);  // the copy has completed
          out.samples_ms.push_back(s.elapsed_ms(i));
        }
        if (const auto bad = verify()) out.fail(mismatch_detail(*bad, bytes));
      };
      ctx.record.cases.push_back(run_case(ctx, spec, b.kind_ok(host), method));
    }
  }
}

}  // namespace pinbench::experiments::lesson
