// The lane's coordinator (lane.hpp): admits chunks into ring slots, hands host copies to the
// pool, queues device copies in order, and retires chunks in order. Each pass of step() moves
// every chunk as far as it can go without blocking.
#include "transfer/lane.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "base/nvtx_domain.hpp"

namespace pinbench::transfer {
namespace {

using Clock = std::chrono::steady_clock;

// How the coordinator waits while chunks are in flight. After something moved it polls, pausing
// between polls, for kPollSpin: the next event (a fill done, a DMA done) often follows within
// microseconds. Then it naps kNap at a time, polling between naps; a pool task finishing or a
// copy being submitted ends a nap at once (the doorbell), so only a DMA's end is seen up to a
// nap late. The ring holds several chunks, so that costs nothing in steady state; at a copy's
// end it is up to kNap (plus the wake-up) on the copy's time. Once nothing has moved for
// kBusyPoll (the lane waits for the caller's stream, or for another copy's device work), the
// naps lengthen to kSlowNap.
constexpr std::chrono::microseconds kPollSpin{40};
constexpr std::chrono::microseconds kNap{25};
constexpr std::chrono::milliseconds kBusyPoll{1};
constexpr std::chrono::microseconds kSlowNap{100};
// Pauses between two polls: a poll queries every mark in flight, which costs more than a pause.
constexpr int kPausesPerPoll = 8;
// How long an empty lane's coordinator looks for a new copy before it sleeps: copies often come
// in quick succession (a synchronous caller's next call), and a sleeping thread takes tens of
// microseconds to wake.
constexpr std::chrono::microseconds kIdleSpin{40};
// How long a synchronous caller goes on looking for slices to help with after the last one,
// before its copy's device work is all queued: between two fills it waits for a DMA to free a
// slot (about 150 us for an 8 MiB chunk on the H200), and it should still be helping then. Once
// nothing turned up for this long (the lane waits for the caller's stream, say), it sleeps.
constexpr std::chrono::microseconds kHelpSpin{200};
// Once the copy's device work is all queued, what is left is the ring's last few chunks (at
// most `depth`, under a millisecond): the caller waits for them awake, since a thread asleep on
// the copy's condition variable wakes tens of microseconds after the copy ends, a fixed cost on
// every synchronous copy. This bounds that wait where the device is slower than that.
constexpr std::chrono::milliseconds kTailSpin{2};

enum class Stage { kHost, kDevice, kDone };

// The most pieces one chunk of a batch holds: one device call's copies, and one host task's.
constexpr std::size_t kMaxBatchPieces = 4096;

}  // namespace

struct Lane::Run {
  Job job;
  std::vector<Chunk> chunks;
  std::size_t next = 0;    // the next chunk to admit
  std::size_t issued = 0;  // chunks whose device copy is queued
  int in_flight = 0;
  bool failed = false;
  bool device_started = false;
  bool gap = false;  // a chunk retired without its bytes: later ones no longer extend the prefix
  BatchPlan batch;   // a batch's pieces (Job::blocks), chunk by chunk
  std::vector<HostPiece> host_pieces;  // their host copies, filled in as each chunk is admitted
  // To the host: whether to look at the destination's pages (once the first DMA is queued, so
  // the look costs the copy nothing), and whether each chunk's destination is then faulted in
  // during its DMA.
  bool check_fresh = false;
  bool prefault = false;
  bool widened = false;         // counted as a wide copy from its prefault on (look_at_destination)
  std::size_t touch_begin = 0;  // the part prefaulted, as offsets into the destination
  std::size_t touch_end = 0;
};

struct Lane::Slot {
  Run* run = nullptr;
  std::size_t index = 0;  // of the chunk within its run
  int slot = 0;           // ring slot
  Stage stage = Stage::kHost;
  std::uint64_t ticket = 0;  // the pool task, while stage is kHost
  bool ok = false;           // both stages done without error: the chunk's bytes arrived
  bool touching = false;     // to the host: its destination's prefault task is `touch`
  std::uint64_t touch = 0;
};

HostCopyPool::ChannelSpec Lane::channel_spec(const LaneShape& shape, Doorbell* done) {
  return {2 * shape.depth, shape.threads, shape.flow == Flow::kToDevice ? "fill" : "drain", done};
}

Lane::Lane(const LaneShape& shape, void* staging, std::unique_ptr<DeviceQueue> queue,
           HostCopyPool& pool, int channel, Doorbell& doorbell)
    : shape_(shape),
      staging_(static_cast<char*>(staging)),
      queue_(std::move(queue)),
      doorbell_(doorbell),
      pool_(pool),
      channel_(channel) {
  coordinator_ = std::thread([this] { coordinate(); });
}

Lane::Lane(const LaneShape& shape, void* staging, std::unique_ptr<DeviceQueue> queue)
    : shape_(shape),
      staging_(static_cast<char*>(staging)),
      queue_(std::move(queue)),
      doorbell_(own_doorbell_),
      own_pool_(std::make_unique<HostCopyPool>(
          shape.threads,
          std::vector<HostCopyPool::ChannelSpec>{channel_spec(shape, &own_doorbell_)})),
      pool_(*own_pool_),
      channel_(0) {
  coordinator_ = std::thread([this] { coordinate(); });
}

Lane::~Lane() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    stopping_.store(true, std::memory_order_release);
  }
  doorbell_.ring();
  coordinator_.join();
}

void Lane::submit(Job job, bool caller_drives) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    submitted_.push_back(std::move(job));
    // Under the lock the coordinator takes the copy with, so before its end_copy.
    pool_.begin_copy(channel_, wide(submitted_.back()));
    pending_.fetch_add(1, std::memory_order_release);
  }
  // A system call only when the coordinator sleeps. A caller that drives takes the copy itself,
  // and rings when it stops driving if the copy is still in flight.
  if (!caller_drives || !shape_.caller_drives) doorbell_.ring();
  // Wake the host threads now, alongside the coordinator, rather than once it publishes the
  // first chunk: after idle, waking one after the other costs hundreds of microseconds.
  pool_.wake();
}

void Lane::help_until(const CopyState& state, Until until) {
  // Helps while slices keep coming, pausing between looks, and (caller_drives) runs the
  // coordinator's pass itself whenever the coordinator is not in one: the copy's first chunks
  // start without waiting for the coordinator to wake, and its end is seen as soon as the last
  // DMA's mark is reached. Stops looking after kHelpSpin without progress while device work is
  // still to be queued, or kTailSpin once it is all queued, and then waits for the copy on its
  // condition variable.
  const auto reached = [&] {
    return state.finished() || (until == Until::kDeviceWorkQueued && state.device_work_queued());
  };
  if (shape_.caller_drives) queue_->caller_begin();
  auto last_help = Clock::now();
  for (unsigned n = 1; !reached(); ++n) {
    // A pass between any two slices: a filled chunk's DMA is queued at once, not once this
    // thread has run out of slices to copy.
    bool moved = false;
    if (shape_.caller_drives && drive_.try_lock()) {
      bool stop = false;
      moved = pass(&stop);
      drive_.unlock();
    }
    if (pool_.help_one(channel_) || moved) {
      last_help = Clock::now();
      continue;
    }
    cpu_relax();
    if (n % 16 != 0) continue;
    const auto quiet = Clock::now() - last_help;
    if (quiet > (state.device_work_queued() ? std::chrono::nanoseconds(kTailSpin)
                                            : std::chrono::nanoseconds(kHelpSpin))) {
      break;
    }
  }
  if (shape_.caller_drives) {
    queue_->caller_end();
    doorbell_.ring();  // the coordinator may have slept while this thread drove
  }
  const EngineRange waits("caller waits");
  if (until == Until::kDeviceWorkQueued) {
    state.wait_device_work_queued();
  } else {
    state.wait_finished();
  }
}

Stores Lane::stores_for(const Run& run, std::size_t index) const {
  // The ramp's chunks, and the last `depth`: to the device the copy engine reads each soon after
  // its fill, before later fills have pushed its lines out of the filling cores' caches. The
  // host side fills faster than the copy engine drains the ring, so once the last chunk is
  // filled the ring holds `depth` chunks no later fill will push out (an H200 trace, 2026-12-02:
  // with only the last two streamed, the three before them moved at 29 to 46 GB/s).
  const bool edge = run.chunks[index].bytes < shape_.chunk_bytes ||
                    index + static_cast<std::size_t>(shape_.depth) >= run.chunks.size();
  return edge ? shape_.edge_stores : shape_.stores;
}

bool Lane::wide(const Job& job) const {
  return shape_.wide_from_bytes != 0 && !job.blocks && job.bytes >= shape_.wide_from_bytes;
}

char* Lane::slot_memory(int slot) const {
  return staging_ + static_cast<std::size_t>(slot) * shape_.chunk_bytes;
}

void Lane::fail(Run& run, int code, const std::string& message) {
  if (run.failed) return;
  run.failed = true;
  run.job.state->fail(code, message);
}

void Lane::queue_device_copy(Run& r, std::size_t index, char* staging) {
  const bool to_device = shape_.flow == Flow::kToDevice;
  if (!r.job.blocks) {
    const Chunk& c = r.chunks[index];
    if (to_device) {
      queue_->copy(static_cast<char*>(r.job.dst) + c.offset, staging, c.bytes);
    } else {
      queue_->copy(staging, static_cast<const char*>(r.job.src) + c.offset, c.bytes);
    }
    return;
  }
  // A batch's chunk: each piece between its place in the staging buffer and its block's place
  // in the device arena, all in one device call.
  const BatchChunk& c = r.batch.chunks[index];
  std::vector<void*> dsts(c.pieces);
  std::vector<const void*> srcs(c.pieces);
  std::vector<std::size_t> sizes(c.pieces);
  for (std::size_t i = 0; i < c.pieces; ++i) {
    const BatchPiece& p = r.batch.pieces[c.first_piece + i];
    const BatchBlock& b = (*r.job.blocks)[p.block];
    char* arena = static_cast<char*>(to_device ? r.job.dst : const_cast<void*>(r.job.src));
    char* device = arena + b.device_offset + p.offset;
    dsts[i] = to_device ? device : staging + p.at;
    srcs[i] = to_device ? staging + p.at : device;
    sizes[i] = p.bytes;
  }
  queue_->copy_batch(dsts.data(), srcs.data(), sizes.data(), c.pieces);
}

std::uint64_t Lane::publish_host(Run& r, std::size_t index, int slot) {
  const bool to_device = shape_.flow == Flow::kToDevice;
  const Chunk& c = r.chunks[index];
  const Stores stores = stores_for(r, index);
  char* staging = slot_memory(slot);
  if (!r.job.blocks) {
    char* dst = to_device ? staging : static_cast<char*>(r.job.dst) + c.offset;
    const char* src = to_device ? static_cast<const char*>(r.job.src) + c.offset : staging;
    const char* host = to_device ? src : dst;
    return pool_.publish(dst, src, c.bytes, reinterpret_cast<std::uintptr_t>(host), stores,
                         channel_);
  }
  // A batch's chunk: its pieces gathered from the host arena into the staging buffer, or
  // scattered from it into the host arena.
  const BatchChunk& b = r.batch.chunks[index];
  char* arena = static_cast<char*>(to_device ? const_cast<void*>(r.job.src) : r.job.dst);
  for (std::size_t i = b.first_piece; i < b.first_piece + b.pieces; ++i) {
    const BatchPiece& p = r.batch.pieces[i];
    char* host = arena + (*r.job.blocks)[p.block].host_offset + p.offset;
    r.host_pieces[i] = {to_device ? staging + p.at : host, to_device ? host : staging + p.at,
                        p.bytes, p.at};
  }
  return pool_.publish_pieces(r.host_pieces.data() + b.first_piece, b.pieces, b.bytes, stores,
                              channel_);
}

void Lane::plan(Run& r) {
  if (!r.job.blocks) {
    const auto* host =
        static_cast<const char*>(shape_.flow == Flow::kToDevice ? r.job.src : r.job.dst);
    r.chunks = plan_chunks(r.job.bytes, reinterpret_cast<std::uintptr_t>(host),
                           {shape_.chunk_bytes, shape_.edge_chunk_bytes, kHostPageBytes,
                            shape_.flow == Flow::kToHost});
    r.check_fresh = shape_.flow == Flow::kToHost && shape_.prefault_from_bytes != 0 &&
                    r.job.bytes >= shape_.prefault_from_bytes;
    return;
  }
  r.batch = plan_batch(
      *r.job.blocks,
      {shape_.chunk_bytes, shape_.edge_chunk_bytes, kHostPageBytes, shape_.flow == Flow::kToHost},
      kMaxBatchPieces);
  std::size_t offset = 0;
  for (const BatchChunk& c : r.batch.chunks) {
    r.chunks.push_back({offset, c.bytes});
    offset += c.bytes;
  }
  r.host_pieces.resize(r.batch.pieces.size());
}

void Lane::issue_device(Slot& s) {
  const EngineRange range("queue dma");
  Run& r = *s.run;
  char* staging = slot_memory(s.slot);
  s.stage = Stage::kDone;  // unless the copy is queued below
  try {
    if (!r.device_started) {
      r.device_started = true;
      if (r.job.before_device) r.job.before_device();
    }
    queue_device_copy(r, s.index, staging);
  } catch (const TransferFailure& e) {
    fail(r, e.code(), e.what());
    return;
  } catch (const std::exception& e) {
    fail(r, 0, e.what());
    return;
  }
  try {
    queue_->mark(s.slot);
  } catch (const TransferFailure& e) {
    // Without a mark nothing says when the slot is free again; wait for all of it instead.
    queue_->drain();
    fail(r, e.code(), e.what());
    return;
  }
  s.stage = Stage::kDevice;
  if (++r.issued == r.chunks.size()) {
    try {
      if (r.job.after_device) r.job.after_device();
      r.job.state->set_device_work_queued();
    } catch (const TransferFailure& e) {
      fail(r, e.code(), e.what());
    } catch (const std::exception& e) {
      fail(r, 0, e.what());
    }
  }
}

void Lane::look_at_destination(Run& r) {
  r.check_fresh = false;
  const EngineRange range("fresh?");
  const FreshDestination d = prepare_destination(r.job.dst, r.job.bytes, shape_.huge_pages);
  // Without huge pages each fault maps 4 KiB, and the host threads faulting the pages in ahead
  // of the drain were slower than the drain faulting them itself (the H200, 2026-12-02: 64 MiB
  // at 2.7 GB/s against 10.4).
  r.prefault = d.fresh && d.huge;
  r.touch_begin = d.huge_begin;
  r.touch_end = d.huge_end;
  if (r.prefault) {
    prefaulted_.fetch_add(1, std::memory_order_relaxed);
    // Faulting pages in takes every thread it can get: from here the copy counts as wide.
    if (!wide(r.job)) {
      pool_.begin_copy(channel_, true);
      r.widened = true;
    }
  }
  if (d.huge) huge_.fetch_add(1, std::memory_order_relaxed);
}

bool Lane::admit() {
  bool progress = false;
  while (slots_.size() < static_cast<std::size_t>(shape_.depth)) {
    Run* r = nullptr;
    for (Run& candidate : runs_) {
      if (!candidate.failed && candidate.next < candidate.chunks.size()) {
        r = &candidate;
        break;
      }
    }
    if (r == nullptr) break;
    // To the host a chunk's DMA is queued as it is admitted: the copy's first waits until its
    // device work may be queued.
    if (shape_.flow == Flow::kToHost && !r->device_started && r->job.device_ready &&
        !r->job.device_ready()) {
      break;
    }
    Slot s;
    s.run = r;
    s.index = r->next++;
    s.slot = static_cast<int>(admitted_++ % static_cast<std::uint64_t>(shape_.depth));
    ++r->in_flight;
    slots_.push_back(s);
    Slot& placed = slots_.back();
    if (shape_.flow == Flow::kToDevice) {
      placed.ticket = publish_host(*r, s.index, placed.slot);
      placed.stage = Stage::kHost;
    } else {
      issue_device(placed);
      if (r->check_fresh) look_at_destination(*r);
      const Chunk& c = r->chunks[s.index];
      const std::size_t from = std::max(c.offset, r->touch_begin);
      const std::size_t to = std::min(c.offset + c.bytes, r->touch_end);
      if (r->prefault && placed.stage == Stage::kDevice && from < to) {
        // The chunk's huge pages are faulted in while its DMA runs; the drain waits for them.
        // Faulting a page in takes the lock of the page table that maps its 2 MiB, so threads
        // touching one 2 MiB range would take turns: each slice covers whole huge pages.
        placed.touch = pool_.publish_touch(static_cast<char*>(r->job.dst) + from, to - from,
                                           kTouchAlignment, channel_);
        placed.touching = true;
      }
    }
    progress = true;
  }
  return progress;
}

bool Lane::advance() {
  bool progress = false;
  // Device copies (to the device) and host drains (to the host) start strictly in chunk order:
  // `in_order` turns false at the first chunk that is not ready for its next stage.
  bool in_order = true;
  for (Slot& s : slots_) {
    Run& r = *s.run;
    if (shape_.flow == Flow::kToDevice) {
      if (s.stage == Stage::kHost) {
        if (!in_order || !pool_.complete(s.ticket, channel_) ||
            (!r.device_started && !r.failed && r.job.device_ready && !r.job.device_ready())) {
          in_order = false;
          continue;
        }
        progress = true;
        if (r.failed) {
          s.stage = Stage::kDone;  // staged, but its copy already failed: no DMA
        } else {
          issue_device(s);
        }
      } else if (s.stage == Stage::kDevice) {
        try {
          if (!queue_->reached(s.slot)) continue;
          const EngineRange seen("dma seen");
          s.ok = true;
        } catch (const TransferFailure& e) {
          fail(r, e.code(), e.what());
        }
        s.stage = Stage::kDone;
        progress = true;
      }
      continue;
    }
    // To the host.
    if (s.stage == Stage::kDevice) {
      if (!in_order) continue;
      if (s.touching && !pool_.complete(s.touch, channel_)) {
        in_order = false;
        continue;
      }
      try {
        if (!queue_->reached(s.slot)) {
          in_order = false;
          continue;
        }
        const EngineRange seen("dma seen");
      } catch (const TransferFailure& e) {
        fail(r, e.code(), e.what());
        s.stage = Stage::kDone;
        progress = true;
        continue;
      }
      progress = true;
      if (r.failed) {
        s.stage = Stage::kDone;  // arrived in staging, but its copy already failed
      } else {
        s.ticket = publish_host(r, s.index, s.slot);
        s.stage = Stage::kHost;
      }
    } else if (s.stage == Stage::kHost && pool_.complete(s.ticket, channel_)) {
      s.stage = Stage::kDone;  // drained: the bytes are in the caller's memory
      s.ok = true;
      progress = true;
    }
  }
  return progress;
}

bool Lane::retire() {
  bool progress = false;
  while (!slots_.empty() && slots_.front().stage == Stage::kDone) {
    const Slot& s = slots_.front();
    Run& r = *s.run;
    // Chunks retire in order, so what is counted is always a prefix of the destination.
    if (!s.ok) r.gap = true;
    if (s.ok && !r.gap) r.job.state->add_delivered(r.chunks[s.index].bytes);
    --r.in_flight;
    slots_.pop_front();
    progress = true;
  }
  return progress;
}

void Lane::finish_runs() {
  for (auto it = runs_.begin(); it != runs_.end();) {
    Run& r = *it;
    const bool all_admitted = r.next == r.chunks.size();
    if (r.in_flight == 0 && (r.failed || all_admitted)) {
      pool_.end_copy(channel_, wide(r.job));
      if (r.widened) pool_.end_copy(channel_, true);
      r.job.state->finish();
      it = runs_.erase(it);
    } else {
      ++it;
    }
  }
}

bool Lane::step() {
  bool progress = retire();
  progress = admit() || progress;
  progress = advance() || progress;
  progress = retire() || progress;
  finish_runs();
  return progress;
}

void Lane::wait_for_submission() {
  // A caller driving the lane may have taken a copy that it leaves in flight: it rings, and
  // idle_ says so.
  const auto submitted = [&] {
    return pending_.load(std::memory_order_acquire) != 0 ||
           stopping_.load(std::memory_order_acquire) || !idle_.load(std::memory_order_acquire);
  };
  if (spin_until(submitted, kIdleSpin)) return;
  while (true) {
    // Read before looking: a submission after the look rings, and the sleep ends at once.
    const std::uint64_t seen = doorbell_.rings();
    if (submitted()) return;
    const EngineRange asleep("coordinator asleep");
    doorbell_.sleep(seen, std::chrono::nanoseconds::max(), submitted);
  }
}

bool Lane::pass(bool* stop) {
  *stop = false;
  std::deque<Job> taken;
  if (pending_.load(std::memory_order_acquire) != 0 || (slots_.empty() && runs_.empty())) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slots_.empty() && runs_.empty() && submitted_.empty()) {
      *stop = stop_;  // stopping, and nothing left to do
      idle_.store(true, std::memory_order_release);
      return false;
    }
    taken.swap(submitted_);
    pending_.store(0, std::memory_order_release);
  }
  for (Job& job : taken) {
    runs_.emplace_back();
    Run& r = runs_.back();
    r.job = std::move(job);
    if (!unbound_.empty()) {
      fail(r, unbound_code_, unbound_);
      continue;
    }
    try {
      const EngineRange range("plan");
      plan(r);
    } catch (const std::exception& e) {
      fail(r, 0, e.what());
    }
  }
  const bool progressed = step() || !taken.empty();
  idle_.store(slots_.empty() && runs_.empty(), std::memory_order_release);
  return progressed;
}

void Lane::coordinate() {
  use_short_timer_slack();
  try {
    queue_->bind_thread();
  } catch (const TransferFailure& e) {
    const std::lock_guard<std::mutex> lock(drive_);
    unbound_ = e.what();
    unbound_code_ = e.code();
  }
  auto last_progress = Clock::now();
  while (true) {
    if (idle_.load(std::memory_order_acquire)) wait_for_submission();
    // Read before this pass looks at anything: a task finishing or a copy submitted from now on
    // ends the nap below at once.
    const std::uint64_t rings = doorbell_.rings();
    bool progressed = false;
    bool stop = false;
    bool idle = false;
    {
      const std::lock_guard<std::mutex> lock(drive_);
      progressed = pass(&stop);
      idle = slots_.empty() && runs_.empty();
    }
    if (stop) return;
    if (progressed) {
      last_progress = Clock::now();
      continue;
    }
    if (idle) continue;  // every copy finished: idle from here
    const auto quiet = Clock::now() - last_progress;
    if (quiet < kPollSpin) {
      for (int i = 0; i < kPausesPerPoll; ++i) cpu_relax();
    } else {
      doorbell_.sleep(rings, quiet < kBusyPoll ? kNap : kSlowNap, [] { return false; });
    }
  }
}

}  // namespace pinbench::transfer
