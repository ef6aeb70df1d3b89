// pinbench accel's library, loaded into the program with LD_PRELOAD: it defines the CUDA
// runtime's copy entry points that a program linked to the shared runtime calls (cudaMemcpy,
// cudaMemcpyAsync, their 2D forms and the per-thread default stream forms _ptds and _ptsz), so
// those calls come here first, and the router (router.hpp) sends each through the staged engine
// or on to the runtime's own function. cudaGetLastError and cudaPeekAtLastError are defined too,
// so a routed copy's failure reaches the program as the runtime's would.
//
// Each process counts into a file of its own in the folder `pinbench accel` named in
// PINBENCH_ACCEL_DIR (counters.hpp), mapped shared, so the counts survive however the process
// ends. A forked child gets a file of its own and passes every copy on: its parent's engines are
// not its own. Without PINBENCH_ACCEL_DIR (the library preloaded by hand) it counts in memory.
//
// This file is compiled without runtime_names.hpp: the names it defines are the program's.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "cuda/driver_watch.hpp"
#include "experiments/accel/interpose/counters.hpp"
#include "experiments/accel/interpose/entry.hpp"
#include "experiments/accel/interpose/router.hpp"
#include "experiments/accel/interpose/symbols.hpp"

#define PINBENCH_EXPORT extern "C" __attribute__((visibility("default")))

namespace pinbench::experiments::accel {
namespace {

// How long the exit handler waits for routed copies still on the device.
constexpr std::chrono::milliseconds kExitWait{10000};

ProcessCounters g_in_memory;  // when no folder was named
std::atomic<bool> g_exit_wait_registered{false};

std::uint64_t unix_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000u + static_cast<std::uint64_t>(t.tv_nsec);
}

// The process's command line, its arguments separated by spaces, cut to fit.
void read_command_line(char* out, std::size_t size) {
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t n = read(fd, out, size - 1);
  close(fd);
  if (n <= 0) return;
  for (ssize_t i = 0; i + 1 < n; ++i) {
    if (out[i] == '\0') out[i] = ' ';
  }
  out[n] = '\0';
}

void start_counters(ProcessCounters* c) {
  std::memset(c, 0, sizeof *c);
  std::memcpy(c->magic, kCountersMagic, sizeof c->magic);
  c->version = kCountersVersion;
  c->size = sizeof(ProcessCounters);
  c->pid = static_cast<std::int32_t>(getpid());
  c->parent_pid = static_cast<std::int32_t>(getppid());
  c->start_unix_ns = unix_ns();
  read_command_line(c->program, sizeof c->program);
  // Another library after ours in LD_PRELOAD sees the copies accel passes on (next_symbol).
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strchr(preload, ' ') != nullptr) c->reach |= kPreloadChained;
  if (preload != nullptr && std::strchr(preload, ':') != nullptr) c->reach |= kPreloadChained;
}

// A file of this process's own in PINBENCH_ACCEL_DIR, mapped shared; the in-memory block when
// none is named or it cannot be made. Only calls that are safe after fork().
ProcessCounters* open_counters() {
  const char* dir = std::getenv("PINBENCH_ACCEL_DIR");
  ProcessCounters* c = &g_in_memory;
  if (dir != nullptr && *dir != '\0') {
    char path[4096];
    // exec keeps the pid: a second image of one process makes a second file.
    for (int n = 0; n < 1000; ++n) {
      std::snprintf(path, sizeof path, "%s/p%d-%d.counters", dir, static_cast<int>(getpid()), n);
      const int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0) {
        if (errno == EEXIST) continue;
        break;
      }
      void* m = MAP_FAILED;
      if (ftruncate(fd, sizeof(ProcessCounters)) == 0) {
        m = mmap(nullptr, sizeof(ProcessCounters), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      }
      close(fd);
      if (m != MAP_FAILED) c = static_cast<ProcessCounters*>(m);
      break;
    }
  }
  start_counters(c);
  return c;
}

ProcessCounters* g_counters = nullptr;

}  // namespace

Router& router() {
  static Router* r = [] {
    if (g_counters == nullptr) g_counters = open_counters();
    return new Router(g_counters);  // never destroyed: copies may run until the very end
  }();
  return *r;
}

ProcessCounters* counters() {
  router();
  return g_counters;
}

namespace {

void mark_reach() {
  ProcessCounters* c = g_counters;
  std::uint32_t bits = 0;
  if (loaded("libcudart.so")) bits |= kSharedRuntime;
  if (loaded("libcuda.so")) bits |= kDriver;
  if (loaded("cupy")) bits |= kCupy;
  __atomic_fetch_or(&c->reach, bits, __ATOMIC_RELAXED);
}

// Registered at the first engine, after the runtime registered its own teardown, so it runs
// before that: no routed copy is left running when the runtime goes.
void wait_for_routed_copies() {
  router().quiesce(kExitWait);
}

// Registered first of all, so it runs last: the counters' final word.
void at_exit() {
  mark_reach();
  ProcessCounters* c = g_counters;
  __atomic_fetch_or(&c->reach, kExitRan, __ATOMIC_RELAXED);
  __atomic_store_n(&c->end_unix_ns, unix_ns(), __ATOMIC_RELEASE);
}

// The process asks to load the CUDA driver (cuda/driver_watch.hpp): said in its counters at
// once, so a process that ends without its exit handlers still says it.
void asked_for_driver() {
  ProcessCounters* c = __atomic_load_n(&g_counters, __ATOMIC_ACQUIRE);
  if (c != nullptr) __atomic_fetch_or(&c->reach, kAskedDriver, __ATOMIC_RELAXED);
}

void in_forked_child() {
  g_counters = open_counters();
  g_exit_wait_registered.store(true);  // the parent's registration was inherited
  router().forked(g_counters);
  cuda::driver_watch_forked();  // the child asks for itself
}

__attribute__((constructor)) void start() {
  router();
  cuda::on_driver_asked(asked_for_driver);
  pthread_atfork(nullptr, nullptr, in_forked_child);
  std::atexit(at_exit);
}

// Through the runtime's entry points: a call made while the thread is inside accel already
// (another wrapper's, or the engine's) goes straight on.
template <typename Pass>
cudaError_t enter_runtime(const CopyCall& call, Pass&& pass) {
  if (inside_accel()) return pass();
  return enter(call, kViaRuntime, pass);
}

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(next_symbol(name));
}

cudaStream_t per_thread(cudaStream_t s) {
  return s == nullptr ? cudaStreamPerThread : s;
}

}  // namespace

void after_copy() {
  if (!g_exit_wait_registered.load(std::memory_order_relaxed) &&
      __atomic_load_n(&g_counters->engines, __ATOMIC_RELAXED) > 0 &&
      !g_exit_wait_registered.exchange(true)) {
    std::atexit(wait_for_routed_copies);
  }
}

}  // namespace pinbench::experiments::accel

using pinbench::experiments::accel::CopyCall;
using pinbench::experiments::accel::enter_runtime;
using pinbench::experiments::accel::next;
using pinbench::experiments::accel::per_thread;

using Copy1D = cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind);
using Copy1DAsync = cudaError_t (*)(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
using Copy2D = cudaError_t (*)(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind);
using Copy2DAsync = cudaError_t (*)(void*, size_t, const void*, size_t, size_t, size_t,
                                    cudaMemcpyKind, cudaStream_t);
using LastError = cudaError_t (*)();

// The runtime's function when the program has none to call: never, for a program that links it.
#define PINBENCH_REAL(type, name)             \
  static const type real = next<type>(#name); \
  if (real == nullptr) return cudaErrorInitializationError

PINBENCH_EXPORT cudaError_t cudaMemcpy(void* dst, const void* src, size_t count,
                                       cudaMemcpyKind kind) {
  PINBENCH_REAL(Copy1D, cudaMemcpy);
  return enter_runtime(CopyCall{dst, src, count, 1, 0, 0, kind, nullptr, true},
                       [&] { return real(dst, src, count, kind); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                            cudaMemcpyKind kind) {
  PINBENCH_REAL(Copy1D, cudaMemcpy_ptds);
  return enter_runtime(CopyCall{dst, src, count, 1, 0, 0, kind, cudaStreamPerThread, true},
                       [&] { return real(dst, src, count, kind); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                            cudaMemcpyKind kind, cudaStream_t stream) {
  PINBENCH_REAL(Copy1DAsync, cudaMemcpyAsync);
  return enter_runtime(CopyCall{dst, src, count, 1, 0, 0, kind, stream, false},
                       [&] { return real(dst, src, count, kind, stream); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                                 cudaMemcpyKind kind, cudaStream_t stream) {
  PINBENCH_REAL(Copy1DAsync, cudaMemcpyAsync_ptsz);
  return enter_runtime(CopyCall{dst, src, count, 1, 0, 0, kind, per_thread(stream), false},
                       [&] { return real(dst, src, count, kind, stream); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                         size_t width, size_t height, cudaMemcpyKind kind) {
  PINBENCH_REAL(Copy2D, cudaMemcpy2D);
  return enter_runtime(CopyCall{dst, src, width, height, dpitch, spitch, kind, nullptr, true},
                       [&] { return real(dst, dpitch, src, spitch, width, height, kind); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src,
                                              size_t spitch, size_t width, size_t height,
                                              cudaMemcpyKind kind) {
  PINBENCH_REAL(Copy2D, cudaMemcpy2D_ptds);
  return enter_runtime(
      CopyCall{dst, src, width, height, dpitch, spitch, kind, cudaStreamPerThread, true},
      [&] { return real(dst, dpitch, src, spitch, width, height, kind); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                              size_t spitch, size_t width, size_t height,
                                              cudaMemcpyKind kind, cudaStream_t stream) {
  PINBENCH_REAL(Copy2DAsync, cudaMemcpy2DAsync);
  return enter_runtime(CopyCall{dst, src, width, height, dpitch, spitch, kind, stream, false},
                       [&] { return real(dst, dpitch, src, spitch, width, height, kind, stream); });
}

PINBENCH_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                                                   size_t spitch, size_t width, size_t height,
                                                   cudaMemcpyKind kind, cudaStream_t stream) {
  PINBENCH_REAL(Copy2DAsync, cudaMemcpy2DAsync_ptsz);
  return enter_runtime(
      CopyCall{dst, src, width, height, dpitch, spitch, kind, per_thread(stream), false},
      [&] { return real(dst, dpitch, src, spitch, width, height, kind, stream); });
}

PINBENCH_EXPORT cudaError_t cudaGetLastError() {
  PINBENCH_REAL(LastError, cudaGetLastError);
  return pinbench::experiments::accel::router().last_error(real(), true);
}

PINBENCH_EXPORT cudaError_t cudaPeekAtLastError() {
  PINBENCH_REAL(LastError, cudaPeekAtLastError);
  return pinbench::experiments::accel::router().last_error(real(), false);
}
