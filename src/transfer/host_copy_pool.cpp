// The engine's host copy workers (host_copy_pool.hpp). Lock-free on the hot path: publishing a
// task is two atomic stores, claiming a slice one compare-and-swap, finishing it one decrement.
// A worker keeps a cursor per channel and takes the channels' tickets in turn, one task at a
// time from each, so a pipeline's fills and drains share the threads as their chunks come.
// The mutex and condition variable are only for workers that ran out of work and went to sleep;
// publish() and wake() touch them only when the sleepers' count says someone sleeps.
#include "transfer/host_copy_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "base/chunk_plan.hpp"
#include "base/nvtx_domain.hpp"
#include "transfer/host_copy.hpp"

namespace pinbench::transfer {
namespace {

// How long a worker with no task spins (pausing, no system call) before it sleeps. Long enough
// to catch a task that follows at once (the next chunk of a fill that runs ahead of its DMA, a
// copy submitted right after the last one ended), short enough that a worker waiting for a DMA
// sleeps through most of it: an 8 MiB chunk's DMA takes about 150 us on the H200, and the ring
// holds 4 to 6 of them, so a worker that wakes 20-50 us after its task is published delays
// nothing but its own slice. Spinning all through the wait is what burned the cores before.
constexpr std::chrono::microseconds kIdleSpin{40};
// How long after the pool's last copy ended its workers still spin for the next: a caller that
// copies, looks at the result and copies again (a serving engine's batch of blocks each step, a
// benchmark checking every sample) comes back within tens to hundreds of microseconds, and a
// worker asleep by then costs that copy its wake-up. On the H200 machine (2026-12-03,
// data/evidence/engine-h200-2026-12-03-spin.json, medians of six rounds) a batch of 16 blocks of 64
// KiB to the device moved at 13.9 GB/s with workers asleep after 40 us and 17.5 with every idle
// spin 200 us; with this spin, in a later call, 17.8 against 16.6 for the build before the
// shared pool. While a copy is in flight kIdleSpin still applies, so the workers sleep through
// the DMAs they wait for. Every idle spin at 200 us was measured against this in twelve rounds
// (data/evidence/engine-h200-2026-12-03-night.json): the same rates, less system time to the host,
// 9 to 25% more CPU time per GB in most copies, and no better at blocks. At most once per copy.
constexpr std::chrono::microseconds kAfterCopySpin{200};
// How long a worker woken by wake() spins for the copy's first task: the coordinator is waking
// at the same time and has the copy to plan, which took a few hundred microseconds on the
// H200 machine's VM; a worker that slept again would add its own wake-up to the copy's start.
// Once per submitted copy, and only until the task arrives.
constexpr std::chrono::microseconds kWokenSpin{1000};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint64_t make_claim(std::uint64_t ticket, std::size_t count, std::size_t next) {
  return (ticket & 0xFFFFFFFFu) << 32 | static_cast<std::uint64_t>(count) << 16 |
         static_cast<std::uint64_t>(next);
}
std::uint32_t claim_ticket(std::uint64_t v) {
  return static_cast<std::uint32_t>(v >> 32);
}
std::size_t claim_count(std::uint64_t v) {
  return static_cast<std::size_t>((v >> 16) & 0xFFFF);
}
std::size_t claim_next(std::uint64_t v) {
  return static_cast<std::size_t>(v & 0xFFFF);
}

}  // namespace

HostCopyPool::HostCopyPool(int threads, const std::vector<ChannelSpec>& channels) {
  channels_.reserve(channels.size());
  for (const ChannelSpec& spec : channels) {
    channels_.push_back(std::make_unique<Channel>(spec));
    most_alone_ = std::max(most_alone_, spec.threads);
    fewest_alone_ = channels_.size() == 1 ? spec.threads : std::min(fewest_alone_, spec.threads);
  }
  workers_.reserve(static_cast<std::size_t>(std::max(0, threads)));
  try {
    for (int i = 0; i < threads; ++i) {
      workers_.emplace_back([this, i] {
        use_short_timer_slack();
        work(i);
      });
    }
  } catch (...) {
    {
      const std::lock_guard<std::mutex> lock(sleep_mutex_);
      stop_.store(true);
    }
    wake_.notify_all();
    spare_wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw;
  }
}

HostCopyPool::~HostCopyPool() {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true, std::memory_order_seq_cst);
  }
  wake_.notify_all();
  spare_wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

HostCopyPool::Task& HostCopyPool::next_task(int channel) {
  Channel& c = *channels_[static_cast<std::size_t>(channel)];
  return c.tasks[c.published.load(std::memory_order_relaxed) % c.tasks.size()];
}

std::uint64_t HostCopyPool::publish(void* dst, const void* src, std::size_t bytes,
                                    std::uintptr_t host_address, Stores stores, int channel) {
  Task& t = next_task(channel);
  t.dst = static_cast<char*>(dst);
  t.src = static_cast<const char*>(src);
  t.bytes = bytes;
  t.host_address = host_address;
  t.stores = stores;
  t.alignment = kHostPageBytes;
  t.work = Work::kCopy;
  t.pieces = nullptr;
  t.piece_count = 0;
  return publish_task(channel, t);
}

std::uint64_t HostCopyPool::publish_touch(void* dst, std::size_t bytes, std::size_t alignment,
                                          int channel) {
  Task& t = next_task(channel);
  t.dst = static_cast<char*>(dst);
  t.src = nullptr;
  t.bytes = bytes;
  t.host_address = reinterpret_cast<std::uintptr_t>(dst);
  t.stores = Stores::kCached;
  t.alignment = alignment;
  t.work = Work::kTouch;
  t.pieces = nullptr;
  t.piece_count = 0;
  return publish_task(channel, t);
}

std::uint64_t HostCopyPool::publish_pieces(const HostPiece* pieces, std::size_t count,
                                           std::size_t bytes, Stores stores, int channel) {
  Task& t = next_task(channel);
  t.dst = nullptr;
  t.src = nullptr;
  t.bytes = bytes;
  t.host_address = 0;  // slices cut the packed range on its own 4 KiB marks
  t.stores = stores;
  t.alignment = kHostPageBytes;
  t.work = Work::kPieces;
  t.pieces = pieces;
  t.piece_count = count;
  return publish_task(channel, t);
}

std::uint64_t HostCopyPool::publish_task(int channel, Task& t) {
  Channel& c = *channels_[static_cast<std::size_t>(channel)];
  const std::uint64_t ticket = c.published.load(std::memory_order_relaxed);
  const std::size_t count = slice_count(t.bytes, c.spec.threads);
  t.remaining.store(static_cast<std::uint32_t>(count), std::memory_order_relaxed);
  // The claim word is what workers test; storing it last (release) publishes the fields above.
  t.claim.store(make_claim(ticket, count, 0), std::memory_order_release);
  c.published.store(ticket + 1, std::memory_order_seq_cst);
  // Pairs with the sleeper's increment-then-check in wait_for_work: either the worker sees the
  // new ticket, or this thread sees the sleeper and wakes it.
  notify_sleepers();
  return ticket;
}

bool HostCopyPool::complete(std::uint64_t ticket, int channel) const {
  const Channel& c = *channels_[static_cast<std::size_t>(channel)];
  const Task& t = c.tasks[ticket % c.tasks.size()];
  return t.remaining.load(std::memory_order_acquire) == 0 &&
         claim_ticket(t.claim.load(std::memory_order_acquire)) ==
             static_cast<std::uint32_t>(ticket);
}

HostCopyPool::ChannelStats HostCopyPool::stats(int channel) const {
  const Channel& c = *channels_[static_cast<std::size_t>(channel)];
  return {c.slices.load(std::memory_order_relaxed), c.busy_ns.load(std::memory_order_relaxed),
          c.most_active.load(std::memory_order_relaxed)};
}

bool HostCopyPool::claim_and_copy(Channel& c, std::uint64_t cursor) {
  Task& t = c.tasks[cursor % c.tasks.size()];
  std::uint64_t v = t.claim.load(std::memory_order_acquire);
  while (true) {
    // A newer ticket in the record means this one finished long ago.
    if (claim_ticket(v) != static_cast<std::uint32_t>(cursor)) return false;
    const std::size_t next = claim_next(v);
    const std::size_t count = claim_count(v);
    if (next >= count) return false;
    if (t.claim.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      // The task cannot be reused before this slice is counted off, so its fields hold still.
      const Chunk s = slice_of(t.bytes, t.host_address, count, next, t.alignment);
      if (s.bytes > 0) {
        const auto began = std::chrono::steady_clock::now();
        {
          const EngineRange range(t.work == Work::kTouch ? "prefault" : c.spec.slice_name);
          switch (t.work) {
            case Work::kCopy:
              copy_with(t.stores, t.dst + s.offset, t.src + s.offset, s.bytes);
              break;
            case Work::kPieces:
              copy_packed(t, s);
              break;
            case Work::kTouch:
              touch(t, s);
              break;
          }
        }
        const auto took = std::chrono::steady_clock::now() - began;
        c.busy_ns.fetch_add(static_cast<std::uint64_t>(
                                std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()),
                            std::memory_order_relaxed);
        c.slices.fetch_add(1, std::memory_order_relaxed);
      }
      // The last slice's copier tells the coordinator, which may be asleep waiting for it.
      if (t.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1 && c.spec.done != nullptr) {
        c.spec.done->ring();
      }
      return true;
    }
  }
}

void HostCopyPool::copy_packed(const Task& t, const Chunk& slice) {
  const HostPiece* const end = t.pieces + t.piece_count;
  // The first piece that ends past the slice's start.
  const HostPiece* p =
      std::upper_bound(t.pieces, end, slice.offset,
                       [](std::size_t at, const HostPiece& q) { return at < q.at + q.bytes; });
  const std::size_t slice_end = slice.offset + slice.bytes;
  for (; p != end && p->at < slice_end; ++p) {
    const std::size_t from = std::max(slice.offset, p->at);
    const std::size_t to = std::min(slice_end, p->at + p->bytes);
    copy_with(t.stores, p->dst + (from - p->at), p->src + (from - p->at), to - from);
  }
}

void HostCopyPool::touch(const Task& t, const Chunk& slice) {
  // One byte of each page the slice covers, inside the range: a compare-and-swap of the byte
  // with itself writes it (so the page is faulted in writable) and changes nothing. A plain
  // read and write back could lose a byte another thread wrote in between; an atomic OR of
  // zero may be compiled to a fenced load, which faults the page in read-only.
  char* const first = t.dst + slice.offset;
  char* const end = first + slice.bytes;
  for (char* p = first; p < end;) {
    char expected = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &expected, expected, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
    p = reinterpret_cast<char*>((a | (kHostPageBytes - 1)) + 1);
  }
}

void HostCopyPool::wake() {
  wakes_.fetch_add(1, std::memory_order_seq_cst);
  notify_sleepers();
}

void HostCopyPool::begin_copy(int channel, bool wide) {
  Channel& c = *channels_[static_cast<std::size_t>(channel)];
  const bool newly_wide = wide && c.wide_copies.fetch_add(1, std::memory_order_seq_cst) == 0;
  const bool newly_busy = c.copies.fetch_add(1, std::memory_order_seq_cst) == 0;
  const int busy = newly_busy ? busy_channels_.fetch_add(1, std::memory_order_seq_cst) + 1
                              : busy_channels_.load(std::memory_order_seq_cst);
  // Spare workers join when a second channel is busy, or when one alone may have more workers
  // than the channel with the fewest (its `threads`, or a wide copy's every worker). Taking the
  // mutex after the counts changed means a spare worker that saw the old counts is inside wait
  // by the time this notifies.
  const bool more = (newly_busy && (busy >= 2 || c.spec.threads > fewest_alone_)) ||
                    (newly_wide && threads() > fewest_alone_);
  if (!more) return;
  { const std::lock_guard<std::mutex> lock(sleep_mutex_); }
  spare_wake_.notify_all();
}

void HostCopyPool::end_copy(int channel, bool wide) {
  Channel& c = *channels_[static_cast<std::size_t>(channel)];
  if (wide) c.wide_copies.fetch_sub(1, std::memory_order_seq_cst);
  if (c.copies.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      busy_channels_.fetch_sub(1, std::memory_order_seq_cst) == 1) {
    quiet_since_ns_.store(now_ns(), std::memory_order_relaxed);
  }
}

bool HostCopyPool::spin_after_copy(int worker, const std::vector<std::uint64_t>& cursors) const {
  if (busy_channels_.load(std::memory_order_seq_cst) != 0) return false;
  const std::chrono::nanoseconds since(now_ns() - quiet_since_ns_.load(std::memory_order_relaxed));
  if (since >= kAfterCopySpin) return false;
  return spin_until([&] { return has_work(worker, cursors); }, kAfterCopySpin - since);
}

bool HostCopyPool::may_serve(int worker) const {
  const int busy = busy_channels_.load(std::memory_order_seq_cst);
  if (busy >= 2) return true;
  // Nothing counted (a pool used without begin_copy): the channels' most.
  if (busy == 0) return worker < most_alone_;
  for (const std::unique_ptr<Channel>& c : channels_) {
    if (c->copies.load(std::memory_order_seq_cst) == 0) continue;
    if (c->wide_copies.load(std::memory_order_seq_cst) > 0 || worker < c->spec.threads) {
      return true;
    }
  }
  return false;
}

void HostCopyPool::notify_sleepers() {
  // The caller changed its word (a channel's published count or wakes_, sequentially
  // consistent) before this load; a sleeper counts itself before it reads the words. So either
  // the sleeper sees the change, or this thread sees the sleeper. Taking the mutex after the
  // sleeper counted itself means it is inside wait by the time the notification comes (it holds
  // the mutex from its count until wait releases it); notifying after unlocking spares the woken
  // workers a wait for the mutex this thread would still hold.
  //
  // One sleeper is woken here, and it wakes the rest (wait_for_work): each wake-up of a sleeping
  // thread costs the waker a system call and, in a VM, an interrupt to another CPU, about 2 us
  // apiece on the H200 machine, and the publisher is on the copy's critical path (a trace,
  // 2026-12-02: waking 13 workers held a copy's start up by 26 us).
  if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  { const std::lock_guard<std::mutex> lock(sleep_mutex_); }
  wake_.notify_one();
}

bool HostCopyPool::help_one(int channel) {
  Channel& c = *channels_[static_cast<std::size_t>(channel)];
  const std::uint64_t published = c.published.load(std::memory_order_acquire);
  const std::uint64_t depth = c.tasks.size();
  for (std::uint64_t t = published > depth ? published - depth : 0; t < published; ++t) {
    if (claim_and_copy(c, t)) return true;
  }
  return false;
}

void HostCopyPool::enter(Channel& c) {
  const int now = c.active.fetch_add(1, std::memory_order_acq_rel) + 1;
  int most = c.most_active.load(std::memory_order_relaxed);
  while (most < now && !c.most_active.compare_exchange_weak(most, now, std::memory_order_relaxed)) {
  }
}

void HostCopyPool::leave(Channel& c) {
  c.active.fetch_sub(1, std::memory_order_acq_rel);
}

bool HostCopyPool::has_work(int worker, const std::vector<std::uint64_t>& cursors) const {
  if (stop_.load(std::memory_order_acquire)) return true;
  if (!may_serve(worker)) return false;
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    if (channels_[i]->published.load(std::memory_order_acquire) > cursors[i]) return true;
  }
  return false;
}

void HostCopyPool::wait_as_spare(int worker) {
  const EngineRange asleep("spare");
  std::unique_lock<std::mutex> lock(sleep_mutex_);
  spare_wake_.wait(lock,
                   [&] { return stop_.load(std::memory_order_seq_cst) || may_serve(worker); });
}

void HostCopyPool::wait_for_work(int worker, const std::vector<std::uint64_t>& cursors) {
  std::chrono::microseconds spin = kIdleSpin;
  // A wake() from now on counts, even one made while this worker still spins.
  std::uint64_t wakes = wakes_.load(std::memory_order_seq_cst);
  while (true) {
    if (spin_until([&] { return has_work(worker, cursors); }, spin)) return;
    if (spin_after_copy(worker, cursors)) return;
    {
      const EngineRange asleep("asleep");
      std::unique_lock<std::mutex> lock(sleep_mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      // Pairs with publish_task() and wake(): each changes its word, then looks for sleepers.
      // A worker that slept here while it could copy leaves once it cannot (both channels were
      // busy, and one is quiet now): the publisher wakes one sleeper and counts on it to wake
      // the rest.
      wake_.wait(lock, [&] {
        return has_work(worker, cursors) || wakes_.load(std::memory_order_seq_cst) != wakes ||
               !may_serve(worker);
      });
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
    // Woken first: the others are woken from here, not by the publisher.
    if (sleepers_.load(std::memory_order_seq_cst) != 0) {
      { const std::lock_guard<std::mutex> lock(sleep_mutex_); }
      wake_.notify_all();
    }
    if (has_work(worker, cursors)) return;
    if (!may_serve(worker)) return;  // spare now: it sleeps as one (work())
    wakes = wakes_.load(std::memory_order_seq_cst);
    spin = kWokenSpin;  // woken ahead of a copy: its first task is on its way
  }
}

void HostCopyPool::work(int worker) {
  std::vector<std::uint64_t> cursors(channels_.size(), 0);
  std::size_t turn = 0;
  while (true) {
    bool found = false;
    for (std::size_t k = 0; k < channels_.size() && !found && may_serve(worker); ++k) {
      const std::size_t i = (turn + k) % channels_.size();
      Channel& c = *channels_[i];
      const std::uint64_t published = c.published.load(std::memory_order_acquire);
      if (published <= cursors[i]) continue;
      // A ticket older than the ring's depth is complete (the publisher waits for that), so a
      // worker that sat out the channel's copies for a while starts from the oldest one a task
      // record may still hold.
      if (published - cursors[i] > c.tasks.size()) cursors[i] = published - c.tasks.size();
      enter(c);
      // Copy slices of this ticket until none is left, then move on: to the next channel
      // first, so a lane whose chunks keep coming does not starve the other.
      while (claim_and_copy(c, cursors[i])) {
      }
      leave(c);
      ++cursors[i];
      turn = i + 1;
      found = true;
    }
    if (found) continue;
    if (stop_.load(std::memory_order_acquire)) return;  // every channel's tickets are passed
    if (!may_serve(worker)) {
      wait_as_spare(worker);
    } else {
      wait_for_work(worker, cursors);
    }
  }
}

}  // namespace pinbench::transfer
