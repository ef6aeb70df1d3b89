// The host copy threads' non-temporal copy (src/transfer/host_copy.hpp) against memcpy: every
// head, body and tail split, misaligned both ends, and the bytes around the destination untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "framework/pattern.hpp"
#include "transfer/host_copy.hpp"

namespace pinbench::transfer {
namespace {

constexpr std::size_t kGuard = 256;

void expect_exact(std::size_t bytes, std::size_t src_offset, std::size_t dst_offset) {
  std::vector<char> src(bytes + src_offset + kGuard);
  fill_pattern(src.data(), src.size(), bytes * 131 + src_offset * 7 + dst_offset);
  std::vector<char> dst(bytes + dst_offset + 2 * kGuard, '\x5a');
  const std::vector<char> before = dst;
  copy_streaming(dst.data() + kGuard + dst_offset, src.data() + src_offset, bytes);
  ASSERT_EQ(std::memcmp(dst.data() + kGuard + dst_offset, src.data() + src_offset, bytes), 0)
      << bytes << " bytes, offsets " << src_offset << "/" << dst_offset;
  // Nothing before or after the destination was written.
  ASSERT_EQ(std::memcmp(dst.data(), before.data(), kGuard + dst_offset), 0) << bytes;
  const std::size_t end = kGuard + dst_offset + bytes;
  ASSERT_EQ(std::memcmp(dst.data() + end, before.data() + end, dst.size() - end), 0) << bytes;
}

TEST(HostCopy, StreamingCopyMatchesMemcpyForEverySmallSizeAndAlignment) {
  for (std::size_t bytes = 0; bytes <= 400; ++bytes) {
    for (std::size_t src_offset : {0, 1, 31, 32, 63}) {
      for (std::size_t dst_offset : {0, 1, 17, 32, 63}) {
        expect_exact(bytes, src_offset, dst_offset);
      }
    }
  }
}

TEST(HostCopy, StreamingCopyMatchesMemcpyForLargeCopies) {
  for (std::size_t bytes : {std::size_t{4096}, std::size_t{65536 + 77}, std::size_t{3 << 20}}) {
    for (std::size_t offset : {0, 5, 64}) expect_exact(bytes, offset, 64 - offset % 64);
  }
}

TEST(HostCopy, AvailabilityFollowsTheCpu) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  EXPECT_EQ(streaming_stores_available(), __builtin_cpu_supports("avx2") != 0);
#else
  EXPECT_FALSE(streaming_stores_available());
#endif
}

}  // namespace
}  // namespace pinbench::transfer
