#include "experiments/sweep_measure.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "core/pattern.hpp"
#include "core/units.hpp"
#include "cuda/check.hpp"
#include "cuda/copy_kernels.cuh"
#include "cuda/nvtx.hpp"

namespace pinbench::sweep {
namespace {

constexpr std::uint64_t kLatchTimeoutNs = 5'000'000'000ull;
constexpr int kMaxBatch = 32;
constexpr double kBatchTargetMs = 20.0;  // how long one latched batch of samples should run
constexpr unsigned char kPlanted = 0xA5;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// One copy: its two ends as the host names them, and as a kernel reaches them.
struct Leg {
  void* dst = nullptr;
  const void* src = nullptr;
  void* dst_dev = nullptr;        // nullptr: no kernel can reach the destination
  const void* src_dev = nullptr;  // nullptr: no kernel can reach the source
  bool dst_on_host = false;
  bool check_on_device = false;    // compare with `ref` on the device; else on the host
  const void* ref = nullptr;       // reference bytes in device memory
  const void* expected = nullptr;  // reference bytes in host memory
  cudaStream_t stream = nullptr;
  cudaMemcpyKind kind = cudaMemcpyDefault;  // named by measure(), as a user would name it
};

void enqueue_op(const Leg& l, CopyMethod m, std::size_t bytes) {
  if (m == CopyMethod::kCopyEngine) {
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(l.dst, l.src, bytes, l.kind, l.stream));
  } else {
    cuda::launch_sm_copy(l.dst_dev, l.src_dev, bytes, l.stream);
  }
}

// Clears the destination in stream order where the device can reach it; returns false when only
// the host can (the caller clears it between samples).
bool enqueue_clear(const Leg& l, std::size_t bytes) {
  if (!l.dst_on_host) {
    PINBENCH_CUDA_TRY(cudaMemsetAsync(l.dst, 0, bytes, l.stream));
    return true;
  }
  if (l.check_on_device) {
    cuda::launch_fill(l.dst_dev, 0, bytes, l.stream);
    return true;
  }
  return false;
}

// Two neighbouring bytes get two different values, so the plant changes the destination
// whatever the reference bytes happen to be there.
void enqueue_plant(const Leg& l, std::size_t bytes) {
  char* target = static_cast<char*>(l.dst_on_host ? l.dst_dev : l.dst) + bytes / 2;
  cuda::launch_fill(target, kPlanted, 1, l.stream);
  cuda::launch_fill(target + 1, static_cast<unsigned char>(~kPlanted), 1, l.stream);
}

void host_plant(const Leg& l, std::size_t bytes) {
  static_cast<unsigned char*>(l.dst)[bytes / 2] ^= 0xFF;
}

constexpr int kNoPlant = -2;  // a sample number that no hook names

void enqueue_check(const Leg& l, std::size_t bytes, unsigned long long* counter) {
  const void* d = l.dst_on_host ? static_cast<const void*>(l.dst_dev) : l.dst;
  cuda::launch_compare(d, l.ref, bytes, counter, l.stream);
}

std::string case_key(const char* direction, MemoryKind kind, CopyMethod m, std::size_t bytes) {
  std::string size = format_size(bytes);
  size.erase(std::remove(size.begin(), size.end(), ' '), size.end());
  return fmt::format("sweep/{}/{}/{}/{}", direction, to_string(kind), to_string(m), size);
}

// What one leg's sampling produced.
struct Samples {
  std::vector<double> ms;
  bool failed = false;
  std::string detail;
  void fail(int sample, unsigned long long blocks) {
    if (failed) return;
    failed = true;
    detail = fmt::format("sample {}: {} 16-byte block{} differ from the reference bytes", sample,
                         blocks, blocks == 1 ? "" : "s");
  }
};

}  // namespace

KindBuffers::KindBuffers(MemoryKind k, std::size_t bytes, const cuda::HostBuffer& exp)
    : kind(k), host(bytes, k), host2(bytes, k), dev(bytes), ref(bytes), expected(exp) {
  PINBENCH_CUDA_TRY(cudaMemcpy(ref.data(), expected.data(), bytes, cudaMemcpyHostToDevice));
}

struct Measurer::Impl {
  const SweepConfig& cfg;
  bool pageable_access;
  SweepHooks hooks;
  cuda::HostBuffer flags{64, MemoryKind::kMapped};
  volatile int* release = nullptr;
  int* timed_out = nullptr;
  const volatile int* release_dev = nullptr;
  int* timed_out_dev = nullptr;
  cuda::Stream sa;
  cuda::Stream sb;
  cuda::DeviceBuffer counters{2 * kMaxBatch * sizeof(unsigned long long)};
  std::vector<cuda::Event> ev = std::vector<cuda::Event>(7 * kMaxBatch);

  Impl(const SweepConfig& c, bool pa, const SweepHooks& h) : cfg(c), pageable_access(pa), hooks(h) {
    release = static_cast<volatile int*>(flags.data());
    timed_out = static_cast<int*>(flags.data()) + 1;
    auto* dev = static_cast<int*>(flags.device_pointer());
    release_dev = dev;
    timed_out_dev = dev + 1;
  }

  unsigned long long* counter(int i) {
    return static_cast<unsigned long long*>(counters.data()) + i;
  }

  // Page-locked, so that a trace's memory-kind check of a case sees the counters' read-back as
  // the kind the case itself moves (the pageable cases check their bytes on the host instead).
  cuda::HostBuffer counters_host{2 * kMaxBatch * sizeof(unsigned long long), MemoryKind::kPinned};

  std::vector<unsigned long long> read_counters(int n) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(unsigned long long);
    PINBENCH_CUDA_TRY(
        cudaMemcpy(counters_host.data(), counters.data(), bytes, cudaMemcpyDeviceToHost));
    const auto* first = static_cast<const unsigned long long*>(counters_host.data());
    return std::vector<unsigned long long>(first, first + n);
  }

  void arm_latch(std::initializer_list<cudaStream_t> streams) {
    *release = 0;
    *timed_out = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (cudaStream_t s : streams)
      cuda::launch_latch(release_dev, timed_out_dev, kLatchTimeoutNs, s);
  }

  // Lets the latched streams run, waits for them, and says whether a latch gave up waiting.
  bool release_latch() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *release = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    sa.synchronize();
    sb.synchronize();
    return *timed_out != 0;
  }

  // Samples to queue behind the next latch: enough to fill about kBatchTargetMs, never past the
  // sample cap.
  int next_batch(const std::vector<double>& ms) const {
    const int left = cfg.stop.max_samples - static_cast<int>(ms.size());
    const double per = ms.empty() ? 1.0 : std::max(ms.back(), 1e-3);
    return std::max(
        1, std::min(std::clamp(static_cast<int>(kBatchTargetMs / per), 2, kMaxBatch), left));
  }

  bool planted(int sample) const {
    return hooks.corrupt_after_sample >= 0 && hooks.corrupt_after_sample == sample;
  }

  // --- latch method ----------------------------------------------------------------------------

  void latched(const Leg& a, CopyMethod m, std::size_t bytes, Samples& out, bool& timed_out_flag,
               std::string& stop) {
    const auto t0 = Clock::now();
    int done = 0;
    int k = std::min(cfg.stop.min_samples, kMaxBatch);
    while (true) {
      PINBENCH_CUDA_TRY(cudaMemsetAsync(counters.data(), 0, kMaxBatch * 8, a.stream));
      arm_latch({a.stream});
      if (done == 0) {
        for (int w = 0; w < cfg.warmups; ++w) enqueue_op(a, m, bytes);
      }
      for (int i = 0; i < k; ++i) {
        enqueue_clear(a, bytes);
        ev[2 * i].record(cuda::StreamView(a.stream));
        enqueue_op(a, m, bytes);
        ev[2 * i + 1].record(cuda::StreamView(a.stream));
        if (planted(done + i)) enqueue_plant(a, bytes);
        enqueue_check(a, bytes, counter(i));
      }
      timed_out_flag = release_latch() || timed_out_flag;
      const auto bad = read_counters(k);
      for (int i = 0; i < k; ++i) {
        out.ms.push_back(cuda::Event::elapsed_ms(ev[2 * i], ev[2 * i + 1]));
        if (bad[i] != 0) out.fail(done + i, bad[i]);
      }
      done += k;
      const StopReason r = should_stop(cfg.stop, out.ms, ms_since(t0));
      if (out.failed || r != StopReason::kContinue) {
        stop = out.failed ? "gate failed" : to_string(r);
        return;
      }
      k = next_batch(out.ms);
    }
  }

  // Both directions at once, page-locked memory: one latch on each stream holds a batch of
  // samples. In each sample the streams meet at a pair of events, a base event is recorded, each
  // copy runs between events of its own, and the checks wait for both copies.
  void latched_bidir(const Leg& a, const Leg& b, CopyMethod m, std::size_t bytes, Samples& oa,
                     Samples& ob, Samples& total, bool& timed_out_flag, std::string& stop) {
    const auto t0 = Clock::now();
    int done = 0;
    int k = std::min(cfg.stop.min_samples, kMaxBatch);
    const cuda::StreamView va(a.stream);
    const cuda::StreamView vb(b.stream);
    while (true) {
      PINBENCH_CUDA_TRY(cudaMemsetAsync(counters.data(), 0, 2 * kMaxBatch * 8, a.stream));
      PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
      arm_latch({a.stream, b.stream});
      if (done == 0) {
        for (int w = 0; w < cfg.warmups; ++w) {
          enqueue_op(a, m, bytes);
          enqueue_op(b, m, bytes);
        }
      }
      for (int i = 0; i < k; ++i) {
        cuda::Event* e = &ev[7 * i];  // ready a, ready b, base, start a, stop a, start b, stop b
        enqueue_clear(a, bytes);
        enqueue_clear(b, bytes);
        // Both streams meet, then both copies start from a common base event.
        e[0].record(va);
        e[1].record(vb);
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(a.stream, e[1].get(), 0));
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, e[0].get(), 0));
        e[2].record(va);
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, e[2].get(), 0));
        e[3].record(va);
        enqueue_op(a, m, bytes);
        e[4].record(va);
        e[5].record(vb);
        enqueue_op(b, m, bytes);
        e[6].record(vb);
        // The checks wait for both copies: a check reading host memory across PCIe while the
        // other direction's copy still ran slowed that copy (on the H200 the host-to-device half
        // fell to about half rate).
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(a.stream, e[6].get(), 0));
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, e[4].get(), 0));
        if (planted(done + i)) enqueue_plant(a, bytes);
        enqueue_check(a, bytes, counter(i));
        enqueue_check(b, bytes, counter(kMaxBatch + i));
      }
      timed_out_flag = release_latch() || timed_out_flag;
      const auto bad = read_counters(2 * kMaxBatch);
      for (int i = 0; i < k; ++i) {
        const cuda::Event* e = &ev[7 * i];
        oa.ms.push_back(cuda::Event::elapsed_ms(e[3], e[4]));
        ob.ms.push_back(cuda::Event::elapsed_ms(e[5], e[6]));
        total.ms.push_back(
            std::max(cuda::Event::elapsed_ms(e[2], e[4]), cuda::Event::elapsed_ms(e[2], e[6])));
        if (bad[i] != 0) oa.fail(done + i, bad[i]);
        if (bad[kMaxBatch + i] != 0) ob.fail(done + i, bad[kMaxBatch + i]);
      }
      done += k;
      const bool failed = oa.failed || ob.failed;
      const StopReason r = should_stop(cfg.stop, total.ms, ms_since(t0));
      if (failed || r != StopReason::kContinue) {
        stop = failed ? "gate failed" : to_string(r);
        return;
      }
      k = next_batch(total.ms);
    }
  }

  // --- blocking method -------------------------------------------------------------------------

  // Host-side preparation before a sample: clear a destination only the host can reach, and
  // bring a managed source's pages back to the host.
  void prepare(const Leg& l, MemoryKind kind, bool src_is_host, std::size_t bytes) {
    if (!enqueue_clear(l, bytes)) std::memset(l.dst, 0, bytes);
    if (src_is_host && kind == MemoryKind::kManaged) {
      std::memcpy(const_cast<void*>(l.src), l.expected, bytes);
    }
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(l.stream));
  }

  // Checks a finished sample; plants the test corruption first when asked.
  unsigned long long check(const Leg& l, std::size_t bytes, int sample, int slot) {
    if (planted(sample)) {
      if (l.check_on_device || !l.dst_on_host) {
        enqueue_plant(l, bytes);
      } else {
        host_plant(l, bytes);
      }
    }
    if (l.check_on_device || !l.dst_on_host) {
      PINBENCH_CUDA_TRY(cudaMemsetAsync(counter(slot), 0, 8, l.stream));
      enqueue_check(l, bytes, counter(slot));
      PINBENCH_CUDA_TRY(cudaStreamSynchronize(l.stream));
      return read_counters(slot + 1)[static_cast<std::size_t>(slot)];
    }
    return first_mismatch(l.dst, l.expected, bytes) ? 1 : 0;
  }

  void blocking(const Leg& a, MemoryKind kind, bool src_is_host, CopyMethod m, std::size_t bytes,
                Samples& out, std::string& stop) {
    for (int w = 0; w < cfg.warmups; ++w) {
      prepare(a, kind, src_is_host, bytes);
      enqueue_op(a, m, bytes);
      PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
    }
    const auto t0 = Clock::now();
    const cuda::StreamView va(a.stream);
    for (int sample = 0;; ++sample) {
      prepare(a, kind, src_is_host, bytes);
      ev[0].record(va);
      enqueue_op(a, m, bytes);
      ev[1].record(va);
      PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
      out.ms.push_back(cuda::Event::elapsed_ms(ev[0], ev[1]));
      if (const auto bad = check(a, bytes, sample, 0)) out.fail(sample, bad);
      const StopReason r = should_stop(cfg.stop, out.ms, ms_since(t0));
      if (out.failed || r != StopReason::kContinue) {
        stop = out.failed ? "gate failed" : to_string(r);
        return;
      }
    }
  }

  // Both directions at once with memory the driver stages: each call may hold its thread, so
  // each direction gets a thread of its own. Both start after a common base event.
  void blocking_bidir(const Leg& a, const Leg& b, MemoryKind kind, CopyMethod m, std::size_t bytes,
                      Samples& oa, Samples& ob, Samples& total, std::string& stop) {
    const cuda::StreamView va(a.stream);
    const cuda::StreamView vb(b.stream);
    auto one_sample = [&](bool timed) {
      prepare(a, kind, true, bytes);
      prepare(b, kind, false, bytes);
      ev[2].record(va);
      PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, ev[2].get(), 0));
      std::atomic<bool> go{false};
      std::exception_ptr failure;
      std::thread other([&] {
        try {
          while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
          ev[5].record(vb);
          enqueue_op(b, m, bytes);
          ev[6].record(vb);
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(b.stream));
        } catch (...) {
          failure = std::current_exception();
        }
      });
      go.store(true, std::memory_order_release);
      try {
        ev[3].record(va);
        enqueue_op(a, m, bytes);
        ev[4].record(va);
        PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
      } catch (...) {
        other.join();
        throw;
      }
      other.join();
      if (failure) std::rethrow_exception(failure);
      if (!timed) return;
      oa.ms.push_back(cuda::Event::elapsed_ms(ev[3], ev[4]));
      ob.ms.push_back(cuda::Event::elapsed_ms(ev[5], ev[6]));
      total.ms.push_back(
          std::max(cuda::Event::elapsed_ms(ev[2], ev[4]), cuda::Event::elapsed_ms(ev[2], ev[6])));
    };
    for (int w = 0; w < cfg.warmups; ++w) one_sample(false);
    const auto t0 = Clock::now();
    for (int sample = 0;; ++sample) {
      one_sample(true);
      if (const auto bad = check(a, bytes, sample, 0)) oa.fail(sample, bad);
      if (const auto bad = check(b, bytes, kNoPlant, 1)) ob.fail(sample, bad);
      const bool failed = oa.failed || ob.failed;
      const StopReason r = should_stop(cfg.stop, total.ms, ms_since(t0));
      if (failed || r != StopReason::kContinue) {
        stop = failed ? "gate failed" : to_string(r);
        return;
      }
    }
  }
};

Measurer::Measurer(const SweepConfig& config, bool pageable_access, const SweepHooks& hooks)
    : impl_(std::make_unique<Impl>(config, pageable_access, hooks)) {}

Measurer::~Measurer() = default;

std::string Measurer::measure(KindBuffers& b, Direction direction, CopyMethod method,
                              std::size_t bytes, RunRecord& record) {
  Impl& m = *impl_;
  const MemoryKind kind = b.kind;
  const bool locked = is_page_locked(kind);
  const bool reachable = locked || kind == MemoryKind::kManaged || m.pageable_access;
  if (method == CopyMethod::kSmKernel && !reachable) {
    return "the device cannot reach pageable memory from a kernel "
           "(cudaDevAttrPageableMemoryAccess is 0)";
  }
  auto host_dev = [&](cuda::HostBuffer& h) -> void* {
    if (locked || kind == MemoryKind::kManaged) return h.device_pointer();
    return m.pageable_access ? h.data() : nullptr;
  };

  // A range per case, so a trace can tell the cases apart and check that the driver saw each
  // buffer as the kind it is (the last word: what the driver should see, where it is one of
  // the two the check knows). Only copy-engine cases name it: an SM copy is a kernel, and the
  // check reads the driver's copy records.
  const char* driver_kind = method != CopyMethod::kCopyEngine ? ""
                            : locked                          ? " pinned"
                            : kind == MemoryKind::kManaged    ? ""
                                                              : " pageable";
  const cuda::NvtxRange range(fmt::format("sweep {}/{} {}{}", to_string(kind), to_string(method),
                                          to_string(direction), driver_kind));

  // The sources hold the reference bytes before any case starts.
  std::memcpy(b.host.data(), b.expected.data(), bytes);

  Leg h2d;
  h2d.src = b.host.data();
  h2d.src_dev = host_dev(b.host);
  h2d.dst = b.dev.data();
  h2d.dst_dev = b.dev.data();
  h2d.ref = b.ref.data();
  h2d.expected = b.expected.data();
  h2d.stream = m.sa.get();
  h2d.kind = cudaMemcpyHostToDevice;

  cuda::HostBuffer& d2h_dst = direction == Direction::kBidir ? b.host2 : b.host;
  Leg d2h;
  d2h.src = b.ref.data();
  d2h.src_dev = b.ref.data();
  d2h.dst = d2h_dst.data();
  d2h.dst_dev = host_dev(d2h_dst);
  d2h.dst_on_host = true;
  d2h.check_on_device = locked;
  d2h.ref = b.ref.data();
  d2h.expected = b.expected.data();
  d2h.stream = direction == Direction::kBidir ? m.sb.get() : m.sa.get();
  d2h.kind = cudaMemcpyDeviceToHost;

  // Page-locked memory never makes the driver hold the host, so it can wait behind a latch.
  const bool latch = locked;
  const std::string timing = latch ? "latch" : "blocking";
  bool timed_out = false;
  std::string stop;

  auto make_case = [&](const char* dir, std::uint64_t case_bytes, const Samples& s,
                       const std::string& gate) {
    Case c;
    c.part = "sweep";
    c.direction = dir;
    c.memory = to_string(kind);
    c.method = to_string(method);
    c.timing = timing;
    c.bytes = case_bytes;
    c.warmups = m.cfg.warmups;
    c.samples_ms = s.ms;
    c.gate = gate;
    c.verified = !s.failed && !s.ms.empty();
    c.extra = {{"stop", stop}, {"spread", relative_spread(s.ms)}, {"latch_timed_out", timed_out}};
    return c;
  };
  auto add_gate = [&](const std::string& name, const Samples& s) {
    record.gates.push_back({name, !s.failed,
                            s.failed ? s.detail
                                     : fmt::format("every one of {} samples delivered all {} bytes",
                                                   s.ms.size(), bytes)});
  };

  if (direction != Direction::kBidir) {
    const Leg& leg = direction == Direction::kH2D ? h2d : d2h;
    Samples s;
    if (latch) {
      m.latched(leg, method, bytes, s, timed_out, stop);
    } else {
      m.blocking(leg, kind, direction == Direction::kH2D, method, bytes, s, stop);
    }
    const std::string gate = case_key(to_string(direction), kind, method, bytes);
    add_gate(gate, s);
    record.cases.push_back(make_case(to_string(direction), bytes, s, gate));
    return "";
  }

  Samples sa;
  Samples sb;
  Samples total;
  if (latch) {
    m.latched_bidir(h2d, d2h, method, bytes, sa, sb, total, timed_out, stop);
  } else {
    m.blocking_bidir(h2d, d2h, kind, method, bytes, sa, sb, total, stop);
  }
  const std::string gate_a = case_key("bidir-h2d", kind, method, bytes);
  const std::string gate_b = case_key("bidir-d2h", kind, method, bytes);
  add_gate(gate_a, sa);
  add_gate(gate_b, sb);
  total.failed = sa.failed || sb.failed;
  record.cases.push_back(make_case("bidir-h2d", bytes, sa, gate_a));
  record.cases.push_back(make_case("bidir-d2h", bytes, sb, gate_b));
  Case t = make_case("bidir-total", 2 * bytes, total, gate_a);
  t.extra["gates"] = {gate_a, gate_b};
  record.cases.push_back(t);
  return "";
}

}  // namespace pinbench::sweep
