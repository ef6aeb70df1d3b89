// `pinbench pin`: each way of getting page-locked memory at each size, timed with the host clock
// from the call to the whole size usable (and to its first GiB), then freed, timed too, while a
// neighbouring process (pinbench_neighbour) times its own small CUDA steps; then, at the largest
// size each way pinned, copies to and from that memory timed with events, every byte checked.
// The host's limits are read first and every size or call that would cross one is refused before
// anything is pinned (base/pin_limits.hpp). One pinned allocation at a time: each is freed before
// the next, so the host holds at most the largest size at once.
#include "experiments/pin/measure.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <pinbench/pinned_arena.hpp>

#include "base/pin_limits.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/pattern.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"

extern char** environ;

namespace pinbench::experiments::pin {
namespace {

constexpr std::uint64_t kSeed = 0x9147;
constexpr int kCopySamples = 5;

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

double ms_since_ns(std::int64_t t0) {
  return static_cast<double>(monotonic_ns() - t0) / 1e6;
}

// --- the neighbour -----------------------------------------------------------------------------

struct Step {
  std::int64_t start_ns, length_ns;
};

struct Window {
  std::int64_t from_ns = 0, to_ns = 0;
};

struct StepFigures {
  std::size_t steps = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// The neighbour process: started with its standard input a pipe, ended by closing it.
class Neighbour {
 public:
  Neighbour(const std::string& program, int device, int interval_us) {
    char dir[] = "/tmp/pinbench-pin-XXXXXX";
    if (mkdtemp(dir) == nullptr) throw InputError("pinbench pin: cannot make a temporary folder");
    dir_ = dir;
    file_ = dir_ + "/steps";
    int in[2];
    if (pipe2(in, O_CLOEXEC) != 0) throw InputError("pinbench pin: pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    std::vector<std::string> words = {
        program, "--device", std::to_string(device), "--interval-us", std::to_string(interval_us),
        "--out", file_};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const int spawned =
        posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    input_ = in[1];
    if (spawned != 0) {
      close(input_);
      input_ = -1;
      pid_ = -1;
      throw InputError(
          fmt::format("pinbench pin: cannot start {}: {}", program, std::strerror(spawned)));
    }
    // Ready once it has made 25 steps (its context made, its first calls warm), 60 s at most.
    const std::int64_t t0 = monotonic_ns();
    while (steps().size() < 25) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw InputError(
            fmt::format("pinbench pin: the neighbour ({}) ended before it was ready (exit {}); "
                        "--neighbour-interval 0 measures without it",
                        program, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)));
      }
      if (ms_since_ns(t0) > 60000) {
        stop();
        throw InputError("pinbench pin: the neighbour made no step in 60 s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~Neighbour() {
    stop();
    std::remove(file_.c_str());
    rmdir(dir_.c_str());
  }
  Neighbour(const Neighbour&) = delete;
  Neighbour& operator=(const Neighbour&) = delete;

  void stop() {
    if (input_ >= 0) close(input_);
    input_ = -1;
    if (pid_ > 0) {
      int status = 0;
      // It ends within one step of its input closing; a step stuck in the driver is killed.
      for (int i = 0; i < 500 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (waitpid(pid_, &status, WNOHANG) == 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
    pid_ = -1;
  }

  // Every step it has written so far.
  std::vector<Step> steps() const {
    std::vector<Step> out;
    std::ifstream in(file_, std::ios::binary);
    std::int64_t v[2];
    while (in.read(reinterpret_cast<char*>(v), sizeof v)) out.push_back({v[0], v[1]});
    return out;
  }

  // The steps that overlapped `w`: a step that started before the window and was still waiting
  // when it began was held by what the window measures too.
  static StepFigures figures(const std::vector<Step>& all, const Window& w) {
    std::vector<double> ms;
    for (const Step& s : all) {
      if (s.start_ns <= w.to_ns && s.start_ns + s.length_ns >= w.from_ns) {
        ms.push_back(static_cast<double>(s.length_ns) / 1e6);
      }
    }
    StepFigures f;
    f.steps = ms.size();
    if (ms.empty()) return f;
    f.p50_ms = percentile(ms, 0.50);
    f.p99_ms = percentile(ms, 0.99);
    f.max_ms = *std::max_element(ms.begin(), ms.end());
    return f;
  }

 private:
  std::string dir_, file_;
  pid_t pid_ = -1;
  int input_ = -1;
};

// --- one way of pinning ------------------------------------------------------------------------

// What pinning produced: the memory, how to wait for a range of it and how to free it.
struct Pinned {
  char* data = nullptr;
  std::function<void(std::uint64_t)> wait_for;  // the first N bytes usable
  std::function<void()> free;
  // How to move [offset, offset + n) to or from the device: one cudaMemcpyAsync, or the arena's
  // pieces.
  std::function<void(void*, std::uint64_t, std::uint64_t, cudaStream_t)> to_device;
  std::function<void(std::uint64_t, const void*, std::uint64_t, cudaStream_t)> to_host;
  std::function<double()> longest_call_ms;  // the arena's longest registration of one chunk
};

struct Method {
  std::string name;         // the record's method
  std::uint64_t chunk = 0;  // the arena's, else 0
  int threads = 0;          // the arena's, else 0
  std::string token() const {
    std::string t;
    for (char c : name)
      t += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (chunk > 0) t += fmt::format("-{}-x{}", size_token(chunk), threads);
    return t;
  }
  std::string label() const {
    return chunk > 0 ? fmt::format("{} {} x{}", name, format_size(chunk), threads) : name;
  }
  // The bytes one call pins: the whole size, or a chunk.
  std::uint64_t per_call(std::uint64_t bytes) const {
    return chunk > 0 ? std::min(chunk, bytes) : bytes;
  }
};

void copy_once(void* dst, const void* src, std::uint64_t n, cudaMemcpyKind kind, cudaStream_t s) {
  PINBENCH_CUDA_TRY(cudaMemcpyAsync(dst, src, n, kind, s));
}

char* map_anonymous(std::uint64_t bytes, int extra_flags) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | extra_flags, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error(fmt::format("mmap of {} bytes: {}", bytes, std::strerror(errno)));
  }
  return static_cast<char*>(p);
}

Pinned pin_with(const Method& m, std::uint64_t bytes, int device) {
  Pinned p;
  if (m.name == kPinHostAlloc || m.name == kPinHostAllocPortable) {
    void* h = nullptr;
    PINBENCH_CUDA_TRY(cudaHostAlloc(
        &h, bytes, m.name == kPinHostAlloc ? cudaHostAllocDefault : cudaHostAllocPortable));
    p.data = static_cast<char*>(h);
    p.free = [h] { PINBENCH_CUDA_TRY(cudaFreeHost(h)); };
  } else if (m.name == kPinArena) {
    PinnedArenaOptions o;
    o.chunk_bytes = m.chunk;
    o.threads = static_cast<unsigned>(m.threads);
    o.device = device;
    o.check_limits = false;  // checked before, and refused with the record's line
    // The lambdas reach the arena through a plain pointer: only `free` owns it, so the time to
    // free is the arena's destruction, not whenever the last copy of a lambda goes.
    auto owner =
        std::make_shared<std::unique_ptr<PinnedArena>>(std::make_unique<PinnedArena>(bytes, o));
    PinnedArena* arena = owner->get();
    p.data = static_cast<char*>(arena->data());
    p.wait_for = [arena](std::uint64_t n) { arena->wait(0, n); };
    p.to_device = [arena](void* d, std::uint64_t off, std::uint64_t n, cudaStream_t s) {
      arena->copy_to_device(d, off, n, s);
    };
    p.to_host = [arena](std::uint64_t off, const void* d, std::uint64_t n, cudaStream_t s) {
      arena->copy_from_device(off, d, n, s);
    };
    p.free = [owner] { owner->reset(); };
    p.longest_call_ms = [arena] { return arena->stats().longest_call_ms; };
  } else {
    // mmap, then one cudaHostRegister of it all: 4 KiB pages, transparent huge pages, or
    // hugetlbfs's 2 MiB pages.
    const bool hugetlb = m.name == kPinRegisterHugetlbfs;
    const std::uint64_t mapped =
        hugetlb ? (bytes + (2ull << 20) - 1) / (2ull << 20) * (2ull << 20) : bytes;
    char* h = map_anonymous(mapped, hugetlb ? MAP_HUGETLB : 0);
    if (m.name == kPinRegisterThp) (void)madvise(h, mapped, MADV_HUGEPAGE);
    const cudaError_t e = cudaHostRegister(h, mapped, cudaHostRegisterDefault);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      munmap(h, mapped);
      PINBENCH_CUDA_TRY(e);
    }
    p.data = h;
    p.free = [h, mapped] {
      const cudaError_t u = cudaHostUnregister(h);
      munmap(h, mapped);
      PINBENCH_CUDA_TRY(u);
    };
  }
  if (!p.wait_for) p.wait_for = [](std::uint64_t) {};
  if (!p.to_device) {
    char* base = p.data;
    p.to_device = [base](void* d, std::uint64_t off, std::uint64_t n, cudaStream_t s) {
      copy_once(d, base + off, n, cudaMemcpyHostToDevice, s);
    };
    p.to_host = [base](std::uint64_t off, const void* d, std::uint64_t n, cudaStream_t s) {
      copy_once(base + off, d, n, cudaMemcpyDeviceToHost, s);
    };
  }
  return p;
}

bool page_locked(const void* p) {
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) (void)cudaGetLastError();
  return e == cudaSuccess && a.type == cudaMemoryTypeHost;
}

// --- the run -----------------------------------------------------------------------------------

std::vector<Method> methods_of(const PinConfig& cfg, const std::vector<int>& threads) {
  std::vector<Method> out;
  for (const std::string& name : cfg.methods) {
    if (name != kPinArena) {
      out.push_back({name, 0, 0});
      continue;
    }
    for (std::uint64_t chunk : cfg.arena_chunks) {
      for (int t : threads) out.push_back({name, chunk, t});
    }
  }
  return out;
}

struct Runner {
  const PinConfig& cfg;
  const ProgressFn& progress;
  RunRecord& record;
  PinLimits limits;
  std::unique_ptr<Neighbour> neighbour;

  void say(const std::string& line) {
    if (progress) progress(line);
  }

  // One pin case: pin, wait for its first GiB and for the whole, check it, (copies), free.
  void pin_case(const Method& m, std::uint64_t bytes, bool copy_after) {
    const std::string gate = fmt::format("pin/{}/{}", m.token(), size_token(bytes));
    say(fmt::format("pin: {} of {}", m.label(), format_size(bytes)));
    const std::int64_t t0 = monotonic_ns();
    Pinned p;
    Timed timed;
    double first_ms = 0, total_ms = 0;
    try {
      p = pin_with(m, bytes, cfg.device);
      p.wait_for(std::min(bytes, kGiB));
      first_ms = ms_since_ns(t0);
      p.wait_for(bytes);
      total_ms = ms_since_ns(t0);
    } catch (const std::exception& e) {
      timed.fail(fmt::format("{} of {} failed: {}", m.label(), format_size(bytes), e.what()));
      if (p.free) p.free();
      record.gates.push_back(sampled_gate(gate, timed, ""));
      return;
    }
    const Window pinning{t0, monotonic_ns()};
    const bool locked = page_locked(p.data) && page_locked(p.data + bytes - 1);
    if (!locked)
      timed.fail("cudaPointerGetAttributes does not call its first and last byte page-locked");
    timed.samples_ms = {total_ms};
    timed.stop = StopReason::kCount;  // one pin of the whole size is the sample
    Case c = make_case({"pin", "host", "pinned", m.name, "host_clock", bytes, 0, gate}, timed);
    c.extra["first_gib_ms"] = first_ms;
    if (m.chunk > 0) {
      c.extra["chunk_bytes"] = m.chunk;
      c.extra["threads"] = m.threads;
      c.extra["longest_chunk_ms"] = p.longest_call_ms ? p.longest_call_ms() : 0.0;
    }
    if (copy_after && locked) copies(m, p, bytes);
    const std::int64_t f0 = monotonic_ns();
    p.free();
    c.extra["free_ms"] = ms_since_ns(f0);
    const Window freeing{f0, monotonic_ns()};
    if (neighbour) {
      // A moment for the neighbour's last step to land before its figures are read.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const std::vector<Step> steps = neighbour->steps();
      const StepFigures during = Neighbour::figures(steps, pinning);
      c.extra["nb_calls"] = during.steps;
      c.extra["nb_p50_ms"] = during.p50_ms;
      c.extra["nb_p99_ms"] = during.p99_ms;
      c.extra["nb_max_ms"] = during.max_ms;
      c.extra["nb_free_max_ms"] = Neighbour::figures(steps, freeing).max_ms;
    }
    record.gates.push_back(sampled_gate(
        gate, timed, fmt::format("every call succeeded; the first and last byte are page-locked")));
    record.cases.push_back(std::move(c));
  }

  // Copies from and to the pinned memory, each direction timed with events, every byte checked.
  void copies(const Method& m, Pinned& p, std::uint64_t bytes) {
    const std::uint64_t n = std::min(cfg.copy_bytes, bytes);
    say(fmt::format("pin: copies of {} from {}", format_size(n), m.label()));
    std::vector<char> reference(n);
    fill_pattern(reference.data(), n, kSeed);
    std::memcpy(p.data, reference.data(), n);
    cuda::DeviceBuffer device(n);
    cuda::Stream stream;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    PINBENCH_CUDA_TRY(cudaEventCreate(&e0));
    PINBENCH_CUDA_TRY(cudaEventCreate(&e1));
    const auto timed_copies = [&](const std::function<void()>& copy) {
      Timed t;
      copy();  // one warm-up
      PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream.get()));
      for (int i = 0; i < kCopySamples; ++i) {
        PINBENCH_CUDA_TRY(cudaEventRecord(e0, stream.get()));
        copy();
        PINBENCH_CUDA_TRY(cudaEventRecord(e1, stream.get()));
        PINBENCH_CUDA_TRY(cudaEventSynchronize(e1));
        float ms = 0;
        PINBENCH_CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
        t.samples_ms.push_back(ms);
      }
      t.stop = StopReason::kCount;
      return t;
    };
    const auto add = [&](const char* direction, Timed t, std::optional<std::size_t> mismatch) {
      const std::string gate =
          fmt::format("copy/{}/{}/{}", direction, m.token(), size_token(bytes));
      if (mismatch) t.fail(mismatch_detail(*mismatch, n));
      Case c = make_case({"copy", direction, "pinned", m.name, "cuda_events", n, 1, gate}, t);
      if (m.chunk > 0) {
        c.extra["chunk_bytes"] = m.chunk;
        c.extra["threads"] = m.threads;
      }
      record.gates.push_back(bytes_gate(gate, mismatch, n));
      record.cases.push_back(std::move(c));
    };
    // To the device: what arrived is read back through pageable memory and compared.
    Timed up = timed_copies([&] { p.to_device(device.data(), 0, n, stream.get()); });
    std::vector<char> back(n);
    PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), device.data(), n, cudaMemcpyDeviceToHost));
    add("h2d", up, first_mismatch(back.data(), reference.data(), n));
    // To the host: the pinned memory cleared, filled from the device, compared.
    std::memset(p.data, 0, n);
    Timed down = timed_copies([&] { p.to_host(0, device.data(), n, stream.get()); });
    add("d2h", down, first_mismatch(p.data, reference.data(), n));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }

  // Why `m` may not pin `bytes` here, or nothing.
  std::optional<std::string> refusal(const Method& m, std::uint64_t bytes) {
    if (m.name == kPinRegisterHugetlbfs) {
      const std::uint64_t free = limits.hugetlbfs_free_bytes;
      if (free < bytes) {
        return fmt::format("{} of hugetlbfs pages are free (HugePages_Free in /proc/meminfo)",
                           format_size(free));
      }
    }
    return pin_refusal(limits, bytes, m.per_call(bytes), 1);
  }
};

}  // namespace

RunRecord run_pin(const PinConfig& config, const ProgressFn& progress) {
  cuda::require_device();
  const auto start = SteadyClock::now();
  PinConfig cfg = config;
  PinLimits limits = read_pin_limits();
  if (cfg.methods.empty()) {
    cfg.methods = {kPinHostAlloc,   kPinHostAllocPortable, kPinRegister,
                   kPinRegisterThp, kPinRegisterHugetlbfs, kPinArena};
  }
  if (cfg.sizes.empty()) {
    const std::uint64_t most = default_pin_bytes(limits, 64 * kGiB);
    if (most == 0) {
      throw InputError(
          fmt::format("pinbench pin: this process may use {} of memory, too little to pin 1 GiB",
                      format_size(limits.usable_bytes())));
    }
    for (std::uint64_t s = kGiB; s < most; s *= 4) cfg.sizes.push_back(s);
    cfg.sizes.push_back(most);
  }
  std::sort(cfg.sizes.begin(), cfg.sizes.end());
  cfg.sizes.erase(std::unique(cfg.sizes.begin(), cfg.sizes.end()), cfg.sizes.end());
  std::vector<int> threads = cfg.arena_threads;
  if (threads.empty()) {
    threads = {static_cast<int>(PinnedArena::default_threads())};
  }
  cfg.arena_threads = threads;
  cuda::use_selected_device();
  cfg.device = cuda::selected_device();

  nlohmann::json written = nlohmann::json::object();
  put_fields(written, cfg);
  RunRecord record = start_record("pin", std::move(written));

  Runner run{cfg, progress, record, limits, nullptr};
  PinSection section;
  section.limits = limits.limits();
  static_cast<HostPinFacts&>(section.facts) = host_pin_facts(limits);
  section.facts.arena_default_chunk_bytes = PinnedArenaOptions::kDefaultChunkBytes;
  section.facts.arena_default_threads = static_cast<int>(PinnedArena::default_threads());
  // Written now and again at the end: a run stopped by an error still says what bounded it.
  record.sections[kPinSection] = to_json(section);

  if (cfg.neighbour_interval_us > 0) {
    run.say("pin: starting the neighbour");
    run.neighbour =
        std::make_unique<Neighbour>(cfg.neighbour_program, cfg.device, cfg.neighbour_interval_us);
    const std::int64_t t0 = monotonic_ns();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const StepFigures idle = Neighbour::figures(run.neighbour->steps(), {t0, monotonic_ns()});
    section.neighbour_idle = PinNeighbour{idle.steps, idle.p50_ms, idle.p99_ms, idle.max_ms};
  }

  const std::vector<Method> methods = methods_of(cfg, threads);
  for (const Method& m : methods) {
    // The largest size it may pin gets the copies.
    std::optional<std::uint64_t> largest;
    bool skipped = false;
    for (std::uint64_t bytes : cfg.sizes) {
      if (const std::optional<std::string> why = run.refusal(m, bytes)) {
        if (m.name == kPinRegisterHugetlbfs) {  // not a limit: the host set no pages aside
          if (!skipped) section.skipped.push_back({m.label(), *why});
          skipped = true;
        } else {
          section.refused.push_back({m.label(), bytes, *why});
        }
        continue;
      }
      largest = bytes;
    }
    for (std::uint64_t bytes : cfg.sizes) {
      if (run.refusal(m, bytes)) continue;
      if (stop_before_next_case(record)) break;
      run.pin_case(m, bytes, bytes == largest);
    }
    if (record.incomplete) break;
  }
  if (run.neighbour) run.neighbour->stop();
  record.sections[kPinSection] = to_json(section);
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::pin
