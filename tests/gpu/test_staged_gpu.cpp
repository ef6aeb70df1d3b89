// The staged copy engine on a real GPU: byte-exact round trips over many sizes and alignments
// through the default engine and through a small-ring engine that stages everything, and into
// memory never written before (the fresh-destination path); ordering
// with the caller's stream; four threads on one engine; bad arguments refused before anything
// moves; a failed staging allocation; destruction with copies in flight.
//
// PINBENCH_TEST_MAX_BYTES (e.g. 16777216) leaves out larger round trips, so the suite runs
// under compute-sanitizer in a couple of minutes (README.md, "Running on a GPU machine").
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/copy_kernels.cuh"
#include "cuda/stream.hpp"
#include "framework/pattern.hpp"
#include "gpu_test.hpp"
#include "pinbench/staged_copy.hpp"
#include "transfer/testing.hpp"

namespace pinbench {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kGuard = 8 * kKiB;  // room around every range, checked for stray writes

std::size_t max_test_bytes() {
  const char* v = std::getenv("PINBENCH_TEST_MAX_BYTES");
  if (v == nullptr || *v == '\0') return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(std::strtoull(v, nullptr, 10));
}

// An engine that stages every pageable copy, with rings small enough that a few MiB make many
// chunks, so ramps, tails and slices of odd sizes are all exercised.
StagedCopyOptions small_rings() {
  StagedCopyOptions o;
  o.to_device = {256 * kKiB, 3, 4};
  o.to_host = {128 * kKiB, 4, 3};
  o.edge_chunk_bytes = 16 * kKiB;
  o.to_device.direct_below_bytes = o.to_host.direct_below_bytes = 0;
  return o;
}

bool all_bytes(const unsigned char* p, std::size_t n, unsigned char v) {
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != v) return false;
  }
  return true;
}

// Buffers for round trips up to `largest` bytes at any offset below kGuard.
struct RoundTrip {
  explicit RoundTrip(std::size_t largest)
      : capacity(largest + 2 * kGuard),
        src(capacity, MemoryKind::kPageable),
        back(capacity, MemoryKind::kPageable),
        check(capacity, MemoryKind::kPinned),
        dev(capacity) {
    fill_pattern(src.data(), capacity, 0x57A6ED);
  }

  // Copies n bytes there (src + off -> dev + dev_off) and back (dev + dev_off -> back + off)
  // and checks both legs, and that no byte around either range changed.
  void run(StagedCopier& copier, std::size_t n, std::size_t off, std::size_t dev_off,
           cudaStream_t stream) {
    auto* s = static_cast<unsigned char*>(src.data());
    auto* b = static_cast<unsigned char*>(back.data());
    auto* c = static_cast<unsigned char*>(check.data());
    auto* d = static_cast<unsigned char*>(dev.data());
    const std::string where =
        std::to_string(n) + " bytes at +" + std::to_string(off) + "/+" + std::to_string(dev_off);

    PINBENCH_CUDA_TRY(cudaMemset(d, 0xC3, capacity));
    copier.copy_to_device(d + dev_off, s + off, n, stream);
    PINBENCH_CUDA_TRY(cudaMemcpy(c, d, capacity, cudaMemcpyDeviceToHost));
    ASSERT_FALSE(first_mismatch(c + dev_off, s + off, n).has_value()) << "to the device, " << where;
    ASSERT_TRUE(all_bytes(c, dev_off, 0xC3)) << "a byte before the range changed, " << where;
    ASSERT_TRUE(all_bytes(c + dev_off + n, capacity - dev_off - n, 0xC3))
        << "a byte after the range changed, " << where;

    std::memset(b, 0x3C, capacity);
    copier.copy_to_host(b + off, d + dev_off, n, stream);
    ASSERT_FALSE(first_mismatch(b + off, s + off, n).has_value()) << "to the host, " << where;
    ASSERT_TRUE(all_bytes(b, off, 0x3C)) << "a host byte before the range changed, " << where;
    ASSERT_TRUE(all_bytes(b + off + n, capacity - off - n, 0x3C))
        << "a host byte after the range changed, " << where;
  }

  std::size_t capacity;
  cuda::HostBuffer src, back, check;
  cuda::DeviceBuffer dev;
};

TEST(GpuStaged, RoundTripsAreByteExactOverSizesAndOffsets) {
  PINBENCH_REQUIRE_GPU();
  std::vector<std::size_t> sizes;
  for (std::size_t n :
       {std::size_t{1}, std::size_t{7}, 4 * kKiB, kMiB + 13, 96 * kMiB + 5, 300 * kMiB}) {
    if (n <= max_test_bytes()) sizes.push_back(n);
  }
  RoundTrip rt(sizes.back());
  cuda::Stream stream;
  StagedCopier standard;
  StagedCopier staged_always(small_rings());
  for (StagedCopier* copier : {&standard, &staged_always}) {
    for (std::size_t n : sizes) {
      for (std::size_t off : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4095}}) {
        // The device side gets a different misalignment, so the two ends never line up.
        rt.run(*copier, n, off, (off * 5) % 4099, stream.get());
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  // The legacy default stream works too.
  rt.run(standard, std::min<std::size_t>(sizes.back(), 5 * kMiB + 1), 3, 0, nullptr);
}

// Copies back into memory never written (an anonymous mapping made for each copy, as `.cpu()`
// gets it): every byte arrives, no byte of the mapping around the range is written, and the
// engine says which copies it prefaulted (those whose range could take huge pages).
TEST(GpuStaged, CopiesIntoFreshMemoryAreByteExact) {
  PINBENCH_REQUIRE_GPU();
  std::vector<std::size_t> sizes;
  for (std::size_t n : {3 * kMiB + 5, 64 * kMiB + 3, 200 * kMiB + 4097}) {
    if (n <= max_test_bytes()) sizes.push_back(n);
  }
  if (sizes.empty()) GTEST_SKIP() << "PINBENCH_TEST_MAX_BYTES leaves out every size";
  RoundTrip rt(sizes.back());
  auto* d = static_cast<unsigned char*>(rt.dev.data());
  PINBENCH_CUDA_TRY(cudaMemcpy(d, rt.src.data(), rt.capacity, cudaMemcpyHostToDevice));
  cuda::Stream stream;
  StagedCopier copier;
  StagedCopier small(small_rings());
  std::uint64_t huge_before = 0;
  for (StagedCopier* c : {&copier, &small}) {
    for (std::size_t n : sizes) {
      for (std::size_t off : {std::size_t{0}, std::size_t{3}, std::size_t{4095}}) {
        const std::size_t map_bytes = n + off + 3 * kGuard;
        void* m =
            mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(m, MAP_FAILED);
        auto* host = static_cast<unsigned char*>(m) + kGuard + off;
        const std::size_t dev_off = (off * 7) % 4099;
        c->copy_to_host(host, d + dev_off, n, stream.get());
        const auto* expected = static_cast<const unsigned char*>(rt.src.data()) + dev_off;
        EXPECT_FALSE(first_mismatch(host, expected, n).has_value()) << n << "+" << off;
        // Never written by anyone: still zero (a page outside the range may exist, zero-filled).
        EXPECT_TRUE(all_bytes(static_cast<unsigned char*>(m), kGuard + off, 0)) << n << "+" << off;
        EXPECT_TRUE(all_bytes(host + n, map_bytes - kGuard - off - n, 0)) << n << "+" << off;
        munmap(m, map_bytes);
        if (::testing::Test::HasFailure()) return;
      }
    }
    const StagedCopierStats st = c->stats();
    EXPECT_EQ(st.prefaulted_copies, st.huge_page_copies);
    huge_before += st.huge_page_copies;
  }
  RecordProperty("huge_page_copies", static_cast<int>(huge_before));
}

TEST(GpuStaged, PathsAreChosenBySizeAndMemoryKind) {
  PINBENCH_REQUIRE_GPU();
  StagedCopier copier;
  cuda::HostBuffer pageable(8 * kMiB, MemoryKind::kPageable);
  cuda::HostBuffer pinned(8 * kMiB, MemoryKind::kPinned);
  cuda::DeviceBuffer dev(8 * kMiB);
  cuda::Stream stream;
  StagedCopy small =
      copier.copy_to_device_async(dev.data(), pageable.data(), 4 * kKiB, stream.get());
  StagedCopy large =
      copier.copy_to_device_async(dev.data(), pageable.data(), 8 * kMiB, stream.get());
  small.wait();
  large.wait();
  StagedCopy locked = copier.copy_to_host_async(pinned.data(), dev.data(), 8 * kMiB, stream.get());
  locked.wait();
  EXPECT_FALSE(small.staged());
  EXPECT_TRUE(large.staged());
  EXPECT_FALSE(locked.staged());  // page-locked memory goes straight to the driver
  EXPECT_EQ(large.bytes(), 8 * kMiB);
  EXPECT_TRUE(large.done());
  EXPECT_EQ(copier.staging_bytes(), 80 * kMiB);  // fixed at construction, whatever was copied
  EXPECT_EQ(copier.stats().staged_copies, 1u);
  EXPECT_EQ(copier.stats().direct_copies, 2u);
}

// Holds `stream` with a spin kernel until release() is called: work queued behind it cannot
// have run before then.
struct StreamLatch {
  explicit StreamLatch(cudaStream_t s) : flags(64, MemoryKind::kMapped) {
    volatile int* host = static_cast<volatile int*>(flags.data());
    host[0] = 0;
    host[1] = 0;
    auto* dev = static_cast<int*>(flags.device_pointer());
    cuda::launch_latch(dev, dev + 1, 20'000'000'000ull, s);
  }
  void release() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    static_cast<volatile int*>(flags.data())[0] = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  bool timed_out() const { return static_cast<volatile int*>(flags.data())[1] != 0; }
  cuda::HostBuffer flags;
};

TEST(GpuStaged, AnAsyncCopyWaitsForEarlierWorkOnItsStream) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(64 * kMiB, max_test_bytes());
  StagedCopier copier;
  cuda::HostBuffer src(n, MemoryKind::kPageable);
  cuda::HostBuffer dst(n, MemoryKind::kPageable);
  cuda::HostBuffer check(n, MemoryKind::kPinned);
  cuda::DeviceBuffer dev(n);
  fill_pattern(src.data(), n, 99);
  cuda::Stream stream;

  // To the device: a memset queued before the copy must not land after it.
  {
    StreamLatch latch(stream.get());
    PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), 0, n, stream.get()));
    StagedCopy c = copier.copy_to_device_async(dev.data(), src.data(), n, stream.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(c.done()) << "the copy finished while its stream was still held";
    latch.release();
    c.wait();
    stream.synchronize();
    EXPECT_FALSE(latch.timed_out());
    PINBENCH_CUDA_TRY(cudaMemcpy(check.data(), dev.data(), n, cudaMemcpyDeviceToHost));
    EXPECT_FALSE(first_mismatch(check.data(), src.data(), n).has_value());
  }
  // To the host: the copy must read what a memset queued before it wrote.
  {
    StreamLatch latch(stream.get());
    PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), 0x5A, n, stream.get()));
    StagedCopy c = copier.copy_to_host_async(dst.data(), dev.data(), n, stream.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(c.done());
    latch.release();
    c.wait();
    stream.synchronize();
    EXPECT_FALSE(latch.timed_out());
    EXPECT_TRUE(all_bytes(static_cast<unsigned char*>(dst.data()), n, 0x5A));
  }
}

TEST(GpuStaged, StreamWaitOrdersLaterWorkAfterTheCopy) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(256 * kMiB, max_test_bytes());
  StagedCopier copier;
  cuda::HostBuffer src(n, MemoryKind::kPageable);
  cuda::HostBuffer dst(n, MemoryKind::kPageable);
  cuda::HostBuffer check(n, MemoryKind::kPinned);
  cuda::DeviceBuffer dev(n);
  fill_pattern(src.data(), n, 100);
  cuda::Stream copy_stream;
  cuda::Stream later;

  // Work on another stream, ordered by stream_wait, sees the data on the device.
  StagedCopy up = copier.copy_to_device_async(dev.data(), src.data(), n, copy_stream.get());
  up.stream_wait(later.get());
  PINBENCH_CUDA_TRY(
      cudaMemcpyAsync(check.data(), dev.data(), n, cudaMemcpyDeviceToHost, later.get()));
  later.synchronize();
  EXPECT_FALSE(first_mismatch(check.data(), src.data(), n).has_value());
  up.wait();

  // Overwriting the device source after stream_wait does not reach the host copy.
  StagedCopy down = copier.copy_to_host_async(dst.data(), dev.data(), n, copy_stream.get());
  down.stream_wait(later.get());
  PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), 0, n, later.get()));
  down.wait();
  later.synchronize();
  EXPECT_FALSE(first_mismatch(dst.data(), src.data(), n).has_value());
}

TEST(GpuStaged, CopiesOnOneStreamKeepTheirOrder) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(128 * kMiB, max_test_bytes());
  StagedCopier copier;
  cuda::HostBuffer src(n, MemoryKind::kPageable);
  cuda::HostBuffer dst(n, MemoryKind::kPageable);
  cuda::HostBuffer head(4 * kKiB, MemoryKind::kPageable);
  cuda::DeviceBuffer dev(n);
  fill_pattern(src.data(), n, 101);
  PINBENCH_CUDA_TRY(cudaMemset(dev.data(), 0, n));
  cuda::Stream stream;
  // There and straight back, both asynchronous, nothing in between: the copy back must see
  // every byte of the copy there. A small direct copy made after them must see them too.
  StagedCopy up = copier.copy_to_device_async(dev.data(), src.data(), n, stream.get());
  StagedCopy down = copier.copy_to_host_async(dst.data(), dev.data(), n, stream.get());
  StagedCopy small = copier.copy_to_host_async(head.data(), dev.data(), 4 * kKiB, stream.get());
  EXPECT_TRUE(up.staged() || n < copier.options().to_device.direct_below_bytes);
  EXPECT_FALSE(small.staged());
  down.wait();
  small.wait();
  up.wait();
  EXPECT_FALSE(first_mismatch(dst.data(), src.data(), n).has_value());
  EXPECT_FALSE(first_mismatch(head.data(), src.data(), 4 * kKiB).has_value());
}

TEST(GpuStaged, FourThreadsShareOneEngine) {
  PINBENCH_REQUIRE_GPU();
  StagedCopier copier;
  std::atomic<int> failures{0};
  std::vector<std::string> why(4);
  std::vector<std::thread> threads;
  const std::size_t cap = std::min<std::size_t>(48 * kMiB, max_test_bytes());
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        cuda::Stream stream;
        const std::size_t largest = cap + 4096;
        cuda::HostBuffer src(largest, MemoryKind::kPageable);
        cuda::HostBuffer back(largest, MemoryKind::kPageable);
        cuda::DeviceBuffer dev(largest);
        fill_pattern(src.data(), largest, 1000u + static_cast<std::uint64_t>(t));
        for (int i = 0; i < 6; ++i) {
          const std::size_t n = std::max<std::size_t>(
              1, cap / 6 * static_cast<std::size_t>(i + 1) - static_cast<std::size_t>(13 * t));
          const std::size_t off = static_cast<std::size_t>(t + i) % 7;
          auto* s = static_cast<char*>(src.data()) + off;
          auto* b = static_cast<char*>(back.data()) + off;
          std::memset(back.data(), 0, largest);
          if (i % 2 == 0) {
            copier.copy_to_device(dev.data(), s, n, stream.get());
            copier.copy_to_host(b, dev.data(), n, stream.get());
          } else {
            StagedCopy up = copier.copy_to_device_async(dev.data(), s, n, stream.get());
            up.stream_wait(stream.get());
            StagedCopy down = copier.copy_to_host_async(b, dev.data(), n, stream.get());
            down.wait();
            up.wait();
          }
          if (first_mismatch(b, s, n)) {
            why[static_cast<std::size_t>(t)] =
                "round trip " + std::to_string(i) + " of " + std::to_string(n) + " bytes differs";
            failures.fetch_add(1);
            return;
          }
        }
      } catch (const std::exception& e) {
        why[static_cast<std::size_t>(t)] = e.what();
        failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0) << why[0] << " | " << why[1] << " | " << why[2] << " | " << why[3];
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

TEST(GpuStaged, BadArgumentsAreRefusedBeforeAnythingMoves) {
  PINBENCH_REQUIRE_GPU();
  StagedCopier copier;
  const std::size_t n = 4 * kMiB;
  cuda::HostBuffer host(n, MemoryKind::kPageable);
  cuda::HostBuffer pinned(n, MemoryKind::kPinned);
  cuda::DeviceBuffer dev(n);
  cuda::DeviceBuffer dev2(n);
  cuda::Stream stream;
  PINBENCH_CUDA_TRY(cudaMemset(dev.data(), 0x11, n));
  std::memset(host.data(), 0x22, n);
  const cudaStream_t s = stream.get();

  expect_refused([&] { copier.copy_to_device(nullptr, host.data(), n, s); },
                 "host-to-device copy: the destination is null");
  expect_refused([&] { copier.copy_to_host(host.data(), nullptr, n, s); },
                 "device-to-host copy: the source is null");
  expect_refused([&] { copier.copy_to_device(dev.data(), dev2.data(), n, s); },
                 "the source is device memory");
  expect_refused([&] { copier.copy_to_device(pinned.data(), host.data(), n, s); },
                 "the destination is host memory");
  expect_refused([&] { copier.copy_to_host(host.data(), pinned.data(), n, s); },
                 "the source is host memory");
  expect_refused([&] { copier.copy_to_host(dev2.data(), dev.data(), n, s); },
                 "the destination is device memory");
  expect_refused([&] { copier.copy_to_device(dev.data(), dev.data(), n, s); },
                 "the source and destination ranges overlap");
  expect_refused(
      [&] { copier.copy_to_device(static_cast<char*>(dev.data()) + kMiB, host.data(), n, s); },
      "runs 1048576 bytes past the end of its device allocation");
  expect_refused(
      [&] { copier.copy_to_host(host.data(), static_cast<char*>(dev.data()) + 1, n, s); },
      "runs 1 bytes past the end of its device allocation");
  {
    // Page-locked memory followed by pageable memory: the first half of one allocation is
    // registered, so the byte after it is certainly not page-locked.
    cuda::HostBuffer halves(2 * n, MemoryKind::kPageable);
    PINBENCH_CUDA_TRY(cudaHostRegister(halves.data(), n, cudaHostRegisterDefault));
    expect_refused(
        [&] { copier.copy_to_device(dev.data(), static_cast<char*>(halves.data()) + kMiB, n, s); },
        "starts in page-locked memory but its last byte is not page-locked");
    PINBENCH_CUDA_TRY(cudaHostUnregister(halves.data()));
  }

  cudaGraph_t graph = nullptr;
  PINBENCH_CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  expect_refused([&] { copier.copy_to_device(dev.data(), host.data(), n, s); },
                 "being captured into a graph");
  PINBENCH_CUDA_TRY(cudaStreamEndCapture(s, &graph));
  if (graph != nullptr) PINBENCH_CUDA_TRY(cudaGraphDestroy(graph));

  // Nothing was copied by any of them.
  std::vector<unsigned char> seen(n);
  PINBENCH_CUDA_TRY(cudaMemcpy(seen.data(), dev.data(), n, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(all_bytes(seen.data(), n, 0x11));
  EXPECT_TRUE(all_bytes(static_cast<unsigned char*>(host.data()), n, 0x22));

  // Zero bytes is nothing to do, whatever the pointers.
  StagedCopy none = copier.copy_to_device_async(nullptr, nullptr, 0, s);
  EXPECT_TRUE(none.done());
  EXPECT_EQ(none.bytes(), 0u);
  none.wait();
  none.stream_wait(s);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(GpuStaged, BadOptionsAreRefused) {
  PINBENCH_REQUIRE_GPU();
  StagedCopyOptions o;
  o.to_device.depth = 1;
  expect_refused([&] { StagedCopier c(o); }, "to_device.depth must be between 2 and 64");
  o = {};
  o.device = 4096;
  expect_refused([&] { StagedCopier c(o); }, "device 4096 does not exist");
}

TEST(GpuStaged, AFailedStagingAllocationIsAClearError) {
  PINBENCH_REQUIRE_GPU();
  transfer::testing::fail_next_staging_allocation();
  try {
    StagedCopier c;
    FAIL() << "construction should fail";
  } catch (const StagedCopyError& e) {
    EXPECT_EQ(e.cuda_error(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("could not allocate 32 MiB of page-locked staging memory "
                                         "for host-to-device copies"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  StagedCopier fine;  // the next one is made normally
  EXPECT_EQ(fine.staging_bytes(), 80 * kMiB);
}

TEST(GpuStaged, DestroyingTheEngineCompletesCopiesInFlight) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t n = std::min<std::size_t>(64 * kMiB, max_test_bytes()) + 5;
  constexpr int kCopies = 6;
  std::vector<cuda::HostBuffer> src;
  std::vector<cuda::HostBuffer> dst;
  std::vector<cuda::DeviceBuffer> dev;
  for (int i = 0; i < kCopies; ++i) {
    src.emplace_back(n, MemoryKind::kPageable);
    dst.emplace_back(n, MemoryKind::kPageable);
    dev.emplace_back(n);
    fill_pattern(src.back().data(), n, 300u + static_cast<std::uint64_t>(i));
  }
  cuda::Stream stream;
  std::vector<StagedCopy> copies;
  {
    StagedCopier copier;
    // Half go to the device; the other half come back from device memory loaded beforehand.
    for (int i = 0; i < kCopies; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (i % 2 == 0) {
        copies.push_back(
            copier.copy_to_device_async(dev[k].data(), src[k].data(), n, stream.get()));
      } else {
        PINBENCH_CUDA_TRY(cudaMemcpy(dev[k].data(), src[k].data(), n, cudaMemcpyHostToDevice));
        copies.push_back(copier.copy_to_host_async(dst[k].data(), dev[k].data(), n, stream.get()));
      }
    }
  }  // the engine goes away now
  cuda::HostBuffer check(n, MemoryKind::kPinned);
  for (int i = 0; i < kCopies; ++i) {
    const auto k = static_cast<std::size_t>(i);
    EXPECT_TRUE(copies[k].done()) << i;
    copies[k].wait();
    if (i % 2 == 0) {
      PINBENCH_CUDA_TRY(cudaMemcpy(check.data(), dev[k].data(), n, cudaMemcpyDeviceToHost));
      EXPECT_FALSE(first_mismatch(check.data(), src[k].data(), n).has_value()) << i;
    } else {
      EXPECT_FALSE(first_mismatch(dst[k].data(), src[k].data(), n).has_value()) << i;
    }
  }
}

}  // namespace
}  // namespace pinbench
