// pinbench::PinnedArena on a real GPU: its split copies against cudaHostAlloc memory in both
// directions, across chunk boundaries and at odd ends, every byte checked (and every byte outside
// the range left alone); what the driver says of its memory; and the driver's own behaviour that
// the split exists for: one cudaMemcpyAsync across two registered chunks fails with
// cudaErrorInvalidValue, inside one chunk it runs.
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "gpu_test.hpp"
#include "pinbench/pinned_arena.hpp"

namespace pinbench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kChunk = 32 * kMiB;
constexpr std::size_t kArena = 3 * kChunk;

// cudaHostAlloc memory, the reference page-locked kind.
struct HostAlloc {
  void* p = nullptr;
  explicit HostAlloc(std::size_t n) {
    PINBENCH_CUDA_TRY(cudaHostAlloc(&p, n, cudaHostAllocDefault));
  }
  ~HostAlloc() { (void)cudaFreeHost(p); }
  unsigned char* bytes() const { return static_cast<unsigned char*>(p); }
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { PINBENCH_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s); }
};

// Bytes that differ from one offset to the next and from one seed to the next.
void fill(unsigned char* p, std::size_t n, std::uint32_t seed) {
  std::uint32_t x = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<unsigned char>(x >> 24);
  }
}

// The first offset where a and b differ, or n.
std::size_t first_difference(const unsigned char* a, const unsigned char* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return i;
  }
  return n;
}

// The whole arena; a range across both boundaries at odd ends; one inside a chunk; one ending
// exactly on a boundary.
const std::vector<std::pair<std::size_t, std::size_t>> kRanges = {
    {0, kArena}, {kChunk - 4093, 2 * kChunk + 4092}, {5, 31 * kMiB}, {kChunk + 3, kChunk - 3}};

PinnedArena make_arena() {
  PinnedArenaOptions o;
  o.chunk_bytes = kChunk;
  return PinnedArena(kArena, o);
}

TEST(PinnedArenaGpu, EveryChunkIsPageLockedHostMemory) {
  PINBENCH_REQUIRE_GPU();
  PinnedArena arena = make_arena();
  arena.wait();
  const PinnedArenaStats s = arena.stats();
  EXPECT_EQ(s.chunks, 3u);
  EXPECT_EQ(s.chunks_pinned, 3u);
  EXPECT_GT(s.first_chunk_ms, 0);
  EXPECT_GE(s.pinned_ms, s.first_chunk_ms);
  EXPECT_GT(s.longest_call_ms, 0);
  for (std::size_t i = 0; i < s.chunks; ++i) {
    const char* p = static_cast<const char*>(arena.data()) + i * kChunk + 4097;
    EXPECT_EQ(cuda::observed_memory_kind(p), "pinned") << "chunk " << i;
  }
}

TEST(PinnedArenaGpu, CopiesToTheDeviceAndBackCarryEveryByte) {
  PINBENCH_REQUIRE_GPU();
  PinnedArena arena = make_arena();
  HostAlloc reference(kArena);
  HostAlloc back(kArena);
  cuda::DeviceBuffer dev(kArena);
  Stream stream;
  auto* host = static_cast<unsigned char*>(arena.data());
  for (const auto& [off, n] : kRanges) {
    SCOPED_TRACE("offset " + std::to_string(off) + ", " + std::to_string(n) + " bytes");
    fill(host, kArena, static_cast<std::uint32_t>(off + 1));  // every byte written
    // To the device: the arena's split copy, read back through cudaHostAlloc memory.
    PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), 0, n, stream.s));
    arena.copy_to_device(dev.data(), off, n, stream.s);
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(back.p, dev.data(), n, cudaMemcpyDeviceToHost, stream.s));
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
    ASSERT_EQ(first_difference(back.bytes(), host + off, n), n);
    // From the device: bytes from cudaHostAlloc memory into the range; the rest untouched.
    std::memcpy(reference.p, host, kArena);
    fill(reference.bytes() + off, n, static_cast<std::uint32_t>(off + 7));
    PINBENCH_CUDA_TRY(
        cudaMemcpyAsync(dev.data(), reference.bytes() + off, n, cudaMemcpyHostToDevice, stream.s));
    arena.copy_from_device(off, dev.data(), n, stream.s);
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.s));
    ASSERT_EQ(first_difference(host, reference.bytes(), kArena), kArena);
  }
}

// The driver's behaviour, documented: each chunk is its own registration, and one copy that
// spans two is refused in both directions (the reason copy_to_device splits). Inside one chunk
// the same call runs.
TEST(PinnedArenaGpu, OneCudaMemcpyAcrossTwoChunksIsInvalidValue) {
  PINBENCH_REQUIRE_GPU();
  PinnedArena arena = make_arena();
  arena.wait();
  cuda::DeviceBuffer dev(2 * kMiB);
  Stream stream;
  char* across = static_cast<char*>(arena.data()) + kChunk - kMiB;
  EXPECT_EQ(cudaMemcpyAsync(dev.data(), across, 2 * kMiB, cudaMemcpyHostToDevice, stream.s),
            cudaErrorInvalidValue);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaMemcpyAsync(across, dev.data(), 2 * kMiB, cudaMemcpyDeviceToHost, stream.s),
            cudaErrorInvalidValue);
  (void)cudaGetLastError();
  char* inside = static_cast<char*>(arena.data()) + kChunk + kMiB;
  EXPECT_EQ(cudaMemcpyAsync(dev.data(), inside, 2 * kMiB, cudaMemcpyHostToDevice, stream.s),
            cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
  // The arena's own copy of the same span: split, so it runs.
  EXPECT_EQ(arena.piece_bytes(kChunk - kMiB, 2 * kMiB), kMiB);
  arena.copy_to_device(dev.data(), kChunk - kMiB, 2 * kMiB, stream.s);
  EXPECT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
}

}  // namespace
}  // namespace pinbench
