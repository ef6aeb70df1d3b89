// The simulated CUDA runtime (sim_cudart.hpp). Every entry point takes one global mutex for its
// bookkeeping; stream threads take it only to pop an operation and to count it done, never while
// copying or sleeping.
#include "sim_cudart.hpp"

#include <cuda.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace pinbench::sim {
namespace {

struct Stream {
  std::deque<std::function<void()>> ops;
  std::uint64_t queued = 0;  // operations ever queued
  std::uint64_t done = 0;    // operations completed
  bool stop = false;
  bool capturing = false;
  std::thread thread;
};

struct Event {
  Stream* stream = nullptr;
  std::uint64_t target = 0;  // complete once stream->done reaches this
};

struct Allocation {
  std::size_t bytes = 0;
  cudaMemoryType type = cudaMemoryTypeUnregistered;
  bool owned = true;  // allocated here (else registered)
};

// Never destroyed: the legacy stream's thread may still wait on them while the process exits.
std::mutex& mu = *new std::mutex;
std::condition_variable& changed = *new std::condition_variable;
std::map<std::uintptr_t, Allocation>& allocations = *new std::map<std::uintptr_t, Allocation>;
std::atomic<double> rate{20000.0};
int memcpy_failure = -1;
int register_failure = -1;
std::atomic<long> register_delay_us{0};
std::atomic<int> registering{0}, most_registering{0};
int event_failure = -1;
thread_local cudaError_t last_error = cudaSuccess;

cudaError_t fail(cudaError_t e) {
  last_error = e;
  return e;
}

void run_stream(Stream* s) {
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    changed.wait(lock, [&] { return s->stop || !s->ops.empty(); });
    if (s->ops.empty()) return;
    std::function<void()> op = std::move(s->ops.front());
    s->ops.pop_front();
    lock.unlock();
    op();
    lock.lock();
    ++s->done;
    changed.notify_all();
  }
}

Stream* make_stream() {
  auto* s = new Stream;
  s->thread = std::thread(run_stream, s);
  return s;
}

Stream* legacy() {
  static Stream* s = make_stream();  // never destroyed: it lives as long as the process
  return s;
}

Stream* as_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread
             ? legacy()
             : reinterpret_cast<Stream*>(s);
}

// Must hold mu.
void push(Stream* s, std::function<void()> op) {
  s->ops.push_back(std::move(op));
  ++s->queued;
  changed.notify_all();
}

// Must hold mu. The allocation containing p, if any.
const Allocation* find(const void* p, std::uintptr_t* base = nullptr) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second.bytes) return nullptr;
  if (base != nullptr) *base = it->first;
  return &it->second;
}

void simulate_transfer(std::size_t bytes) {
  const double us = static_cast<double>(bytes) / rate.load();
  if (us >= 1.0) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(us)));
}

void wait_drained(std::unique_lock<std::mutex>& lock, Stream* s) {
  changed.wait(lock, [&] { return s->done == s->queued; });
}

CUresult address_range(CUdeviceptr* base, std::size_t* size, CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mu);
  std::uintptr_t b = 0;
  const Allocation* a = find(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(p)), &b);
  if (a == nullptr || a->type != cudaMemoryTypeDevice) return CUDA_ERROR_NOT_FOUND;
  *base = static_cast<CUdeviceptr>(b);
  *size = a->bytes;
  return CUDA_SUCCESS;
}

cudaError_t allocate(void** p, std::size_t bytes, cudaMemoryType type) {
  if (bytes > (std::size_t{1} << 40)) return fail(cudaErrorMemoryAllocation);
  *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096 + 4096);
  if (*p == nullptr) return fail(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(mu);
  allocations[reinterpret_cast<std::uintptr_t>(*p)] = {bytes, type, true};
  return cudaSuccess;
}

cudaError_t release(void* p) {
  if (p == nullptr) return cudaSuccess;
  {
    std::unique_lock<std::mutex> lock(mu);
    // Like cudaFree, wait for the work queued on the legacy stream.
    wait_drained(lock, legacy());
    allocations.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  std::free(p);
  return cudaSuccess;
}

}  // namespace

void set_copy_rate(double bytes_per_us) {
  rate.store(bytes_per_us);
}

void fail_memcpy_after(int n) {
  std::lock_guard<std::mutex> lock(mu);
  memcpy_failure = n;
}

void fail_register_after(int n) {
  std::lock_guard<std::mutex> lock(mu);
  register_failure = n;
}

void set_register_delay_us(long us) {
  register_delay_us.store(us);
}

int most_concurrent_registrations() {
  return most_registering.exchange(0);
}

void fail_event_query_after(int n) {
  std::lock_guard<std::mutex> lock(mu);
  event_failure = n;
}

void hold_stream(cudaStream_t stream, const std::atomic<bool>* release_flag) {
  std::lock_guard<std::mutex> lock(mu);
  push(as_stream(stream), [release_flag] {
    while (!release_flag->load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
}

}  // namespace pinbench::sim

using namespace pinbench::sim;

extern "C" {

cudaError_t cudaGetLastError() {
  const cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  return last_error;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode*) {
  return cudaSuccess;
}

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    default:
      return "cudaErrorUnknown";
  }
}

const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "simulated error";
}

cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned int) {
  return allocate(p, bytes, cudaMemoryTypeManaged);
}

cudaError_t cudaMalloc(void** p, size_t bytes) {
  return allocate(p, bytes, cudaMemoryTypeDevice);
}

cudaError_t cudaFree(void* p) {
  return release(p);
}

cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int) {
  return allocate(p, bytes, cudaMemoryTypeHost);
}

cudaError_t cudaMallocHost(void** p, size_t bytes) {
  return allocate(p, bytes, cudaMemoryTypeHost);
}

cudaError_t cudaFreeHost(void* p) {
  return release(p);
}

cudaError_t cudaHostRegister(void* p, size_t bytes, unsigned int) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (register_failure >= 0 && register_failure-- == 0) return fail(cudaErrorMemoryAllocation);
    // As the driver: a range that overlaps one already registered is refused.
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = allocations.lower_bound(a);
    if ((it != allocations.end() && it->first < a + bytes) ||
        (it != allocations.begin() && std::prev(it)->first + std::prev(it)->second.bytes > a)) {
      return fail(cudaErrorHostMemoryAlreadyRegistered);
    }
  }
  const int now = registering.fetch_add(1) + 1;
  for (int most = most_registering.load(); now > most;) {
    if (most_registering.compare_exchange_weak(most, now)) break;
  }
  if (const long us = register_delay_us.load(); us > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  registering.fetch_sub(1);
  std::lock_guard<std::mutex> lock(mu);
  allocations[reinterpret_cast<std::uintptr_t>(p)] = {bytes, cudaMemoryTypeHost, false};
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* p) {
  std::lock_guard<std::mutex> lock(mu);
  allocations.erase(reinterpret_cast<std::uintptr_t>(p));
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* p) {
  std::lock_guard<std::mutex> lock(mu);
  *attr = cudaPointerAttributes{};
  const Allocation* a = find(p);
  attr->type = a == nullptr ? cudaMemoryTypeUnregistered : a->type;
  attr->device = a == nullptr ? -2 : 0;
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int,
                                             unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  if (std::strcmp(symbol, "cuMemGetAddressRange") == 0) {
    *fn = reinterpret_cast<void*>(&address_range);
    if (status != nullptr) *status = cudaDriverEntryPointSuccess;
    return cudaSuccess;
  }
  *fn = nullptr;
  if (status != nullptr) *status = cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  *s = reinterpret_cast<cudaStream_t>(make_stream());
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  return cudaStreamCreateWithFlags(s, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Stream* s = as_stream(stream);
  if (s == legacy()) return fail(cudaErrorInvalidResourceHandle);
  {
    std::unique_lock<std::mutex> lock(mu);
    wait_drained(lock, s);
    s->stop = true;
    changed.notify_all();
  }
  s->thread.join();
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  std::unique_lock<std::mutex> lock(mu);
  wait_drained(lock, as_stream(stream));
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  std::lock_guard<std::mutex> lock(mu);
  *status =
      as_stream(stream)->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
  std::lock_guard<std::mutex> lock(mu);
  as_stream(stream)->capturing = true;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  std::lock_guard<std::mutex> lock(mu);
  as_stream(stream)->capturing = false;
  *graph = nullptr;
  return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t, int* device) {
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  *e = reinterpret_cast<cudaEvent_t>(new Event);
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  return cudaEventCreateWithFlags(e, 0);
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<Event*>(e);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu);
  auto* e = reinterpret_cast<Event*>(event);
  Stream* s = as_stream(stream);
  push(s, [] {});
  e->stream = s;
  e->target = s->queued;
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu);
  const auto* e = reinterpret_cast<Event*>(event);
  if (e->stream != nullptr && e->stream->done < e->target) return cudaErrorNotReady;
  if (event_failure >= 0 && event_failure-- == 0) return fail(cudaErrorLaunchFailure);
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  std::unique_lock<std::mutex> lock(mu);
  const auto* e = reinterpret_cast<Event*>(event);
  if (e->stream != nullptr) changed.wait(lock, [&] { return e->stream->done >= e->target; });
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  std::lock_guard<std::mutex> lock(mu);
  const auto* e = reinterpret_cast<Event*>(event);
  if (e->stream == nullptr) return cudaSuccess;  // never recorded: nothing to wait for
  Stream* on = e->stream;
  const std::uint64_t target = e->target;
  push(as_stream(stream), [on, target] {
    std::unique_lock<std::mutex> wait_lock(mu);
    changed.wait(wait_lock, [&] { return on->done >= target; });
  });
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  std::unique_lock<std::mutex> lock(mu);
  if (memcpy_failure >= 0 && memcpy_failure-- == 0) return fail(cudaErrorInvalidValue);
  std::uintptr_t d_base = 0, s_base = 0;
  const Allocation* d = find(dst, &d_base);
  const Allocation* s = find(src, &s_base);
  const bool to_device = kind == cudaMemcpyHostToDevice;
  const bool to_host = kind == cudaMemcpyDeviceToHost;
  if ((to_device && (d == nullptr || d->type != cudaMemoryTypeDevice)) ||
      (to_host && (s == nullptr || s->type != cudaMemoryTypeDevice))) {
    return fail(cudaErrorInvalidValue);
  }
  // As the runtime: a range that runs past its allocation is refused.
  const auto past = [bytes](const Allocation* a, std::uintptr_t base, const void* p) {
    return a != nullptr && bytes > base + a->bytes - reinterpret_cast<std::uintptr_t>(p);
  };
  if (past(d, d_base, dst) || past(s, s_base, src)) return fail(cudaErrorInvalidValue);
  Stream* st = as_stream(stream);
  if (to_device && s == nullptr) {
    // Pageable source: the driver stages it during the call, after the stream's earlier work.
    wait_drained(lock, st);
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                      static_cast<const char*>(src) + bytes);
    push(st, [dst, staged] {
      simulate_transfer(staged->size());
      std::memcpy(dst, staged->data(), staged->size());
    });
    return cudaSuccess;
  }
  push(st, [dst, src, bytes] {
    simulate_transfer(bytes);
    std::memcpy(dst, src, bytes);
  });
  if (to_host && d == nullptr) wait_drained(lock, st);  // pageable destination: synchronous
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  for (size_t row = 0; row < height; ++row) {
    const cudaError_t e =
        cudaMemcpyAsync(static_cast<char*>(dst) + row * dpitch,
                        static_cast<const char*>(src) + row * spitch, width, kind, stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyBatchAsync(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                 size_t count, cudaMemcpyAttributes*, size_t*, size_t,
                                 cudaStream_t stream) {
  // As the runtime: the copies in stream order after earlier work (here one after another).
  for (size_t i = 0; i < count; ++i) {
    bool device_dst = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      const Allocation* d = find(dsts[i]);
      device_dst = d != nullptr && d->type == cudaMemoryTypeDevice;
    }
    const cudaError_t e =
        cudaMemcpyAsync(dsts[i], srcs[i], sizes[i],
                        device_dst ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, nullptr);
  if (e != cudaSuccess) return e;
  return cudaStreamSynchronize(nullptr);
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu);
  push(as_stream(stream), [=] { std::memset(dst, value, bytes); });
  return cudaSuccess;
}

cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
  const cudaError_t e = cudaMemsetAsync(dst, value, bytes, nullptr);
  if (e != cudaSuccess) return e;
  return cudaStreamSynchronize(nullptr);
}

}  // extern "C"
