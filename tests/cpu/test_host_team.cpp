// The bound's host team (src/measure/engine_host_bound.hpp) on the host alone: a fill writes
// each chunk into its slot (exactly, when no two chunks share a slot), a drain writes each slot's
// bytes to every chunk that maps to it, with a helper or without, and between cases the workers
// sleep: a team that spun all run long took the CPUs the engine's own threads needed while it
// was measured.
//
// The team has no flow control: chunks that share a slot are copied at the same time by
// different threads, so which one a slot holds last is not known (a thread preempted inside a
// slice of chunk 0 may finish it after chunk 4 has filled the slot). An earlier version of the
// fill test expected the last chunks in their slots and failed now and then under load.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "framework/pattern.hpp"
#include "measure/engine_host_bound.hpp"

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

// Where no two chunks share a slot (what measure_host's byte check relies on), every chunk lands
// exactly in its slot.
TEST(HostTeam, AFillWritesEachChunkIntoItsSlot) {
  HostTeam team(3);
  for (bool streaming : {false, true}) {
    for (bool help : {false, true}) {
      std::vector<char> src(kChunk + 4099);  // two chunks, the second one short
      fill_pattern(src.data(), src.size(), 11);
      std::vector<char> ring(kDepth * kChunk, 0);
      team.start(job_of(true, src, ring, streaming), 2);
      if (help) team.help();
      team.wait();
      EXPECT_EQ(std::memcmp(ring.data(), src.data(), kChunk), 0) << streaming << help;
      EXPECT_EQ(std::memcmp(ring.data() + kChunk, src.data() + kChunk, 4099), 0)
          << streaming << help;
    }
  }
}

// Over several laps of the ring, each byte of a slot holds that byte of one of the chunks that
// map to the slot: the right bytes in the right place, whichever chunk was copied last.
TEST(HostTeam, AFillOverSeveralLapsLeavesEachSlotWithItsChunksBytes) {
  HostTeam team(3);
  for (bool streaming : {false, true}) {
    for (bool help : {false, true}) {
      std::vector<char> src(5 * kChunk + 4099);  // six chunks, the last one short
      fill_pattern(src.data(), src.size(), 11);
      std::vector<char> ring(kDepth * kChunk, 0);
      team.start(job_of(true, src, ring, streaming), 2);
      if (help) team.help();
      team.wait();
      std::size_t wrong = 0;
      std::size_t first_wrong = 0;
      for (std::size_t at = 0; at < ring.size(); ++at) {
        const std::size_t slot = at / kChunk;
        const std::size_t offset = at % kChunk;
        bool matches = false;
        for (std::size_t k = slot; k * kChunk + offset < src.size(); k += kDepth) {
          matches = matches || ring[at] == src[k * kChunk + offset];
        }
        if (!matches && wrong++ == 0) first_wrong = at;
      }
      EXPECT_EQ(wrong, 0u) << "first at ring byte " << first_wrong << "; streaming " << streaming
                           << ", help " << help;
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
