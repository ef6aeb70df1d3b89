// Non-temporal copies (host_copy.hpp). The AVX2 body is compiled for AVX2 with a target
// attribute and chosen at run time, so the library still runs on x86-64 CPUs without it.
#include "transfer/host_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PINBENCH_STREAMING_X86 1
#endif

namespace pinbench::transfer {
namespace {

#ifdef PINBENCH_STREAMING_X86

constexpr std::size_t kLine = 64;
constexpr std::size_t kBlock = 128;  // four 32-byte stores per iteration

__attribute__((target("avx2"))) void copy_avx2_stream(char* dst, const char* src,
                                                      std::size_t bytes) {
  // Stores must be 32-byte aligned; aligning to a line also keeps every store a whole line.
  std::size_t head = (kLine - (reinterpret_cast<std::uintptr_t>(dst) & (kLine - 1))) & (kLine - 1);
  if (head > bytes) head = bytes;
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  bytes -= head;
  for (std::size_t n = bytes / kBlock; n > 0; --n) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 96), d);
    src += kBlock;
    dst += kBlock;
  }
  std::memcpy(dst, src, bytes % kBlock);
  // Non-temporal stores are weakly ordered: without the fence, a thread that sees the slice
  // counted done (an ordinary release store) could still read old bytes.
  _mm_sfence();
}

bool detect_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}

bool detect_cldemote() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (c & (1u << 25)) != 0;  // CPUID.(EAX=7,ECX=0):ECX[25] CLDEMOTE
}

// Pieces small enough to be still in L1/L2 when their lines are demoted.
constexpr std::size_t kDemotePiece = 16u << 10;

__attribute__((target("cldemote"))) void copy_cldemote(char* dst, const char* src,
                                                       std::size_t bytes) {
  while (bytes > 0) {
    const std::size_t n = std::min(bytes, kDemotePiece);
    std::memcpy(dst, src, n);
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(dst) & ~std::uintptr_t{kLine - 1};
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(dst) + n;
    for (std::uintptr_t line = first; line < end; line += kLine) {
      _cldemote(reinterpret_cast<void*>(line));
    }
    dst += n;
    src += n;
    bytes -= n;
  }
}

#endif

}  // namespace

bool streaming_stores_available() {
#ifdef PINBENCH_STREAMING_X86
  static const bool available = detect_avx2();
  return available;
#else
  return false;
#endif
}

bool demote_available() {
#ifdef PINBENCH_STREAMING_X86
  static const bool available = detect_cldemote();
  return available;
#else
  return false;
#endif
}

void copy_demoting(void* dst, const void* src, std::size_t bytes) {
#ifdef PINBENCH_STREAMING_X86
  if (demote_available()) {
    copy_cldemote(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

void copy_with(Stores stores, void* dst, const void* src, std::size_t bytes) {
  switch (stores) {
    case Stores::kStreaming:
      copy_streaming(dst, src, bytes);
      return;
    case Stores::kDemoted:
      copy_demoting(dst, src, bytes);
      return;
    case Stores::kCached:
      break;
  }
  std::memcpy(dst, src, bytes);
}

void copy_streaming(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
#ifdef PINBENCH_STREAMING_X86
  if (streaming_stores_available()) {
    copy_avx2_stream(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

}  // namespace pinbench::transfer
