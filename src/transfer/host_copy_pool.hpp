// The host threads of one lane: they copy chunks between pageable memory and staging buffers.
//
// The lane's coordinator publishes a task per chunk (a memcpy of up to a staging buffer) and
// never copies itself; the workers claim the task's slices one at a time (core/chunk_plan.hpp
// cuts them on page boundaries) and move on to the next task as soon as the current one has no
// slice left, so the host side keeps copying while the coordinator talks to the device. A thread
// waiting for a copy may help copy slices.
//
// Waiting (transfer/spin_wait.hpp): a worker with no task spins with the CPU's pause instruction
// for kIdleSpin, then sleeps on a condition variable until a task is published, wake() is called
// or the pool stops. publish() and wake() notify only when a worker sleeps. Between two chunks
// of a copy a worker may sleep too: the ring holds several chunks, so one that starts a few tens
// of microseconds late costs nothing in steady state. What would cost is the copy's start, after
// idle; the lane calls wake() as a copy is submitted, so the workers wake while its coordinator
// does, and they spin longer (kWokenSpin) for its first task. The worker that copies a task's
// last slice rings the lane's doorbell, which wakes the coordinator only if it sleeps.
//
// A task's claim counter and its ticket share one atomic word, so a worker that arrives late,
// after the task's record was reused for a newer ticket, sees the new ticket and moves on
// instead of copying a slice of the wrong chunk.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/chunk_plan.hpp"
#include "transfer/host_copy.hpp"
#include "transfer/spin_wait.hpp"

namespace pinbench::transfer {

// One piece of a packed task (publish_pieces): `bytes` from `src` to `dst`, lying `at` bytes
// into the task's packed range.
struct HostPiece {
  char* dst = nullptr;
  const char* src = nullptr;
  std::size_t bytes = 0;
  std::size_t at = 0;
};

class HostCopyPool {
 public:
  // `threads` workers; at most `max_pending` published tasks may be incomplete at a time.
  // `slice_name` names each slice's NVTX range ("fill", "drain"); a string literal. `done`, when
  // given, is rung each time a task's last slice has been copied; it must outlive the pool.
  HostCopyPool(int threads, int max_pending, const char* slice_name = "host copy",
               Doorbell* done = nullptr);
  ~HostCopyPool();  // joins the workers; every published task must be complete by then
  HostCopyPool(const HostCopyPool&) = delete;
  HostCopyPool& operator=(const HostCopyPool&) = delete;

  // Publishes memcpy(dst, src, bytes) and returns its ticket. `host_address` is the address of
  // the pageable end of the copy; slices are cut on its page boundaries. `stores`: how `dst`
  // is written (host_copy.hpp). The caller guarantees that the task
  // published `max_pending` tickets earlier is complete.
  std::uint64_t publish(void* dst, const void* src, std::size_t bytes, std::uintptr_t host_address,
                        Stores stores = Stores::kCached);

  // Publishes the copies of `count` pieces that lie one after another in a packed range of
  // `bytes` (a batch's chunk: gathering blocks into a staging buffer, or scattering them out of
  // one), sorted by `at`. Slices cut the packed range as publish() cuts a copy, so threads share
  // a chunk of many small blocks as they share a contiguous one. `pieces` must stay as they are
  // until the task is complete.
  std::uint64_t publish_pieces(const HostPiece* pieces, std::size_t count, std::size_t bytes,
                               Stores stores = Stores::kCached);

  // Whether every slice of `ticket` has been copied. Once true, the copied bytes are visible to
  // the calling thread. Only for tickets published within the last `max_pending`.
  bool complete(std::uint64_t ticket) const;

  // A copy is coming: sleeping workers wake now and spin for kWokenSpin, so they are awake when
  // its first task is published instead of only starting to wake then. Any thread.
  void wake();

  // Copies one unclaimed slice of any published task on the calling thread, as a worker would;
  // false when no slice is left to claim. Any thread, while the pool exists.
  bool help_one();

  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  struct Task {
    // ticket (32 bits) << 32 | slice count (16 bits) << 16 | next unclaimed slice (16 bits)
    std::atomic<std::uint64_t> claim{~std::uint64_t{0}};
    std::atomic<std::uint32_t> remaining{0};
    char* dst = nullptr;
    const char* src = nullptr;
    std::size_t bytes = 0;
    std::uintptr_t host_address = 0;
    Stores stores = Stores::kCached;
    const HostPiece* pieces = nullptr;  // a packed task's pieces; nullptr: dst/src/bytes
    std::size_t piece_count = 0;
  };

  std::uint64_t publish_task(Task& t, std::uint64_t ticket);
  static void copy_packed(const Task& t, const Chunk& slice);

  void work();
  bool claim_and_copy(std::uint64_t cursor);  // false: no slice of `cursor` left
  void wait_for_work(std::uint64_t cursor);
  void notify_sleepers();
  bool has_work(std::uint64_t cursor) const;

  const int slices_per_task_threads_;
  const char* const slice_name_;
  std::vector<Task> tasks_;
  std::atomic<std::uint64_t> published_{0};
  std::atomic<bool> stop_{false};
  Doorbell* const done_;
  std::atomic<int> sleepers_{0};
  std::atomic<std::uint64_t> wakes_{0};  // calls of wake()
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
};

}  // namespace pinbench::transfer
