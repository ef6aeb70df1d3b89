// The CUDA layer on a real device: each buffer is the memory kind it claims, RAII types move
// and release, and a failed call becomes a CudaError naming the call.
#include <cstring>
#include <string>
#include <utility>

#include "framework/errors.hpp"
#include "framework/pattern.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels.cuh"
#include "cuda/stream.hpp"
#include "gpu_test.hpp"

namespace pinbench::cuda {
namespace {

TEST(GpuBuffers, EachHostKindIsWhatItClaims) {
  PINBENCH_REQUIRE_GPU();
  const HostBuffer pageable(1 << 20, MemoryKind::kPageable);
  const HostBuffer pinned(1 << 20, MemoryKind::kPinned);
  const HostBuffer mapped(1 << 20, MemoryKind::kMapped);
  const DeviceBuffer device(1 << 20);
  EXPECT_EQ(observed_memory_kind(pageable.data()), "pageable");
  EXPECT_EQ(observed_memory_kind(pinned.data()), "pinned");
  EXPECT_EQ(observed_memory_kind(mapped.data()), "pinned");
  EXPECT_EQ(observed_memory_kind(device.data()), "device");
  EXPECT_NE(mapped.device_pointer(), nullptr);
  EXPECT_NE(pinned.device_pointer(), nullptr);
  EXPECT_THROW(pageable.device_pointer(), std::logic_error);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pageable.data()) % 4096, 0u);
}

TEST(GpuBuffers, MoveTransfersOwnership) {
  PINBENCH_REQUIRE_GPU();
  HostBuffer a(4096, MemoryKind::kPinned);
  void* p = a.data();
  HostBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), p);
  HostBuffer c(4096, MemoryKind::kPageable);
  c = std::move(b);  // releases c's pageable memory, takes the pinned buffer
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.kind(), MemoryKind::kPinned);

  DeviceBuffer d(4096);
  void* dp = d.data();
  DeviceBuffer e(std::move(d));
  EXPECT_EQ(d.data(), nullptr);
  EXPECT_EQ(e.data(), dp);

  Stream s1;
  cudaStream_t raw = s1.get();
  Stream s2(std::move(s1));
  EXPECT_EQ(s1.get(), nullptr);
  EXPECT_EQ(s2.get(), raw);
}

TEST(GpuErrors, AFailedCallNamesItselfAndClearsTheStickyError) {
  PINBENCH_REQUIRE_GPU();
  try {
    DeviceBuffer huge(std::size_t{1} << 50);  // a petabyte
    FAIL() << "allocation should fail";
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaMalloc"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos) << what;
    EXPECT_NE(what.find("buffers.cpp:"), std::string::npos) << what;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  DeviceBuffer fine(4096);  // the context is still usable
  EXPECT_NE(fine.data(), nullptr);
}

TEST(GpuEvents, TimeAKernel) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t n = 1 << 24;
  DeviceBuffer in(n * sizeof(float));
  DeviceBuffer out(n * sizeof(float));
  Stream stream;
  Event start;
  Event stop;
  start.record(stream.view());
  launch_scale_copy(static_cast<const float*>(in.data()), static_cast<float*>(out.data()), n, 2.0f,
                    scale_copy_blocks(n), stream.get());
  stop.record(stream.view());
  stop.synchronize();
  const float ms = Event::elapsed_ms(start, stop);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 1000.0f);
}

TEST(GpuGates, AByteExactCheckFindsAPlantedCorruption) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t bytes = 4 << 20;
  HostBuffer src(bytes, MemoryKind::kPinned);
  HostBuffer back(bytes, MemoryKind::kPinned);
  DeviceBuffer dev(bytes);
  fill_pattern(src.data(), bytes, 42);
  PINBENCH_CUDA_TRY(cudaMemcpy(dev.data(), src.data(), bytes, cudaMemcpyHostToDevice));
  PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), dev.data(), bytes, cudaMemcpyDeviceToHost));
  EXPECT_EQ(first_mismatch(back.data(), src.data(), bytes), std::nullopt);

  const std::size_t planted = 3 * 1000 * 1000 + 7;
  const unsigned char original = static_cast<const unsigned char*>(src.data())[planted];
  PINBENCH_CUDA_TRY(cudaMemset(static_cast<char*>(dev.data()) + planted, original ^ 0xFF, 1));
  PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), dev.data(), bytes, cudaMemcpyDeviceToHost));
  EXPECT_EQ(first_mismatch(back.data(), src.data(), bytes), planted);
}

TEST(GpuKernels, ScaleCopyReadsAMappedPointer) {
  PINBENCH_REQUIRE_GPU();
  const std::size_t n = (1 << 20) + 3;  // not a multiple of the block size
  HostBuffer mapped(n * sizeof(float), MemoryKind::kMapped);
  auto* in = static_cast<float*>(mapped.data());
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000) * 0.5f;
  DeviceBuffer out(n * sizeof(float));
  launch_scale_copy(static_cast<const float*>(mapped.device_pointer()),
                    static_cast<float*>(out.data()), n, 3.0f, scale_copy_blocks(n), nullptr);
  std::vector<float> result(n);
  PINBENCH_CUDA_TRY(
      cudaMemcpy(result.data(), out.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 3.0f * in[i]) << i;
}

}  // namespace
}  // namespace pinbench::cuda
