// pinbench::BlockCopier (pinbench/block_copier.hpp): a batch of blocks described once (its
// memory kinds, its shape, which methods can move it), moved by the method the calibration or
// the rules choose; the calibration measured here, on arenas of its own, when no cache serves.
#include "pinbench/block_copier.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include "base/batch_copy.hpp"
#include "base/cuda_error_text.hpp"
#include "base/slowdown_range.hpp"
#include "transfer/blocks/block_kernels.hpp"
#include "transfer/device_guard.hpp"

#ifndef PINBENCH_VERSION_STRING
#define PINBENCH_VERSION_STRING "unknown"
#endif

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using transfer::BlockCopy;
using Clock = std::chrono::steady_clock;

void check(cudaError_t err, const char* call) {
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw StagedCopyError("pinbench: BlockCopier: " + cuda_error_text(call, err), err, 0, 0);
  }
}

std::invalid_argument bad(const std::string& why) {
  return std::invalid_argument("pinbench: BlockCopier: " + why);
}

using DeviceGuard = transfer::DeviceGuard<&check>;

// The calibration's grid: blocks of 4 KiB to 4 MiB by x4; 1 to 16 of them by x2, where one
// block more or less changes which method wins (on the H200, 2026-12-03, a grid of 1 and 4 chose
// 3 blocks up to 3x slower than the fastest method), then to 4096 by x4; each cell at most
// 16 MiB (a larger count keeps the rate of the largest measured, as block_choice.hpp says).
const std::vector<std::uint64_t> kGridSizes = {4u << 10,   16u << 10, 64u << 10,
                                               256u << 10, 1u << 20,  4u << 20};
const std::vector<std::uint64_t> kGridCounts = {1, 2, 4, 8, 16, 64, 256, 1024, 4096};
constexpr std::uint64_t kCellBytes = 16u << 20;
// Each cell is timed after one untimed run, at least kMinSamples times and until the samples
// add up to kCellTime, at most kMaxSamples; the median is kept. A cell of a few blocks takes
// tens of microseconds, where three samples are at the mercy of one late wake-up.
constexpr int kMinSamples = 3;
constexpr int kMaxSamples = 15;
constexpr double kCellTime = 500e-6;  // seconds
// A method this far behind the fastest at a cell of at least kFarBehindFrom bytes is not
// measured at larger counts of that size. Smaller cells take microseconds, and their figures
// are too noisy to give up on a method by (below).
constexpr double kFarBehind = 4.0;
constexpr std::uint64_t kFarBehindFrom = 1u << 20;

bool legacy_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy;
}

// One call's blocks, as every method needs them, and which methods can move them.
struct Batch {
  BlockDirection direction = BlockDirection::kToDevice;
  BlockMemory memory = BlockMemory::kPinned;
  bool managed = false;
  char* host = nullptr;
  char* device = nullptr;
  char* host_mapped = nullptr;  // the host arena as the device reaches it; nullptr: it cannot
  const StagedBlock* blocks = nullptr;
  std::size_t count = 0;
  std::uint64_t bytes = 0;
  bool uniform = true;                             // every block of one size
  std::array<std::string, kBlockMethods> why_not;  // empty: the method can move it

  BlockShape shape() const {
    return {direction, memory, count == 0 ? 0 : (bytes + count - 1) / count, count};
  }
  std::vector<BlockMethod> allowed() const {
    std::vector<BlockMethod> v;
    for (int i = 0; i < kBlockMethods; ++i) {
      if (why_not[i].empty()) v.push_back(static_cast<BlockMethod>(i));
    }
    return v;
  }
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A permutation of `slots` slot numbers from a fixed seed (xorshift, Fisher-Yates): the
// calibration's blocks scattered over its arenas the same way in every run.
std::vector<std::uint64_t> scatter(std::uint64_t slots, std::uint64_t seed) {
  std::vector<std::uint64_t> v(slots);
  for (std::uint64_t i = 0; i < slots; ++i) v[i] = i;
  std::uint64_t x = seed | 1;
  for (std::uint64_t i = slots; i > 1; --i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::swap(v[i - 1], v[x % i]);
  }
  return v;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in && !in.eof()) throw std::runtime_error("could not read " + p.string());
  return s.str();
}

// Writes `text` to `path` whole or not at all: a temporary file beside it, renamed over it.
void write_atomically(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error("could not write " + tmp.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("could not rename a temporary file to " + path.string());
  }
}

}  // namespace

struct BlockCopier::Impl {
  BlockCopierOptions options;
  int device = 0;
  unsigned sms = 0;  // the kernel's
  bool pageable_access = false;
  BlockDeviceIdentity identity;

  mutable std::mutex mutex;  // everything below
  bool ready = false;
  std::optional<CalibrationTable> table;
  std::optional<BlockRules> rules;
  BlockCopierStats stats;
  std::map<std::tuple<int, int, std::uint64_t, std::uint64_t, unsigned>, BlockChoice> memo;

  std::mutex staged_mutex;
  std::unique_ptr<StagedCopier> staged;

  // The kernel's block tables: page-locked on the host, copied to the device on the caller's
  // stream, each reused only once its event says the kernel that read it is done.
  struct TableSlot {
    void* host = nullptr;
    void* dev = nullptr;
    std::size_t capacity = 0;  // blocks
    cudaEvent_t done = nullptr;
    bool used = false;
  };
  std::mutex table_mutex;
  std::array<TableSlot, 4> slots;
  std::size_t next_slot = 0;

  ~Impl() {
    int previous = device;
    (void)cudaGetDevice(&previous);
    (void)cudaSetDevice(device);
    for (TableSlot& s : slots) {
      if (s.done != nullptr) {
        (void)cudaEventSynchronize(s.done);
        (void)cudaEventDestroy(s.done);
      }
      if (s.host != nullptr) (void)cudaFreeHost(s.host);
      if (s.dev != nullptr) (void)cudaFree(s.dev);
    }
    (void)cudaSetDevice(previous);
  }

  // `every_method`: the calibration's, which measures every method whatever the options allow,
  // so one cache serves copiers with any `methods`.
  Batch describe(BlockDirection direction, const void* host_arena, const void* device_arena,
                 const StagedBlock* blocks, std::size_t count, cudaStream_t stream,
                 bool every_method = false) const {
    if (host_arena == nullptr || device_arena == nullptr) throw bad("an arena is null");
    if (count > 0 && blocks == nullptr) throw bad("blocks is null with a count of blocks");
    Batch b;
    b.direction = direction;
    b.host = static_cast<char*>(const_cast<void*>(host_arena));
    b.device = static_cast<char*>(const_cast<void*>(device_arena));
    b.blocks = blocks;
    b.count = count;
    for (std::size_t i = 0; i < count; ++i) {
      b.bytes += blocks[i].bytes;
      if (blocks[i].bytes != blocks[0].bytes) b.uniform = false;
      if (blocks[i].bytes == 0) throw bad("block " + std::to_string(i) + " has no bytes");
    }
    cudaPointerAttributes h{};
    check(cudaPointerGetAttributes(&h, host_arena), "cudaPointerGetAttributes");
    cudaPointerAttributes d{};
    check(cudaPointerGetAttributes(&d, device_arena), "cudaPointerGetAttributes");
    if (d.type != cudaMemoryTypeDevice && d.type != cudaMemoryTypeManaged) {
      throw bad("the device arena is not device memory");
    }
    if (d.type == cudaMemoryTypeDevice && d.device != device) {
      throw bad("the device arena is on device " + std::to_string(d.device) + ", the copier's is " +
                std::to_string(device));
    }
    if (h.type == cudaMemoryTypeDevice) throw bad("the host arena is device memory");
    b.managed = h.type == cudaMemoryTypeManaged;
    b.memory = h.type == cudaMemoryTypeHost ? BlockMemory::kPinned : BlockMemory::kPageable;
    if (h.type == cudaMemoryTypeHost) {
      b.host_mapped = static_cast<char*>(h.devicePointer);
    } else if (b.managed || pageable_access) {
      b.host_mapped = b.host;
    }
    const auto no = [&](BlockMethod m, std::string why) {
      std::string& slot = b.why_not[static_cast<int>(m)];
      if (slot.empty()) slot = std::move(why);
    };
    if (legacy_stream(stream)) {
      no(BlockMethod::kBatch, "cudaMemcpyBatchAsync cannot be queued on the legacy default stream");
      no(BlockMethod::kBatchOverlap,
         "cudaMemcpyBatchAsync cannot be queued on the legacy default stream");
    }
    if (b.memory != BlockMemory::kPageable || b.managed) {
      no(BlockMethod::kStaged, "the staged engine moves pageable arenas only");
    }
    if (b.host_mapped == nullptr) {
      no(BlockMethod::kKernel, b.memory == BlockMemory::kPinned
                                   ? "the page-locked host arena is not mapped into the device"
                                   : "this device cannot reach pageable memory");
    }
    if (!b.uniform) no(BlockMethod::kKernel, "the kernel moves blocks of one size");
    if (!options.methods.empty() && !every_method) {
      for (int i = 0; i < kBlockMethods; ++i) {
        const auto m = static_cast<BlockMethod>(i);
        if (std::find(options.methods.begin(), options.methods.end(), m) == options.methods.end()) {
          no(m, "not among the copier's methods");
        }
      }
    }
    return b;
  }

  // Queues (or, staged, makes) the copy of `b` by `m` on `stream`.
  void run(BlockMethod m, const Batch& b, cudaStream_t stream) {
    if (b.count == 0) return;
    const bool to_device = b.direction == BlockDirection::kToDevice;
    switch (m) {
      case BlockMethod::kLoop: {
        const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
        for (std::size_t i = 0; i < b.count; ++i) {
          const StagedBlock& k = b.blocks[i];
          char* h = b.host + k.host_offset;
          char* d = b.device + k.device_offset;
          check(cudaMemcpyAsync(to_device ? d : h, to_device ? h : d, k.bytes, kind, stream),
                "cudaMemcpyAsync");
        }
        return;
      }
      case BlockMethod::kBatch:
      case BlockMethod::kBatchOverlap: {
        std::vector<void*> dsts(b.count);
        std::vector<const void*> srcs(b.count);
        std::vector<std::size_t> sizes(b.count);
        for (std::size_t i = 0; i < b.count; ++i) {
          const StagedBlock& k = b.blocks[i];
          char* h = b.host + k.host_offset;
          char* d = b.device + k.device_offset;
          dsts[i] = to_device ? d : h;
          srcs[i] = to_device ? h : d;
          sizes[i] = k.bytes;
        }
        cudaMemcpyAttributes attr =
            batch_copy_attributes(to_device, cudaMemcpySrcAccessOrderStream, device);
        if (m == BlockMethod::kBatchOverlap) attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
        std::size_t first = 0;
        check(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), b.count, &attr, &first,
                                   1, stream),
              "cudaMemcpyBatchAsync");
        return;
      }
      case BlockMethod::kStaged: {
        StagedCopier& s = staged_engine();
        if (to_device) {
          // The engine's threads read pageable memory from the call on; cudaMemcpyAsync from
          // pageable memory waits for the stream first, and so does this.
          check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          s.copy_blocks_to_device(b.device, b.host, b.blocks, b.count, stream);
        } else {
          s.copy_blocks_to_host(b.host, b.device, b.blocks, b.count, stream);
        }
        return;
      }
      case BlockMethod::kKernel:
        run_kernel(b, stream);
        return;
    }
  }

  StagedCopier& staged_engine() {
    std::lock_guard<std::mutex> lock(staged_mutex);
    if (!staged) {
      StagedCopyOptions o = options.staged;
      o.device = device;
      staged = std::make_unique<StagedCopier>(o);
    }
    return *staged;
  }

  void run_kernel(const Batch& b, cudaStream_t stream) {
    const bool to_device = b.direction == BlockDirection::kToDevice;
    const std::size_t block_bytes = b.blocks[0].bytes;
    bool aligned16 = block_bytes % 16 == 0;
    std::lock_guard<std::mutex> lock(table_mutex);
    TableSlot& slot = slots[next_slot++ % slots.size()];
    if (slot.used) check(cudaEventSynchronize(slot.done), "cudaEventSynchronize");
    if (slot.capacity < b.count) {
      if (slot.host != nullptr) check(cudaFreeHost(slot.host), "cudaFreeHost");
      if (slot.dev != nullptr) check(cudaFree(slot.dev), "cudaFree");
      slot.host = slot.dev = nullptr;
      slot.capacity = 0;
      const std::size_t want = std::max<std::size_t>(b.count, 1024);
      check(cudaHostAlloc(&slot.host, want * sizeof(BlockCopy), cudaHostAllocDefault),
            "cudaHostAlloc");
      check(cudaMalloc(&slot.dev, want * sizeof(BlockCopy)), "cudaMalloc");
      slot.capacity = want;
    }
    if (slot.done == nullptr) {
      check(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming), "cudaEventCreate");
    }
    auto* entries = static_cast<BlockCopy*>(slot.host);
    for (std::size_t i = 0; i < b.count; ++i) {
      const StagedBlock& k = b.blocks[i];
      char* h = b.host_mapped + k.host_offset;
      char* d = b.device + k.device_offset;
      entries[i] = to_device ? BlockCopy{h, d} : BlockCopy{d, h};
      aligned16 = aligned16 && reinterpret_cast<std::uintptr_t>(h) % 16 == 0 &&
                  reinterpret_cast<std::uintptr_t>(d) % 16 == 0;
    }
    check(cudaMemcpyAsync(slot.dev, slot.host, b.count * sizeof(BlockCopy), cudaMemcpyHostToDevice,
                          stream),
          "cudaMemcpyAsync");
    unsigned grid = 0;
    check(transfer::launch_block_copy(static_cast<const BlockCopy*>(slot.dev), b.count, block_bytes,
                                      sms, aligned16, stream, &grid),
          "launching the block copy kernel");
    check(cudaEventRecord(slot.done, stream), "cudaEventRecord");
    slot.used = true;
  }

  // Reads the rules, or the cache, or measures; under `mutex`.
  void ensure_ready() {
    if (ready) return;
    if (!options.rules_file.empty()) {
      const std::string text = read_file(options.rules_file);
      rules = rules_from_json(text, identity, options.rules_file);
      stats.source = "rules";
      stats.source_path = options.rules_file;
      ready = true;
      return;
    }
    fs::path cache;
    if (options.use_cache) {
      const std::string dir =
          options.cache_dir.empty() ? BlockCopier::default_cache_dir() : options.cache_dir;
      if (dir.empty()) {
        stats.source_note = "no cache: neither XDG_CACHE_HOME nor HOME is set";
      } else {
        cache = fs::path(dir) / BlockCopier::cache_file_name(identity, options.kernel_sms);
      }
    }
    if (!cache.empty()) {
      std::error_code ec;
      if (fs::exists(cache, ec)) {
        try {
          CalibrationTable t = calibration_from_json(read_file(cache), identity, cache.string());
          if (t.sizes != kGridSizes || t.counts != kGridCounts) {
            throw BlockCalibrationError(BlockCalibrationError::Kind::kStale,
                                        cache.string() +
                                            ": measured on another grid of block sizes and "
                                            "counts than this copier's; it is measured again");
          }
          if (t.kernel_sms != sms) {
            throw BlockCalibrationError(BlockCalibrationError::Kind::kStale,
                                        cache.string() + ": its kernel used " +
                                            std::to_string(t.kernel_sms) + " SMs, this one " +
                                            std::to_string(sms) + "; it is measured again");
          }
          table = std::move(t);
          stats.source = "cache";
          stats.source_path = cache.string();
          ready = true;
          return;
        } catch (const std::exception& e) {
          stats.source_note = std::string("cache refused: ") + e.what();
        }
      }
    }
    table = measure();
    stats.source = "measured";
    stats.calibration_s = table->calibration_s;
    if (!cache.empty()) {
      try {
        write_atomically(cache, calibration_to_json(*table));
        stats.source_path = cache.string();
      } catch (const std::exception& e) {
        stats.source_note += std::string(stats.source_note.empty() ? "" : "; ") +
                             "the cache was not written: " + e.what();
      }
    }
    ready = true;
  }

  // The calibration: every method the device can run, both directions, page-locked and
  // pageable arenas, on the grid; each cell's blocks scattered over arenas twice its bytes.
  CalibrationTable measure() {
    const auto start = Clock::now();
    CalibrationTable t;
    t.identity = identity;
    t.created_utc = utc_now();
    t.kernel_sms = sms;
    t.sizes = kGridSizes;
    t.counts = kGridCounts;
    const std::size_t arena = 2 * kCellBytes;
    struct Arenas {
      void* pinned = nullptr;
      std::unique_ptr<char[]> pageable;
      void* dev = nullptr;
      cudaStream_t stream = nullptr;
      ~Arenas() {
        if (stream != nullptr) (void)cudaStreamDestroy(stream);
        if (pinned != nullptr) (void)cudaFreeHost(pinned);
        if (dev != nullptr) (void)cudaFree(dev);
      }
    } a;
    check(cudaHostAlloc(&a.pinned, arena, cudaHostAllocDefault), "cudaHostAlloc");
    a.pageable.reset(new char[arena]);
    std::memset(a.pageable.get(), 0x5A, arena);
    std::memset(a.pinned, 0x5A, arena);
    check(cudaMalloc(&a.dev, arena), "cudaMalloc");
    check(cudaStreamCreateWithFlags(&a.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (BlockDirection dir : {BlockDirection::kToDevice, BlockDirection::kToHost}) {
      for (BlockMemory mem : {BlockMemory::kPinned, BlockMemory::kPageable}) {
        void* host = mem == BlockMemory::kPinned ? a.pinned : a.pageable.get();
        for (std::uint64_t size : t.sizes) {
          const std::vector<std::uint64_t> hslots = scatter(arena / size, 0x51ED + size);
          const std::vector<std::uint64_t> dslots = scatter(arena / size, 0xD3F1 + size);
          std::array<bool, kBlockMethods> stopped{};
          for (std::uint64_t count : t.counts) {
            if (count > 1 && count * size > kCellBytes) break;
            std::vector<StagedBlock> blocks(count);
            for (std::uint64_t i = 0; i < count; ++i) {
              blocks[i] = {hslots[i] * size, dslots[i] * size, size};
            }
            const Batch b = describe(dir, host, a.dev, blocks.data(), count, a.stream, true);
            std::array<double, kBlockMethods> rate{};
            double best = 0;
            for (BlockMethod m : b.allowed()) {
              if (stopped[static_cast<int>(m)]) continue;
              rate[static_cast<int>(m)] = time_cell(m, b, a.stream);
              best = std::max(best, rate[static_cast<int>(m)]);
            }
            for (BlockMethod m : b.allowed()) {
              const int i = static_cast<int>(m);
              if (stopped[i]) continue;
              t.points.push_back({dir, mem, m, size, count, rate[i], std::nullopt});
              if (rate[i] * kFarBehind < best && count * size >= kFarBehindFrom) stopped[i] = true;
            }
          }
        }
      }
    }
    t.calibration_s = std::chrono::duration<double>(Clock::now() - start).count();
    validate_calibration(t, "the calibration just measured");
    return t;
  }

  // GB/s of one cell by one method: the median of its samples (kMinSamples above), each timed
  // with the host clock from the first call to the stream's completion, after one untimed run.
  double time_cell(BlockMethod m, const Batch& b, cudaStream_t stream) {
    run(m, b, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    std::vector<double> s;
    double total = 0;
    while (static_cast<int>(s.size()) < kMinSamples ||
           (total < kCellTime && static_cast<int>(s.size()) < kMaxSamples)) {
      const auto t0 = Clock::now();
      run(m, b, stream);
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      total += s.back();
    }
    std::sort(s.begin(), s.end());
    const double median = std::max(s[s.size() / 2], 1e-9);
    return static_cast<double>(b.bytes) / median / 1e9;
  }

  BlockChoice choose(const Batch& b) {
    std::vector<BlockMethod> allowed = b.allowed();
    if (allowed.empty()) {
      throw bad("no method can move these blocks: " + b.why_not[0]);
    }
    // A pageable batch below the engine's direct threshold keeps `staged` among the candidates:
    // with each short cell timed until its samples add up to 0.5 ms, the calibration's figure
    // there holds. On the H200 machine (2026-12-03, two alternating rounds each), leaving it out
    // put the choice within 5% of the fastest in 32 and 34 of 36 shapes (the worst 1.24x and
    // 1.27x, 48 KiB x 3 to the host by a loop where the engine was faster); keeping it, 36 and
    // 35 (the worst 1.04x and 1.22x).
    const BlockShape shape = b.shape();
    unsigned mask = 0;
    for (BlockMethod m : allowed) mask |= 1u << static_cast<int>(m);
    const auto key =
        std::make_tuple(static_cast<int>(shape.direction), static_cast<int>(shape.memory),
                        shape.block_bytes, shape.count, mask);
    std::lock_guard<std::mutex> lock(mutex);
    ensure_ready();
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    BlockChoiceOptions o;
    o.allowed = allowed;
    o.max_slowdown_pct = options.max_slowdown_pct;
    BlockChoice c =
        rules ? choose_block_method(*rules, shape, o) : choose_block_method(*table, shape, o);
    if (!b.uniform) c.reason += " Blocks of several sizes: chosen for their mean size.";
    if (memo.size() > 4096) memo.clear();
    memo.emplace(key, c);
    return c;
  }

  void tally(const Batch& b, BlockMethod m, const BlockChoice* c) {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.calls;
    stats.blocks += b.count;
    stats.bytes += b.bytes;
    ++stats.calls_by_method[static_cast<int>(m)];
    stats.last_shape = b.shape();
    if (c != nullptr) {
      stats.last = *c;
    } else {
      BlockChoice forced;
      forced.method = m;
      forced.reason = std::string(to_string(m)) + ": named by the caller.";
      stats.last = forced;
    }
  }
};

BlockCopier::BlockCopier(const BlockCopierOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  if (options.max_slowdown_pct && !slowdown_budget_in_range(*options.max_slowdown_pct)) {
    std::ostringstream given;
    given << *options.max_slowdown_pct;
    throw bad("max_slowdown_pct must be " + std::string(kSlowdownBudgetWords) + ", not " +
              given.str());
  }
  int device = options.device;
  if (device < 0) check(cudaGetDevice(&device), "cudaGetDevice");
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (device >= devices) {
    throw bad("device " + std::to_string(device) + " is not one of the " + std::to_string(devices) +
              " devices");
  }
  impl_->device = device;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  int pageable = 0;
  check(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device),
        "cudaDeviceGetAttribute");
  impl_->pageable_access = pageable != 0;
  const unsigned all = static_cast<unsigned>(prop.multiProcessorCount);
  if (options.kernel_sms > all) {
    throw bad("kernel_sms " + std::to_string(options.kernel_sms) + " is past the device's " +
              std::to_string(all) + " SMs");
  }
  impl_->sms = options.kernel_sms == 0 ? all : options.kernel_sms;
  impl_->identity = {prop.name, driver, PINBENCH_VERSION_STRING};
}

BlockCopier::~BlockCopier() = default;

void BlockCopier::copy(BlockDirection direction, void* host_arena, void* device_arena,
                       const StagedBlock* blocks, std::size_t count, cudaStream_t stream) {
  DeviceGuard guard(impl_->device);
  const Batch b = impl_->describe(direction, host_arena, device_arena, blocks, count, stream);
  if (count == 0) return;
  const BlockChoice c = impl_->choose(b);
  impl_->run(c.method, b, stream);
  impl_->tally(b, c.method, &c);
}

void BlockCopier::copy_with(BlockMethod method, BlockDirection direction, void* host_arena,
                            void* device_arena, const StagedBlock* blocks, std::size_t count,
                            cudaStream_t stream) {
  DeviceGuard guard(impl_->device);
  const Batch b = impl_->describe(direction, host_arena, device_arena, blocks, count, stream);
  const std::string& why = b.why_not[static_cast<int>(method)];
  if (!why.empty()) throw bad(std::string(to_string(method)) + " cannot move these blocks: " + why);
  if (count == 0) return;
  impl_->run(method, b, stream);
  impl_->tally(b, method, nullptr);
}

BlockChoice BlockCopier::choose(BlockDirection direction, const void* host_arena,
                                const void* device_arena, const StagedBlock* blocks,
                                std::size_t count, cudaStream_t stream) {
  DeviceGuard guard(impl_->device);
  const Batch b = impl_->describe(direction, host_arena, device_arena, blocks, count, stream);
  if (count == 0) throw bad("no blocks to choose for");
  return impl_->choose(b);
}

void BlockCopier::calibrate() {
  DeviceGuard guard(impl_->device);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->ensure_ready();
}

std::optional<CalibrationTable> BlockCopier::table() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->table;
}

BlockCopierStats BlockCopier::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

int BlockCopier::device() const {
  return impl_->device;
}

std::string BlockCopier::default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/pinbench";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/pinbench";
  return "";
}

std::string BlockCopier::cache_file_name(const BlockDeviceIdentity& id, unsigned kernel_sms) {
  std::string name = "blocks-";
  for (const char c : id.device) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-';
    name += plain ? c : '_';
  }
  name += "-driver" + std::to_string(id.driver_version);
  if (kernel_sms != 0) name += "-sms" + std::to_string(kernel_sms);
  return name + ".json";
}

}  // namespace pinbench
