// The staged copy engine's CUDA-facing code (argument checks, the direct path, events, stream
// order, errors, shutdown) on the simulated runtime of sim_cudart.hpp: everything the GPU tests
// check that does not need a GPU, on every machine and under the sanitizers. Device memory is
// host memory here, so results are compared in place.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "framework/pattern.hpp"
#include "pinbench/staged_copy.hpp"
#include "sim_cudart.hpp"
#include "sim_engine_fixtures.hpp"
#include "transfer/fresh_pages.hpp"
#include "transfer/testing.hpp"

namespace pinbench {
namespace {

class SimEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::set_copy_rate(50000.0);  // 50 GB/s: a few MiB take tens of microseconds
    sim::fail_memcpy_after(-1);
    sim::fail_event_query_after(-1);
  }
  void TearDown() override {
    sim::fail_memcpy_after(-1);
    sim::fail_event_query_after(-1);
  }
};

TEST_F(SimEngine, RoundTripsAreByteExactAndTouchNothingElse) {
  const std::size_t guard = 8 * kKiB;
  const std::size_t largest = 5 * kMiB + 5;
  const std::size_t cap = largest + 2 * guard;
  const std::vector<char> src = pattern(cap, 1);
  DeviceMemory dev(cap);
  std::vector<char> back(cap);
  SimStream stream;
  StagedCopier standard;
  StagedCopier staged_always(small_rings());
  // The caller only waits, and the drain uses memcpy: the engine's other host copy paths.
  StagedCopyOptions plain_options = small_rings();
  plain_options.caller_copies = false;
  plain_options.streaming_drain = false;
  StagedCopier plain(plain_options);
  for (StagedCopier* copier : {&standard, &staged_always, &plain}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, 4 * kKiB, kMiB + 13, largest}) {
      for (std::size_t off : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4095}}) {
        const std::size_t doff = (off * 5) % 4099;
        std::memset(dev.data(), 0x11, cap);
        copier->copy_to_device(dev.data() + doff, src.data() + off, n, stream.s);
        ASSERT_EQ(std::memcmp(dev.data() + doff, src.data() + off, n), 0) << n << "+" << off;
        ASSERT_EQ(std::count(dev.data(), dev.data() + doff, 0x11), static_cast<long>(doff));
        ASSERT_EQ(std::count(dev.data() + doff + n, dev.data() + cap, 0x11),
                  static_cast<long>(cap - doff - n));
        std::fill(back.begin(), back.end(), 0x22);
        copier->copy_to_host(back.data() + off, dev.data() + doff, n, stream.s);
        ASSERT_EQ(std::memcmp(back.data() + off, src.data() + off, n), 0) << n << "+" << off;
        ASSERT_EQ(std::count(back.begin(), back.begin() + static_cast<long>(off), 0x22),
                  static_cast<long>(off));
        ASSERT_EQ(std::count(back.begin() + static_cast<long>(off + n), back.end(), 0x22),
                  static_cast<long>(cap - off - n));
      }
    }
  }
}

// Anonymous memory never written: its pages do not exist until something writes them.
struct FreshMapping {
  explicit FreshMapping(std::size_t n) : bytes(n) {
    ptr = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(ptr, MAP_FAILED);
    // Where the system gives huge pages unasked ("always"), a fault near the range's edge could
    // map the 2 MiB around it: only what the engine asks for may get huge pages here.
    (void)madvise(ptr, n, MADV_NOHUGEPAGE);
  }
  ~FreshMapping() { munmap(ptr, bytes); }
  char* data() const { return static_cast<char*>(ptr); }
  // How many of the pages of [p, p + n) (p page-aligned) are resident.
  static std::size_t resident(const char* p, std::size_t n) {
    std::vector<unsigned char> in((n + 4095) / 4096);  // mincore reports a partial page too
    EXPECT_EQ(mincore(const_cast<char*>(p), n, in.data()), 0);
    return static_cast<std::size_t>(
        std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; }));
  }
  void* ptr = nullptr;
  std::size_t bytes;
};

// A copy to the host into memory never written (a new `.cpu()` tensor): the engine faults its
// pages in ahead of the drain. Every byte arrives; the pages of the same mapping outside the
// copy's range, never touched by the caller, are still not there afterwards; the same copy into
// memory already written is not prefaulted, nor with the option off.
TEST_F(SimEngine, FreshDestinationsArePrefaultedAndNothingElseIsTouched) {
  const std::size_t n = 9 * kMiB + 123;
  const std::vector<char> src = pattern(n, 71);
  DeviceMemory dev(n);
  std::memcpy(dev.data(), src.data(), n);
  SimStream stream;
  StagedCopyOptions o = small_rings();
  o.prefault_from_bytes = kMiB;
  for (bool huge : {false, true}) {
    o.fresh_huge_pages = huge;
    StagedCopier copier(o);
    const std::size_t before = 3 * kMiB;  // untouched room on either side of the copy
    FreshMapping m(before + n + 4096 + before);
    ASSERT_EQ(transfer::sample_residency(m.data() + before + 77, n).resident, 0);
    copier.copy_to_host(m.data() + before + 77, dev.data(), n, stream.s);
    ASSERT_EQ(std::memcmp(m.data() + before + 77, src.data(), n), 0) << huge;
    // Prefaulted where the range took huge pages (which the system may refuse); without them
    // the drain faults the pages itself.
    EXPECT_EQ(copier.stats().prefaulted_copies, copier.stats().huge_page_copies) << huge;
    if (!huge) {
      EXPECT_EQ(copier.stats().huge_page_copies, 0u);
    }
    // Pages entirely outside [dst, dst + n): the caller's, untouched.
    EXPECT_EQ(FreshMapping::resident(m.data(), before), 0u) << huge;
    const std::size_t tail = (before + 77 + n + 4095) / 4096 * 4096;
    EXPECT_EQ(FreshMapping::resident(m.data() + tail, m.bytes - tail), 0u) << huge;
    // Memory written before: no prefault.
    const std::uint64_t prefaulted = copier.stats().prefaulted_copies;
    copier.copy_to_host(m.data() + before + 77, dev.data(), n, stream.s);
    EXPECT_EQ(copier.stats().prefaulted_copies, prefaulted) << huge;
  }
  o.prefault_from_bytes = 0;
  StagedCopier off(o);
  FreshMapping m(n + 4096);
  off.copy_to_host(m.data(), dev.data(), n, stream.s);
  EXPECT_EQ(std::memcmp(m.data(), src.data(), n), 0);
  EXPECT_EQ(off.stats().prefaulted_copies, 0u);
}

// The engine's host threads are sized to this process's CPUs and shared by both directions.
TEST_F(SimEngine, HostThreadsFitTheBudget) {
  StagedCopier copier;
  const StagedCopierStats s = copier.stats();
  EXPECT_GE(s.cpu_budget, 1);
  EXPECT_GE(s.host_threads, 1);
  EXPECT_LE(s.host_threads, std::max(1, s.cpu_budget - 3));
  StagedCopyOptions o = small_rings();
  o.host_threads = 1000;  // asked for more than the machine has: the budget still holds
  StagedCopier greedy(o);
  EXPECT_LE(greedy.stats().host_threads, std::max(1, greedy.stats().cpu_budget - 3));
}

TEST_F(SimEngine, PathsFollowSizeAndMemoryKind) {
  StagedCopier copier;
  std::vector<char> pageable(8 * kMiB, 1);
  PinnedMemory pinned(8 * kMiB);
  DeviceMemory dev(8 * kMiB);
  SimStream stream;
  StagedCopy small = copier.copy_to_device_async(dev.data(), pageable.data(), 4 * kKiB, stream.s);
  StagedCopy large = copier.copy_to_device_async(dev.data(), pageable.data(), 8 * kMiB, stream.s);
  StagedCopy locked = copier.copy_to_host_async(pinned.data(), dev.data(), 8 * kMiB, stream.s);
  small.wait();
  large.wait();
  locked.wait();
  EXPECT_FALSE(small.staged());
  EXPECT_TRUE(large.staged());
  EXPECT_FALSE(locked.staged());
  EXPECT_EQ(copier.staging_bytes(), 80 * kMiB);
  EXPECT_EQ(std::memcmp(pinned.data(), pageable.data(), 8 * kMiB), 0);
  copier.copy_to_host(pageable.data(), dev.data(), 64 * kKiB, stream.s);  // synchronous, direct
  const StagedCopierStats st = copier.stats();
  EXPECT_EQ(st.staged_copies, 1u);
  EXPECT_EQ(st.direct_copies, 3u);
  EXPECT_EQ(st.staged_bytes, 8 * kMiB);
  EXPECT_EQ(st.direct_bytes, 4 * kKiB + 8 * kMiB + 64 * kKiB);
}

TEST_F(SimEngine, AnAsyncCopyReturnsAtOnceAndWaitsForEarlierStreamWork) {
  const std::size_t n = 6 * kMiB + 3;
  StagedCopier copier;
  const std::vector<char> src = pattern(n, 2);
  std::vector<char> dst(n, 0);
  DeviceMemory dev(n);
  SimStream stream;
  {
    std::atomic<bool> go{false};
    sim::hold_stream(stream.s, &go);
    cudaMemsetAsync(dev.data(), 0, n, stream.s);
    const auto t0 = std::chrono::steady_clock::now();
    StagedCopy c = copier.copy_to_device_async(dev.data(), src.data(), n, stream.s);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(c.done());
    go = true;
    c.wait();
    EXPECT_EQ(std::memcmp(dev.data(), src.data(), n), 0);
  }
  {
    std::atomic<bool> go{false};
    sim::hold_stream(stream.s, &go);
    cudaMemsetAsync(dev.data(), 0x5A, n, stream.s);
    StagedCopy c = copier.copy_to_host_async(dst.data(), dev.data(), n, stream.s);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(c.done());
    go = true;
    c.wait();
    EXPECT_EQ(std::count(dst.begin(), dst.end(), 0x5A), static_cast<long>(n));
  }
}

TEST_F(SimEngine, StreamWaitOrdersOtherStreams) {
  const std::size_t n = 12 * kMiB;
  StagedCopier copier;
  const std::vector<char> src = pattern(n, 3);
  std::vector<char> dst(n, 0);
  PinnedMemory check(n);
  DeviceMemory dev(n);
  SimStream a;
  SimStream later;
  StagedCopy up = copier.copy_to_device_async(dev.data(), src.data(), n, a.s);
  up.stream_wait(later.s);
  ASSERT_EQ(cudaMemcpyAsync(check.data(), dev.data(), n, cudaMemcpyDeviceToHost, later.s),
            cudaSuccess);
  cudaStreamSynchronize(later.s);
  EXPECT_EQ(std::memcmp(check.data(), src.data(), n), 0);
  StagedCopy down = copier.copy_to_host_async(dst.data(), dev.data(), n, a.s);
  down.stream_wait(later.s);
  cudaMemsetAsync(dev.data(), 0, n, later.s);
  down.wait();
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), n), 0);
}

TEST_F(SimEngine, CopiesOnOneStreamKeepTheirOrder) {
  const std::size_t n = 10 * kMiB + 1;
  StagedCopier copier;
  const std::vector<char> src = pattern(n, 4);
  std::vector<char> dst(n, 0);
  std::vector<char> head(4 * kKiB, 0);
  DeviceMemory dev(n);
  std::memset(dev.data(), 0, n);
  SimStream stream;
  StagedCopy up = copier.copy_to_device_async(dev.data(), src.data(), n, stream.s);
  StagedCopy down = copier.copy_to_host_async(dst.data(), dev.data(), n, stream.s);
  StagedCopy small = copier.copy_to_host_async(head.data(), dev.data(), head.size(), stream.s);
  EXPECT_TRUE(up.staged());
  EXPECT_TRUE(down.staged());
  EXPECT_FALSE(small.staged());
  down.wait();
  small.wait();
  up.wait();
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), n), 0);
  EXPECT_EQ(std::memcmp(head.data(), src.data(), head.size()), 0);
}

// The Day 54 pattern the pipeline uses: chunk k in on stream k mod N into slot k mod N,
// stream_wait, (a kernel), and out again; the next copy into a slot is ordered after the copy
// out of it only by the engine's order on the stream. No deadlock, every byte back.
TEST_F(SimEngine, ThePipelinePatternOverOneTwoAndThreeStreams) {
  StagedCopier copier(small_rings());
  const std::size_t total = 6 * kMiB + 4096;
  const std::size_t window = 768 * kKiB;
  const std::vector<char> in = pattern(total, 5);
  std::vector<char> out(total);
  DeviceMemory slots(window);
  std::vector<SimStream> streams(3);
  for (std::size_t n = 1; n <= 3; ++n) {
    std::fill(out.begin(), out.end(), 0);
    const std::size_t chunk = window / n / 4096 * 4096;
    std::vector<StagedCopy> copies;
    for (std::size_t k = 0; k * chunk < total; ++k) {
      const std::size_t len = std::min(chunk, total - k * chunk);
      char* slot = slots.data() + (k % n) * chunk;
      const cudaStream_t s = streams[k % n].s;
      copies.push_back(copier.copy_to_device_async(slot, in.data() + k * chunk, len, s));
      copies.back().stream_wait(s);
      copies.push_back(copier.copy_to_host_async(out.data() + k * chunk, slot, len, s));
    }
    for (const StagedCopy& c : copies) c.wait();
    EXPECT_EQ(std::memcmp(out.data(), in.data(), total), 0) << n << " streams";
  }
}

TEST_F(SimEngine, FourThreadsShareOneEngine) {
  StagedCopier copier(small_rings());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        SimStream stream;
        const std::size_t largest = 3 * kMiB + 4096;
        const std::vector<char> src = pattern(largest, 10u + static_cast<std::uint64_t>(t));
        std::vector<char> back(largest);
        DeviceMemory dev(largest);
        for (int i = 0; i < 6; ++i) {
          const std::size_t n = kMiB / 2 * static_cast<std::size_t>(i + 1) + 7 * t;
          std::fill(back.begin(), back.end(), 0);
          if (i % 2 == 0) {
            copier.copy_to_device(dev.data(), src.data() + t, n, stream.s);
            copier.copy_to_host(back.data() + t, dev.data(), n, stream.s);
          } else {
            StagedCopy up = copier.copy_to_device_async(dev.data(), src.data() + t, n, stream.s);
            StagedCopy down = copier.copy_to_host_async(back.data() + t, dev.data(), n, stream.s);
            down.wait();
            up.wait();
          }
          if (std::memcmp(back.data() + t, src.data() + t, n) != 0) failures.fetch_add(1);
        }
      } catch (const std::exception&) {
        failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

template <typename F>
void expect_refused(F&& call, const std::string& says) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected a refusal saying '" << says << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST_F(SimEngine, BadArgumentsAreRefusedBeforeAnythingMoves) {
  StagedCopier copier;
  const std::size_t n = 4 * kMiB;
  std::vector<char> host(n, 0x22);
  PinnedMemory pinned(n);
  DeviceMemory dev(n);
  DeviceMemory dev2(n);
  std::memset(dev.data(), 0x11, n);
  SimStream stream;
  const cudaStream_t s = stream.s;
  expect_refused([&] { copier.copy_to_device(nullptr, host.data(), n, s); },
                 "pinbench: host-to-device copy: the destination is null");
  expect_refused([&] { copier.copy_to_host(host.data(), nullptr, n, s); },
                 "device-to-host copy: the source is null");
  expect_refused([&] { copier.copy_to_device(dev.data(), dev2.data(), n, s); },
                 "the source is device memory (of device 0); it must be host memory");
  expect_refused([&] { copier.copy_to_device(pinned.data(), host.data(), n, s); },
                 "the destination is host memory; it must be device memory");
  expect_refused([&] { copier.copy_to_host(host.data(), pinned.data(), n, s); },
                 "the source is host memory");
  expect_refused([&] { copier.copy_to_host(dev2.data(), dev.data(), n, s); },
                 "the destination is device memory");
  expect_refused([&] { copier.copy_to_device(dev.data(), dev.data(), n, s); },
                 "the source and destination ranges overlap");
  expect_refused([&] { copier.copy_to_device(dev.data() + kMiB, host.data(), n, s); },
                 "runs 1048576 bytes past the end of its device allocation of 4194304 bytes");
  expect_refused([&] { copier.copy_to_host(host.data(), dev.data() + 1, n, s); },
                 "runs 1 bytes past the end");
  expect_refused(
      [&] {
        copier.copy_to_device(dev.data(), reinterpret_cast<void*>(~std::uintptr_t{0} - 8), n, s);
      },
      "past the end of the address space");
  {
    std::vector<char> halves(2 * n);
    cudaHostRegister(halves.data(), n, 0);
    expect_refused([&] { copier.copy_to_device(dev.data(), halves.data() + kMiB, n, s); },
                   "starts in page-locked memory but its last byte is not page-locked");
    cudaHostUnregister(halves.data());
  }
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  expect_refused([&] { copier.copy_to_device(dev.data(), host.data(), n, s); },
                 "being captured into a graph");
  cudaGraph_t graph = nullptr;
  cudaStreamEndCapture(s, &graph);
  EXPECT_EQ(std::count(dev.data(), dev.data() + n, 0x11), static_cast<long>(n));
  EXPECT_EQ(std::count(host.begin(), host.end(), 0x22), static_cast<long>(n));

  StagedCopy none = copier.copy_to_device_async(nullptr, nullptr, 0, s);
  EXPECT_TRUE(none.done());
  none.wait();
  none.stream_wait(s);
  StagedCopyOptions bad;
  bad.to_host.threads = 0;
  expect_refused([&] { StagedCopier c(bad); }, "to_host.threads must be between 1 and 256");
  bad = {};
  bad.device = 3;
  expect_refused([&] { StagedCopier c(bad); }, "device 3 does not exist (1 CUDA devices)");
}

TEST_F(SimEngine, AFailedStagingAllocationIsAClearError) {
  transfer::testing::fail_next_staging_allocation();
  try {
    StagedCopier c;
    FAIL() << "construction should fail";
  } catch (const StagedCopyError& e) {
    EXPECT_EQ(e.cuda_error(), cudaErrorMemoryAllocation);
    EXPECT_EQ(std::string(e.what()),
              "pinbench: could not allocate 32 MiB of page-locked staging memory for "
              "host-to-device copies: cudaHostAlloc failed: cudaErrorMemoryAllocation (simulated "
              "error)");
  }
  StagedCopier fine;
  EXPECT_EQ(fine.staging_bytes(), 80 * kMiB);
}

TEST_F(SimEngine, DestroyingTheEngineCompletesCopiesInFlight) {
  const std::size_t n = 9 * kMiB + 5;
  std::vector<std::vector<char>> src;
  std::vector<std::vector<char>> dst(6, std::vector<char>(n, 0));
  std::vector<std::unique_ptr<DeviceMemory>> dev;
  std::vector<StagedCopy> copies;
  SimStream stream;
  sim::set_copy_rate(5000.0);  // slow, so the copies are still running when the engine goes
  {
    StagedCopier copier;
    for (int i = 0; i < 6; ++i) {
      src.push_back(pattern(n, 20u + static_cast<std::uint64_t>(i)));
      dev.push_back(std::make_unique<DeviceMemory>(n));
      const auto k = static_cast<std::size_t>(i);
      if (i % 2 == 0) {
        copies.push_back(copier.copy_to_device_async(dev[k]->data(), src[k].data(), n, stream.s));
      } else {
        std::memcpy(dev[k]->data(), src[k].data(), n);
        copies.push_back(copier.copy_to_host_async(dst[k].data(), dev[k]->data(), n, stream.s));
      }
    }
  }
  for (int i = 0; i < 6; ++i) {
    const auto k = static_cast<std::size_t>(i);
    EXPECT_TRUE(copies[k].done());
    copies[k].wait();
    const char* got = i % 2 == 0 ? dev[k]->data() : dst[k].data();
    EXPECT_EQ(std::memcmp(got, src[k].data(), n), 0) << i;
  }
}

TEST_F(SimEngine, AFailedDmaFailsTheCopyWithAPrefixThatArrived) {
  for (bool to_device : {true, false}) {
    StagedCopier copier(small_rings());
    const std::size_t n = 3 * kMiB + 9;
    const std::vector<char> src = pattern(n, 30);
    std::vector<char> dst(n, 0);
    DeviceMemory dev(n);
    if (!to_device) std::memcpy(dev.data(), src.data(), n);
    SimStream stream;
    sim::fail_memcpy_after(6);  // the seventh chunk's DMA cannot be queued
    StagedCopy c = to_device ? copier.copy_to_device_async(dev.data(), src.data(), n, stream.s)
                             : copier.copy_to_host_async(dst.data(), dev.data(), n, stream.s);
    try {
      c.wait();
      FAIL() << "the copy should fail";
    } catch (const StagedCopyError& e) {
      EXPECT_EQ(e.cuda_error(), cudaErrorInvalidValue);
      EXPECT_EQ(e.bytes(), n);
      EXPECT_GT(e.bytes_done(), 0u);
      EXPECT_LT(e.bytes_done(), n);
      const char* got = to_device ? dev.data() : dst.data();
      EXPECT_EQ(std::memcmp(got, src.data(), e.bytes_done()), 0);
      EXPECT_NE(std::string(e.what()).find("failed after " + std::to_string(e.bytes_done()) +
                                           " bytes had arrived: cudaMemcpyAsync failed"),
                std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(c.done());
    // The engine goes on: the next copy is whole.
    std::fill(dst.begin(), dst.end(), 0);
    copier.copy_to_device(dev.data(), src.data(), n, stream.s);
    copier.copy_to_host(dst.data(), dev.data(), n, stream.s);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), n), 0);
  }
}

TEST_F(SimEngine, AnErrorReportedByTheDeviceReachesTheWaiter) {
  StagedCopier copier(small_rings());
  const std::size_t n = 2 * kMiB;
  const std::vector<char> src = pattern(n, 31);
  DeviceMemory dev(n);
  SimStream stream;
  sim::fail_event_query_after(3);
  StagedCopy c = copier.copy_to_device_async(dev.data(), src.data(), n, stream.s);
  try {
    c.wait();
    FAIL() << "the copy should fail";
  } catch (const StagedCopyError& e) {
    EXPECT_EQ(e.cuda_error(), cudaErrorLaunchFailure);
    EXPECT_LT(e.bytes_done(), n);
  }
  EXPECT_THROW(c.stream_wait(stream.s), StagedCopyError);
}

TEST_F(SimEngine, ADirectCopyThatCannotStartThrowsAtTheCall) {
  StagedCopier copier;
  std::vector<char> host(64 * kKiB, 1);
  DeviceMemory dev(64 * kKiB);
  SimStream stream;
  sim::fail_memcpy_after(0);
  try {
    (void)copier.copy_to_device_async(dev.data(), host.data(), host.size(), stream.s);
    FAIL() << "the call should throw";
  } catch (const StagedCopyError& e) {
    EXPECT_EQ(e.cuda_error(), cudaErrorInvalidValue);
    EXPECT_EQ(e.bytes_done(), 0u);
  }
}

// Batches of blocks (copy_blocks_to_device, copy_blocks_to_host): scattered blocks of every size
// from a byte to several chunks, more blocks than one chunk's pieces, through small rings and the
// standard ones, each block exact and nothing else written; page-locked arenas go direct.
TEST_F(SimEngine, BatchesOfBlocksLandExactlyWhereTheyBelong) {
  const std::size_t arena = 6 * kMiB;
  const std::vector<char> src = pattern(arena, 5);
  DeviceMemory dev(arena);
  std::vector<char> back(arena);
  PinnedMemory pinned(arena);
  std::memcpy(pinned.data(), src.data(), arena);
  SimStream stream;
  StagedCopier standard;
  StagedCopier small(small_rings());
  // Blocks of 1 byte up to more than two of the small rings' chunks, laid out apart, in an
  // order that is not the arenas' order; and 5000 blocks of 96 bytes (more pieces than a chunk
  // holds, so chunks close early).
  std::vector<StagedBlock> mixed;
  std::size_t host_at = 0;
  const std::vector<std::size_t> sizes = {1, 4095, 4096, 70 * kKiB + 3, 600 * kKiB, 13, 300 * kKiB};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    mixed.push_back({host_at, (sizes.size() - 1 - i) * 700 * kKiB + i, sizes[i]});
    host_at += sizes[i] + 4099;
  }
  std::vector<StagedBlock> many;
  for (std::size_t i = 0; i < 5000; ++i) many.push_back({i * 200, (4999 - i) * 128, 96});
  for (StagedCopier* copier : {&standard, &small}) {
    for (const std::vector<StagedBlock>* blocks : {&mixed, &many}) {
      std::memset(dev.data(), 0x11, arena);
      copier->copy_blocks_to_device(dev.data(), src.data(), blocks->data(), blocks->size(),
                                    stream.s);
      std::vector<char> want(arena, 0x11);
      for (const StagedBlock& b : *blocks) {
        std::memcpy(want.data() + b.device_offset, src.data() + b.host_offset, b.bytes);
      }
      ASSERT_EQ(std::memcmp(dev.data(), want.data(), arena), 0) << blocks->size();
      std::fill(back.begin(), back.end(), 0x22);
      copier->copy_blocks_to_host(back.data(), dev.data(), blocks->data(), blocks->size(),
                                  stream.s);
      std::vector<char> host_want(arena, 0x22);
      for (const StagedBlock& b : *blocks) {
        std::memcpy(host_want.data() + b.host_offset, dev.data() + b.device_offset, b.bytes);
      }
      ASSERT_EQ(std::memcmp(back.data(), host_want.data(), arena), 0) << blocks->size();
    }
  }
  EXPECT_GE(small.stats().staged_copies, 4u);
  // From page-locked memory: one driver copy per block, and the same bytes.
  const std::uint64_t direct_before = standard.stats().direct_copies;
  std::memset(dev.data(), 0x11, arena);
  standard.copy_blocks_to_device(dev.data(), pinned.data(), mixed.data(), mixed.size(), stream.s);
  for (const StagedBlock& b : mixed) {
    ASSERT_EQ(std::memcmp(dev.data() + b.device_offset, src.data() + b.host_offset, b.bytes), 0);
  }
  EXPECT_EQ(standard.stats().direct_copies - direct_before, mixed.size());
}

TEST_F(SimEngine, BadBatchesAreRefusedBeforeAnythingMoves) {
  StagedCopier copier;
  std::vector<char> host(64 * kKiB, 1);
  DeviceMemory dev(64 * kKiB);
  SimStream stream;
  const StagedBlock overlapping[] = {{0, 0, 4096}, {8192, 4000, 100}};
  EXPECT_THROW(copier.copy_blocks_to_device(dev.data(), host.data(), overlapping, 2, stream.s),
               std::invalid_argument);
  // On the host side the same two blocks do not overlap, so the other way is fine.
  EXPECT_NO_THROW(copier.copy_blocks_to_host(host.data(), dev.data(), overlapping, 2, stream.s));
  const StagedBlock past_the_end[] = {{0, 60 * kKiB, 8 * kKiB}};
  EXPECT_THROW(copier.copy_blocks_to_device(dev.data(), host.data(), past_the_end, 1, stream.s),
               std::invalid_argument);
  EXPECT_THROW(copier.copy_blocks_to_device(dev.data(), host.data(), nullptr, 1, stream.s),
               std::invalid_argument);
  // Host memory where the device arena belongs.
  EXPECT_THROW(
      copier.copy_blocks_to_device(host.data(), host.data() + 4096, overlapping, 1, stream.s),
      std::invalid_argument);
  // Nothing to move is no error.
  EXPECT_NO_THROW(copier.copy_blocks_to_device(dev.data(), host.data(), overlapping, 0, stream.s));
}

TEST_F(SimEngine, AFailedBatchSaysHowManyBlocksArrived) {
  StagedCopier copier(small_rings());
  const std::vector<char> src = pattern(4 * kMiB, 9);
  DeviceMemory dev(4 * kMiB);
  SimStream stream;
  std::vector<StagedBlock> blocks;
  for (std::size_t i = 0; i < 64; ++i) blocks.push_back({i * 64 * kKiB, i * 64 * kKiB, 64 * kKiB});
  sim::fail_event_query_after(3);
  try {
    copier.copy_blocks_to_device(dev.data(), src.data(), blocks.data(), blocks.size(), stream.s);
    FAIL() << "the batch should fail";
  } catch (const StagedCopyError& e) {
    EXPECT_EQ(e.cuda_error(), cudaErrorLaunchFailure);
    EXPECT_LT(e.bytes_done(), 4 * kMiB);
    EXPECT_EQ(e.bytes(), 4 * kMiB);
  }
}

}  // namespace
}  // namespace pinbench
