// Non-temporal copies (host_copy.hpp). The AVX2 body is compiled for AVX2 with a target
// attribute and chosen at run time, so the library still runs on x86-64 CPUs without it.
#include "transfer/host_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
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

void copy_with(Stores stores, void* dst, const void* src, std::size_t bytes) {
  switch (stores) {
    case Stores::kStreaming:
      copy_streaming(dst, src, bytes);
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
