// The bound's host team (src/experiments/staged/host_bound.hpp) on the host alone: a fill leaves the
// ring holding the job's last chunks in their slots, a drain writes each slot's bytes to every
// chunk that maps to it, with a helper or without, and between cases the workers sleep: a team
// that spun all run long took the CPUs the engine's own threads needed while it was measured.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "framework/pattern.hpp"
#include "experiments/staged/host_bound.hpp"

namespace pinbench {
namespace {

constexpr std::size_t kChunk = 256u << 10;
constexpr int kDepth = 2;

HostJob job_of(bool fill, std::vector<char>& pageable, std::vector<char>& ring, bool streaming) {
  HostJob j;
  j.fill = fill;
  j.pageable = pageable.data();
  j.ring = ring.data();
  j.bytes = pageable.size();
  j.chunk_bytes = kChunk;
  j.depth = kDepth;
  j.streaming = !fill && streaming;
  j.streaming_edges = fill && streaming;
  return j;
}

TEST(HostTeam, AFillLeavesTheLastChunksInTheirSlots) {
  HostTeam team(3);
  for (bool streaming : {false, true}) {
    for (bool help : {false, true}) {
      std::vector<char> src(5 * kChunk + 4099);  // six chunks, the last one short
      fill_pattern(src.data(), src.size(), 11);
      std::vector<char> ring(kDepth * kChunk, 0);
      team.start(job_of(true, src, ring, streaming), 2);
      if (help) team.help();
      team.wait();
      // Chunk 4 in slot 0, chunk 5 (4099 bytes) in slot 1.
      EXPECT_EQ(std::memcmp(ring.data(), src.data() + 4 * kChunk, kChunk), 0) << streaming;
      EXPECT_EQ(std::memcmp(ring.data() + kChunk, src.data() + 5 * kChunk, 4099), 0) << help;
    }
  }
}

TEST(HostTeam, ADrainWritesEachSlotToItsChunks) {
  HostTeam team(3);
  for (bool streaming : {false, true}) {
    const HostTeam::Awake awake(team);
    std::vector<char> ring(kDepth * kChunk);
    fill_pattern(ring.data(), ring.size(), 5);
    std::vector<char> dst(3 * kChunk + 77, 0);
    team.start(job_of(false, dst, ring, streaming), 2);
    team.wait();
    for (std::size_t k = 0; k * kChunk < dst.size(); ++k) {
      const std::size_t len = std::min(kChunk, dst.size() - k * kChunk);
      EXPECT_EQ(std::memcmp(dst.data() + k * kChunk, ring.data() + (k % kDepth) * kChunk, len), 0)
          << "chunk " << k;
    }
  }
}

// Without an Awake the workers sleep, before a case and after one; while one lives none does.
bool eventually(const std::function<bool()>& holds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!holds()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(HostTeam, WorkersSleepOutsideAnAwake) {
  HostTeam team(4);
  EXPECT_TRUE(eventually([&] { return team.sleeping() == 4; }));
  {
    const HostTeam::Awake awake(team);
    EXPECT_TRUE(eventually([&] { return team.sleeping() == 0; }));
    std::vector<char> ring(kDepth * kChunk, 1);
    std::vector<char> dst(kChunk, 0);
    team.start(job_of(false, dst, ring, false), 2);
    team.wait();
    EXPECT_EQ(dst[kChunk - 1], 1);
    EXPECT_EQ(team.sleeping(), 0);
  }
  EXPECT_TRUE(eventually([&] { return team.sleeping() == 4; }));
  // A job handed to a sleeping team wakes it.
  std::vector<char> ring(kDepth * kChunk, 2);
  std::vector<char> dst(kChunk, 0);
  team.start(job_of(false, dst, ring, false), 2);
  team.wait();
  EXPECT_EQ(dst[0], 2);
}

}  // namespace
}  // namespace pinbench
