// `pinbench blocks`: for each direction, host-memory kind, cell and method, the cell's blocks are
// placed in a host arena and a device arena by place_blocks (the record's seed), and moved by the
// method: a cudaMemcpyAsync per block, one cudaMemcpyBatchAsync with each source access order, a
// gather/scatter kernel over mapped page-locked memory (its block table copied to the device
// within the sample), the staged engine's batch call, and one contiguous copy of the same bytes
// from the arenas' first byte (the reference). Every sample is timed with the host clock from the
// first call to the copy's completion, every method alike (the driver may hold the thread inside
// a call from pageable memory, so only that clock is fair to all), and the time the calls held
// the thread is kept as the sample's call time. Before each sample the destination blocks are
// cleared; after it every block is checked byte for byte against the bytes its source held: on
// the device by a compare kernel over the blocks, on the host with memcmp.
#include "experiments/blocks/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/batch_copy.hpp"
#include "base/slowdown_range.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "experiments/blocks/beside_gemm.hpp"
#include "experiments/blocks/beside_kernels.cuh"
#include "framework/case_builder.hpp"
#include "framework/engine_options.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"
#include "pinbench/staged_copy.hpp"
#include "transfer/blocks/block_kernels.hpp"

namespace pinbench::experiments::blocks {
namespace {

using transfer::BlockCopy;

constexpr std::uint64_t kPatternSeed = 0xB10C5;

// Where the blocks of one case sit: offsets into the two arenas, all of one size. The contiguous
// reference is one block of the cell's bytes at the start of both arenas.
struct Layout {
  std::uint64_t block_bytes = 0;
  std::vector<std::uint64_t> host_offsets, device_offsets;
};

struct HostArenas {
  MemoryKind kind;
  cuda::HostBuffer src;  // holds the pattern: the source to the device
  cuda::HostBuffer dst;  // the destination to the host
};

// Everything a run allocates once.
struct Rig {
  Rig(const BlocksConfig& c, std::uint64_t arena_bytes, bool engine)
      : arena(arena_bytes),
        pattern(arena_bytes, MemoryKind::kPageable),
        dev_src(arena_bytes),
        dev_dst(arena_bytes) {
    fill_pattern(pattern.data(), arena, kPatternSeed);
    for (MemoryKind k : c.memory) {
      host.push_back({k, cuda::HostBuffer(arena, k), cuda::HostBuffer(arena, k)});
      std::memcpy(host.back().src.data(), pattern.data(), arena);
    }
    PINBENCH_CUDA_TRY(cudaMemcpy(dev_src.data(), pattern.data(), arena, cudaMemcpyHostToDevice));
    std::uint64_t most = 1;
    for (std::uint64_t n : c.counts) most = std::max(most, n);
    table_bytes = most * sizeof(BlockCopy);
    table_host = cuda::HostBuffer(table_bytes, MemoryKind::kPinned);
    table_dev = cuda::DeviceBuffer(table_bytes);
    check_dev = cuda::DeviceBuffer(table_bytes);
    if (engine) copier.emplace();
  }
  HostArenas& arenas(MemoryKind k) {
    for (HostArenas& a : host) {
      if (a.kind == k) return a;
    }
    throw std::logic_error("no arenas of that kind");
  }

  std::uint64_t arena;
  cuda::HostBuffer pattern;  // pageable: what every source arena holds
  std::vector<HostArenas> host;
  cuda::DeviceBuffer dev_src;  // holds the pattern: the source to the host
  cuda::DeviceBuffer dev_dst;
  cuda::Stream stream;
  std::uint64_t table_bytes = 0;
  cuda::HostBuffer table_host;  // page-locked: the kernel's block table, copied within a sample
  cuda::DeviceBuffer table_dev;
  cuda::DeviceBuffer check_dev;  // the check's table: (expected, written) per block
  cuda::DeviceBuffer counter{sizeof(unsigned long long)};
  cuda::HostBuffer counter_host{sizeof(unsigned long long), MemoryKind::kPinned};
  std::optional<StagedCopier> copier;
};

// One case's blocks as each method needs them, and how to check them.
struct Leg {
  bool to_device = true;
  std::size_t block_bytes = 0;
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<std::size_t> sizes;
  std::vector<BlockCopy> table;  // the ends as the kernel reaches them
  std::vector<StagedBlock> staged;
  void* host_arena = nullptr;  // the engine's two arenas
  void* device_arena = nullptr;
  std::vector<BlockCopy> check;       // to the device: (expected, written) on the device
  std::vector<const char*> expected;  // to the host: the bytes each destination must hold
  bool aligned16 = false;
};

Leg make_leg(Rig& rig, bool to_device, MemoryKind kind, const Layout& layout) {
  HostArenas& a = rig.arenas(kind);
  char* host = static_cast<char*>(to_device ? a.src.data() : a.dst.data());
  // How the kernel reaches the host arena: mapped page-locked memory, or pageable memory itself
  // where the device can reach it (the kernel runs on pageable memory only there).
  char* host_dev = !is_page_locked(kind) ? host
                                         : static_cast<char*>(to_device ? a.src.device_pointer()
                                                                        : a.dst.device_pointer());
  char* device = static_cast<char*>(to_device ? rig.dev_dst.data() : rig.dev_src.data());
  Leg l;
  l.to_device = to_device;
  l.block_bytes = layout.block_bytes;
  l.host_arena = host;
  l.device_arena = device;
  l.aligned16 = layout.block_bytes % 16 == 0;
  const auto* pattern = static_cast<const char*>(rig.pattern.data());
  const auto* dev_pattern = static_cast<const char*>(rig.dev_src.data());
  for (std::size_t i = 0; i < layout.host_offsets.size(); ++i) {
    const std::uint64_t h = layout.host_offsets[i];
    const std::uint64_t d = layout.device_offsets[i];
    l.dsts.push_back(to_device ? device + d : host + h);
    l.srcs.push_back(to_device ? host + h : device + d);
    l.sizes.push_back(layout.block_bytes);
    l.table.push_back(to_device ? BlockCopy{host_dev + h, device + d}
                                : BlockCopy{device + d, host_dev + h});
    l.staged.push_back({h, d, layout.block_bytes});
    if (to_device) {
      l.check.push_back({dev_pattern + h, device + d});
    } else {
      l.expected.push_back(pattern + d);
    }
  }
  return l;
}

cudaMemcpySrcAccessOrder access_order(BlocksMethod m) {
  return m == BlocksMethod::kBatchDuringCall ? cudaMemcpySrcAccessOrderDuringApiCall
         : m == BlocksMethod::kBatchAny      ? cudaMemcpySrcAccessOrderAny
                                             : cudaMemcpySrcAccessOrderStream;
}

// The calls of one method, queued on the rig's stream (the engine's call returns when done);
// returns how many API calls it made. `sms`: the kernel's thread blocks, at most one per SM.
struct Mover {
  Rig& rig;
  unsigned sms = 0;
  unsigned grid_used = 0;  // the kernel's last launch

  std::size_t run(BlocksMethod m, const Leg& l) {
    const cudaStream_t s = rig.stream.get();
    const cudaMemcpyKind kind = l.to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    const std::size_t n = l.dsts.size();
    switch (m) {
      case BlocksMethod::kLoop:
      case BlocksMethod::kContiguous:
        for (std::size_t i = 0; i < n; ++i) {
          PINBENCH_CUDA_TRY(cudaMemcpyAsync(l.dsts[i], l.srcs[i], l.sizes[i], kind, s));
        }
        return n;
      case BlocksMethod::kBatchStream:
      case BlocksMethod::kBatchDuringCall:
      case BlocksMethod::kBatchAny:
      case BlocksMethod::kBatchOverlap: {
        cudaMemcpyAttributes attr =
            batch_copy_attributes(l.to_device, access_order(m), cuda::selected_device());
        if (m == BlocksMethod::kBatchOverlap) attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
        std::size_t first = 0;
        PINBENCH_CUDA_TRY(cudaMemcpyBatchAsync(l.dsts.data(), l.srcs.data(), l.sizes.data(), n,
                                               &attr, &first, 1, s));
        return 1;
      }
      case BlocksMethod::kKernel:
        PINBENCH_CUDA_TRY(cudaMemcpyAsync(rig.table_dev.data(), rig.table_host.data(),
                                          n * sizeof(BlockCopy), cudaMemcpyHostToDevice, s));
        PINBENCH_CUDA_TRY(
            transfer::launch_block_copy(static_cast<const BlockCopy*>(rig.table_dev.data()), n,
                                        l.block_bytes, sms, l.aligned16, s, &grid_used));
        return 2;
      case BlocksMethod::kStaged:
        if (l.to_device) {
          rig.copier->copy_blocks_to_device(l.device_arena, l.host_arena, l.staged.data(), n, s);
        } else {
          rig.copier->copy_blocks_to_host(l.host_arena, l.device_arena, l.staged.data(), n, s);
        }
        return 1;
    }
    return 0;
  }
};

// --beside: a kernel run back to back on a stream of its own while the copy runs. A launch is
// sized to take about kLaunchMs alone; a sample queues a train of launches long enough to cover
// the copy (from the warm-ups' time) and times it with events; the same train alone, timed
// before the case's samples, is the reference. The train's extra time is what the copy cost
// the kernel; over the copy's time less that, it is the kernel's slowdown while the copy ran.
// A copy shorter than kMinWindowMs runs that many times back to back in each sample (the same
// blocks again), so the window the slowdown is measured over is well above the train's noise.
struct Beside {
  static constexpr double kLaunchMs = 0.1;
  static constexpr double kMinWindowMs = 2.0;
  static constexpr int kMostRepeats = 1000;
  static constexpr std::size_t kFloats = 32u << 20;  // two arrays of 128 MiB: past any L2

  Beside(const std::string& kind_, unsigned sms_) : kind(kind_), sms(sms_) {
    if (kind == "gemm") gemm = std::make_unique<CublasGemm>();
    if (kind == "memory") {
      src = cuda::DeviceBuffer(kFloats * sizeof(float));
      dst = cuda::DeviceBuffer(kFloats * sizeof(float));
      PINBENCH_CUDA_TRY(cudaMemset(src.data(), 0, kFloats * sizeof(float)));
    }
    sink = cuda::DeviceBuffer(2 * sms * sizeof(float));
    // Work doubled until one launch takes kLaunchMs alone (for the GEMM, the matrices' side).
    work = kind == "memory" ? 1 : kind == "gemm" ? 512 : 1024;
    const unsigned most = kind == "gemm" ? 8192 : (1u << 24);
    while (true) {
      launch_ms = time_train(5) / 5;
      if (launch_ms >= kLaunchMs || work >= most) break;
      work *= 2;
    }
  }

  void launch() {
    if (gemm) {
      gemm->run(static_cast<int>(work), stream.get());
    } else if (kind == "memory") {
      kernels::launch_beside_memory(work, static_cast<const float*>(src.data()),
                                    static_cast<float*>(dst.data()), kFloats, sms, stream.get());
    } else {
      kernels::launch_beside_compute(work, static_cast<float*>(sink.data()), sms, stream.get());
    }
  }
  // Queues `n` launches between the two events.
  void queue(int n) {
    begin.record(stream.view());
    for (int i = 0; i < n; ++i) launch();
    end.record(stream.view());
  }
  double finish() {
    stream.synchronize();
    return cuda::Event::elapsed_ms(begin, end);
  }
  double time_train(int n) {
    launch();
    queue(n);
    return finish();
  }
  // The train that covers a copy of `copy_ms` half again, and its time alone (median of 3).
  void size_for(double copy_ms) {
    repeats = copy_ms >= kMinWindowMs
                  ? 1
                  : std::min(kMostRepeats,
                             static_cast<int>(std::ceil(kMinWindowMs / std::max(copy_ms, 1e-3))));
    train = static_cast<int>(std::ceil(1.5 * copy_ms * repeats / launch_ms)) + 1;
    train = std::max(2, std::min(train, 4000));
    std::vector<double> t;
    for (int i = 0; i < 3; ++i) t.push_back(time_train(train));
    std::sort(t.begin(), t.end());
    train_alone_ms = t[1];
  }

  std::string kind;
  unsigned sms = 0;
  unsigned work = 0;
  double launch_ms = 0;
  int train = 2;
  int repeats = 1;  // the copy's runs in one sample
  double train_alone_ms = 0;
  cuda::Stream stream;
  cuda::Event begin, end;
  cuda::DeviceBuffer src, dst, sink;
  std::unique_ptr<CublasGemm> gemm;
};

void clear(Rig& rig, const Leg& l) {
  if (l.to_device) {
    PINBENCH_CUDA_TRY(cudaMemsetAsync(rig.dev_dst.data(), 0, rig.arena, rig.stream.get()));
    rig.stream.synchronize();
    return;
  }
  for (std::size_t i = 0; i < l.dsts.size(); ++i) std::memset(l.dsts[i], 0, l.sizes[i]);
}

// Changes one byte of the first block's destination (the test of the check itself).
void corrupt(Rig& rig, const Leg& l) {
  char* target = static_cast<char*>(l.dsts.front()) + l.block_bytes / 2;
  if (l.to_device) {
    // Two neighbours get two different values, so at least one differs from the pattern.
    PINBENCH_CUDA_TRY(cudaMemsetAsync(target, 0xA5, 1, rig.stream.get()));
    if (l.block_bytes > 1)
      PINBENCH_CUDA_TRY(cudaMemsetAsync(target + 1, 0x5A, 1, rig.stream.get()));
    rig.stream.synchronize();
  } else {
    *target = static_cast<char>(~*target);
  }
}

// What is wrong with the blocks after a sample, or nothing.
std::optional<std::string> check(Rig& rig, const Leg& l) {
  if (l.to_device) {
    const cudaStream_t s = rig.stream.get();
    auto* counter = static_cast<unsigned long long*>(rig.counter.data());
    PINBENCH_CUDA_TRY(cudaMemsetAsync(counter, 0, sizeof(*counter), s));
    PINBENCH_CUDA_TRY(
        transfer::launch_block_compare(static_cast<const BlockCopy*>(rig.check_dev.data()),
                                       l.check.size(), l.block_bytes, l.aligned16, counter, s));
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(rig.counter_host.data(), counter, sizeof(*counter),
                                      cudaMemcpyDeviceToHost, s));
    rig.stream.synchronize();
    const auto bad = *static_cast<const unsigned long long*>(rig.counter_host.data());
    if (bad == 0) return std::nullopt;
    return fmt::format("{} 4 KiB tile{} of the {} blocks differ from their sources", bad,
                       bad == 1 ? "" : "s", l.check.size());
  }
  for (std::size_t i = 0; i < l.dsts.size(); ++i) {
    if (const auto at = first_mismatch(l.dsts[i], l.expected[i], l.sizes[i])) {
      return fmt::format("block {}: {}", i, mismatch_detail(*at, l.sizes[i]));
    }
  }
  return std::nullopt;
}

// The tables a case's samples read: the kernel's (copied again within each sample) and the
// check's, both written once before its warm-ups.
void load_tables(Rig& rig, const Leg& l) {
  std::memcpy(rig.table_host.data(), l.table.data(), l.table.size() * sizeof(BlockCopy));
  if (l.to_device) {
    PINBENCH_CUDA_TRY(cudaMemcpy(rig.check_dev.data(), l.check.data(),
                                 l.check.size() * sizeof(BlockCopy), cudaMemcpyHostToDevice));
  }
}

// What a case measured beside a kernel, and the host CPU the staged engine spent on it.
struct CaseExtras {
  std::vector<double> slowdown_pct;  // per sample
  std::vector<double> train_with_ms;
  double train_alone_ms = 0;
  int train = 0;
  int repeats = 1;
  std::optional<double> host_cpu_ms;  // the engine's threads, per run of the method
};

double middle(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}

Timed measure_case(Rig& rig, Mover& mover, BlocksMethod m, const Leg& l, const BlocksConfig& config,
                   const BlocksHooks& hooks, std::size_t& calls, Beside* beside,
                   CaseExtras& extras) {
  Timed out;
  const bool engine = m == BlocksMethod::kStaged && rig.copier;
  const auto cpu_s = [&] {
    const StagedCopierStats s = rig.copier->stats();
    return l.to_device ? s.to_device_thread_s : s.to_host_thread_s;
  };
  const double cpu_before = engine ? cpu_s() : 0.0;
  int runs = 0;
  try {
    load_tables(rig, l);
    Sampler sampler(config.stop, SampleClock::kHostClock);
    out = sampler.run(
        [&](Sampler& s, int sample, int, Timed& t) {
          clear(rig, l);
          if (beside != nullptr) beside->queue(beside->train);
          const int repeats = beside != nullptr ? beside->repeats : 1;
          s.start(0);
          calls = mover.run(m, l);
          t.call_ms.push_back(s.ms_since_start(0));
          for (int r = 1; r < repeats; ++r) mover.run(m, l);
          rig.stream.synchronize();
          s.stop(0);
          runs += repeats;
          const double window_ms = s.elapsed_ms(0);
          t.samples_ms.push_back(window_ms / repeats);
          if (beside != nullptr) {
            const double with = beside->finish();
            const double lost = with - beside->train_alone_ms;
            extras.train_with_ms.push_back(with);
            // The kernel did the work of (window - lost) alone-time while the copies ran; a
            // kernel held back for the whole window is a slowdown too large to state.
            if (window_ms - lost > 0) {
              extras.slowdown_pct.push_back(100.0 * lost / (window_ms - lost));
            }
          }
          if (hooks.corrupts(sample)) corrupt(rig, l);
          if (const auto why = check(rig, l)) t.fail(fmt::format("sample {}: {}", sample, *why));
        },
        [&] {
          double copy_ms = 0;
          for (int w = 0; w < std::max(config.warmups, beside != nullptr ? 1 : 0); ++w) {
            const auto t0 = SteadyClock::now();
            mover.run(m, l);
            rig.stream.synchronize();
            ++runs;
            copy_ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
          }
          if (beside != nullptr) {
            beside->size_for(copy_ms);
            extras.train = beside->train;
            extras.repeats = beside->repeats;
            extras.train_alone_ms = beside->train_alone_ms;
          }
        });
  } catch (const std::exception& e) {
    out.fail(e.what());
  }
  if (engine && runs > 0) {
    try {
      extras.host_cpu_ms = (cpu_s() - cpu_before) * 1000.0 / runs;
    } catch (const std::exception&) {
    }
  }
  return out;
}

// Why the driver will not move one block of `cell` by `m` this way at all, or "" when it will:
// the method run once, untimed, on the cell's first block at the start of both arenas.
std::string refused(Rig& rig, Mover& mover, BlocksMethod m, bool to_device, MemoryKind kind,
                    const BlockCell& cell) {
  try {
    const Leg l = make_leg(rig, to_device, kind, {cell.block_bytes, {0}, {0}});
    load_tables(rig, l);
    mover.run(m, l);
    rig.stream.synchronize();
    return "";
  } catch (const std::exception& e) {
    return std::string("refused by the driver: ") + e.what();
  }
}

Layout contiguous(const BlockCell& cell) {
  return {cell.bytes(), {0}, {0}};
}

void check_sms_fit(const BlocksConfig& config, int device_sms) {
  for (int s : config.more_sms) {
    if (s > device_sms) {
      throw InputError(fmt::format("--sms {} is past this device's {} SMs", s, device_sms));
    }
  }
  if (config.sms > device_sms) {
    throw InputError(fmt::format("--sms {} is past this device's {} SMs", config.sms, device_sms));
  }
}

// --beside: the kernel sized for this device, described in the record's config.
std::unique_ptr<Beside> make_beside(const BlocksConfig& config, int device_sms, RunRecord& record,
                                    const ProgressFn& progress) {
  if (config.beside.empty()) return nullptr;
  progress(fmt::format("sizing the {} kernel that runs beside the copies", config.beside));
  auto beside = std::make_unique<Beside>(config.beside, static_cast<unsigned>(device_sms));
  record.config["beside"] = {{"name", config.beside},
                             {"work_rounds", beside->work},
                             {"launch_ms", beside->launch_ms},
                             {"blocks_per_sm", 2},
                             {"threads_per_block", 512}};
  if (beside->gemm) {
    record.config["beside"]["library"] = beside->gemm->library();
    record.config["beside"]["blocks_per_sm"] = 0;  // cuBLAS chooses
    record.config["beside"]["threads_per_block"] = 0;
  }
  return beside;
}

// What runs in one direction and memory kind.
struct Group {
  Direction direction;
  std::size_t kind;  // into rig.host, in config.memory's order
  std::vector<BlocksMethod> methods;
};

// Every method asked for that moves each direction's and memory kind's blocks, less any the
// driver refuses outright (one block moved once before anything is timed); each left out is
// listed with its reason in the record's config ("skipped"). `total`: the cases to measure.
std::vector<Group> plan_groups(const BlocksConfig& config, Rig& rig, Mover& mover,
                               const BlockCell& first, bool pageable_access, std::size_t cells,
                               RunRecord& record, std::size_t& total) {
  nlohmann::json skipped = nlohmann::json::array();
  std::vector<Group> groups;
  total = 0;
  for (Direction d : config.directions) {
    for (std::size_t k = 0; k < config.memory.size(); ++k) {
      const MemoryKind kind = config.memory[k];
      Group g{d, k, {}};
      for (BlocksMethod m : config.methods) {
        std::string why = method_not_for(m, kind, pageable_access);
        if (why.empty()) why = refused(rig, mover, m, d == Direction::kH2D, kind, first);
        if (why.empty()) {
          g.methods.push_back(m);
          continue;
        }
        nlohmann::json skip = nlohmann::json::object();
        put_fields(skip, BlocksSkip{to_string(d), to_string(kind), to_string(m), why});
        skipped.push_back(std::move(skip));
      }
      total += g.methods.size() * cells;
      if (std::find(g.methods.begin(), g.methods.end(), BlocksMethod::kKernel) != g.methods.end()) {
        total += config.more_sms.size() * cells;
      }
      groups.push_back(std::move(g));
    }
  }
  record.config["skipped"] = skipped;
  return groups;
}

// One method at one SM count: the kernel also runs at every further SM count, named for it.
struct Variant {
  BlocksMethod method;
  unsigned sms;
  std::string name;
};

std::vector<Variant> variants_of(const Group& g, const BlocksConfig& config, unsigned all_sms) {
  std::vector<Variant> variants;
  for (BlocksMethod m : g.methods) {
    variants.push_back({m, all_sms, to_string(m)});
    if (m != BlocksMethod::kKernel) continue;
    for (int s : config.more_sms) {
      variants.push_back({m, static_cast<unsigned>(s), kernel_at_sms(s)});
    }
  }
  return variants;
}

// Everything a cell's cases share while they are measured.
struct CellRun {
  const BlocksConfig& config;
  const BlocksHooks& hooks;
  Rig& rig;
  Mover& mover;
  Beside* beside;
  const std::vector<bool>& kinds_ok;
};

// One variant of one cell, timed, as the record's case and gate.
void measure_variant(const CellRun& run, const Group& g, const BlockCell& cell,
                     const Layout& scattered, const Variant& v, RunRecord& record) {
  const Direction d = g.direction;
  const MemoryKind kind = run.config.memory[g.kind];
  const BlocksMethod m = v.method;
  run.mover.sms = v.sms;
  const Leg leg = make_leg(run.rig, d == Direction::kH2D, kind,
                           m == BlocksMethod::kContiguous ? contiguous(cell) : scattered);
  std::size_t calls = 0;
  run.mover.grid_used = 0;
  CaseExtras extras;
  const Timed r =
      measure_case(run.rig, run.mover, m, leg, run.config, run.hooks, calls, run.beside, extras);
  const CaseSpec spec{
      "blocks",
      to_string(d),
      to_string(kind),
      v.name,
      "host_clock",
      cell.bytes(),
      run.config.warmups,
      gate_name({"blocks", to_string(d), to_string(kind), v.name}, cell_token(cell))};
  Case c = make_case(spec, r, run.kinds_ok[g.kind]);
  c.extra = {{"block_bytes", cell.block_bytes}, {"blocks", cell.count}, {"calls", calls}};
  if (m == BlocksMethod::kKernel) c.extra["sms"] = run.mover.grid_used;
  if (extras.host_cpu_ms) c.extra["host_cpu_ms"] = *extras.host_cpu_ms;
  if (run.beside != nullptr && !extras.slowdown_pct.empty()) {
    // A median outside what a slowdown can be (base/slowdown_range.hpp: below -5%, noise no
    // kernel shows; past 10,000%, too large to state) is no figure, as a kernel held back for the
    // whole window is none: the record's reader would refuse it.
    const double slowdown = middle(extras.slowdown_pct);
    if (slowdown_in_range(slowdown)) c.extra["slowdown_pct"] = slowdown;
    c.extra["beside_train"] = extras.train;
    c.extra["beside_repeats"] = extras.repeats;
    c.extra["beside_alone_ms"] = extras.train_alone_ms;
    c.extra["beside_with_ms"] = middle(extras.train_with_ms);
  }
  record.gates.push_back(
      sampled_gate(c.gate, r,
                   fmt::format("every one of {} samples delivered all {} blocks of {}",
                               r.samples_ms.size(), cell.count, exact_size(cell.block_bytes))));
  record.cases.push_back(std::move(c));
}

}  // namespace

RunRecord run_blocks(const BlocksConfig& config, const ProgressFn& progress,
                     const BlocksHooks& hooks) {
  const auto start = SteadyClock::now();
  config.validate();
  RunRecord record = start_record("blocks", to_json(config));
  const int device_sms = record.machine.sm_count;
  check_sms_fit(config, device_sms);
  const std::string problem = blocks_fit_problem(config, cuda::device_free_bytes(),
                                                 host_memory_bytes(), host_available_bytes());
  if (!problem.empty()) throw InputError(problem);

  const bool pageable_access = record.machine.pageable_memory_access != 0;
  const auto wants = [&](BlocksMethod m) {
    return std::find(config.methods.begin(), config.methods.end(), m) != config.methods.end();
  };
  const bool engine =
      wants(BlocksMethod::kStaged) && std::find(config.memory.begin(), config.memory.end(),
                                                MemoryKind::kPageable) != config.memory.end();
  const std::vector<BlockCell> cells = config.cells();
  const std::uint64_t arena = config.arena_bytes();
  progress(fmt::format("allocating two arenas of {} per memory kind and two on the device",
                       format_size(arena)));
  Rig rig(config, arena, engine);
  const unsigned all_sms = static_cast<unsigned>(config.sms > 0 ? config.sms : device_sms);
  Mover mover{rig, all_sms};

  record.config["sms"] = mover.sms;
  const std::unique_ptr<Beside> beside = make_beside(config, device_sms, record, progress);
  record.config["kernel"] = {{"threads_per_block", 1024}, {"tile_bytes", 4096}};
  if (engine) record.config["engine"] = to_json(rig.copier->options());
  record.config["timing"] =
      "host clock from the first call to the copy's completion, every method alike; the "
      "kernel's samples include copying its block table (16 bytes a block) to the device";

  std::vector<bool> kinds_ok;
  for (HostArenas& a : rig.host) {
    const std::string k = to_string(a.kind);
    const bool src_ok = add_gate(record, kind_gate("kind/" + k + "-source", a.src.data(), a.kind));
    const bool dst_ok =
        add_gate(record, kind_gate("kind/" + k + "-destination", a.dst.data(), a.kind));
    kinds_ok.push_back(src_ok && dst_ok);
  }

  std::size_t total = 0;
  const std::vector<Group> groups =
      plan_groups(config, rig, mover, cells.front(), pageable_access, cells.size(), record, total);
  const CellRun run{config, hooks, rig, mover, beside.get(), kinds_ok};
  std::size_t n = 0;
  for (const Group& g : groups) {
    const MemoryKind kind = config.memory[g.kind];
    for (const BlockCell& cell : cells) {
      const BlockPlacement placed = place_blocks(cell, arena, config.seed);
      const Layout scattered{cell.block_bytes, placed.host_offsets, placed.device_offsets};
      for (const Variant& v : variants_of(g, config, all_sms)) {
        if (stop_before_next_case(record)) break;
        progress(fmt::format("[{}/{}] {} {} {} x {} {}", ++n, total, to_string(g.direction),
                             to_string(kind), format_size(cell.block_bytes), cell.count, v.name));
        measure_variant(run, g, cell, scattered, v, record);
      }
      if (record.incomplete) break;
    }
    if (record.incomplete) break;
  }
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::blocks
