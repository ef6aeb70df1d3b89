// The staged engine's lane (src/transfer/lane.hpp) on a simulated device: a thread that runs
// queued copies in order, slowly, and can be told to fail. No GPU, so the pipeline's ordering,
// byte-exactness, failure reporting and shutdown are checked everywhere, sanitizers included.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "framework/pattern.hpp"
#include "transfer/copy_state.hpp"
#include "transfer/host_copy_pool.hpp"
#include "transfer/lane.hpp"

namespace pinbench::transfer {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

// A device that runs queued operations in order on a thread of its own.
class FakeQueue : public DeviceQueue {
 public:
  struct Knobs {
    std::chrono::microseconds copy_delay{0};
    int fail_copy = -1;    // the n-th copy (from 0) cannot be queued
    int fail_mark = -1;    // the n-th mark reports a device error when reached
    int fail_record = -1;  // the n-th mark cannot be queued
  };

  FakeQueue(int depth, Knobs knobs) : knobs_(knobs), marks_(static_cast<std::size_t>(depth)) {
    thread_ = std::thread([this] { run(); });
  }
  ~FakeQueue() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void copy(void* dst, const void* src, std::size_t bytes) override {
    if (copies_++ == knobs_.fail_copy) throw TransferFailure(11, "simulated copy failure");
    push([=] {
      std::this_thread::sleep_for(knobs_.copy_delay);
      std::memcpy(dst, src, bytes);
      executed_.fetch_add(1);
    });
  }

  void mark(int slot) override {
    const int n = marks_made_++;
    if (n == knobs_.fail_record) throw TransferFailure(12, "simulated record failure");
    Mark& m = marks_[static_cast<std::size_t>(slot)];
    const std::uint64_t seq = ++m.queued;
    m.fails = n == knobs_.fail_mark;
    push([&m, seq] { m.reached.store(seq); });
  }

  bool reached(int slot) override {
    Mark& m = marks_[static_cast<std::size_t>(slot)];
    if (m.reached.load() < m.queued) return false;
    if (m.fails) throw TransferFailure(13, "simulated device error");
    return true;
  }

  void drain() noexcept override {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return ops_.empty() && !busy_; });
  }

  // Queues an operation from a job's before_device: waits until `gate` opens.
  void push_wait(std::shared_ptr<std::atomic<bool>> gate) {
    push([gate] {
      while (!gate->load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
  }

  int executed() const { return executed_.load(); }

 private:
  struct Mark {
    std::uint64_t queued = 0;  // coordinator only
    bool fails = false;        // coordinator only
    std::atomic<std::uint64_t> reached{0};
  };

  void push(std::function<void()> op) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ops_.push_back(std::move(op));
    }
    cv_.notify_all();
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || !ops_.empty(); });
      if (ops_.empty()) return;
      std::function<void()> op = std::move(ops_.front());
      ops_.pop_front();
      busy_ = true;
      lock.unlock();
      op();
      lock.lock();
      busy_ = false;
      cv_.notify_all();
    }
  }

  Knobs knobs_;
  std::vector<Mark> marks_;
  int copies_ = 0;
  int marks_made_ = 0;
  std::atomic<int> executed_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> ops_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

// A lane on a fake device with small chunks, so a few MiB make many chunks.
struct TestLane {
  TestLane(Flow flow, FakeQueue::Knobs knobs = {}, int depth = 3, int threads = 3,
           std::size_t chunk = 64 * kKiB, std::size_t edge = 4 * kKiB,
           Stores stores = Stores::kCached, Stores edge_stores = Stores::kCached,
           bool caller_drives = false)
      : staging(chunk * static_cast<std::size_t>(depth)) {
    auto q = std::make_unique<FakeQueue>(depth, knobs);
    queue = q.get();
    LaneShape shape;
    shape.flow = flow;
    shape.chunk_bytes = chunk;
    shape.depth = depth;
    shape.threads = threads;
    shape.edge_chunk_bytes = edge;
    shape.stores = stores;
    shape.edge_stores = edge_stores;
    shape.caller_drives = caller_drives;
    lane = std::make_unique<Lane>(shape, staging.data(), std::move(q));
  }

  std::shared_ptr<CopyState> submit(void* dst, const void* src, std::size_t bytes,
                                    std::function<void()> before = {},
                                    std::function<void()> after = {}) {
    Job job;
    job.dst = dst;
    job.src = src;
    job.bytes = bytes;
    job.before_device = std::move(before);
    job.after_device = std::move(after);
    job.state = std::make_shared<CopyState>(bytes);
    auto state = job.state;
    lane->submit(std::move(job));
    return state;
  }

  std::vector<char> staging;
  FakeQueue* queue = nullptr;  // owned by the lane
  std::unique_ptr<Lane> lane;
};

std::vector<char> pattern(std::size_t bytes, std::uint64_t seed) {
  std::vector<char> v(bytes);
  fill_pattern(v.data(), bytes, seed);
  return v;
}

// `stores` for the bulk of each copy, `edge_stores` for its first and last chunks, both ways.
void expect_round_trips(Stores stores, Stores edge_stores) {
  TestLane up(Flow::kToDevice, {std::chrono::microseconds(20)}, 3, 3, 64 * kKiB, 4 * kKiB, stores,
              edge_stores);
  TestLane down(Flow::kToHost, {std::chrono::microseconds(20)}, 3, 3, 64 * kKiB, 4 * kKiB, stores,
                edge_stores);
  const std::size_t sizes[] = {1, 7, 4096, 64 * kKiB + 13, kMiB + 5, 3 * kMiB};
  const std::size_t offsets[] = {0, 1, 3, 4095};
  std::uint64_t seed = 1;
  for (std::size_t n : sizes) {
    for (std::size_t off : offsets) {
      const std::vector<char> src = pattern(n + off, seed++);
      std::vector<char> dev(n + 4096, 0);
      std::vector<char> back(n + off, 0);
      auto a = up.submit(dev.data() + (off % 7), src.data() + off, n);
      a->wait_finished();
      ASSERT_FALSE(a->failed()) << a->message();
      EXPECT_EQ(a->delivered(), n);
      ASSERT_EQ(std::memcmp(dev.data() + (off % 7), src.data() + off, n), 0) << n << "+" << off;
      auto b = down.submit(back.data() + off, dev.data() + (off % 7), n);
      b->wait_finished();
      ASSERT_FALSE(b->failed()) << b->message();
      EXPECT_EQ(b->delivered(), n);
      ASSERT_EQ(std::memcmp(back.data() + off, src.data() + off, n), 0) << n << "+" << off;
    }
  }
}

TEST(StagedLane, RoundTripsAreByteExactOverSizesAndOffsets) {
  expect_round_trips(Stores::kCached, Stores::kCached);
}

// The host threads may write with non-temporal stores where the CPU has them, and a copy's edge
// chunks may be written differently from its bulk; the bytes must be just as exact, and visible
// once the copy is finished.
TEST(StagedLane, StreamingRoundTripsAreByteExact) {
  expect_round_trips(Stores::kStreaming, Stores::kStreaming);
}

TEST(StagedLane, MixedRoundTripsAreByteExact) {
  expect_round_trips(Stores::kCached, Stores::kStreaming);
  expect_round_trips(Stores::kStreaming, Stores::kCached);
}

TEST(StagedLane, ConcurrentSubmittersAllArriveIntact) {
  TestLane up(Flow::kToDevice, {std::chrono::microseconds(5)}, 4, 2);
  constexpr int kThreads = 4;
  constexpr int kCopies = 6;
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCopies; ++i) {
        const std::size_t n = 100 * kKiB * static_cast<std::size_t>(i + 1) + 3 * t;
        const std::vector<char> src = pattern(n, static_cast<std::uint64_t>(100 * t + i));
        std::vector<char> dst(n, 0);
        auto s = up.submit(dst.data(), src.data(), n);
        s->wait_finished();
        if (s->failed() || s->delivered() != n || std::memcmp(dst.data(), src.data(), n) != 0) {
          bad.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(StagedLane, DeviceWorkWaitsForWhatBeforeDeviceQueues) {
  TestLane up(Flow::kToDevice);
  auto gate = std::make_shared<std::atomic<bool>>(false);
  const std::vector<char> src = pattern(kMiB, 7);
  std::vector<char> dst(kMiB, 0);
  bool queued_after = false;
  auto s = up.submit(
      dst.data(), src.data(), kMiB, [&] { up.queue->push_wait(gate); },
      [&] { queued_after = true; });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(s->finished());
  EXPECT_EQ(up.queue->executed(), 0) << "a device copy ran before the gate opened";
  gate->store(true);
  s->wait_finished();
  EXPECT_FALSE(s->failed());
  EXPECT_TRUE(queued_after);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), kMiB), 0);
}

TEST(StagedLane, DeviceWorkQueuedComesBeforeFinished) {
  TestLane down(Flow::kToHost, {std::chrono::microseconds(200)});
  const std::vector<char> dev = pattern(2 * kMiB, 8);
  std::vector<char> dst(2 * kMiB, 0);
  auto s = down.submit(dst.data(), dev.data(), dev.size(), {}, [] {});
  s->wait_device_work_queued();
  EXPECT_FALSE(s->failed());
  s->wait_finished();
  EXPECT_EQ(std::memcmp(dst.data(), dev.data(), dev.size()), 0);
}

// After a failed copy is reported, nothing writes into its destination any more.
void expect_quiet_after_finish(const std::vector<char>& dst) {
  const std::vector<char> snapshot = dst;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(std::memcmp(snapshot.data(), dst.data(), dst.size()), 0);
}

TEST(StagedLane, AFailedQueueingFailsThatCopyOnly) {
  for (Flow flow : {Flow::kToDevice, Flow::kToHost}) {
    TestLane lane(flow, {std::chrono::microseconds(50), /*fail_copy=*/5});
    const std::vector<char> src = pattern(2 * kMiB, 9);
    std::vector<char> dst(2 * kMiB, 0);
    auto s = lane.submit(dst.data(), src.data(), src.size());
    auto next = lane.submit(dst.data(), src.data(), src.size());
    s->wait_finished();
    ASSERT_TRUE(s->failed());
    EXPECT_EQ(s->code(), 11);
    EXPECT_EQ(s->message(), "simulated copy failure");
    EXPECT_LT(s->delivered(), src.size());
    next->wait_finished();
    EXPECT_FALSE(next->failed()) << next->message();
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0);
  }
}

TEST(StagedLane, ADeviceErrorFailsTheCopyAndSaysHowFarItGot) {
  for (Flow flow : {Flow::kToDevice, Flow::kToHost}) {
    TestLane lane(flow, {std::chrono::microseconds(30), -1, /*fail_mark=*/4});
    const std::vector<char> src = pattern(3 * kMiB, 10);
    std::vector<char> dst(3 * kMiB, 0);
    auto s = lane.submit(dst.data(), src.data(), src.size());
    s->wait_finished();
    ASSERT_TRUE(s->failed());
    EXPECT_EQ(s->code(), 13);
    // What it says arrived is the prefix of the four chunks before the failing fifth.
    const void* host = flow == Flow::kToDevice ? static_cast<const void*>(src.data())
                                               : static_cast<const void*>(dst.data());
    const auto chunks = plan_chunks(src.size(), reinterpret_cast<std::uintptr_t>(host),
                                    {64 * kKiB, 4 * kKiB, kHostPageBytes});
    EXPECT_EQ(s->delivered(), chunks[4].offset);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), s->delivered()), 0);
    expect_quiet_after_finish(dst);
  }
}

TEST(StagedLane, AMarkThatCannotBeQueuedFailsTheCopy) {
  TestLane lane(Flow::kToDevice, {std::chrono::microseconds(30), -1, -1, /*fail_record=*/2});
  const std::vector<char> src = pattern(kMiB, 11);
  std::vector<char> dst(kMiB, 0);
  auto s = lane.submit(dst.data(), src.data(), src.size());
  s->wait_finished();
  ASSERT_TRUE(s->failed());
  EXPECT_EQ(s->code(), 12);
  expect_quiet_after_finish(dst);
}

TEST(StagedLane, AFailingBeforeDeviceStopsEveryDeviceCopy) {
  TestLane lane(Flow::kToDevice);
  const std::vector<char> src = pattern(kMiB, 12);
  std::vector<char> dst(kMiB, 0);
  auto s = lane.submit(dst.data(), src.data(), src.size(),
                       [] { throw TransferFailure(21, "the caller's stream is broken"); });
  s->wait_finished();
  ASSERT_TRUE(s->failed());
  EXPECT_EQ(s->code(), 21);
  EXPECT_EQ(s->delivered(), 0u);
  EXPECT_EQ(lane.queue->executed(), 0);
  EXPECT_EQ(std::count(dst.begin(), dst.end(), 0), static_cast<long>(dst.size()));
}

TEST(StagedLane, DestroyingTheLaneCompletesWhatWasSubmitted) {
  const std::size_t n = 512 * kKiB + 77;
  std::vector<std::vector<char>> srcs;
  std::vector<std::vector<char>> dsts(8, std::vector<char>(n, 0));
  std::vector<std::shared_ptr<CopyState>> states;
  {
    TestLane lane(Flow::kToHost, {std::chrono::microseconds(100)});
    for (int i = 0; i < 8; ++i) {
      srcs.push_back(pattern(n, 40u + static_cast<std::uint64_t>(i)));
      states.push_back(
          lane.submit(dsts[static_cast<std::size_t>(i)].data(), srcs.back().data(), n));
    }
  }  // the lane goes away with copies in flight
  for (std::size_t i = 0; i < states.size(); ++i) {
    EXPECT_TRUE(states[i]->finished());
    EXPECT_FALSE(states[i]->failed()) << states[i]->message();
    EXPECT_EQ(std::memcmp(dsts[i].data(), srcs[i].data(), n), 0) << i;
  }
}

TEST(StagedLane, OneThreadAndTheSmallestRingStillWork) {
  TestLane lane(Flow::kToDevice, {}, 2, 1);
  const std::vector<char> src = pattern(5 * kMiB + 3, 13);
  std::vector<char> dst(src.size(), 0);
  auto s = lane.submit(dst.data(), src.data(), src.size());
  s->wait_finished();
  EXPECT_FALSE(s->failed());
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0);
}

// A pool with no workers: only a helping thread copies, slice by slice, and the ticket
// completes exactly when the last slice is done. Both copy routines.
TEST(HostCopyPoolHelp, AHelperAloneCopiesEverySlice) {
  HostCopyPool pool(0, 2);
  for (Stores stores : {Stores::kCached, Stores::kStreaming}) {
    const std::vector<char> src = pattern(kMiB + 77, 3 + static_cast<int>(stores));
    std::vector<char> dst(src.size(), 0);
    const std::uint64_t ticket = pool.publish(dst.data(), src.data(), src.size(),
                                              reinterpret_cast<std::uintptr_t>(src.data()), stores);
    int slices = 0;
    while (pool.help_one()) {
      ++slices;
      if (!pool.complete(ticket)) continue;
      break;
    }
    EXPECT_GT(slices, 1);
    EXPECT_TRUE(pool.complete(ticket));
    EXPECT_FALSE(pool.help_one());  // nothing left to claim
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0);
  }
}

// Callers that help while they wait, on several threads at once, in both directions: every copy
// arrives intact and each waiter returns once its own copy is finished.
// Driving callers (LaneShape::caller_drives) run the coordinator's passes too, under the same
// lock: the same copies, the same bytes.
void expect_helping_callers_exact(bool caller_drives) {
  for (Flow flow : {Flow::kToDevice, Flow::kToHost}) {
    TestLane lane(flow, {std::chrono::microseconds(5)}, 3, 2, 64 * kKiB, 4 * kKiB, Stores::kCached,
                  Stores::kStreaming, caller_drives);
    std::vector<std::thread> callers;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t) {
      callers.emplace_back([&, t] {
        for (int i = 0; i < 6; ++i) {
          const std::size_t n = 300 * kKiB + static_cast<std::size_t>(t * 4099 + i * 17);
          const std::vector<char> src = pattern(n + 5, static_cast<std::uint64_t>(100 * t + i));
          std::vector<char> dst(n + 5, 0);
          auto s = lane.submit(dst.data() + 1, src.data() + 5 - (i % 5), n);
          lane.lane->help_until(*s, transfer::Lane::Until::kFinished);
          if (!s->finished() || s->failed() || s->delivered() != n ||
              std::memcmp(dst.data() + 1, src.data() + 5 - (i % 5), n) != 0) {
            ++bad;
          }
        }
      });
    }
    for (std::thread& c : callers) c.join();
    EXPECT_EQ(bad.load(), 0) << (flow == Flow::kToDevice ? "to the device" : "to the host");
  }
}

TEST(StagedLane, CallersThatHelpWhileTheyWaitKeepEveryCopyExact) {
  expect_helping_callers_exact(false);
}

TEST(StagedLane, CallersThatDriveTheLaneKeepEveryCopyExact) {
  expect_helping_callers_exact(true);
}

// A driving caller that gives up before its copy's device work is queued (the lane waits for
// something else first) leaves the copy in flight: the coordinator must take it over, or the
// copy would never finish.
TEST(StagedLane, ACopyADrivingCallerLeavesInFlightStillFinishes) {
  TestLane lane(Flow::kToDevice, {std::chrono::microseconds(5)}, 3, 2, 64 * kKiB, 4 * kKiB,
                Stores::kCached, Stores::kCached, true);
  const std::vector<char> src = pattern(2 * kMiB + 9, 41);
  std::vector<char> dst(src.size(), 0);
  std::atomic<bool> ready{false};
  Job job;
  job.dst = dst.data();
  job.src = src.data();
  job.bytes = src.size();
  job.device_ready = [&] { return ready.load(); };
  job.state = std::make_shared<CopyState>(src.size());
  auto state = job.state;
  lane.lane->submit(std::move(job));
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the caller's kHelpSpin
    ready.store(true);
  });
  lane.lane->help_until(*state, Lane::Until::kFinished);
  release.join();
  EXPECT_TRUE(state->finished());
  EXPECT_FALSE(state->failed());
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0);
}

// Two lanes, one each way, on one pool of `threads` host threads, as an engine makes them: small
// chunks, so a few MiB make many, and fake devices `knobs` slow down.
struct SharedPoolLanes {
  SharedPoolLanes(int threads, int down_depth, FakeQueue::Knobs knobs)
      : up(shape(Flow::kToDevice, 3)),
        down(shape(Flow::kToHost, down_depth)),
        pool(threads, {Lane::channel_spec(up, &up_bell), Lane::channel_spec(down, &down_bell)}),
        up_staging(up.chunk_bytes * 3),
        down_staging(down.chunk_bytes * static_cast<std::size_t>(down_depth)),
        to_device(up, up_staging.data(), std::make_unique<FakeQueue>(3, knobs), pool, 0, up_bell),
        to_host(down, down_staging.data(), std::make_unique<FakeQueue>(down_depth, knobs), pool, 1,
                down_bell) {}
  static LaneShape shape(Flow flow, int depth) {
    LaneShape s;
    s.flow = flow;
    s.chunk_bytes = 64 * kKiB;
    s.depth = depth;
    s.threads = 2;
    s.edge_chunk_bytes = 4 * kKiB;
    return s;
  }
  const LaneShape up, down;
  Doorbell up_bell, down_bell;
  HostCopyPool pool;
  std::vector<char> up_staging, down_staging;
  Lane to_device, to_host;
};

// Two lanes, one each way, on one pool of two threads (the engine's shared host threads): both
// directions move at once, every byte arrives, and the pool counts what each channel took.
TEST(StagedLane, TwoLanesShareOnePoolOfThreads) {
  SharedPoolLanes lanes(2, 4, FakeQueue::Knobs{std::chrono::microseconds(10)});
  HostCopyPool& pool = lanes.pool;
  {
    Lane& to_device = lanes.to_device;
    Lane& to_host = lanes.to_host;
    const std::vector<char> src = pattern(3 * kMiB + 11, 51);
    const std::vector<char> dev_src = pattern(3 * kMiB + 11, 52);
    std::vector<char> dev(src.size(), 0), back(src.size(), 0);
    const auto copy = [](Lane& lane, void* dst, const void* from, std::size_t n) {
      Job job;
      job.dst = dst;
      job.src = from;
      job.bytes = n;
      job.state = std::make_shared<CopyState>(n);
      auto state = job.state;
      lane.submit(std::move(job));
      return state;
    };
    for (int round = 0; round < 3; ++round) {
      auto a = copy(to_device, dev.data(), src.data(), src.size());
      auto b = copy(to_host, back.data(), dev_src.data(), dev_src.size());
      a->wait_finished();
      b->wait_finished();
      ASSERT_FALSE(a->failed()) << a->message();
      ASSERT_FALSE(b->failed()) << b->message();
      ASSERT_EQ(std::memcmp(dev.data(), src.data(), src.size()), 0) << round;
      ASSERT_EQ(std::memcmp(back.data(), dev_src.data(), dev_src.size()), 0) << round;
    }
  }
  EXPECT_GT(pool.stats(0).slices, 0u);
  EXPECT_GT(pool.stats(1).slices, 0u);
  EXPECT_GT(pool.stats(0).busy_ns, 0u);
}

// Copies that no caller helps (asynchronous ones, as the pipeline makes) must be copied by the
// pool's threads alone, whichever of them a publish wakes: a pool that woke one sleeper per
// publish and let some threads serve only one lane lost wake-ups (a wake-up taken by a thread
// of the other lane) and the lane waited for ever (the H200, 2026-12-02, a build never merged).
// Two lanes on four threads, each direction's copies in turn with every thread asleep before.
TEST(StagedLane, CopiesNobodyHelpsFinishOnASharedPool) {
  SharedPoolLanes lanes(4, 3, FakeQueue::Knobs{});
  Lane& to_device = lanes.to_device;
  Lane& to_host = lanes.to_host;
  const std::vector<char> src = pattern(kMiB + 7, 81);
  std::vector<char> dst(src.size(), 0);
  for (int round = 0; round < 20; ++round) {
    for (Lane* lane : {&to_device, &to_host}) {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));  // every thread asleep
      Job job;
      job.dst = dst.data();
      job.src = src.data();
      job.bytes = src.size();
      job.state = std::make_shared<CopyState>(src.size());
      auto state = job.state;
      lane->submit(std::move(job));
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!state->finished() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      ASSERT_TRUE(state->finished()) << "round " << round << ": a copy nobody helped never ended";
      ASSERT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0);
    }
  }
}

// While both channels have copies in flight every worker serves both, whatever their tasks are
// cut for, and every task finishes with nobody helping: six workers, one channel's tasks in one
// slice and the other's in three, tasks published on both faster than they are copied, with
// pauses that put every worker to sleep between rounds (the spare ones on their own condition
// variable). The stats count the workers that copied for each channel at once.
TEST(HostCopyPoolHelp, EveryWorkerServesBothChannelsWhileBothAreBusy) {
  HostCopyPool pool(6, {HostCopyPool::ChannelSpec{4, 1, "fill", nullptr},
                        HostCopyPool::ChannelSpec{4, 3, "drain", nullptr}});
  pool.begin_copy(0);
  pool.begin_copy(1);
  const std::vector<char> src = pattern(2 * kMiB + 123, 71);
  std::vector<std::vector<char>> dst(8, std::vector<char>(src.size(), 0));
  for (int round = 0; round < 10; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // every worker asleep
    std::vector<std::uint64_t> tickets;
    for (int i = 0; i < 8; ++i) {
      const int channel = i % 2;
      std::vector<char>& d = dst[static_cast<std::size_t>(i)];
      std::fill(d.begin(), d.end(), 0);
      tickets.push_back(pool.publish(d.data(), src.data(), src.size(),
                                     reinterpret_cast<std::uintptr_t>(src.data()), Stores::kCached,
                                     channel));
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int i = 0; i < 8; ++i) {
      while (!pool.complete(tickets[static_cast<std::size_t>(i)], i % 2) &&
             std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      ASSERT_TRUE(pool.complete(tickets[static_cast<std::size_t>(i)], i % 2))
          << "round " << round << ", task " << i << " never finished";
      ASSERT_EQ(std::memcmp(dst[static_cast<std::size_t>(i)].data(), src.data(), src.size()), 0);
    }
  }
  for (int channel = 0; channel < 2; ++channel) {
    EXPECT_GE(pool.stats(channel).most_workers, 1) << "channel " << channel;
    EXPECT_LE(pool.stats(channel).most_workers, 6) << "channel " << channel;
  }
  pool.end_copy(0);
  pool.end_copy(1);
}

// A channel alone (the other has no copy in flight) gets at most its own `threads` workers, the
// others asleep; once the other channel is busy too, or while one of its copies is wide, the
// spare workers wake and every task still finishes. Six workers, channels of two and one.
TEST(HostCopyPoolHelp, AChannelAloneGetsItsOwnThreads) {
  HostCopyPool pool(6, {HostCopyPool::ChannelSpec{8, 2, "fill", nullptr},
                        HostCopyPool::ChannelSpec{8, 1, "drain", nullptr}});
  const std::vector<char> src = pattern(kMiB + 321, 91);
  std::vector<std::vector<char>> dst(8, std::vector<char>(src.size(), 0));
  const auto round = [&](int channel) {
    std::vector<std::uint64_t> tickets;
    for (std::vector<char>& d : dst) {
      std::fill(d.begin(), d.end(), 0);
      tickets.push_back(pool.publish(d.data(), src.data(), src.size(),
                                     reinterpret_cast<std::uintptr_t>(src.data()), Stores::kCached,
                                     channel));
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (std::size_t i = 0; i < tickets.size(); ++i) {
      while (!pool.complete(tickets[i], channel) && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      ASSERT_TRUE(pool.complete(tickets[i], channel)) << "task " << i << " never finished";
      ASSERT_EQ(std::memcmp(dst[i].data(), src.data(), src.size()), 0);
    }
  };
  for (int r = 0; r < 5; ++r) {
    pool.begin_copy(1);
    round(1);
    pool.end_copy(1);
    pool.begin_copy(0);
    round(0);
    pool.end_copy(0);
  }
  EXPECT_EQ(pool.stats(1).most_workers, 1);
  EXPECT_LE(pool.stats(0).most_workers, 2);
  pool.begin_copy(0);
  pool.begin_copy(1);
  for (int r = 0; r < 5; ++r) round(1);
  pool.end_copy(1);
  for (int r = 0; r < 5; ++r) round(0);
  pool.end_copy(0);
  // A wide copy alone, then a narrow one beside it ending first: the limit comes back.
  pool.begin_copy(1, true);
  for (int r = 0; r < 5; ++r) round(1);
  pool.begin_copy(1);
  pool.end_copy(1, true);
  for (int r = 0; r < 5; ++r) round(1);
  pool.end_copy(1);
  EXPECT_LE(pool.stats(1).most_workers, 6);
}

// A touch task writes every page of its range with the byte it holds: nothing changes, and the
// bytes around the range are not written either.
TEST(HostCopyPoolHelp, ATouchChangesNoByte) {
  HostCopyPool pool(2, 4);
  std::vector<char> v = pattern(3 * kMiB + 4099, 61);
  const std::vector<char> before = v;
  const std::uint64_t t = pool.publish_touch(v.data() + 3, v.size() - 7, 2 * kMiB);
  while (!pool.complete(t)) pool.help_one();
  EXPECT_EQ(v, before);
  EXPECT_GT(pool.stats(0).slices, 0u);
}

// An idle lane costs nothing: once its threads' spins have ended they sleep, so over a quiet
// stretch the whole process (the lane's coordinator, its host threads, the fake device's
// thread) uses next to no CPU. The bound is loose (the goal is under 1% of a core): a thread
// left spinning, as one that waited with sched_yield did, would use a whole core.
TEST(StagedLane, AnIdleLaneUsesNoCpu) {
  TestLane lane(Flow::kToDevice, {}, 3, 4);
  const std::vector<char> src = pattern(kMiB, 9);
  std::vector<char> dst(kMiB, 0);
  auto s = lane.submit(dst.data(), src.data(), src.size());
  s->wait_finished();
  ASSERT_FALSE(s->failed());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the spins end within 2 ms
  const auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  };
  const double before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double used = cpu_seconds() - before;
  EXPECT_LT(used, 0.015) << "the idle process used " << used << " s of CPU in 0.3 s";
}

}  // namespace
}  // namespace pinbench::transfer
