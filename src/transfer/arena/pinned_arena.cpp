// The pinned arena (include/pinbench/pinned_arena.hpp): one anonymous mapping, aligned to 2 MiB
// so its chunks start on huge-page boundaries, pinned chunk by chunk by a few threads that take
// chunks in address order, and a condition variable that wakes the waiters as chunks land.
#include "pinbench/pinned_arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/pin_limits.hpp"
#include "transfer/cpu_budget.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels say EINVAL and the pages are touched
#endif

namespace pinbench {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw PinnedArenaError(std::string("pinned arena: ") + what + ": " + cudaGetErrorName(e) +
                               " (" + cudaGetErrorString(e) + ")",
                           e);
  }
}

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

// Faults a chunk's pages in, writable, so that registering it finds them present: the kernel's
// MADV_POPULATE_WRITE, or one write per page where the kernel predates it.
bool populate(char* p, std::size_t n) {
  if (madvise(p, n, MADV_POPULATE_WRITE) == 0) return true;
  if (errno != EINVAL) return false;  // ENOMEM, EFAULT: the pages cannot be had
  for (std::size_t o = 0; o < n; o += kPage) p[o] = 0;
  return true;
}

enum ChunkState : std::uint8_t { kPending = 0, kPinned = 1, kFailed = 2 };

}  // namespace

struct PinnedArena::Impl {
  std::size_t asked = 0, bytes = 0, chunk = 0, chunks = 0;
  unsigned threads = 0;
  int device = 0;
  unsigned register_flags = cudaHostRegisterDefault;
  void* mapping = nullptr;  // what mmap returned, and its length (with the alignment slack)
  std::size_t mapping_bytes = 0;
  char* base = nullptr;
  Clock::time_point start;

  std::unique_ptr<std::atomic<std::uint8_t>[]> state;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;

  mutable std::mutex mu;
  mutable std::condition_variable changed;
  std::string failure;  // the first chunk's failure, under mu
  cudaError_t failure_error = cudaSuccess;
  PinnedArenaStats figures;  // under mu; its sizes set once, before the threads start

  char* chunk_at(std::size_t i) const { return base + i * chunk; }
  std::size_t chunk_len(std::size_t i) const { return std::min(chunk, bytes - i * chunk); }

  // A chunk's state changes under mu, with the figures and the failure that go with it, so a
  // caller that saw the state change (wait) sees them too.
  void fail(std::size_t i, std::string why, cudaError_t e) {
    stop.store(true);
    std::lock_guard<std::mutex> lock(mu);
    state[i].store(kFailed);
    if (failure.empty()) {
      failure = std::move(why);
      failure_error = e;
    }
    changed.notify_all();
  }

  void pin_chunks() {
    const cudaError_t set = cudaSetDevice(device);
    for (std::size_t i; !stop.load() && (i = next.fetch_add(1)) < chunks;) {
      if (set != cudaSuccess) {
        fail(i, std::string("pinned arena: cudaSetDevice: ") + cudaGetErrorName(set), set);
        return;
      }
      char* p = chunk_at(i);
      const std::size_t n = chunk_len(i);
      if (!populate(p, n)) {
        fail(i,
             "pinned arena: the kernel could not fault in chunk " + std::to_string(i) + " (" +
                 std::strerror(errno) + "): the host has less memory than the arena asked",
             cudaSuccess);
        return;
      }
      const Clock::time_point t0 = Clock::now();
      const cudaError_t e = cudaHostRegister(p, n, register_flags);
      const Clock::time_point t1 = Clock::now();
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        fail(i,
             "pinned arena: cudaHostRegister of chunk " + std::to_string(i) + " (" +
                 std::to_string(n) + " bytes): " + cudaGetErrorName(e) + " (" +
                 cudaGetErrorString(e) + ")",
             e);
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      PinnedArenaStats& f = figures;
      f.longest_call_ms = std::max(f.longest_call_ms, ms_between(t0, t1));
      if (++f.chunks_pinned == 1) f.first_chunk_ms = ms_between(start, t1);
      if (f.chunks_pinned == chunks) f.pinned_ms = ms_between(start, t1);
      state[i].store(kPinned);
      changed.notify_all();
    }
  }

  // The chunks [first, last] of a range, std::invalid_argument past the end.
  std::pair<std::size_t, std::size_t> chunks_of(std::size_t offset, std::size_t n) const {
    if (offset > asked || n > asked - offset) {
      throw std::invalid_argument("pinned arena: the range [" + std::to_string(offset) + ", +" +
                                  std::to_string(n) + ") is past its " + std::to_string(asked) +
                                  " bytes");
    }
    if (n == 0) return {1, 0};  // empty
    return {offset / chunk, (offset + n - 1) / chunk};
  }

  void wait(std::size_t offset, std::size_t n) const {
    const auto [first, last] = chunks_of(offset, n);
    std::unique_lock<std::mutex> lock(mu);
    for (std::size_t i = first; i <= last && first <= last; ++i) {
      changed.wait(lock, [&] { return state[i].load() != kPending || !failure.empty(); });
      if (state[i].load() != kPinned) throw PinnedArenaError(failure, failure_error);
    }
  }

  void release() {
    stop.store(true);
    for (std::thread& t : workers) t.join();
    workers.clear();
    // Unregistered and unmapped chunk by chunk, on as many threads as pinned them.
    std::atomic<std::size_t> at{0};
    const auto free_chunks = [&] {
      (void)cudaSetDevice(device);
      for (std::size_t i; (i = at.fetch_add(1)) < chunks;) {
        if (state[i].load() == kPinned) (void)cudaHostUnregister(chunk_at(i));
        munmap(chunk_at(i), chunk_len(i));
      }
    };
    std::vector<std::thread> freers;
    for (unsigned t = 1; t < threads; ++t) freers.emplace_back(free_chunks);
    free_chunks();
    for (std::thread& t : freers) t.join();
    // The alignment slack before and after the chunks.
    char* const m = static_cast<char*>(mapping);
    if (base > m) munmap(m, static_cast<std::size_t>(base - m));
    char* const tail = base + bytes;
    if (m + mapping_bytes > tail) munmap(tail, static_cast<std::size_t>(m + mapping_bytes - tail));
  }
};

PinnedArena::PinnedArena(std::size_t bytes, const PinnedArenaOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& a = *impl_;
  a.start = Clock::now();
  if (bytes == 0) throw std::invalid_argument("pinned arena: the size must be at least 1 byte");
  if (options.chunk_bytes > (std::size_t{1} << 62)) {
    throw std::invalid_argument("pinned arena: chunk_bytes is past 2^62");
  }
  if (options.threads > 1024) throw std::invalid_argument("pinned arena: threads is past 1024");
  a.asked = bytes;
  a.bytes = round_up(bytes, kPage);
  a.chunk = round_up(
      options.chunk_bytes == 0 ? PinnedArenaOptions::kDefaultChunkBytes : options.chunk_bytes,
      kHugePage);
  a.chunk = std::min(a.chunk, round_up(a.bytes, kHugePage));
  a.chunks = (a.bytes + a.chunk - 1) / a.chunk;
  a.threads = options.threads == 0 ? default_threads() : options.threads;
  a.threads = static_cast<unsigned>(std::min<std::size_t>(a.threads, a.chunks));
  a.register_flags = options.portable ? cudaHostRegisterPortable : cudaHostRegisterDefault;
  if (options.device >= 0) {
    a.device = options.device;
  } else {
    check_cuda(cudaGetDevice(&a.device), "cudaGetDevice");
  }

  if (options.check_limits) {
    // One mapping, whatever the chunks: registering a chunk splits no mapping of the process.
    if (std::optional<std::string> why = pin_refusal(read_pin_limits(), a.bytes, a.chunk, 1)) {
      throw PinnedArenaError("pinned arena: refused, never attempted: " + *why);
    }
  }

  a.mapping_bytes = a.bytes + kHugePage;
  a.mapping = mmap(nullptr, a.mapping_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (a.mapping == MAP_FAILED) {
    a.mapping = nullptr;
    throw PinnedArenaError("pinned arena: mmap of " + std::to_string(a.mapping_bytes) +
                           " bytes: " + std::strerror(errno));
  }
  a.base = reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(a.mapping),
                                            static_cast<std::uintptr_t>(kHugePage)));
  if (options.huge_pages) (void)madvise(a.base, a.bytes, MADV_HUGEPAGE);

  a.figures.bytes = a.bytes;
  a.figures.chunk_bytes = a.chunk;
  a.figures.chunks = a.chunks;
  a.figures.threads = a.threads;
  a.state = std::make_unique<std::atomic<std::uint8_t>[]>(a.chunks);
  for (std::size_t i = 0; i < a.chunks; ++i) a.state[i].store(kPending);
  try {
    for (unsigned t = 0; t < a.threads; ++t) a.workers.emplace_back([&a] { a.pin_chunks(); });
  } catch (...) {
    a.release();
    throw;
  }
}

PinnedArena::~PinnedArena() {
  if (impl_ && impl_->mapping != nullptr) impl_->release();
}

void* PinnedArena::data() const {
  return impl_->base;
}
std::size_t PinnedArena::size() const {
  return impl_->asked;
}
std::size_t PinnedArena::chunk_bytes() const {
  return impl_->chunk;
}

bool PinnedArena::ready(std::size_t offset, std::size_t bytes) const {
  const auto [first, last] = impl_->chunks_of(offset, bytes);
  for (std::size_t i = first; i <= last && first <= last; ++i) {
    if (impl_->state[i].load() != kPinned) return false;
  }
  return true;
}

void PinnedArena::wait(std::size_t offset, std::size_t bytes) const {
  impl_->wait(offset, bytes);
}

void PinnedArena::wait() const {
  impl_->wait(0, impl_->asked);
}

std::size_t PinnedArena::piece_bytes(std::size_t offset, std::size_t bytes) const {
  impl_->chunks_of(offset, bytes);
  const std::size_t chunk_end = (offset / impl_->chunk + 1) * impl_->chunk;
  return std::min(bytes, chunk_end - offset);
}

void PinnedArena::copy_to_device(void* device_dst, std::size_t offset, std::size_t bytes,
                                 cudaStream_t stream) const {
  if (device_dst == nullptr && bytes > 0) {
    throw std::invalid_argument("pinned arena: copy_to_device: the destination is null");
  }
  wait(offset, bytes);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = piece_bytes(offset + done, bytes - done);
    check_cuda(cudaMemcpyAsync(static_cast<char*>(device_dst) + done, impl_->base + offset + done,
                               n, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync to the device");
    done += n;
  }
}

void PinnedArena::copy_from_device(std::size_t offset, const void* device_src, std::size_t bytes,
                                   cudaStream_t stream) const {
  if (device_src == nullptr && bytes > 0) {
    throw std::invalid_argument("pinned arena: copy_from_device: the source is null");
  }
  wait(offset, bytes);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = piece_bytes(offset + done, bytes - done);
    check_cuda(
        cudaMemcpyAsync(impl_->base + offset + done, static_cast<const char*>(device_src) + done, n,
                        cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync to the host");
    done += n;
  }
}

unsigned PinnedArena::default_threads() {
  const int cpus = transfer::cpu_budget().usable;
  return static_cast<unsigned>(
      std::clamp(cpus / 2, 1, static_cast<int>(PinnedArenaOptions::kMostDefaultThreads)));
}

PinnedArenaStats PinnedArena::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->figures;
}

}  // namespace pinbench
