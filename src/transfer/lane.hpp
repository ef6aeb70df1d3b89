// One direction of the staged copy engine: a ring of staging buffers, a coordinator thread and
// a channel of the host copy threads' pool (shared with the other direction in an engine, or a
// pool of the lane's own). No CUDA here: the lane talks to the device only through the
// DeviceQueue interface, so tests drive it with a simulated device and inject failures.
//
// Every chunk passes through two stages, host copy and device copy, in a ring slot of its own:
//
//   to the device:  host threads copy pageable -> slot, then the queue copies slot -> device
//   to the host:    the queue copies device -> slot, then host threads copy slot -> pageable
//
// The coordinator admits chunks into free slots in order (a copy's chunks, then the next
// copy's), issues device copies in order and retires chunks in order, so slot `n % depth` is
// always free for the n-th chunk. Copies of one lane run one after another, but their chunks
// flow back to back: the next copy's first chunk fills while the last one's DMA runs.
//
// How the coordinator waits (transfer/spin_wait.hpp): while chunks are in flight it polls the
// device queue's marks and the pool's tickets, pausing between polls, for kPollSpin after the
// last thing moved; then it naps for kNap at a time on the lane's doorbell, polling between
// naps (a mark has no way to wake it). The doorbell cuts a nap short when a pool task's last
// slice is copied or a copy is submitted, and costs those threads a system call only while the
// coordinator naps. When the lane is empty it looks for new copies for kIdleSpin, then sleeps
// on the doorbell until one is submitted. The engine's threads ask Linux for a timer slack of a
// microsecond, so a nap lasts about what it asks for.
//
// A failure (a device call that throws, a mark that reports an error) fails the copy it belongs
// to: no more of its chunks are admitted, the ones in flight are carried to the end of their
// stage (so nothing writes into the caller's memory afterwards), and only then is the copy
// finished with its error and the count of bytes that had arrived. Later copies go on.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/chunk_plan.hpp"
#include "transfer/copy_state.hpp"
#include "transfer/fresh_pages.hpp"
#include "transfer/host_copy_pool.hpp"
#include "transfer/spin_wait.hpp"

namespace pinbench::transfer {

enum class Flow { kToDevice, kToHost };

// The device side of a lane, used only from the lane's coordinator thread. Operations are
// queued in order; marks say when what was queued before them has finished.
class DeviceQueue {
 public:
  virtual ~DeviceQueue() = default;
  // Called once on the coordinator thread before anything else (e.g. to select the device).
  virtual void bind_thread() {}
  // Queues a copy of `bytes` from `src` to `dst` (staging to device, or device to staging).
  // Throws TransferFailure when it cannot be queued.
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // Queues the `count` copies of a batch's chunk (dsts[i] <- srcs[i], sizes[i] bytes), in any
  // order among themselves; by default one copy() each. Throws TransferFailure.
  virtual void copy_batch(void* const* dsts, const void* const* srcs, const std::size_t* sizes,
                          std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) copy(dsts[i], srcs[i], sizes[i]);
  }
  // Queues mark `slot` (0 <= slot < depth) after everything queued so far. Throws
  // TransferFailure.
  virtual void mark(int slot) = 0;
  // Whether the last mark of `slot` has been reached; throws TransferFailure when the device
  // reports an error instead. Never blocks.
  virtual bool reached(int slot) = 0;
  // Waits for everything queued; errors are swallowed. For when a mark could not be queued and
  // the lane cannot otherwise know when a staging buffer is free again.
  virtual void drain() noexcept = 0;
  // Around the time a caller's thread drives the lane (Lane::help_until): what bind_thread()
  // does for the coordinator, undone after. Must not throw.
  virtual void caller_begin() noexcept {}
  virtual void caller_end() noexcept {}
};

// One copy handed to a lane.
struct Job {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;  // > 0
  // Whether before_device can run now without blocking (e.g. an earlier copy it must be
  // ordered after has queued its own device work). The lane polls it while it moves other
  // chunks, instead of blocking its coordinator: the two lanes' copies on one stream wait on
  // each other, and a blocked coordinator stops draining or filling the chunks it already has.
  // Empty: always ready. Must not throw.
  std::function<bool()> device_ready;
  // Queued just before the copy's first device copy: e.g. "wait for the caller's stream".
  // May throw TransferFailure; the copy then fails before any device copy.
  std::function<void()> before_device;
  // Queued just after the copy's last device copy: e.g. "record an event others can wait on".
  // May throw TransferFailure.
  std::function<void()> after_device;
  std::shared_ptr<CopyState> state;
  // A batch: when set, `dst` and `src` are the two arenas (device and host, or host and device)
  // and the copy moves these blocks packed one after another through the staging buffers
  // (plan_batch); `bytes` is their sum.
  std::shared_ptr<const std::vector<BatchBlock>> blocks;
};

struct LaneShape {
  Flow flow = Flow::kToDevice;
  std::size_t chunk_bytes = 0;  // each staging slot
  int depth = 0;
  int threads = 0;
  std::size_t edge_chunk_bytes = 0;
  // How the host threads write: the staging buffers (to the device) or the caller's memory (to
  // the host); `edge_stores` for a copy's first chunks below chunk_bytes and its last two.
  Stores stores = Stores::kCached;
  Stores edge_stores = Stores::kCached;
  // To the host, from this size: a destination whose pages mostly do not exist yet is faulted
  // in by the host threads while each chunk's DMA runs (fresh_pages.hpp); 0: never.
  std::size_t prefault_from_bytes = 0;
  bool huge_pages = false;  // and its aligned interior asks for transparent huge pages
  // A synchronous caller that has no slice to copy moves the lane's chunks itself (the
  // coordinator's work) instead of waiting for the coordinator to wake and see them.
  bool caller_drives = false;
  // A plain copy (not a batch of blocks) of at least this many bytes may take every worker of
  // the pool while the other lane is idle, not only `threads` (host_copy_pool.hpp); 0: never.
  // A copy to the host whose fresh destination is prefaulted does too, from then on.
  std::size_t wide_from_bytes = 0;
};

class Lane {
 public:
  // `staging` holds depth * chunk_bytes bytes and outlives the lane. The lane's host copies go
  // to channel `channel` of `pool`, made with channel_spec(shape, &doorbell); the pool and the
  // doorbell outlive the lane, and the doorbell is this lane's alone.
  Lane(const LaneShape& shape, void* staging, std::unique_ptr<DeviceQueue> queue,
       HostCopyPool& pool, int channel, Doorbell& doorbell);
  // With a pool of its own: shape.threads workers.
  Lane(const LaneShape& shape, void* staging, std::unique_ptr<DeviceQueue> queue);
  // Finishes every copy submitted so far (they complete normally), then joins its threads.
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  // Thread-safe. Copies run in the order they were submitted. `caller_drives`: the submitting
  // thread goes straight on to help_until with shape().caller_drives, so the coordinator is not
  // woken for it (a sleeping thread's wake-up costs the waker a system call).
  void submit(Job job, bool caller_drives = false);

  // Blocks until `state` is finished (or, kDeviceWorkQueued, until every device operation of it
  // is queued), copying host slices of this lane's chunks on the calling thread while there are
  // any to claim (its own copy's or one queued before it), so a thread that would only wait adds
  // to the host copy rate. Thread-safe; the lane must outlive the call, so only for a caller
  // inside one of the engine's calls.
  enum class Until { kFinished, kDeviceWorkQueued };
  void help_until(const CopyState& state, Until until);

  const LaneShape& shape() const { return shape_; }

  // What the lane's pool channel is made with: room for a chunk's prefault and its drain per
  // ring slot, tasks cut for shape.threads, and `done` rung as each task completes.
  static HostCopyPool::ChannelSpec channel_spec(const LaneShape& shape, Doorbell* done);

  // Copies whose destination was found fresh and prefaulted, and those given huge pages.
  std::uint64_t prefaulted_copies() const { return prefaulted_.load(std::memory_order_relaxed); }
  std::uint64_t huge_page_copies() const { return huge_.load(std::memory_order_relaxed); }

 private:
  struct Run;
  struct Slot;

  void coordinate();
  void wait_for_submission();
  // One pass of the coordinator's work, by whichever thread holds drive_: takes submitted copies
  // and moves every chunk as far as it can. `stop` is set when the lane is stopping and empty.
  bool pass(bool* stop);
  bool step();
  bool admit();
  bool advance();
  bool retire();
  void fail(Run& run, int code, const std::string& message);
  void issue_device(Slot& s);
  void queue_device_copy(Run& r, std::size_t index, char* staging);
  std::uint64_t publish_host(Run& r, std::size_t index, int slot);
  void plan(Run& r);
  void look_at_destination(Run& r);
  void finish_runs();
  char* slot_memory(int slot) const;
  bool wide(const Job& job) const;  // may take every worker of the pool (LaneShape)
  Stores stores_for(const Run& run, std::size_t index) const;

  const LaneShape shape_;
  char* const staging_;
  std::unique_ptr<DeviceQueue> queue_;

  // Rung by submit(), by the destructor and by the pool as each task completes: what the
  // coordinator sleeps on. Declared before the pool, which rings it until it is destroyed.
  Doorbell own_doorbell_;  // when the lane was not given one
  Doorbell& doorbell_;
  std::unique_ptr<HostCopyPool> own_pool_;  // likewise
  HostCopyPool& pool_;
  const int channel_;
  std::atomic<std::uint64_t> prefaulted_{0};
  std::atomic<std::uint64_t> huge_{0};

  // Held by the thread that runs a pass: the coordinator, or a synchronous caller driving the
  // lane. Guards the coordinator-only state below.
  std::mutex drive_;
  std::atomic<bool> idle_{true};  // no copy taken and none in flight, as of the last pass
  std::string unbound_;           // why the coordinator cannot use the device, if it cannot
  int unbound_code_ = 0;

  std::mutex mutex_;  // guards submitted_ and stop_
  std::deque<Job> submitted_;
  bool stop_ = false;
  std::atomic<int> pending_{0};        // submitted_.size(), readable without the mutex
  std::atomic<bool> stopping_{false};  // stop_, likewise

  // The coordinator's state, guarded by drive_.
  std::list<Run> runs_;     // copies taken from submitted_, oldest first
  std::deque<Slot> slots_;  // chunks in flight, oldest first; at most depth
  std::uint64_t admitted_ = 0;

  std::thread coordinator_;  // last: it starts once everything above exists
};

}  // namespace pinbench::transfer
