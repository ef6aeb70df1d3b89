// The staged engine's arithmetic: how a copy is cut into chunks and a chunk into slices, and
// which settings the engine accepts. Pure functions, checked exhaustively over awkward sizes and
// addresses.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/chunk_plan.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

const ChunkPolicy kPolicy{16 * kMiB, kMiB, kHostPageBytes};

// Every plan covers [0, total) exactly, in order, with no chunk empty or over the limit.
void expect_covers(const std::vector<Chunk>& chunks, std::size_t total, const ChunkPolicy& p) {
  std::size_t at = 0;
  for (const Chunk& c : chunks) {
    EXPECT_EQ(c.offset, at);
    EXPECT_GT(c.bytes, 0u);
    EXPECT_LE(c.bytes, p.max_chunk_bytes);
    at += c.bytes;
  }
  EXPECT_EQ(at, total);
}

TEST(ChunkPlan, NothingToCopyHasNoChunk) {
  EXPECT_TRUE(plan_chunks(0, 0x1000, kPolicy).empty());
}

TEST(ChunkPlan, SmallCopiesAreOneChunk) {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, 4 * kKiB, kMiB - 1, kMiB}) {
    const auto chunks = plan_chunks(n, 0x10003, kPolicy);
    ASSERT_EQ(chunks.size(), 1u) << n;
    EXPECT_EQ(chunks[0], (Chunk{0, n}));
  }
}

TEST(ChunkPlan, RampsUpDoublingAndDownHalving) {
  // 64 MiB from an aligned address: 1, 2, 4, 8, 16 MiB up; then half of what is left, down to
  // the edge chunk, whose sliver of a tail (64 KiB) the last chunk takes.
  const auto chunks = plan_chunks(64 * kMiB, 0x200000, kPolicy);
  expect_covers(chunks, 64 * kMiB, kPolicy);
  std::vector<std::size_t> sizes;
  for (const Chunk& c : chunks) sizes.push_back(c.bytes / kKiB);
  const std::vector<std::size_t> expected = {1024, 2048, 4096, 8192, 16384, 16384,
                                             8704, 4352, 2176, 1088, 1088};
  EXPECT_EQ(sizes, expected);
}

TEST(ChunkPlan, WithoutTheRampDownTheLastChunksStayFull) {
  // To the device: 1, 2, 4, 8, 16 MiB up, then full buffers to the end; the 1 MiB left over is
  // a chunk of its own (it is not a sliver), and no chunk halves.
  ChunkPolicy p = kPolicy;
  p.ramp_down = false;
  const auto chunks = plan_chunks(64 * kMiB, 0x200000, p);
  expect_covers(chunks, 64 * kMiB, p);
  std::vector<std::size_t> sizes;
  for (const Chunk& c : chunks) sizes.push_back(c.bytes / kMiB);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 2, 4, 8, 16, 16, 16, 1}));
  // A sliver after the last full buffer is folded into it only where that still fits; here it
  // cannot, so it stays a chunk of its own.
  const auto odd = plan_chunks(31 * kMiB + 5, 0x200003, p);
  expect_covers(odd, 31 * kMiB + 5, p);
  for (const Chunk& c : odd) EXPECT_LE(c.bytes, p.max_chunk_bytes);
}

TEST(ChunkPlan, LargeCopiesRunAtTheBufferSizeInTheMiddle) {
  const auto chunks = plan_chunks(std::size_t{1} << 30, 0x200000, kPolicy);
  expect_covers(chunks, std::size_t{1} << 30, kPolicy);
  std::size_t full = 0;
  for (const Chunk& c : chunks) full += c.bytes == kPolicy.max_chunk_bytes ? 1 : 0;
  EXPECT_GE(full, 60u);  // 1 GiB is 64 buffers' worth; the ramps take only a few
  EXPECT_EQ(chunks.front().bytes, kMiB);
  EXPECT_LE(chunks.back().bytes, kMiB + kMiB / 2);
}

TEST(ChunkPlan, InteriorCutsFallOnHostPages) {
  for (std::uintptr_t addr : {std::uintptr_t{0x10000}, std::uintptr_t{0x10001},
                              std::uintptr_t{0x10003}, std::uintptr_t{0x10FFF}}) {
    for (std::size_t n : {3 * kMiB + 13, 64 * kMiB + 5, 100 * kMiB}) {
      const auto chunks = plan_chunks(n, addr, kPolicy);
      expect_covers(chunks, n, kPolicy);
      for (std::size_t i = 1; i < chunks.size(); ++i) {
        EXPECT_EQ((addr + chunks[i].offset) % kHostPageBytes, 0u)
            << "cut " << i << " of " << n << " at " << addr;
      }
    }
  }
}

TEST(ChunkPlan, NoSliverTail) {
  // Whatever the size, no last chunk is below half the edge chunk unless the copy itself is.
  for (std::size_t n = 2 * kMiB; n < 40 * kMiB; n += 777 * kKiB + 3) {
    const auto chunks = plan_chunks(n, 0x7003, kPolicy);
    expect_covers(chunks, n, kPolicy);
    EXPECT_GE(chunks.back().bytes, kPolicy.edge_chunk_bytes / 2) << n;
  }
}

TEST(ChunkPlan, EdgeEqualToBufferNeverOverflowsIt) {
  const ChunkPolicy p{kMiB, kMiB, kHostPageBytes};
  for (std::size_t n : {kMiB + 1, 2 * kMiB + kMiB / 4, 10 * kMiB + 17}) {
    const auto chunks = plan_chunks(n, 0x3, p);
    expect_covers(chunks, n, p);
  }
}

TEST(ChunkPlan, SliceCounts) {
  EXPECT_EQ(slice_count(1, 8), 1u);
  EXPECT_EQ(slice_count(kMinSliceBytes - 1, 8), 1u);
  EXPECT_EQ(slice_count(kMiB, 8), 16u);       // 64 KiB each
  EXPECT_EQ(slice_count(16 * kMiB, 8), 32u);  // 4 per thread
  EXPECT_EQ(slice_count(16 * kMiB, 1), 4u);
  EXPECT_EQ(slice_count(std::size_t{1} << 40, 256), 1024u);
  EXPECT_EQ(slice_count(16 * kMiB, 0), 4u);  // a nonsense thread count still gives slices
}

TEST(ChunkPlan, SlicesCoverTheChunkOnPageBoundaries) {
  for (std::uintptr_t addr :
       {std::uintptr_t{0x40000}, std::uintptr_t{0x40003}, std::uintptr_t{0x40FFF}}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{4097}, kMiB + 13, 16 * kMiB}) {
      for (int threads : {1, 3, 8}) {
        const std::size_t count = slice_count(n, threads);
        std::size_t at = 0;
        for (std::size_t k = 0; k < count; ++k) {
          const Chunk s = slice_of(n, addr, count, k);
          EXPECT_EQ(s.offset, at);
          if (k > 0 && s.bytes > 0 && s.offset < n) {
            EXPECT_EQ((addr + s.offset) % kHostPageBytes, 0u);
          }
          at += s.bytes;
        }
        EXPECT_EQ(at, n) << n << " at " << addr << " over " << threads;
      }
    }
  }
}

TEST(ChunkPlan, SlicesAreEvenOnAlignedChunks) {
  for (std::size_t k = 0; k < 32; ++k) {
    EXPECT_EQ(slice_of(16 * kMiB, 0x100000, 32, k).bytes, 512 * kKiB);
  }
}

// --- options ----------------------------------------------------------------------------------

TEST(StagedOptions, DefaultsAreValidAndPinEightyMiBOfAtMostNinetySix) {
  const StagedCopyOptions o;
  EXPECT_EQ(staged_options_problem(o), "");
  EXPECT_EQ(staging_bytes(o), 80 * kMiB);  // 8 MiB x 4 to the device, 8 MiB x 6 back
  EXPECT_EQ(o.max_staging_bytes, 96 * kMiB);
}

void expect_problem(const StagedCopyOptions& o, const std::string& part) {
  const std::string p = staged_options_problem(o);
  EXPECT_NE(p.find(part), std::string::npos) << "problem: '" << p << "', expected '" << part << "'";
}

TEST(StagedOptions, RingChecks) {
  StagedCopyOptions o;
  o.to_device.chunk_bytes = 32 * kKiB;
  expect_problem(o, "to_device.chunk_bytes must be between 64 KiB and 1 TiB, not 32 KiB");
  o = {};
  o.to_host.chunk_bytes = 8 * kMiB + 1;
  expect_problem(o, "to_host.chunk_bytes must be a multiple of 4 KiB");
  o = {};
  o.to_device.depth = 1;
  expect_problem(o, "to_device.depth must be between 2 and 64");
  o = {};
  o.to_host.depth = 65;
  expect_problem(o, "to_host.depth must be between 2 and 64");
  o = {};
  o.to_device.threads = 0;
  expect_problem(o, "to_device.threads must be between 1 and 256, not 0");
}

TEST(StagedOptions, EdgeChunkChecks) {
  StagedCopyOptions o;
  o.edge_chunk_bytes = 0;
  expect_problem(o, "edge_chunk_bytes must be a multiple of 4 KiB");
  o.edge_chunk_bytes = 16 * kMiB;  // above the device-to-host chunk of 8 MiB
  expect_problem(o, "the smaller chunk size (8 MiB)");
  o.edge_chunk_bytes = 6000;
  expect_problem(o, "not 6000 B");
  o.edge_chunk_bytes = 8 * kMiB;
  EXPECT_EQ(staged_options_problem(o), "");
}

TEST(StagedOptions, StagingBound) {
  StagedCopyOptions o;
  o.to_device = {32 * kMiB, 3, 8};  // 96 MiB on its own, 144 MiB with the other ring
  expect_problem(o,
                 "the two rings would pin 144 MiB (32 MiB x 3 to the device, 8 MiB x 6 to the "
                 "host), more than max_staging_bytes (96 MiB)");
  o.max_staging_bytes = 144 * kMiB;
  EXPECT_EQ(staged_options_problem(o), "");
  // Sizes that would overflow saturate instead of wrapping into something small.
  o.to_device = {std::size_t{1} << 40, 64, 8};
  o.to_host = {std::size_t{1} << 40, 64, 8};
  o.max_staging_bytes = std::size_t{1} << 46;
  EXPECT_EQ(staging_bytes(o), std::size_t{1} << 47);
  expect_problem(o, "more than max_staging_bytes");
}

// A batch's blocks packed into chunks: every byte of every block in exactly one piece, pieces in
// order and back to back within their chunk, chunks sized as one copy of the total would be, and
// none holding more pieces than allowed.
TEST(BatchPlan, EveryByteOfEveryBlockInExactlyOnePiece) {
  const ChunkPolicy policy{8 * kMiB, 256 * kKiB, kHostPageBytes, true};
  std::vector<BatchBlock> blocks;
  std::size_t total = 0;
  for (std::size_t i = 0; i < 300; ++i) {
    const std::size_t bytes = i % 7 == 3 ? 0 : (i * 7919) % (3 * kMiB) + 1;
    blocks.push_back({i * 3 * kMiB, i * 5 * kMiB, bytes});
    total += bytes;
  }
  for (const std::size_t max_pieces : {std::size_t{1}, std::size_t{5}, std::size_t{4096}}) {
    const BatchPlan plan = plan_batch(blocks, policy, max_pieces);
    std::vector<std::size_t> covered(blocks.size(), 0);
    std::size_t piece = 0;
    std::size_t sum = 0;
    for (const BatchChunk& c : plan.chunks) {
      ASSERT_EQ(c.first_piece, piece);
      ASSERT_GE(c.pieces, 1u);
      ASSERT_LE(c.pieces, max_pieces);
      ASSERT_LE(c.bytes, policy.max_chunk_bytes);
      std::size_t at = 0;
      for (std::size_t k = c.first_piece; k < c.first_piece + c.pieces; ++k) {
        const BatchPiece& p = plan.pieces[k];
        ASSERT_EQ(p.at, at);
        ASSERT_GT(p.bytes, 0u);
        ASSERT_EQ(p.offset, covered[p.block]) << "pieces of a block follow each other";
        covered[p.block] += p.bytes;
        at += p.bytes;
      }
      ASSERT_EQ(at, c.bytes);
      piece += c.pieces;
      sum += c.bytes;
    }
    EXPECT_EQ(piece, plan.pieces.size());
    EXPECT_EQ(sum, total);
    for (std::size_t i = 0; i < blocks.size(); ++i) EXPECT_EQ(covered[i], blocks[i].bytes) << i;
  }
  // With room for every piece, the chunks are those of one copy of the total.
  const BatchPlan plan = plan_batch(blocks, policy, 1u << 20);
  const std::vector<Chunk> one = plan_chunks(total, 0, policy);
  ASSERT_EQ(plan.chunks.size(), one.size());
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_EQ(plan.chunks[i].bytes, one[i].bytes) << i;
  EXPECT_TRUE(plan_batch({}, policy, 8).chunks.empty());
  EXPECT_TRUE(plan_batch({{0, 0, 0}, {5, 5, 0}}, policy, 8).chunks.empty());
}

TEST(StagedOptions, DeviceCheck) {
  StagedCopyOptions o;
  o.device = -2;
  expect_problem(o, "device must be -1");
  o.device = 3;
  EXPECT_EQ(staged_options_problem(o), "");  // whether it exists is the engine's to ask CUDA
}

}  // namespace
}  // namespace pinbench
