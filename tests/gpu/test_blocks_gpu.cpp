// `pinbench blocks` on a real GPU, small: every method at a few block sizes (one not a multiple
// of 16 bytes, so the kernel and its check take their byte paths), both ways, from page-locked
// and pageable memory, every block of every sample checked; a planted wrong byte fails its case;
// --sms past the device's is exit 2; and the staged engine's batch calls on their own, with
// blocks that cross chunks and more blocks than a chunk holds.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "experiments/blocks/analysis.hpp"
#include "experiments/blocks/measure.hpp"
#include "framework/by_experiment.hpp"
#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/pattern.hpp"
#include "framework/render/text.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench {
using namespace experiments::blocks;
namespace {

const ProgressFn kQuiet = [](const std::string&) {};

BlocksConfig small_config() {
  BlocksConfig c = BlocksConfig::defaults();
  c.block_sizes = {1000, 4 * kKiB, kMiB + 64 * kKiB};
  c.counts = {1, 7, 64};
  c.budget_bytes = 8 * kMiB;
  c.warmups = 1;
  c.stop = {1e-9, 60000.0, 3, 3};  // exactly three samples a case: the cap, never the spread
  c.normalize();
  return c;
}

TEST(GpuBlocks, EveryMethodBothWaysPassesEveryBlockCheck) {
  PINBENCH_REQUIRE_GPU();
  const BlocksConfig c = small_config();
  const RunRecord r = run_blocks(c, kQuiet);
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  const bool pageable_kernel = r.machine.pageable_memory_access != 0;
  // Cells: 1000 B and 4 KiB at 1, 7 and 64 blocks; 1088 KiB at 1 and 7 (64 of them pass 8 MiB).
  const std::size_t cells = 8;
  const std::size_t per_cell = 7 + (pageable_kernel ? 8 : 7);  // pinned, then pageable
  EXPECT_EQ(r.cases.size(), 2 * cells * per_cell);
  for (const Case& k : r.cases) {
    EXPECT_TRUE(k.verified) << k.gate;
    EXPECT_EQ(k.samples_ms.size(), 3u) << k.gate;
    EXPECT_EQ(k.call_ms.size(), 3u) << k.gate;
    if (k.method == "kernel") {
      EXPECT_GE(extra_u64(k, "sms"), 1u) << k.gate;
      EXPECT_LE(extra_u64(k, "sms"), static_cast<std::uint64_t>(r.machine.sm_count)) << k.gate;
    }
  }
  EXPECT_EQ(r.config["sms"], r.machine.sm_count);
  const BlocksAnalysis a = analyse_blocks(r);
  ASSERT_EQ(a.crossovers.size(), 4u);
  for (const BlocksCrossover& x : a.crossovers) {
    EXPECT_EQ(x.cells, cells) << x.direction << " " << x.memory;
    EXPECT_FALSE(x.fallback.empty());
  }
  test::expect_every_case_stopped(r);
}

TEST(GpuBlocks, AWrongByteFailsItsCase) {
  PINBENCH_REQUIRE_GPU();
  BlocksConfig c = small_config();
  c.block_sizes = {1000, 4 * kKiB};
  c.counts = {7};
  c.methods = {BlocksMethod::kLoop, BlocksMethod::kKernel, BlocksMethod::kStaged};
  BlocksHooks hooks;
  hooks.corrupt_sample = 1;
  const RunRecord r = run_blocks(c, kQuiet, hooks);
  std::size_t checked = 0;
  for (const Gate& g : r.gates) {
    if (g.name.rfind("blocks/", 0) != 0) continue;
    ++checked;
    EXPECT_FALSE(g.passed) << g.name;
    EXPECT_NE(g.detail.find("sample 1"), std::string::npos) << g.detail;
  }
  // Two directions, two memory kinds, two methods each (pinned: loop and kernel; pageable: loop
  // and staged, and the kernel too where the device reaches pageable memory), two sizes.
  EXPECT_EQ(checked, (r.machine.pageable_memory_access != 0 ? 20u : 16u));
  for (const Case& k : r.cases) EXPECT_FALSE(k.verified) << k.gate;
}

TEST(GpuBlocks, TheKernelKeepsToTheSmsItIsGiven) {
  PINBENCH_REQUIRE_GPU();
  BlocksConfig c = small_config();
  c.memory = {MemoryKind::kPinned};
  c.methods = {BlocksMethod::kKernel};
  c.sms = 4;
  const RunRecord r = run_blocks(c, kQuiet);
  EXPECT_EQ(r.config["sms"], 4);
  for (const Case& k : r.cases) {
    EXPECT_TRUE(k.verified) << k.gate;
    EXPECT_LE(extra_u64(k, "sms"), 4u) << k.gate;
  }
  c.sms = r.machine.sm_count + 1;
  EXPECT_THROW(run_blocks(c, kQuiet), InputError);
  const std::string bin = test::beside_this_binary("pinbench", PINBENCH_BINARY_FALLBACK);
  const std::string err_file =
      (std::filesystem::temp_directory_path() / "pinbench-blocks-sms.err").string();
  const int status =
      std::system((bin + " blocks --require-gpu --sms 100000 >/dev/null 2>" + err_file).c_str());
  std::ifstream in(err_file);
  const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(err_file);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << err;
  EXPECT_EQ(err.rfind("pinbench: error: --sms 100000 is past this device's", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

// The engine's batch calls on the device: blocks of odd sizes, some crossing the 8 MiB staging
// buffers, and 6000 small ones (more pieces than one chunk takes), both ways, byte for byte.
TEST(GpuStagedBlocks, BatchesLandExactly) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t arena = 64 * kMiB;
  cuda::HostBuffer src(arena, MemoryKind::kPageable);
  cuda::HostBuffer back(arena, MemoryKind::kPageable);
  cuda::HostBuffer pinned(arena, MemoryKind::kPinned);
  cuda::DeviceBuffer dev(arena);
  fill_pattern(src.data(), arena, 11);
  StagedCopier copier;
  std::vector<std::vector<StagedBlock>> batches(2);
  const std::vector<std::size_t> sizes = {1, 4095, 5 * kMiB + 7, 4096, 9 * kMiB, 333, 3 * kMiB};
  std::size_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    batches[0].push_back({at, arena - at - sizes[i], sizes[i]});
    at += sizes[i] + 4099;
  }
  for (std::size_t i = 0; i < 6000; ++i) batches[1].push_back({i * 1000, (5999 - i) * 640, 600});
  for (const std::vector<StagedBlock>& blocks : batches) {
    PINBENCH_CUDA_TRY_NOTHROW(cudaMemset(dev.data(), 0, arena));
    copier.copy_blocks_to_device(dev.data(), src.data(), blocks.data(), blocks.size());
    ASSERT_EQ(cudaMemcpy(pinned.data(), dev.data(), arena, cudaMemcpyDeviceToHost), cudaSuccess);
    for (const StagedBlock& b : blocks) {
      ASSERT_FALSE(first_mismatch(static_cast<char*>(pinned.data()) + b.device_offset,
                                  static_cast<char*>(src.data()) + b.host_offset, b.bytes))
          << b.bytes << " at " << b.device_offset;
    }
    std::memset(back.data(), 0, arena);
    copier.copy_blocks_to_host(back.data(), dev.data(), blocks.data(), blocks.size());
    for (const StagedBlock& b : blocks) {
      ASSERT_FALSE(first_mismatch(static_cast<char*>(back.data()) + b.host_offset,
                                  static_cast<char*>(src.data()) + b.host_offset, b.bytes))
          << b.bytes << " at " << b.host_offset;
    }
  }
  EXPECT_GE(copier.stats().staged_copies, 4u);
}

// --beside at small sizes: every method beside each of the project's kernels, every block of
// every sample still checked, and each case has the kernel's slowdown beside its rate; the staged
// engine's cases their host CPU.
TEST(GpuBlocks, BesideAKernelEveryCaseHasItsSlowdownAndItsBytesChecked) {
  PINBENCH_REQUIRE_GPU();
  for (const char* kernel : {"compute", "memory", "gemm"}) {
    BlocksConfig c = small_config();
    c.block_sizes = {1000, 64 * kKiB};
    c.counts = {1, 64};
    c.beside = kernel;
    RunRecord r;
    try {
      r = run_blocks(c, kQuiet);
    } catch (const InputError& e) {
      // Only cuBLAS may be missing; the project's own kernels always run.
      ASSERT_EQ(std::string(kernel), "gemm") << e.what();
      ASSERT_NE(std::string(e.what()).find("did not load"), std::string::npos) << e.what();
      std::printf("--beside gemm not measured here: %s\n", e.what());
      continue;
    }
    for (const Gate& g : r.gates)
      EXPECT_TRUE(g.passed) << kernel << " " << g.name << ": " << g.detail;
    ASSERT_TRUE(r.config.contains("beside"));
    EXPECT_EQ(r.config["beside"]["name"], kernel);
    EXPECT_GE(r.config["beside"]["launch_ms"].get<double>(), 0.05);
    ASSERT_FALSE(r.cases.empty());
    // The shortest copy (microseconds) runs many times in a sample, so its window is not noise.
    const Case* shortest = &r.cases.front();
    for (const Case& k : r.cases) {
      if (!k.samples_ms.empty() && !shortest->samples_ms.empty() &&
          k.samples_ms.front() < shortest->samples_ms.front()) {
        shortest = &k;
      }
    }
    ASSERT_TRUE(shortest->extra.contains("beside_repeats"));
    EXPECT_GT(shortest->extra["beside_repeats"].get<int>(), 1) << shortest->gate;
    for (const Case& k : r.cases) {
      EXPECT_TRUE(k.verified) << k.gate;
      ASSERT_TRUE(k.extra.contains("slowdown_pct")) << k.gate;
      EXPECT_GT(k.extra["slowdown_pct"].get<double>(), -50.0) << k.gate;
      EXPECT_GE(k.extra["beside_train"].get<int>(), 2) << k.gate;
      EXPECT_GE(k.extra["beside_repeats"].get<int>(), 1) << k.gate;
      EXPECT_GT(k.extra["beside_alone_ms"].get<double>(), 0.0) << k.gate;
      if (k.method == "staged") {
        EXPECT_TRUE(k.extra.contains("host_cpu_ms")) << k.gate;
      }
    }
    const BlocksAnalysis a = analyse_blocks(record_from_json(to_json(r)));
    EXPECT_EQ(a.beside, kernel);
    std::printf("%s\n", render_text(analyse(r)).c_str());
  }
}

}  // namespace
}  // namespace pinbench
