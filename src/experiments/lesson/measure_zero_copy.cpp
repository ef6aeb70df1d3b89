// Part 3 of the lesson: what skipping the copy costs. The scale_copy kernel reads the input
// and writes the output (always in device memory) once per launch. The input is either
// device-resident (it paid PCIe once, before timing) or a mapped pinned host buffer that every
// launch reads across PCIe again. Each variant gets one gate launch whose output is compared
// byte for byte with the host's own result, then warm-ups, a cleared output, and timed launches
// between CUDA events; the output is checked again after timing. Everything after set-up runs on
// one stream. A device-to-device cudaMemcpy of the same bytes is
// measured beside them as the card's own copy rate.
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "base/nvtx_domain.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels.cuh"
#include "cuda/stream.hpp"
#include "experiments/lesson/measure_parts.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"

namespace pinbench::experiments::lesson {
namespace {

// Scaling by 3 is exact for these inputs (multiples of 1/4 below 2^14), so the device's output
// must equal the host's bit for bit.
constexpr float kScale = 3.0f;

template <typename Launch>
Case time_variant(PartContext& ctx, const CaseSpec& spec, const cuda::Stream& stream,
                  const cuda::DeviceBuffer& out, const cuda::HostBuffer& expected,
                  cuda::HostBuffer& result, bool kind_ok, Launch launch) {
  const LessonConfig& cfg = ctx.config;
  const std::size_t bytes = spec.bytes;
  auto verify = [&]() {
    std::memset(result.data(), 0, bytes);
    PINBENCH_CUDA_TRY(
        cudaMemcpyAsync(result.data(), out.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    return first_mismatch(result.data(), expected.data(), bytes);
  };
  auto clear_output = [&] {
    PINBENCH_CUDA_TRY(cudaMemsetAsync(out.data(), 0, bytes, stream.get()));
  };

  CaseMethod method;
  method.rule = StopRule::fixed(cfg.kernel_iterations);
  method.max_batch = method.rule.max_samples;  // timed launches back to back, then one wait
  method.gate_copy = [&] {
    clear_output();
    launch();
    return verify();
  };
  method.warmup = [&] {
    for (int i = 0; i < cfg.kernel_warmups; ++i) launch();
  };
  method.batch = [&](Sampler& s, int, int count, Timed& t) {
    clear_output();
    for (int i = 0; i < count; ++i) {
      s.start(i, stream.get());
      launch();
      s.stop(i, stream.get());
    }
    s.wait(count - 1);
    for (int i = 0; i < count; ++i) t.samples_ms.push_back(s.elapsed_ms(i));
    if (const auto bad = verify()) t.fail(mismatch_detail(*bad, bytes));
  };
  return run_case(ctx, spec, kind_ok, method);
}

// A part-3 case of `bytes` read by the kernel or the copy.
CaseSpec variant(const LessonConfig& cfg, const char* part, const char* direction,
                 const char* memory, const char* method, std::size_t bytes) {
  return {part,
          direction,
          memory,
          method,
          "cuda_events",
          bytes,
          cfg.kernel_warmups,
          gate_name({part, direction, memory}, bytes)};
}

}  // namespace

void run_zero_copy(PartContext& ctx) {
  const std::size_t bytes = ctx.config.kernel_bytes;
  const std::size_t n = bytes / sizeof(float);
  ctx.progress(fmt::format("part 3: scale_copy over {}", format_size(bytes)));

  cuda::HostBuffer input(bytes, MemoryKind::kPageable);
  cuda::HostBuffer scaled(bytes, MemoryKind::kPageable);
  auto* in = static_cast<float*>(input.data());
  auto* want = static_cast<float*>(scaled.data());
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = static_cast<float>(i % 65536) * 0.25f;
    want[i] = kScale * in[i];
  }
  cuda::HostBuffer mapped(bytes, MemoryKind::kMapped);
  std::memcpy(mapped.data(), input.data(), bytes);
  const bool mapped_ok =
      add_gate(ctx.record, kind_gate("kind/kernel/mapped", mapped.data(), "pinned"));
  const auto* mapped_in = static_cast<const float*>(mapped.device_pointer());

  cuda::HostBuffer result(bytes, MemoryKind::kPinned);
  cuda::DeviceBuffer resident_in(bytes);
  cuda::DeviceBuffer out(bytes);
  cuda::Stream stream(cudaStreamNonBlocking);
  PINBENCH_CUDA_TRY(cudaMemcpyAsync(resident_in.data(), input.data(), bytes, cudaMemcpyHostToDevice,
                                    stream.get()));
  stream.synchronize();
  const unsigned blocks = cuda::scale_copy_blocks(n);
  const auto* resident = static_cast<const float*>(resident_in.data());
  auto* dev_out = static_cast<float*>(out.data());

  {
    const PhaseRange range("part3 kernel device-resident");
    ctx.record.cases.push_back(time_variant(
        ctx, variant(ctx.config, "kernel", "d2d", "device", "scale_copy", bytes), stream, out,
        scaled, result, true,
        [&] { cuda::launch_scale_copy(resident, dev_out, n, kScale, blocks, stream.get()); }));
  }
  {
    const PhaseRange range("part3 kernel zero-copy");
    ctx.record.cases.push_back(time_variant(
        ctx, variant(ctx.config, "kernel", "h2d", "mapped", "scale_copy", bytes), stream, out,
        scaled, result, mapped_ok,
        [&] { cuda::launch_scale_copy(mapped_in, dev_out, n, kScale, blocks, stream.get()); }));
  }
  {
    const PhaseRange range("part3 device-to-device copy");
    ctx.record.cases.push_back(time_variant(
        ctx, variant(ctx.config, "device_copy", "d2d", "device", "cudaMemcpyAsync", bytes), stream,
        out, input, result, true, [&] {
          PINBENCH_CUDA_TRY(
              cudaMemcpyAsync(dev_out, resident, bytes, cudaMemcpyDeviceToDevice, stream.get()));
        }));
  }
}

}  // namespace pinbench::experiments::lesson
