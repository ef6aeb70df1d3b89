// accel's router (experiments/accel/interpose/router.hpp) on the simulated runtime: what it
// routes through the engine, what it passes on to the runtime and why, the errors it returns and
// what cudaGetLastError then says, and stream order. Each call's "runtime" is the simulated
// runtime's own entry point, counted, so a test sees whether the call was passed on untouched.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "experiments/accel/interpose/router.hpp"
#include "framework/pattern.hpp"
#include "sim_cudart.hpp"

namespace pinbench::experiments::accel {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

bool holds_pattern(const char* p, std::size_t n, std::uint64_t seed) {
  std::vector<char> expected(n);
  fill_pattern(expected.data(), n, seed);
  return !first_mismatch(p, expected.data(), n).has_value();
}

struct Buffer {
  Buffer(std::size_t n, cudaMemoryType type) : bytes(n) {
    if (type == cudaMemoryTypeDevice) {
      EXPECT_EQ(cudaMalloc(&ptr, n), cudaSuccess);
    }
    if (type == cudaMemoryTypeHost) {
      EXPECT_EQ(cudaMallocHost(&ptr, n), cudaSuccess);
    }
    if (type == cudaMemoryTypeManaged) {
      EXPECT_EQ(cudaMallocManaged(&ptr, n, cudaMemAttachGlobal), cudaSuccess);
    }
    device = type != cudaMemoryTypeHost;
  }
  ~Buffer() { device ? cudaFree(ptr) : cudaFreeHost(ptr); }
  char* data() const { return static_cast<char*>(ptr); }
  void* ptr = nullptr;
  std::size_t bytes;
  bool device = true;
};

class Router : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::set_copy_rate(50000.0);
    sim::fail_memcpy_after(-1);
    (void)cudaGetLastError();
    std::memset(&counters, 0, sizeof counters);
  }
  void TearDown() override { sim::fail_memcpy_after(-1); }

  // A copy as the program's cudaMemcpyAsync would make it, through the router.
  cudaError_t copy(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind,
                   cudaStream_t stream = nullptr) {
    const CopyCall call{dst, src, n, 1, 0, 0, kind, stream, false};
    return router.copy(call, [&] {
      ++passed_on;
      return cudaMemcpyAsync(dst, src, n, kind, stream);
    });
  }
  const Tally& tally(Way w, Outcome o) const {
    return counters.by_outcome[static_cast<int>(w)][static_cast<int>(o)];
  }

  ProcessCounters counters{};
  pinbench::experiments::accel::Router router{&counters};
  int passed_on = 0;
};

TEST_F(Router, ACopyBelowTheThresholdPassesOnUntouched) {
  Buffer dev(4 * kKiB, cudaMemoryTypeDevice);
  std::vector<char> host(4 * kKiB, 'x');
  EXPECT_EQ(copy(dev.ptr, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(passed_on, 1);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kSmall).copies, 1u);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kSmall).bytes, 4 * kKiB);
  EXPECT_EQ(counters.engines, 0u);
  EXPECT_EQ(dev.data()[4 * kKiB - 1], 'x');
  EXPECT_EQ(router.threshold(Way::kToDevice), 512 * kKiB);
  EXPECT_EQ(router.threshold(Way::kToHost), 256 * kKiB);
}

TEST_F(Router, PageableCopiesBothWaysGoThroughTheEngineByteForByte) {
  const std::size_t n = 3 * kMiB + 7;
  Buffer dev(n, cudaMemoryTypeDevice);
  std::vector<char> src(n), back(n);
  fill_pattern(src.data(), n, 3);
  EXPECT_EQ(copy(dev.ptr, src.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
  // The source may be reused at once; later work on the stream sees the copy.
  std::memset(src.data(), 0, n);
  EXPECT_EQ(copy(back.data(), dev.ptr, n, cudaMemcpyDeviceToHost), cudaSuccess);
  // To the host the data is in place when the call returns.
  EXPECT_TRUE(holds_pattern(back.data(), n, 3));
  EXPECT_EQ(passed_on, 0);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kRouted).copies, 1u);
  EXPECT_EQ(tally(Way::kToHost, Outcome::kRouted).bytes, n);
  EXPECT_EQ(counters.routed_by_size[0][21].copies, 1u);  // [2 MiB, 4 MiB)
  EXPECT_EQ(counters.engines, 1u);
  EXPECT_GT(counters.staging_bytes, 0u);
}

TEST_F(Router, TheDefaultKindIsRoutedByWhatTheMemoryIs) {
  const std::size_t n = 2 * kMiB;
  Buffer dev(n, cudaMemoryTypeDevice);
  std::vector<char> src(n);
  fill_pattern(src.data(), n, 4);
  EXPECT_EQ(copy(dev.ptr, src.data(), n, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_TRUE(holds_pattern(dev.data(), n, 4));
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kRouted).copies, 1u);
}

TEST_F(Router, PageLockedManagedAndDeviceMemoryPassOnWithTheirReasons) {
  const std::size_t n = 2 * kMiB;
  Buffer dev(n, cudaMemoryTypeDevice), dev2(n, cudaMemoryTypeDevice);
  Buffer pinned(n, cudaMemoryTypeHost);
  Buffer managed(n, cudaMemoryTypeManaged);
  std::vector<char> host(n);
  // What the simulated runtime makes of each is its own business (it refuses some): each error
  // is read, so none is pending for the next.
  EXPECT_EQ(copy(dev.ptr, pinned.ptr, n, cudaMemcpyHostToDevice), cudaSuccess);
  (void)copy(managed.ptr, host.data(), n, cudaMemcpyHostToDevice);
  (void)cudaGetLastError();
  (void)copy(dev2.ptr, dev.ptr, n, cudaMemcpyDeviceToDevice);
  (void)cudaGetLastError();
  (void)copy(dev2.ptr, dev.ptr, n, cudaMemcpyDefault);
  (void)cudaGetLastError();
  (void)copy(dev.ptr, dev2.ptr, n, cudaMemcpyHostToDevice);  // the "host" side is device memory
  (void)cudaGetLastError();
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(passed_on, 5);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kPageLocked).copies, 1u);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kManaged).copies, 1u);
  EXPECT_EQ(tally(Way::kOther, Outcome::kNotHostDevice).copies, 2u);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kNotHostDevice).copies, 1u);
  EXPECT_EQ(counters.engines, 0u);
}

TEST_F(Router, TwoDCopiesAreRoutedOnlyWhenTheirRowsTouch) {
  const std::size_t width = 1 * kMiB, rows = 3, pitch = width + 4096;
  Buffer dev(pitch * rows, cudaMemoryTypeDevice);
  std::vector<char> host(pitch * rows);
  fill_pattern(host.data(), host.size(), 5);
  const auto two_d = [&](std::size_t spitch) {
    const CopyCall call{dev.ptr, host.data(), width, rows, width, spitch, cudaMemcpyHostToDevice,
                        nullptr, true};
    return router.copy(call, [&] {
      ++passed_on;
      return cudaMemcpy2DAsync(dev.ptr, width, host.data(), spitch, width, rows,
                               cudaMemcpyHostToDevice, nullptr);
    });
  };
  EXPECT_EQ(two_d(width), cudaSuccess);
  EXPECT_FALSE(first_mismatch(dev.data(), host.data(), width * rows).has_value());
  EXPECT_EQ(two_d(pitch), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(passed_on, 1);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kRouted).bytes, width * rows);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kStrided).copies, 1u);
}

TEST_F(Router, AStreamBeingCapturedGetsTheRuntimesOwnCopy) {
  Buffer dev(2 * kMiB, cudaMemoryTypeDevice);
  std::vector<char> host(2 * kMiB);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  (void)copy(dev.ptr, host.data(), host.size(), cudaMemcpyHostToDevice, s);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(passed_on, 1);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kCapturing).copies, 1u);
}

TEST_F(Router, APendingErrorSendsTheCopyToTheRuntimeAndStaysPending) {
  Buffer dev(2 * kMiB, cudaMemoryTypeDevice);
  std::vector<char> host(2 * kMiB);
  sim::fail_memcpy_after(0);
  EXPECT_EQ(cudaMemcpyAsync(dev.ptr, host.data(), 16, cudaMemcpyHostToDevice, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(copy(dev.ptr, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(passed_on, 1);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kPendingError).copies, 1u);
  EXPECT_EQ(router.last_error(cudaGetLastError(), true), cudaErrorInvalidValue);
}

TEST_F(Router, WhatTheEngineRefusesTheRuntimeAnswers) {
  Buffer dev(1 * kMiB, cudaMemoryTypeDevice);
  std::vector<char> host(4 * kMiB);
  // Past the end of the device allocation: the engine's check refuses it before any byte moves,
  // and the runtime's own call gives the program the runtime's own answer.
  EXPECT_EQ(copy(dev.ptr, host.data(), host.size(), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(passed_on, 1);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kEngineRefused).copies, 1u);
  EXPECT_EQ(router.last_error(cudaGetLastError(), true), cudaErrorInvalidValue);
}

TEST_F(Router, AnEngineFailureComesBackAsTheRuntimesErrorAndLastErrorAgrees) {
  const std::size_t n = 4 * kMiB;
  Buffer dev(n, cudaMemoryTypeDevice);
  std::vector<char> host(n);
  ASSERT_EQ(copy(dev.ptr, host.data(), n, cudaMemcpyHostToDevice), cudaSuccess);  // the engine
  sim::fail_memcpy_after(0);  // the lane's next DMA
  EXPECT_EQ(copy(dev.ptr, host.data(), n, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(passed_on, 0);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kFailed).copies, 1u);
  EXPECT_EQ(router.last_error(cudaSuccess, false), cudaErrorInvalidValue);  // peek
  EXPECT_EQ(router.last_error(cudaSuccess, true), cudaErrorInvalidValue);   // get, and reset
  EXPECT_EQ(router.last_error(cudaSuccess, true), cudaSuccess);
  // The runtime's own error, newer, comes first.
  EXPECT_EQ(router.last_error(cudaErrorLaunchFailure, true), cudaErrorLaunchFailure);
}

TEST_F(Router, ARoutedCopyStartsAfterEarlierWorkAndLaterWorkStartsAfterIt) {
  const std::size_t n = 2 * kMiB + 3;
  Buffer dev(n, cudaMemoryTypeDevice);
  Buffer back(n, cudaMemoryTypeHost);
  std::vector<char> src(n);
  fill_pattern(src.data(), n, 9);
  std::memset(dev.data(), 0, n);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  std::atomic<bool> release{false};
  sim::hold_stream(s, &release);  // earlier work that has not run yet
  ASSERT_EQ(copy(dev.ptr, src.data(), n, cudaMemcpyHostToDevice, s), cudaSuccess);
  std::memset(src.data(), 0, n);  // read already: the call said so by returning
  EXPECT_EQ(dev.data()[0], 0);    // but nothing reached the device before the earlier work
  // Later work on the stream: the runtime's own copy back to page-locked memory.
  ASSERT_EQ(cudaMemcpyAsync(back.ptr, dev.ptr, n, cudaMemcpyDeviceToHost, s), cudaSuccess);
  release = true;
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_TRUE(holds_pattern(back.data(), n, 9));
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  router.quiesce(std::chrono::milliseconds(1000));
}

TEST_F(Router, AForkedChildPassesEveryCopyOnAndCountsInItsOwnFile) {
  Buffer dev(2 * kMiB, cudaMemoryTypeDevice);
  std::vector<char> host(2 * kMiB);
  ProcessCounters child{};
  router.forked(&child);
  EXPECT_EQ(copy(dev.ptr, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(passed_on, 1);
  EXPECT_EQ(child.by_outcome[0][static_cast<int>(Outcome::kForkedChild)].copies, 1u);
  EXPECT_EQ(tally(Way::kToDevice, Outcome::kForkedChild).copies, 0u);
}

}  // namespace
}  // namespace pinbench::experiments::accel
