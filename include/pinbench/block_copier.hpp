// pinbench::BlockCopier: moves many scattered blocks between a host arena and a device arena
// (KV-cache pages, layers' weights, embedding rows) by the method that is fastest for that shape
// on this device, chosen from a calibration (pinbench/block_choice.hpp).
//
//   pinbench::BlockCopier copier;                      // nothing measured yet
//   std::vector<pinbench::StagedBlock> blocks = ...;   // host offset, device offset, bytes
//   copier.copy(pinbench::BlockDirection::kToDevice, host_arena, device_arena, blocks.data(),
//               blocks.size(), stream);                // calibrates on first use, or reads cache
//   std::puts(copier.stats().last->reason.c_str());     // what it chose and why
//
// The methods: one cudaMemcpyBatchAsync (with or without cudaMemcpyFlagPreferOverlapWithCompute),
// one cudaMemcpyAsync per block, the staged engine's batch call (pageable arenas), and a
// gather/scatter kernel over the host arena mapped into the device (page-locked arenas, or
// pageable ones where the device reaches pageable memory; blocks of one size).
//
// Stream order: every method keeps the order of a cudaMemcpyAsync on `stream`. Work queued on
// `stream` before the call happens before the copy; work queued after it sees the blocks. The
// batches read their source in stream order (batch-any and batch-during-call, which may read it
// earlier, are never used); the kernel and the table it reads are queued on `stream`; the staged
// engine's call starts its device work after the stream's earlier work and returns when the copy
// is complete (to the device, it first waits for the stream, as cudaMemcpyAsync from pageable
// memory does, because its threads read the host arena from the call on). As with cudaMemcpyAsync
// from pageable memory, a call may return before the copy is complete (page-locked arenas) or only
// once it is (pageable ones): synchronize the stream before reading a host destination. Batches
// cannot be queued on the legacy default stream, so there the copier chooses among the others.
//
// The calibration: on first use (copy(), or calibrate()) the copier reads its cache, a JSON file
// per device name and driver version under $XDG_CACHE_HOME/pinbench (else ~/.cache/pinbench),
// and checks it as pinbench checks every record; a cache that is malformed, of another device,
// driver, pinbench version or grid is not used, and the copier measures again (a small grid of
// block sizes and counts, every method, both directions, page-locked and pageable; 0.75 to
// 0.93 s on an H200, 2026-12-03) and writes the cache atomically (a temporary file renamed over
// it). stats() says which. With `rules_file`, the rules that `pinbench blocks --recommend FILE`
// wrote decide instead; a rules file of another device or driver is refused
// (BlockCalibrationError).
//
// Threads: every member function may be called from any number of threads.
//
// Errors: bad arguments throw std::invalid_argument before anything is queued; CUDA failures
// throw StagedCopyError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "pinbench/block_choice.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench {

struct BlockCopierOptions {
  int device = -1;         // -1: the calling thread's current device at construction
  std::string rules_file;  // a `pinbench blocks --recommend` file; empty: the calibration
  std::string cache_dir;   // empty: $XDG_CACHE_HOME/pinbench, else $HOME/.cache/pinbench
  bool use_cache = true;   // false: measure, and neither read nor write a cache
  // How much slower a kernel beside the copy may run, in percent; applied only where the table
  // or rules have figures beside compute (the choice's reason says when it is not).
  std::optional<double> max_slowdown_pct;
  unsigned kernel_sms = 0;           // the SMs the kernel method may use; 0: every SM
  std::vector<BlockMethod> methods;  // the methods it may choose from; empty: every one
  StagedCopyOptions staged;          // the staged method's engine, made when first used
};

struct BlockCopierStats {
  std::string source;          // "measured", "cache" or "rules"; empty before the first use
  std::string source_path;     // the cache or rules file; empty when nothing was read or written
  std::string source_note;     // why a cache was not read or written, or ""
  double calibration_s = 0.0;  // the time this process spent measuring (0 when read)
  std::uint64_t calls = 0, blocks = 0, bytes = 0;
  std::uint64_t calls_by_method[kBlockMethods] = {};
  std::optional<BlockShape> last_shape;  // the last call's shape and choice
  std::optional<BlockChoice> last;
};

class BlockCopier {
 public:
  explicit BlockCopier(const BlockCopierOptions& options = {});
  ~BlockCopier();
  BlockCopier(const BlockCopier&) = delete;
  BlockCopier& operator=(const BlockCopier&) = delete;

  // Moves `count` blocks: kToDevice copies host_arena + host_offset to device_arena +
  // device_offset for each block, kToHost the other way. Blocks may have any size and alignment;
  // destinations must not overlap. The arenas: device memory of the copier's device, and host
  // memory (page-locked or pageable; managed memory is chosen for as pageable).
  void copy(BlockDirection direction, void* host_arena, void* device_arena,
            const StagedBlock* blocks, std::size_t count, cudaStream_t stream = 0);
  // The same by a method named by the caller (tests, measurements); std::invalid_argument when
  // that method cannot move these blocks, saying why.
  void copy_with(BlockMethod method, BlockDirection direction, void* host_arena, void* device_arena,
                 const StagedBlock* blocks, std::size_t count, cudaStream_t stream = 0);
  // What copy() would choose for these blocks, without moving them.
  BlockChoice choose(BlockDirection direction, const void* host_arena, const void* device_arena,
                     const StagedBlock* blocks, std::size_t count, cudaStream_t stream = 0);

  // Reads the cache or the rules, or measures, now rather than on first use.
  void calibrate();
  // The table the choices come from (calibrate() first); empty with a rules file.
  std::optional<CalibrationTable> table() const;
  BlockCopierStats stats() const;
  int device() const;

  // Where the cache goes by default (empty when neither variable is set), and its file's name.
  static std::string default_cache_dir();
  static std::string cache_file_name(const BlockDeviceIdentity& identity, unsigned kernel_sms);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench
