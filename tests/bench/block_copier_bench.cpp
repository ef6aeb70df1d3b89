// BlockCopier's goals on a GPU, measured and printed (docs/blocks.md, "The block copier"): the
// calibration's time in this process; at shapes off its grid (12, 48 and 200 KiB; 3, 300 and
// 3000 blocks; both directions; page-locked and pageable), every method the copier can use
// timed against the copier's choice; and the copier's own cost per call beyond the method it
// calls. A benchmark, not a test: it prints the figures and each goal as held or missed, and
// exits 0 whenever it measured (1 on a CUDA error, 2 on a bad argument or where no GPU is
// usable).
//   pinbench_block_copier_bench [--no-cache]
// --no-cache: calibrate in this process even where the user's cache holds a table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "pinbench/block_copier.hpp"

namespace pinbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kArena = 1280u << 20;  // blocks scattered over 1.25 GiB
constexpr int kSamples = 9;                  // timed per method and shape; the median is kept

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { PINBENCH_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s); }
};

// Milliseconds of one call of `f`, from the call to the stream's completion: the median of
// kSamples after one untimed call.
template <typename F>
double time_ms(cudaStream_t stream, F&& f) {
  f();
  PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream));
  std::vector<double> v;
  for (int i = 0; i < kSamples; ++i) {
    const auto a = Clock::now();
    f();
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream));
    v.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `count` blocks of `size` bytes in slots of `size` scattered over the arenas by a permutation
// drawn from the shape.
std::vector<StagedBlock> scattered(std::size_t size, std::size_t count) {
  std::vector<std::size_t> hs(kArena / size), ds(kArena / size);
  for (std::size_t i = 0; i < hs.size(); ++i) hs[i] = ds[i] = i;
  std::mt19937 rng(static_cast<unsigned>(size + count));
  std::shuffle(hs.begin(), hs.end(), rng);
  std::shuffle(ds.begin(), ds.end(), rng);
  std::vector<StagedBlock> blocks;
  for (std::size_t i = 0; i < count; ++i) blocks.push_back({hs[i] * size, ds[i] * size, size});
  return blocks;
}

const char* verdict(bool held) {
  return held ? "held" : "MISSED";
}

int bench(bool use_cache) {
  cuda::HostBuffer pinned(kArena, MemoryKind::kPinned);
  cuda::HostBuffer pageable(kArena, MemoryKind::kPageable);
  cuda::DeviceBuffer device(kArena);
  std::memset(pinned.data(), 1, kArena);
  std::memset(pageable.data(), 2, kArena);
  Stream stream;
  BlockCopierOptions options;
  options.use_cache = use_cache;
  BlockCopier copier(options);
  const auto t0 = Clock::now();
  copier.calibrate();
  const double ready_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const BlockCopierStats calibrated = copier.stats();
  std::printf("calibration: %s, %.3f s in this process (%.3f s to ready)%s%s\n",
              calibrated.source.c_str(), calibrated.calibration_s, ready_s,
              calibrated.source_note.empty() ? "" : "; ", calibrated.source_note.c_str());

  int shapes = 0;
  int within = 0;
  double worst = 1.0;
  std::printf("%-4s %-9s %8s %6s  %-14s %9s %9s  %-14s %9s  %6s\n", "dir", "memory", "block",
              "count", "chosen", "predicted", "GB/s", "fastest", "GB/s", "ratio");
  for (BlockDirection d : {BlockDirection::kToDevice, BlockDirection::kToHost}) {
    for (BlockMemory k : {BlockMemory::kPinned, BlockMemory::kPageable}) {
      char* host = static_cast<char*>(k == BlockMemory::kPinned ? pinned.data() : pageable.data());
      for (std::size_t size :
           {std::size_t{12} << 10, std::size_t{48} << 10, std::size_t{200} << 10}) {
        for (std::size_t count : {std::size_t{3}, std::size_t{300}, std::size_t{3000}}) {
          const std::vector<StagedBlock> blocks = scattered(size, count);
          const BlockChoice c =
              copier.choose(d, host, device.data(), blocks.data(), count, stream.s);
          double best_ms = 1e30;
          double chosen_ms = 0;
          BlockMethod best = c.method;
          for (int i = 0; i < kBlockMethods; ++i) {
            const auto m = static_cast<BlockMethod>(i);
            double ms = 0;
            try {
              ms = time_ms(stream.s, [&] {
                copier.copy_with(m, d, host, device.data(), blocks.data(), count, stream.s);
              });
            } catch (const std::invalid_argument&) {
              continue;  // this method cannot move this batch
            }
            if (ms < best_ms) {
              best_ms = ms;
              best = m;
            }
            if (m == c.method) chosen_ms = ms;
          }
          const double ratio = chosen_ms / best_ms;
          ++shapes;
          within += ratio <= 1.05 ? 1 : 0;
          worst = std::max(worst, ratio);
          const double bytes = static_cast<double>(size * count);
          std::printf("%-4s %-9s %7zuK %6zu  %-14s %9.2f %9.2f  %-14s %9.2f  %6.3f\n", to_string(d),
                      to_string(k), size >> 10, count, to_string(c.method),
                      c.predicted_gb_per_s.value_or(0.0), bytes / chosen_ms / 1e6, to_string(best),
                      bytes / best_ms / 1e6, ratio);
        }
      }
    }
  }

  // The copier's own cost per call: copy() against copy_with() of the method it chose, the
  // same batch (4 KiB x 64, page-locked, to the device: a copy of microseconds), 2000 times.
  std::vector<StagedBlock> blocks;
  for (std::size_t i = 0; i < 64; ++i) blocks.push_back({i * 8192, i * 8192, 4096});
  const BlockChoice c = copier.choose(BlockDirection::kToDevice, pinned.data(), device.data(),
                                      blocks.data(), blocks.size(), stream.s);
  const auto per_call_us = [&](bool choose) {
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
    const auto a = Clock::now();
    for (int i = 0; i < 2000; ++i) {
      if (choose) {
        copier.copy(BlockDirection::kToDevice, pinned.data(), device.data(), blocks.data(),
                    blocks.size(), stream.s);
      } else {
        copier.copy_with(c.method, BlockDirection::kToDevice, pinned.data(), device.data(),
                         blocks.data(), blocks.size(), stream.s);
      }
      if (i % 64 == 63) PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
    }
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
    return std::chrono::duration<double, std::micro>(Clock::now() - a).count() / 2000;
  };
  (void)per_call_us(true);
  const double with = per_call_us(true);
  const double without = per_call_us(false);
  // copy_with also describes the batch (pointer attributes): choose() alone is the overhead.
  const auto a = Clock::now();
  for (int i = 0; i < 2000; ++i) {
    (void)copier.choose(BlockDirection::kToDevice, pinned.data(), device.data(), blocks.data(),
                        blocks.size(), stream.s);
  }
  const double choose_us =
      std::chrono::duration<double, std::micro>(Clock::now() - a).count() / 2000;
  std::printf(
      "per call (%s, 4 KiB x 64): copy() %.2f us, copy_with() %.2f us, choose() alone %.2f us\n",
      to_string(c.method), with, without, choose_us);

  std::printf("goal: calibration at most 2 s: %.3f s, %s%s\n", calibrated.calibration_s,
              verdict(calibrated.source != "measured" || calibrated.calibration_s <= 2.0),
              calibrated.source == "measured" ? "" : " (not measured in this process)");
  std::printf(
      "goal: the choice within 5%% of the fastest in at least 90%% of the shapes: %d of %d, "
      "%s\n",
      within, shapes, verdict(within * 10 >= shapes * 9));
  std::printf("goal: never more than 1.5x slower than the fastest: the worst %.3fx, %s\n", worst,
              verdict(worst <= 1.5));
  std::printf("goal: the copier's own cost under 5 us a call: %.2f us, %s\n", choose_us,
              verdict(choose_us < 5.0));
  return 0;
}

}  // namespace
}  // namespace pinbench

int main(int argc, char** argv) {
  // Line by line, so a run that dies leaves every line it printed (on the H200 on 2026-12-03
  // three runs left an empty file, and nothing said how far they had got).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bool use_cache = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-cache") {
      use_cache = false;
    } else {
      std::fprintf(stderr, "pinbench_block_copier_bench: unknown argument '%s' (only --no-cache)\n",
                   arg.c_str());
      return 2;
    }
  }
  if (const std::string why = pinbench::cuda::no_device_reason(); !why.empty()) {
    std::fprintf(stderr, "pinbench_block_copier_bench: no usable GPU: %s\n", why.c_str());
    return 2;
  }
  try {
    return pinbench::bench(use_cache);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pinbench_block_copier_bench: %s\n", e.what());
    return 1;
  }
}
