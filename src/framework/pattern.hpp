// Test bytes for correctness gates: a seeded pseudo-random stream (no zeros-only buffers, which
// hide unwritten memory), and a byte-exact comparison that says where the first difference is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace pinbench {

// Fills `bytes` bytes at `dst` with the stream for `seed`. Deterministic.
void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed);

// Offset of the first byte where a and b differ, or nothing when all `bytes` bytes match.
std::optional<std::size_t> first_mismatch(const void* a, const void* b, std::size_t bytes);

}  // namespace pinbench
