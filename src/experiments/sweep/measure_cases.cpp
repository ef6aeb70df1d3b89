#include "experiments/sweep/measure_cases.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "base/nvtx_domain.hpp"
#include "cuda/check.hpp"
#include "cuda/copy_kernels.cuh"
#include "cuda/device.hpp"
#include "framework/case_builder.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/latch.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::sweep {
namespace {

constexpr int kMaxBatch = 32;  // samples behind one latch: the counters and events it needs
constexpr unsigned char kPlanted = 0xA5;

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
  return gate_name({"sweep", direction, to_string(kind), to_string(m)}, bytes);
}

std::string blocks_detail(int sample, unsigned long long blocks) {
  return fmt::format("sample {}: {} 16-byte block{} differ from the reference bytes", sample,
                     blocks, blocks == 1 ? "" : "s");
}

}  // namespace

KindBuffers::KindBuffers(MemoryKind k, std::size_t bytes, const cuda::HostBuffer& exp)
    : kind(k), host(bytes, k), host2(bytes, k), dev(bytes), ref(bytes), expected(exp) {
  PINBENCH_CUDA_TRY(cudaMemcpy(ref.data(), expected.data(), bytes, cudaMemcpyHostToDevice));
}

struct Measurer::Impl {
  const SweepConfig& cfg;
  bool pageable_access;
  SweepHooks hooks;
  SpinLatch latch;
  cuda::Stream sa;
  cuda::Stream sb;
  cuda::DeviceBuffer counters{2 * kMaxBatch * sizeof(unsigned long long)};

  Impl(const SweepConfig& c, bool pa, const SweepHooks& h)
      : cfg(c), pageable_access(pa), hooks(h) {}

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

  // Lets the latched streams run, waits for both, and says whether a latch gave up waiting.
  bool release_latch() { return latch.release({sa.get(), sb.get()}); }

  bool planted(int sample) const { return hooks.corrupts(sample); }

  // --- latch method ----------------------------------------------------------------------------
  // A batch of samples (the sampler sizes it) waits behind one latch; the warm-ups are queued
  // behind the first.

  Timed latched(const Leg& a, CopyMethod m, std::size_t bytes, bool& timed_out_flag) {
    Sampler sampler(cfg.stop, SampleClock::kCudaEvents, kMaxBatch);
    return sampler.run([&](Sampler& s, int first, int k, Timed& out) {
      PINBENCH_CUDA_TRY(cudaMemsetAsync(counters.data(), 0, kMaxBatch * 8, a.stream));
      latch.arm({a.stream});
      if (first == 0) {
        for (int w = 0; w < cfg.warmups; ++w) enqueue_op(a, m, bytes);
      }
      for (int i = 0; i < k; ++i) {
        enqueue_clear(a, bytes);
        s.start(i, a.stream);
        enqueue_op(a, m, bytes);
        s.stop(i, a.stream);
        if (planted(first + i)) enqueue_plant(a, bytes);
        enqueue_check(a, bytes, counter(i));
      }
      timed_out_flag = release_latch() || timed_out_flag;
      const auto bad = read_counters(k);
      for (int i = 0; i < k; ++i) {
        out.samples_ms.push_back(s.elapsed_ms(i));
        if (bad[i] != 0) out.fail(blocks_detail(first + i, bad[i]));
      }
    });
  }

  // Both directions at once, page-locked memory: one latch on each stream holds a batch of
  // samples. In each sample the streams meet at a pair of events, a base event is recorded, each
  // copy runs between events of its own, and the checks wait for both copies. The sampler
  // stops on the total; `oa` and `ob` get each direction's samples.
  Timed latched_bidir(const Leg& a, const Leg& b, CopyMethod m, std::size_t bytes, Timed& oa,
                      Timed& ob, bool& timed_out_flag) {
    const cuda::StreamView va(a.stream);
    const cuda::StreamView vb(b.stream);
    Sampler sampler(cfg.stop, SampleClock::kCudaEvents, kMaxBatch, 7);
    return sampler.run([&](Sampler& s, int first, int k, Timed& total) {
      PINBENCH_CUDA_TRY(cudaMemsetAsync(counters.data(), 0, 2 * kMaxBatch * 8, a.stream));
      PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
      latch.arm({a.stream, b.stream});
      if (first == 0) {
        for (int w = 0; w < cfg.warmups; ++w) {
          enqueue_op(a, m, bytes);
          enqueue_op(b, m, bytes);
        }
      }
      // Events of a sample: ready a, ready b, base, start a, stop a, start b, stop b.
      for (int i = 0; i < k; ++i) {
        auto e = [&](int which) -> cuda::Event& { return s.event(i, which); };
        enqueue_clear(a, bytes);
        enqueue_clear(b, bytes);
        // Both streams meet, then both copies start from a common base event.
        e(0).record(va);
        e(1).record(vb);
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(a.stream, e(1).get(), 0));
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, e(0).get(), 0));
        e(2).record(va);
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, e(2).get(), 0));
        e(3).record(va);
        enqueue_op(a, m, bytes);
        e(4).record(va);
        e(5).record(vb);
        enqueue_op(b, m, bytes);
        e(6).record(vb);
        // The checks wait for both copies: a check reading host memory across PCIe while the
        // other direction's copy still ran slowed that copy (on the H200 the host-to-device half
        // fell to about half rate).
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(a.stream, e(6).get(), 0));
        PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, e(4).get(), 0));
        if (planted(first + i)) enqueue_plant(a, bytes);
        enqueue_check(a, bytes, counter(i));
        enqueue_check(b, bytes, counter(kMaxBatch + i));
      }
      timed_out_flag = release_latch() || timed_out_flag;
      const auto bad = read_counters(2 * kMaxBatch);
      for (int i = 0; i < k; ++i) {
        record_bidir(s, i, oa, ob, total);
        if (bad[i] != 0) oa.fail(blocks_detail(first + i, bad[i]));
        if (bad[kMaxBatch + i] != 0) ob.fail(blocks_detail(first + i, bad[kMaxBatch + i]));
      }
      if (oa.failed || ob.failed) total.fail(oa.failed ? oa.detail : ob.detail);
    });
  }

  // A bidir sample's three times from its events (numbered as in latched_bidir).
  static void record_bidir(Sampler& s, int i, Timed& oa, Timed& ob, Timed& total) {
    auto ms = [&](int from, int to) {
      return cuda::Event::elapsed_ms(s.event(i, from), s.event(i, to));
    };
    oa.samples_ms.push_back(ms(3, 4));
    ob.samples_ms.push_back(ms(5, 6));
    total.samples_ms.push_back(std::max(ms(2, 4), ms(2, 6)));
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

  Timed blocking(const Leg& a, MemoryKind kind, bool src_is_host, CopyMethod m, std::size_t bytes) {
    Sampler sampler(cfg.stop, SampleClock::kCudaEvents);
    return sampler.run(
        [&](Sampler& s, int sample, int, Timed& out) {
          prepare(a, kind, src_is_host, bytes);
          s.start(0, a.stream);
          enqueue_op(a, m, bytes);
          s.stop(0, a.stream);
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
          out.samples_ms.push_back(s.elapsed_ms(0));
          if (const auto bad = check(a, bytes, sample, 0)) out.fail(blocks_detail(sample, bad));
        },
        [&] {
          for (int w = 0; w < cfg.warmups; ++w) {
            prepare(a, kind, src_is_host, bytes);
            enqueue_op(a, m, bytes);
            PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
          }
        });
  }

  // Both directions at once with memory the driver stages: each call may hold its thread, so
  // each direction gets a thread of its own. Both start after a common base event (the events
  // are numbered as in latched_bidir).
  Timed blocking_bidir(const Leg& a, const Leg& b, MemoryKind kind, CopyMethod m, std::size_t bytes,
                       Timed& oa, Timed& ob) {
    const cuda::StreamView va(a.stream);
    const cuda::StreamView vb(b.stream);
    Sampler sampler(cfg.stop, SampleClock::kCudaEvents, 1, 7);
    auto one_sample = [&](Sampler& s) {
      prepare(a, kind, true, bytes);
      prepare(b, kind, false, bytes);
      s.event(0, 2).record(va);
      PINBENCH_CUDA_TRY(cudaStreamWaitEvent(b.stream, s.event(0, 2).get(), 0));
      std::atomic<bool> go{false};
      std::exception_ptr failure;
      std::thread other([&] {
        try {
          cuda::use_selected_device();  // a new thread starts on device 0
          while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
          s.event(0, 5).record(vb);
          enqueue_op(b, m, bytes);
          s.event(0, 6).record(vb);
          PINBENCH_CUDA_TRY(cudaStreamSynchronize(b.stream));
        } catch (...) {
          failure = std::current_exception();
        }
      });
      go.store(true, std::memory_order_release);
      try {
        s.event(0, 3).record(va);
        enqueue_op(a, m, bytes);
        s.event(0, 4).record(va);
        PINBENCH_CUDA_TRY(cudaStreamSynchronize(a.stream));
      } catch (...) {
        other.join();
        throw;
      }
      other.join();
      if (failure) std::rethrow_exception(failure);
    };
    return sampler.run(
        [&](Sampler& s, int sample, int, Timed& total) {
          one_sample(s);
          record_bidir(s, 0, oa, ob, total);
          if (const auto bad = check(a, bytes, sample, 0)) oa.fail(blocks_detail(sample, bad));
          if (const auto bad = check(b, bytes, kNoPlant, 1)) ob.fail(blocks_detail(sample, bad));
          if (oa.failed || ob.failed) total.fail(oa.failed ? oa.detail : ob.detail);
        },
        [&] {
          for (int w = 0; w < cfg.warmups; ++w) one_sample(sampler);
        });
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
  const PhaseRange range(fmt::format("sweep {}/{} {}{}", to_string(kind), to_string(method),
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

  auto make_case = [&](const char* dir, std::uint64_t case_bytes, const Timed& s,
                       const std::string& gate) {
    const CaseSpec spec{"sweep", dir,        to_string(kind), to_string(method),
                        timing,  case_bytes, m.cfg.warmups,   gate};
    Case c = pinbench::make_case(spec, s);
    c.extra = {{"latch_timed_out", timed_out}};
    return c;
  };
  auto add_gate = [&](const std::string& name, const Timed& s) {
    record.gates.push_back(sampled_gate(name, s, every_sample_detail(s.samples_ms.size(), bytes)));
  };

  if (direction != Direction::kBidir) {
    const Leg& leg = direction == Direction::kH2D ? h2d : d2h;
    const Timed s = latch ? m.latched(leg, method, bytes, timed_out)
                          : m.blocking(leg, kind, direction == Direction::kH2D, method, bytes);
    const std::string gate = case_key(to_string(direction), kind, method, bytes);
    add_gate(gate, s);
    record.cases.push_back(make_case(to_string(direction), bytes, s, gate));
    return "";
  }

  Timed sa;
  Timed sb;
  Timed total = latch ? m.latched_bidir(h2d, d2h, method, bytes, sa, sb, timed_out)
                      : m.blocking_bidir(h2d, d2h, kind, method, bytes, sa, sb);
  sa.stop = total.stop;
  sb.stop = total.stop;
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

}  // namespace pinbench::experiments::sweep
