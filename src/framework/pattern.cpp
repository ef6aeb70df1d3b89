#include "framework/pattern.hpp"

#include <cstring>

namespace pinbench {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed) {
  auto* out = static_cast<unsigned char*>(dst);
  std::uint64_t state = seed;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    const std::uint64_t v = splitmix64(state);
    std::memcpy(out + i, &v, 8);
  }
  if (i < bytes) {
    const std::uint64_t v = splitmix64(state);
    std::memcpy(out + i, &v, bytes - i);
  }
}

std::optional<std::size_t> first_mismatch(const void* a, const void* b, std::size_t bytes) {
  if (std::memcmp(a, b, bytes) == 0) return std::nullopt;
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  // Narrow down in blocks so a late difference in a large buffer is found quickly.
  constexpr std::size_t kBlock = 1 << 16;
  std::size_t start = 0;
  while (start < bytes) {
    const std::size_t n = bytes - start < kBlock ? bytes - start : kBlock;
    if (std::memcmp(pa + start, pb + start, n) != 0) {
      for (std::size_t i = start; i < start + n; ++i) {
        if (pa[i] != pb[i]) return i;
      }
    }
    start += n;
  }
  return std::nullopt;
}

}  // namespace pinbench
