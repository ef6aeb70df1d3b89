// PinnedArena on the simulated runtime (sim_cudart.hpp): its size and chunks, waiting for a
// range while the rest is still being pinned, copies split where chunks meet (one copy across
// two registrations fails, as the driver's does), registrations on several threads at once, a
// failed registration, a size past the host's limits, and destruction while chunks are pending.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "pinbench/pinned_arena.hpp"
#include "sim_cudart.hpp"

namespace pinbench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

class SimArena : public ::testing::Test {
 protected:
  void SetUp() override { reset(); }
  void TearDown() override { reset(); }
  static void reset() {
    sim::set_copy_rate(50000.0);
    sim::fail_register_after(-1);
    sim::set_register_delay_us(0);
    sim::most_concurrent_registrations();
  }
};

bool page_locked(const void* p) {
  cudaPointerAttributes a{};
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost;
}

TEST_F(SimArena, HoldsExactlyTheSizeAskedInChunksEachPageLocked) {
  const std::size_t asked = 10 * kMiB + 123;
  PinnedArenaOptions o;
  o.chunk_bytes = 3 * kMiB;  // rounded up to 4 MiB
  o.threads = 2;
  PinnedArena arena(asked, o);
  EXPECT_EQ(arena.size(), asked);
  EXPECT_EQ(arena.chunk_bytes(), 4 * kMiB);
  arena.wait();
  const PinnedArenaStats s = arena.stats();
  EXPECT_EQ(s.chunks, 3u);
  EXPECT_EQ(s.chunks_pinned, 3u);
  EXPECT_EQ(s.bytes, 10 * kMiB + 4096);  // one 4 KiB page past 10 MiB, no power of two
  EXPECT_GT(s.pinned_ms, 0.0);
  EXPECT_LE(s.first_chunk_ms, s.pinned_ms);
  const char* p = static_cast<const char*>(arena.data());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (2 * kMiB), 0u);
  for (std::size_t at : {std::size_t{0}, 4 * kMiB - 1, 4 * kMiB, 8 * kMiB, asked - 1}) {
    EXPECT_TRUE(page_locked(p + at)) << at;
  }
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[asked - 1], 0);
  // A chunk larger than the arena is the arena.
  o.chunk_bytes = 64 * kMiB;
  PinnedArena small(5 * kMiB, o);
  EXPECT_EQ(small.chunk_bytes(), 6 * kMiB);
  EXPECT_EQ(small.stats().chunks, 1u);
}

TEST_F(SimArena, ARangeIsUsableBeforeTheRestIsPinned) {
  sim::set_register_delay_us(50000);  // 50 ms a chunk, one thread: 8 chunks take 400 ms
  PinnedArenaOptions o;
  o.chunk_bytes = 2 * kMiB;
  o.threads = 1;
  PinnedArena arena(16 * kMiB, o);
  EXPECT_FALSE(arena.ready(0, 1));
  const auto t0 = std::chrono::steady_clock::now();
  arena.wait(0, 2 * kMiB);
  EXPECT_TRUE(arena.ready(0, 2 * kMiB));
  EXPECT_FALSE(arena.ready(14 * kMiB, 2 * kMiB));
  EXPECT_LT(arena.stats().chunks_pinned, 8u);
  arena.wait(14 * kMiB, 1);
  EXPECT_TRUE(arena.ready(0, 16 * kMiB));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300));
  EXPECT_GE(arena.stats().longest_call_ms, 45.0);
}

TEST_F(SimArena, CopiesAreSplitWhereChunksMeetAndArriveWhole) {
  PinnedArenaOptions o;
  o.chunk_bytes = 2 * kMiB;
  o.threads = 3;
  const std::size_t n = 9 * kMiB + 17;
  PinnedArena arena(n, o);
  arena.wait();
  char* h = static_cast<char*>(arena.data());
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<char>(i * 7 + 3);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
  // One copy across two registrations is refused, as the driver refuses it.
  EXPECT_EQ(cudaMemcpyAsync(d, h + kMiB, 2 * kMiB, cudaMemcpyHostToDevice, nullptr),
            cudaErrorInvalidValue);
  (void)cudaGetLastError();
  EXPECT_EQ(arena.piece_bytes(kMiB, 2 * kMiB), kMiB);
  EXPECT_EQ(arena.piece_bytes(2 * kMiB, 100), 100u);
  arena.copy_to_device(d, 0, n);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(std::memcmp(d, h, n), 0);
  // Back, to an odd offset, across every chunk.
  std::memset(h, 0, n);
  arena.copy_from_device(5, d, n - 5);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(std::memcmp(h + 5, d, n - 5), 0);
  cudaFree(d);
}

TEST_F(SimArena, ChunksArePinnedOnSeveralThreadsAtOnce) {
  sim::set_register_delay_us(5000);
  PinnedArenaOptions o;
  o.chunk_bytes = 2 * kMiB;
  o.threads = 4;
  {
    PinnedArena arena(32 * kMiB, o);
    arena.wait();
    EXPECT_EQ(arena.stats().threads, 4u);
  }
  const int most = sim::most_concurrent_registrations();
  EXPECT_GE(most, 2);
  EXPECT_LE(most, 4);
}

TEST_F(SimArena, AFailedRegistrationIsAnErrorForItsRangeAndStopsTheRest) {
  sim::fail_register_after(2);
  PinnedArenaOptions o;
  o.chunk_bytes = 2 * kMiB;
  o.threads = 1;  // chunk 2 is the third registered
  PinnedArena arena(20 * kMiB, o);
  try {
    arena.wait();
    FAIL() << "no error";
  } catch (const PinnedArenaError& e) {
    EXPECT_EQ(e.cuda_error(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("cudaHostRegister of chunk 2"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(arena.wait(0, 4 * kMiB));  // the chunks before it were pinned
  EXPECT_THROW(arena.copy_to_device(nullptr, 0, 1), std::invalid_argument);
  EXPECT_LT(arena.stats().chunks_pinned, 10u);
}

// Whatever a waiter learns from a chunk's state, the figures and the failure that go with it
// are already there: the state is published with them, never before (a race the sanitizers'
// slower threads found once). Many short arenas on several threads, so an ordering that is
// wrong shows up in some of them.
TEST_F(SimArena, WhatAWaiterSeesIsWholeTheMomentItWakes) {
  PinnedArenaOptions o;
  o.chunk_bytes = 2 * kMiB;
  o.threads = 4;
  for (int round = 0; round < 200; ++round) {
    PinnedArena arena(8 * kMiB, o);
    arena.wait();
    const PinnedArenaStats s = arena.stats();
    ASSERT_EQ(s.chunks_pinned, s.chunks) << "round " << round;
    ASSERT_GT(s.pinned_ms, 0.0) << "round " << round;
    ASSERT_LE(s.first_chunk_ms, s.pinned_ms) << "round " << round;
  }
  for (int round = 0; round < 100; ++round) {
    sim::fail_register_after(round % 4);
    PinnedArena arena(8 * kMiB, o);
    try {
      arena.wait();
      FAIL() << "no error in round " << round;
    } catch (const PinnedArenaError& e) {
      ASSERT_NE(std::string(e.what()).find("cudaHostRegister of chunk"), std::string::npos)
          << "round " << round << ": '" << e.what() << "'";
    }
  }
}

TEST_F(SimArena, BadArgumentsAreRefusedBeforeAnythingIsPinned) {
  EXPECT_THROW(PinnedArena(0), std::invalid_argument);
  PinnedArenaOptions o;
  o.threads = 5000;
  EXPECT_THROW(PinnedArena(kMiB, o), std::invalid_argument);
  PinnedArena arena(3 * kMiB);
  EXPECT_THROW(arena.wait(3 * kMiB, 1), std::invalid_argument);
  EXPECT_THROW(arena.ready(1, 3 * kMiB), std::invalid_argument);
  EXPECT_NO_THROW(arena.wait(3 * kMiB, 0));
}

TEST_F(SimArena, ASizePastTheHostsLimitsIsRefusedNamingTheLimit) {
  try {
    PinnedArena arena(std::size_t{1} << 60);
    FAIL() << "not refused";
  } catch (const PinnedArenaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("never attempted"), std::string::npos) << what;
    EXPECT_NE(what.find("MemAvailable"), std::string::npos) << what;
    EXPECT_EQ(e.cuda_error(), cudaSuccess);
  }
}

TEST_F(SimArena, DestructionStopsThePinningAndFreesWhatWasPinned) {
  sim::set_register_delay_us(50000);
  PinnedArenaOptions o;
  o.chunk_bytes = 2 * kMiB;
  o.threads = 2;
  const auto t0 = std::chrono::steady_clock::now();
  {
    PinnedArena arena(200 * kMiB, o);  // 100 chunks: 2.5 s if every one were pinned
    arena.wait(0, 1);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1500));
}

}  // namespace
}  // namespace pinbench
