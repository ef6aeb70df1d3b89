// The staged engine's host threads: they copy chunks between pageable memory and staging buffers
// for both of the engine's lanes. One pool serves both directions (cpu_budget.hpp sizes it): a
// pipeline moving both ways at once shares every thread as the chunks come, instead of each
// direction keeping threads the other needs, and a direction alone gets as many as it is given
// (below).
// Each lane publishes into a channel of its own: a ring of tasks that only its coordinator
// writes, so every channel keeps the single-producer rules below.
//
// The lane's coordinator publishes a task per chunk (a memcpy of up to a staging buffer) and
// never copies itself; the workers claim the task's slices one at a time (base/chunk_plan.hpp
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
// does, and they spin longer (kWokenSpin) for its first task. Once the pool's last copy has
// ended, a worker spins on until kAfterCopySpin has passed since, so a caller's next copy a
// moment later (a batch each step) finds it awake. The worker that copies a task's last slice
// rings the lane's doorbell, which wakes the coordinator only if it sleeps.
//
// Any worker copies for any channel while more than one channel has a copy in flight (a
// pipeline, both directions at once): a channel's `threads` then only says how many slices its
// tasks are cut into, and workers left over take the next published chunk or the other
// channel's. While one channel alone has copies in flight, only its first `threads` workers copy
// for it, or every worker while one of its copies is wide (begin_copy); the rest are spare: they
// sleep on a condition variable of their own that only a second channel's first copy or a wide
// copy wakes, so a direction alone never wakes them and never turns them away. On the H200
// machine (2026-12-03, data/evidence/h200-2026-12-03-day.json#threads/), 13 drains at once slowed a
// 64 MiB copy to the host's DMAs by 253 us over page-locked memory's, where 8 slowed them by
// 104 us, and a pipeline with 8 workers took 1.77-1.85x the page-locked pipeline's time, with 13
// 1.51-1.56x; which copies are wide, and why, is the engine's choice (staged_copy.cpp). An
// earlier cap that stayed on while both directions ran woke the workers beyond it on every
// publish only to turn them away (0.55-0.66 of page-locked memory's rate to the device at
// 64 MiB, against 0.72-0.73 with none).
// The stats say how many workers copied for each channel at once.
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
  // One producer's ring of tasks.
  struct ChannelSpec {
    int max_pending = 1;  // published tasks that may be incomplete at a time
    // The threads a task is cut for (slice_count): so many workers can share one task.
    int threads = 1;
    // Names each slice's NVTX range ("fill", "drain"); a string literal.
    const char* slice_name = "host copy";
    // Rung each time a task's last slice has been copied, when given; must outlive the pool.
    Doorbell* done = nullptr;
  };
  // What a channel's tasks took: slices copied and the threads' time inside them.
  struct ChannelStats {
    std::uint64_t slices = 0;
    std::uint64_t busy_ns = 0;
    int most_workers = 0;  // the most workers that copied for the channel at once
  };

  // `threads` workers serving every channel (0: only helpers copy).
  HostCopyPool(int threads, const std::vector<ChannelSpec>& channels);
  // One channel: `threads` workers, tasks cut for them; at most `max_pending` published tasks
  // may be incomplete at a time.
  HostCopyPool(int threads, int max_pending, const char* slice_name = "host copy",
               Doorbell* done = nullptr)
      : HostCopyPool(threads, {ChannelSpec{max_pending, threads, slice_name, done}}) {}
  ~HostCopyPool();  // joins the workers; every published task must be complete by then
  HostCopyPool(const HostCopyPool&) = delete;
  HostCopyPool& operator=(const HostCopyPool&) = delete;

  // Publishes memcpy(dst, src, bytes) and returns its ticket. `host_address` is the address of
  // the pageable end of the copy; slices are cut on its page boundaries. `stores`: how `dst`
  // is written (host_copy.hpp). The caller guarantees that the task
  // published `max_pending` tickets earlier is complete.
  std::uint64_t publish(void* dst, const void* src, std::size_t bytes, std::uintptr_t host_address,
                        Stores stores = Stores::kCached, int channel = 0);

  // Publishes a task that makes `bytes` at `dst` writable without changing a byte: each page is
  // written once with the value it holds (an atomic compare-and-swap), so pages never touched
  // before are faulted in by several threads at once, ahead of the copy that fills them.
  // Its slices fall on `alignment` boundaries of dst (a power of two, 4 KiB or more).
  std::uint64_t publish_touch(void* dst, std::size_t bytes, std::size_t alignment, int channel = 0);

  // Publishes the copies of `count` pieces that lie one after another in a packed range of
  // `bytes` (a batch's chunk: gathering blocks into a staging buffer, or scattering them out of
  // one), sorted by `at`. Slices cut the packed range as publish() cuts a copy, so threads share
  // a chunk of many small blocks as they share a contiguous one. `pieces` must stay as they are
  // until the task is complete.
  std::uint64_t publish_pieces(const HostPiece* pieces, std::size_t count, std::size_t bytes,
                               Stores stores = Stores::kCached, int channel = 0);

  // Whether every slice of `ticket` has been copied. Once true, the copied bytes are visible to
  // the calling thread. Only for tickets published within the last `max_pending`.
  bool complete(std::uint64_t ticket, int channel = 0) const;

  // A copy is coming: sleeping workers wake now and spin for kWokenSpin, so they are awake when
  // its first task is published instead of only starting to wake then. Any thread.
  void wake();

  // A copy of `channel` is submitted, and ends (with the same `wide`): while more than one
  // channel has a copy in flight, every worker copies; while one alone has, its first `threads`,
  // or every worker while one of its copies is `wide`. Any thread; every begin_copy is followed
  // by one end_copy.
  void begin_copy(int channel, bool wide = false);
  void end_copy(int channel, bool wide = false);

  // Copies one unclaimed slice of any published task of `channel` on the calling thread, as a
  // worker would; false when no slice is left to claim. Any thread, while the pool exists.
  bool help_one(int channel = 0);

  int threads() const { return static_cast<int>(workers_.size()); }
  ChannelStats stats(int channel) const;

 private:
  enum class Work { kCopy, kPieces, kTouch };
  struct Task {
    // ticket (32 bits) << 32 | slice count (16 bits) << 16 | next unclaimed slice (16 bits)
    std::atomic<std::uint64_t> claim{~std::uint64_t{0}};
    std::atomic<std::uint32_t> remaining{0};
    char* dst = nullptr;
    const char* src = nullptr;
    std::size_t bytes = 0;
    std::uintptr_t host_address = 0;
    Stores stores = Stores::kCached;
    std::size_t alignment = kHostPageBytes;  // where slices may be cut, on host_address
    Work work = Work::kCopy;
    const HostPiece* pieces = nullptr;  // a packed task's pieces
    std::size_t piece_count = 0;
  };
  struct Channel {
    explicit Channel(const ChannelSpec& s)
        : spec(s), tasks(static_cast<std::size_t>(s.max_pending > 0 ? s.max_pending : 1)) {}
    const ChannelSpec spec;
    std::vector<Task> tasks;
    std::atomic<std::uint64_t> published{0};
    std::atomic<int> copies{0};       // begin_copy() less end_copy()
    std::atomic<int> wide_copies{0};  // ... of wide copies
    std::atomic<int> active{0};       // workers copying for this channel now
    std::atomic<int> most_active{0};
    std::atomic<std::uint64_t> slices{0};
    std::atomic<std::uint64_t> busy_ns{0};
  };

  Task& next_task(int channel);
  std::uint64_t publish_task(int channel, Task& t);
  static void copy_packed(const Task& t, const Chunk& slice);
  static void touch(const Task& t, const Chunk& slice);

  void work(int worker);
  // Whether `worker` copies now (for every channel, or for the one that is busy).
  bool may_serve(int worker) const;
  // Counts the calling worker in on `c`, and out again.
  static void enter(Channel& c);
  static void leave(Channel& c);
  // Copies slices of ticket `cursor` of `c` while any is left; false when none was.
  bool claim_and_copy(Channel& c, std::uint64_t cursor);
  void wait_for_work(int worker, const std::vector<std::uint64_t>& cursors);
  // Spins for work until kAfterCopySpin has passed since the pool went quiet, while it is quiet;
  // whether work came.
  bool spin_after_copy(int worker, const std::vector<std::uint64_t>& cursors) const;
  // A worker that may not copy now: asleep until a second channel is busy or a wide copy
  // begins.
  void wait_as_spare(int worker);
  void notify_sleepers();
  bool has_work(int worker, const std::vector<std::uint64_t>& cursors) const;

  std::vector<std::unique_ptr<Channel>> channels_;
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};
  std::atomic<std::uint64_t> wakes_{0};  // calls of wake()
  std::atomic<int> busy_channels_{0};    // channels with a copy in flight
  // When the pool last went quiet (the last copy in flight ended), steady_clock nanoseconds.
  std::atomic<std::int64_t> quiet_since_ns_{0};
  int most_alone_ = 0;    // the channels' largest `threads`
  int fewest_alone_ = 0;  // ... and smallest
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::condition_variable spare_wake_;  // spare workers: more may copy now
  std::vector<std::thread> workers_;
};

}  // namespace pinbench::transfer
