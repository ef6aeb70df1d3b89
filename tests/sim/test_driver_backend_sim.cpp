// The staged engine through accel's driver backend (src/experiments/accel/interpose/
// driver_runtime.cpp), as it runs in a program without a shared runtime: the engine's runtime
// calls are renamed to accel's forwarders (runtime_names.hpp), which find no libcudart in this
// process and call the driver's functions instead, here those of the simulated driver
// (sim_driver.cpp, soname libcuda.so.1, over the simulated runtime). Round trips byte for byte,
// stream order, a failed DMA returned as the driver's error, and the backend's own last error.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include <cuda_runtime_api.h>

#include "experiments/accel/interpose/symbols.hpp"
#include "framework/pattern.hpp"
#include "pinbench/staged_copy.hpp"
#include "sim_cudart.hpp"
#include "sim_engine_fixtures.hpp"

// The forwarders the renamed engine calls (real_runtime.cpp).
extern "C" cudaError_t pinbench_accel_cudaGetLastError(void);
extern "C" cudaError_t pinbench_accel_cudaPeekAtLastError(void);
extern "C" cudaError_t pinbench_accel_cudaGetDevice(int* d);
extern "C" cudaError_t pinbench_accel_cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int f);
extern "C" cudaError_t pinbench_accel_cudaEventRecord(cudaEvent_t e, cudaStream_t s);
extern "C" cudaError_t pinbench_accel_cudaEventQuery(cudaEvent_t e);
extern "C" cudaError_t pinbench_accel_cudaEventDestroy(cudaEvent_t e);

namespace pinbench {
using namespace experiments::accel;
namespace {

class DriverBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::set_copy_rate(50000.0);
    sim::fail_memcpy_after(-1);
    ASSERT_FALSE(shared_runtime_loaded()) << "a libcudart is loaded: not the driver backend";
  }
  void TearDown() override { sim::fail_memcpy_after(-1); }
};

TEST_F(DriverBackend, TheEngineCopiesBothWaysThroughTheDriver) {
  const std::size_t n = 3 * kMiB + 4099;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, n), cudaSuccess);
  const std::vector<char> src = pattern(n, 7);
  std::vector<char> back(n, 0);
  {
    StagedCopier engine(small_rings());
    engine.copy_to_device(dev, src.data() + 1, n - 1, nullptr);
    engine.copy_to_host(back.data() + 1, dev, n - 1, nullptr);
    EXPECT_EQ(engine.stats().staged_copies, 2u);
  }
  EXPECT_EQ(std::memcmp(back.data() + 1, src.data() + 1, n - 1), 0);
  EXPECT_EQ(back[0], 0);
  int device = -1;
  EXPECT_EQ(pinbench_accel_cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);
  cudaFree(dev);
}

// An ordered copy to the device: later work on the caller's stream sees every byte.
TEST_F(DriverBackend, AnOrderedCopyKeepsTheStreamsOrder) {
  const std::size_t n = 2 * kMiB;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, n), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const std::vector<char> src = pattern(n, 11);
  std::vector<char> back(n, 0);
  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, n), cudaSuccess);
  {
    StagedCopier engine(small_rings());
    StagedCopy copy = engine.copy_to_device_ordered(dev, src.data(), n, stream);
    ASSERT_EQ(cudaMemcpyAsync(pinned, dev, n, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    copy.wait();
  }
  EXPECT_EQ(std::memcmp(pinned, src.data(), n), 0);
  cudaFreeHost(pinned);
  cudaStreamDestroy(stream);
  cudaFree(dev);
}

// A DMA the driver refuses: the engine's error carries the driver's code as the runtime's.
TEST_F(DriverBackend, AFailedDmaIsTheDriversError) {
  const std::size_t n = kMiB;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, n), cudaSuccess);
  const std::vector<char> src = pattern(n, 13);
  {
    StagedCopier engine(small_rings());
    sim::fail_memcpy_after(0);
    try {
      engine.copy_to_device(dev, src.data(), n, nullptr);
      ADD_FAILURE() << "the failed DMA was not reported";
    } catch (const StagedCopyError& e) {
      EXPECT_EQ(e.cuda_error(), cudaErrorInvalidValue) << e.what();
    }
    sim::fail_memcpy_after(-1);
    (void)pinbench_accel_cudaGetLastError();
  }
  cudaFree(dev);
}

// The backend keeps the last failure of its calls per thread, until cudaGetLastError reads it;
// cudaErrorNotReady is an answer, not an error, as in the runtime.
TEST_F(DriverBackend, TheLastErrorIsKeptUntilRead) {
  (void)pinbench_accel_cudaGetLastError();
  cudaEvent_t event = nullptr;
  ASSERT_EQ(pinbench_accel_cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(pinbench_accel_cudaEventRecord(event, nullptr), cudaSuccess);
  sim::fail_event_query_after(0);
  while (pinbench_accel_cudaEventQuery(event) == cudaErrorNotReady) {
  }
  sim::fail_event_query_after(-1);
  EXPECT_EQ(pinbench_accel_cudaPeekAtLastError(), cudaErrorLaunchFailure);
  EXPECT_EQ(pinbench_accel_cudaPeekAtLastError(), cudaErrorLaunchFailure);
  EXPECT_EQ(pinbench_accel_cudaGetLastError(), cudaErrorLaunchFailure);
  EXPECT_EQ(pinbench_accel_cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(pinbench_accel_cudaEventDestroy(event), cudaSuccess);
}

}  // namespace
}  // namespace pinbench
