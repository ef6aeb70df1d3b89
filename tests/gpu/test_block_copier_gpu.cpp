// pinbench::BlockCopier on a real GPU: every method by name, both directions, page-locked and
// pageable arenas, blocks at odd offsets and of sizes that are not multiples of 16, every block
// checked byte for byte and every byte outside the blocks left alone; the stream order of each
// method (work queued before the call is seen by the copy, work queued after it sees the blocks);
// the calibration measured, cached, read back, and measured again over a malformed or foreign
// cache; copy() at shapes off the calibration's grid, with blocks of several sizes, and on the
// legacy default stream; rules from a --recommend file; and a slowdown budget out of its range
// refused.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "gpu_test.hpp"
#include "pinbench/block_copier.hpp"
#include "transfer/blocks/block_kernels.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kArena = 8u << 20;

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { PINBENCH_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s); }
};

bool pageable_access() {
  int device = 0;
  int v = 0;
  PINBENCH_CUDA_TRY(cudaGetDevice(&device));
  PINBENCH_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, device));
  return v != 0;
}

// `count` blocks of `bytes` each (or of sizes around it, `mixed`), at odd offsets in slots of
// the arenas drawn from `seed`, no two overlapping.
std::vector<StagedBlock> place(std::size_t bytes, std::size_t count, unsigned seed,
                               bool mixed = false) {
  const std::size_t slot = bytes + bytes / 2 + 64;
  std::vector<std::size_t> hs(kArena / slot), ds(kArena / slot);
  for (std::size_t i = 0; i < hs.size(); ++i) hs[i] = ds[i] = i;
  std::mt19937 rng(seed);
  std::shuffle(hs.begin(), hs.end(), rng);
  std::shuffle(ds.begin(), ds.end(), rng);
  EXPECT_LE(count, hs.size());
  std::vector<StagedBlock> v;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t b = mixed ? bytes - bytes / 4 + (i * 977) % (bytes / 2) : bytes;
    v.push_back({hs[i] * slot + 3, ds[i] * slot + 5, b});
  }
  return v;
}

std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  std::mt19937 rng(seed);
  for (auto& c : v) c = static_cast<unsigned char>(rng());
  return v;
}

// Two arenas of each kind of host memory and one on the device, and the checks of a copy.
struct Rig {
  cuda::HostBuffer pinned{kArena, MemoryKind::kPinned};
  cuda::HostBuffer pageable{kArena, MemoryKind::kPageable};
  cuda::DeviceBuffer device{kArena};

  char* host(BlockMemory m) const {
    return static_cast<char*>(m == BlockMemory::kPinned ? pinned.data() : pageable.data());
  }

  // Fills the source with a pattern and the destination with zeros; returns what the
  // destination must hold after the copy.
  std::vector<unsigned char> prepare(BlockDirection d, BlockMemory m,
                                     const std::vector<StagedBlock>& blocks, unsigned seed) {
    const std::vector<unsigned char> src = pattern(kArena, seed);
    std::vector<unsigned char> want(kArena, 0);
    const bool h2d = d == BlockDirection::kToDevice;
    for (const StagedBlock& b : blocks) {
      const std::size_t from = h2d ? b.host_offset : b.device_offset;
      const std::size_t to = h2d ? b.device_offset : b.host_offset;
      std::memcpy(want.data() + to, src.data() + from, b.bytes);
    }
    if (h2d) {
      std::memcpy(host(m), src.data(), kArena);
      PINBENCH_CUDA_TRY(cudaMemset(device.data(), 0, kArena));
    } else {
      PINBENCH_CUDA_TRY(cudaMemcpy(device.data(), src.data(), kArena, cudaMemcpyHostToDevice));
      std::memset(host(m), 0, kArena);
    }
    PINBENCH_CUDA_TRY(cudaDeviceSynchronize());
    return want;
  }

  // The first byte of the destination that differs from `want`, as words, or "".
  std::string differs(BlockDirection d, BlockMemory m, const std::vector<unsigned char>& want) {
    std::vector<unsigned char> got(kArena);
    if (d == BlockDirection::kToDevice) {
      PINBENCH_CUDA_TRY(cudaMemcpy(got.data(), device.data(), kArena, cudaMemcpyDeviceToHost));
    } else {
      std::memcpy(got.data(), host(m), kArena);
    }
    for (std::size_t i = 0; i < kArena; ++i) {
      if (got[i] != want[i]) {
        return "byte " + std::to_string(i) + " of the destination arena is " +
               std::to_string(got[i]) + ", not " + std::to_string(want[i]);
      }
    }
    return "";
  }
};

std::string label(BlockMethod m, BlockDirection d, BlockMemory k, std::size_t bytes) {
  return std::string(to_string(m)) + " " + to_string(d) + " " + to_string(k) + " " +
         std::to_string(bytes) + " B";
}

BlockCopierOptions no_cache() {
  BlockCopierOptions o;
  o.use_cache = false;
  return o;
}

TEST(GpuBlockCopier, EveryMethodBothWaysBothMemoryKindsMovesEveryBlockAndNothingElse) {
  PINBENCH_REQUIRE_GPU();
  Rig rig;
  Stream stream;
  BlockCopier copier(no_cache());
  const bool pageable_kernel = pageable_access();
  unsigned seed = 1;
  for (const std::size_t bytes : {std::size_t{1000}, std::size_t{4096}, std::size_t{65544}}) {
    const std::vector<StagedBlock> blocks = place(bytes, 37, ++seed);
    for (BlockDirection d : {BlockDirection::kToDevice, BlockDirection::kToHost}) {
      for (BlockMemory k : {BlockMemory::kPinned, BlockMemory::kPageable}) {
        for (int i = 0; i < kBlockMethods; ++i) {
          const auto m = static_cast<BlockMethod>(i);
          const bool can =
              !(m == BlockMethod::kStaged && k == BlockMemory::kPinned) &&
              !(m == BlockMethod::kKernel && k == BlockMemory::kPageable && !pageable_kernel);
          const std::vector<unsigned char> want = rig.prepare(d, k, blocks, ++seed);
          if (!can) {
            EXPECT_THROW(copier.copy_with(m, d, rig.host(k), rig.device.data(), blocks.data(),
                                          blocks.size(), stream.s),
                         std::invalid_argument)
                << label(m, d, k, bytes);
            continue;
          }
          copier.copy_with(m, d, rig.host(k), rig.device.data(), blocks.data(), blocks.size(),
                           stream.s);
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
          EXPECT_EQ(rig.differs(d, k, want), "") << label(m, d, k, bytes);
        }
      }
    }
  }
  EXPECT_GT(copier.stats().calls, 0u);
  EXPECT_EQ(copier.stats().source, "") << "copy_with needs no calibration";
}

// Work queued before the call: a host function that sleeps, then rewrites the source (to the
// device: the host arena; to the host: the device arena, by a cudaMemsetAsync after it). Work
// queued after: to the device a compare kernel, to the host a host function, each on the
// caller's stream without waiting for it first.
TEST(GpuBlockCopier, EveryMethodKeepsTheStreamOrderOfCudaMemcpyAsync) {
  PINBENCH_REQUIRE_GPU();
  Rig rig;
  Stream stream;
  BlockCopier copier(no_cache());
  const bool pageable_kernel = pageable_access();
  cuda::DeviceBuffer expected(kArena);
  cuda::DeviceBuffer table(4096 * sizeof(transfer::BlockCopy));
  cuda::DeviceBuffer counter(sizeof(unsigned long long));
  const std::vector<StagedBlock> blocks = place(4096, 64, 99);
  for (BlockDirection d : {BlockDirection::kToDevice, BlockDirection::kToHost}) {
    for (BlockMemory k : {BlockMemory::kPinned, BlockMemory::kPageable}) {
      for (int i = 0; i < kBlockMethods; ++i) {
        const auto m = static_cast<BlockMethod>(i);
        if ((m == BlockMethod::kStaged && k == BlockMemory::kPinned) ||
            (m == BlockMethod::kKernel && k == BlockMemory::kPageable && !pageable_kernel)) {
          continue;
        }
        const std::string what = label(m, d, k, 4096);
        (void)rig.prepare(d, k, blocks, 7);
        struct Late {
          char* host;
          std::size_t bytes;
          std::vector<StagedBlock> blocks;
          std::atomic<int> bad{-1};
        } late{rig.host(k), kArena, blocks};
        if (d == BlockDirection::kToDevice) {
          // The bytes the blocks must hold: 0xC3 everywhere, written by the host function.
          PINBENCH_CUDA_TRY(cudaMemset(expected.data(), 0xC3, kArena));
          // cudaMemcpyAsync from pageable memory reads its source during the call, before the
          // stream's earlier work (CUDA's API synchronisation rules): there the bytes are
          // written before the call and the work before it only sleeps; from page-locked memory
          // the work before the call writes them.
          const bool read_at_call = k == BlockMemory::kPageable;
          if (read_at_call) std::memset(late.host, 0xC3, late.bytes);
          PINBENCH_CUDA_TRY(cudaLaunchHostFunc(
              stream.s,
              read_at_call
                  ? [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }
                  : static_cast<cudaHostFn_t>([](void* p) {
                      auto* l = static_cast<Late*>(p);
                      std::this_thread::sleep_for(std::chrono::milliseconds(30));
                      std::memset(l->host, 0xC3, l->bytes);
                    }),
              &late));
          copier.copy_with(m, d, rig.host(k), rig.device.data(), blocks.data(), blocks.size(),
                           stream.s);
          std::vector<transfer::BlockCopy> t;
          for (const StagedBlock& b : blocks) {
            t.push_back({static_cast<char*>(expected.data()) + b.host_offset,
                         static_cast<char*>(rig.device.data()) + b.device_offset});
          }
          // Queued after the copy; its inputs are set up on the stream too.
          PINBENCH_CUDA_TRY(cudaMemcpyAsync(table.data(), t.data(), t.size() * sizeof(t[0]),
                                            cudaMemcpyHostToDevice, stream.s));
          PINBENCH_CUDA_TRY(
              cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), stream.s));
          PINBENCH_CUDA_TRY(transfer::launch_block_compare(
              static_cast<const transfer::BlockCopy*>(table.data()), t.size(), 4096, false,
              static_cast<unsigned long long*>(counter.data()), stream.s));
          unsigned long long mismatches = 1;
          PINBENCH_CUDA_TRY(cudaMemcpyAsync(&mismatches, counter.data(), sizeof(mismatches),
                                            cudaMemcpyDeviceToHost, stream.s));
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
          EXPECT_EQ(mismatches, 0u) << what;
        } else {
          PINBENCH_CUDA_TRY(cudaLaunchHostFunc(
              stream.s, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); },
              nullptr));
          PINBENCH_CUDA_TRY(cudaMemsetAsync(rig.device.data(), 0x3C, kArena, stream.s));
          copier.copy_with(m, d, rig.host(k), rig.device.data(), blocks.data(), blocks.size(),
                           stream.s);
          PINBENCH_CUDA_TRY(cudaLaunchHostFunc(
              stream.s,
              [](void* p) {
                auto* l = static_cast<Late*>(p);
                int bad = 0;
                for (const StagedBlock& b : l->blocks) {
                  for (std::size_t j = 0; j < b.bytes; ++j) {
                    bad += static_cast<unsigned char>(l->host[b.host_offset + j]) != 0x3C;
                  }
                }
                l->bad = bad;
              },
              &late));
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
          EXPECT_EQ(late.bad.load(), 0) << what;
        }
      }
    }
  }
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("pinbench-block-copier-" + std::to_string(::getpid()) + "-" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(GpuBlockCopier, TheCalibrationIsMeasuredCachedReadBackAndRefusedWhenSpoilt) {
  PINBENCH_REQUIRE_GPU();
  TempDir dir;
  BlockCopierOptions o;
  o.cache_dir = dir.path.string();
  BlockCopier first(o);
  first.calibrate();
  const BlockCopierStats s = first.stats();
  EXPECT_EQ(s.source, "measured");
  EXPECT_EQ(s.source_note, "");
  std::printf("calibration: %.3f s, %zu points\n", s.calibration_s, first.table()->points.size());
  EXPECT_GT(s.calibration_s, 0.0);  // its goal (at most 2 s) is pinbench_block_copier_bench.s
  ASSERT_FALSE(s.source_path.empty());
  ASSERT_TRUE(fs::exists(s.source_path));
  const std::string text = slurp(s.source_path);

  BlockCopier second(o);
  second.calibrate();
  EXPECT_EQ(second.stats().source, "cache");
  EXPECT_EQ(second.stats().calibration_s, 0.0);
  EXPECT_EQ(calibration_to_json(*second.table()), text);

  { std::ofstream(s.source_path) << text.substr(0, text.size() / 2); }
  BlockCopier third(o);
  third.calibrate();
  EXPECT_EQ(third.stats().source, "measured");
  EXPECT_NE(third.stats().source_note.find("cache refused"), std::string::npos);
  EXPECT_NE(third.stats().source_note.find("not JSON"), std::string::npos);

  // A cache of another device (its name changed in place) is measured again too.
  std::string foreign = slurp(s.source_path);
  const std::string name = second.table()->identity.device;
  foreign.replace(foreign.find(name), name.size(), "Some Other GPU");
  { std::ofstream(s.source_path) << foreign; }
  BlockCopier fourth(o);
  fourth.calibrate();
  EXPECT_EQ(fourth.stats().source, "measured");
  EXPECT_NE(fourth.stats().source_note.find("not this device"), std::string::npos)
      << fourth.stats().source_note;

  // A slowdown no kernel shows (-200%, which a budget would pick) makes the cache malformed: it
  // is measured again, and the note names the field.
  std::string forged = slurp(s.source_path);
  const std::size_t rate = forged.find("\"gb_per_s\": ");
  ASSERT_NE(rate, std::string::npos);
  forged.insert(forged.find('}', rate), ", \"slowdown_pct\": -200");
  { std::ofstream(s.source_path) << forged; }
  BlockCopier fifth(o);
  fifth.calibrate();
  EXPECT_EQ(fifth.stats().source, "measured");
  EXPECT_NE(fifth.stats().source_note.find("\"slowdown_pct\" is -200, not a kernel's slowdown"),
            std::string::npos)
      << fifth.stats().source_note;
}

TEST(GpuBlockCopier, ChosenMethodsMoveShapesOffTheGridMixedSizesAndOnTheLegacyStream) {
  PINBENCH_REQUIRE_GPU();
  TempDir dir;
  BlockCopierOptions o;
  o.cache_dir = dir.path.string();
  o.max_slowdown_pct = 5;
  BlockCopier copier(o);
  Rig rig;
  Stream stream;
  unsigned seed = 50;
  struct Shape {
    std::size_t bytes, count;
    bool mixed;
  };
  for (const Shape& sh :
       {Shape{12 << 10, 3, false}, Shape{48 << 10, 30, false}, Shape{200 << 10, 20, false},
        Shape{4096, 300, false}, Shape{12 << 10, 40, true}}) {
    const std::vector<StagedBlock> blocks = place(sh.bytes, sh.count, ++seed, sh.mixed);
    for (BlockDirection d : {BlockDirection::kToDevice, BlockDirection::kToHost}) {
      for (BlockMemory k : {BlockMemory::kPinned, BlockMemory::kPageable}) {
        for (cudaStream_t s : {stream.s, cudaStream_t{nullptr}}) {
          const std::vector<unsigned char> want = rig.prepare(d, k, blocks, ++seed);
          copier.copy(d, rig.host(k), rig.device.data(), blocks.data(), blocks.size(), s);
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(s));
          const BlockCopierStats st = copier.stats();
          ASSERT_TRUE(st.last);
          const std::string what = std::string(to_string(d)) + " " + to_string(k) + " " +
                                   std::to_string(sh.bytes) + " x " + std::to_string(sh.count) +
                                   (sh.mixed ? " mixed" : "") + (s == nullptr ? " stream 0" : "") +
                                   ": " + st.last->reason;
          EXPECT_EQ(rig.differs(d, k, want), "") << what;
          EXPECT_NE(st.last->reason.find("budget not measured"), std::string::npos) << what;
          if (s == nullptr) {
            EXPECT_NE(st.last->method, BlockMethod::kBatch) << what;
            EXPECT_NE(st.last->method, BlockMethod::kBatchOverlap) << what;
          }
          if (sh.mixed) {
            EXPECT_NE(st.last->method, BlockMethod::kKernel) << what;
          }
          if (k == BlockMemory::kPinned) {
            EXPECT_NE(st.last->method, BlockMethod::kStaged) << what;
          }
        }
      }
    }
  }
  std::printf("%s\n", copier.stats().last->reason.c_str());
}

// A slowdown budget is 0 to 10,000% (base/slowdown_range.hpp): the copier refuses one outside,
// NaN included, naming it, before it touches the device; one at either end is taken.
TEST(GpuBlockCopier, ASlowdownBudgetOutsideItsRangeIsRefused) {
  PINBENCH_REQUIRE_GPU();
  for (const double budget : {-1.0, 10000.5, 1e308, std::nan("")}) {
    BlockCopierOptions o = no_cache();
    o.max_slowdown_pct = budget;
    try {
      BlockCopier refused(o);
      ADD_FAILURE() << budget << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("max_slowdown_pct must be a slowdown budget in percent "
                                           "from 0 to 10000"),
                std::string::npos)
          << e.what();
    }
  }
  for (const double budget : {0.0, 10000.0}) {
    BlockCopierOptions o = no_cache();
    o.max_slowdown_pct = budget;
    EXPECT_NO_THROW(BlockCopier taken(o)) << budget;
  }
}

TEST(GpuBlockCopier, RulesFromARecommendFileDecideAndAnotherDevicesAreRefused) {
  PINBENCH_REQUIRE_GPU();
  TempDir dir;
  BlockCopier probe(no_cache());
  cudaDeviceProp prop{};
  PINBENCH_CUDA_TRY(cudaGetDeviceProperties(&prop, probe.device()));
  int driver = 0;
  PINBENCH_CUDA_TRY(cudaDriverGetVersion(&driver));
  const auto rules = [&](const std::string& device) {
    return std::string(R"({"schema": "pinbench.blocks-recommend", "version": 1,
      "measured_on": {"device": ")") +
           device + R"(", "driver_version": )" + std::to_string(driver) + R"(},
      "choices": [{"direction": "h2d", "memory": "pinned", "default": "loop",
                   "rules": [{"method": "kernel", "max_block_bytes": 65536, "min_blocks": 16}]}]})";
  };
  const fs::path mine = dir.path / "mine.json";
  const fs::path other = dir.path / "other.json";
  std::ofstream(mine) << rules(prop.name);
  std::ofstream(other) << rules("Some Other GPU");
  BlockCopierOptions o = no_cache();
  o.rules_file = mine.string();
  BlockCopier copier(o);
  Rig rig;
  Stream stream;
  const std::vector<StagedBlock> many = place(4096, 32, 3);
  const std::vector<StagedBlock> few = place(4096, 2, 4);
  for (const auto* blocks : {&many, &few}) {
    const std::vector<unsigned char> want =
        rig.prepare(BlockDirection::kToDevice, BlockMemory::kPinned, *blocks, 5);
    copier.copy(BlockDirection::kToDevice, rig.pinned.data(), rig.device.data(), blocks->data(),
                blocks->size(), stream.s);
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
    EXPECT_EQ(rig.differs(BlockDirection::kToDevice, BlockMemory::kPinned, want), "");
    EXPECT_EQ(copier.stats().last->method,
              blocks == &many ? BlockMethod::kKernel : BlockMethod::kLoop);
  }
  EXPECT_EQ(copier.stats().source, "rules");
  o.rules_file = other.string();
  BlockCopier refused(o);
  try {
    refused.calibrate();
    FAIL() << "another device's rules were used";
  } catch (const BlockCalibrationError& e) {
    EXPECT_EQ(e.kind(), BlockCalibrationError::Kind::kForeign);
  }
}

}  // namespace
}  // namespace pinbench
