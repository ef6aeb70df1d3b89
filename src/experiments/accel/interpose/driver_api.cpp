// Finding the driver's own functions (driver_api.hpp).
#include "experiments/accel/interpose/driver_api.hpp"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "experiments/accel/interpose/symbols.hpp"

namespace pinbench::experiments::accel {
namespace {

// The names as libcuda exports them: cuda.h's macros give the versioned ones (cuEventDestroy
// is cuEventDestroy_v2), and this file is built without per-thread default streams, so none
// is a _ptsz form.
#define PINBENCH_NAME_OF(fn) PINBENCH_NAME_OF_(fn)
#define PINBENCH_NAME_OF_(fn) #fn

void* g_libcuda = nullptr;
std::once_flag g_libcuda_once;

void* libcuda() {
  std::call_once(g_libcuda_once, [] {
    g_libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (g_libcuda == nullptr) g_libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  });
  return g_libcuda;
}

template <typename Fn>
void find(Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(driver_symbol(name));
}

}  // namespace

void* driver_symbol(const char* name) {
  void* handle = libcuda();
  return handle == nullptr ? nullptr : real_dlsym(handle, name);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver out;
    out.loaded = libcuda() != nullptr;
    if (!out.loaded) return out;
    DriverApi& a = out.api;
#define PINBENCH_FIND(field, fn) find(a.field, PINBENCH_NAME_OF(fn))
    PINBENCH_FIND(init, cuInit);
    PINBENCH_FIND(ctx_get_current, cuCtxGetCurrent);
    PINBENCH_FIND(ctx_set_current, cuCtxSetCurrent);
    PINBENCH_FIND(ctx_get_device, cuCtxGetDevice);
    PINBENCH_FIND(device_get, cuDeviceGet);
    PINBENCH_FIND(device_get_count, cuDeviceGetCount);
    PINBENCH_FIND(primary_ctx_retain, cuDevicePrimaryCtxRetain);
    PINBENCH_FIND(primary_ctx_get_state, cuDevicePrimaryCtxGetState);
    PINBENCH_FIND(event_create, cuEventCreate);
    PINBENCH_FIND(event_destroy, cuEventDestroy);
    PINBENCH_FIND(event_query, cuEventQuery);
    PINBENCH_FIND(event_record, cuEventRecord);
    PINBENCH_FIND(event_synchronize, cuEventSynchronize);
    PINBENCH_FIND(mem_host_alloc, cuMemHostAlloc);
    PINBENCH_FIND(mem_free_host, cuMemFreeHost);
    PINBENCH_FIND(memcpy_async, cuMemcpyAsync);
    PINBENCH_FIND(pointer_get_attributes, cuPointerGetAttributes);
    PINBENCH_FIND(stream_create, cuStreamCreate);
    PINBENCH_FIND(stream_destroy, cuStreamDestroy);
    PINBENCH_FIND(stream_get_ctx, cuStreamGetCtx);
    PINBENCH_FIND(stream_get_device, cuStreamGetDevice);
    PINBENCH_FIND(stream_is_capturing, cuStreamIsCapturing);
    PINBENCH_FIND(stream_synchronize, cuStreamSynchronize);
    PINBENCH_FIND(stream_wait_event, cuStreamWaitEvent);
    PINBENCH_FIND(exchange_capture_mode, cuThreadExchangeStreamCaptureMode);
    PINBENCH_FIND(get_error_name, cuGetErrorName);
    PINBENCH_FIND(get_error_string, cuGetErrorString);
    PINBENCH_FIND(get_proc_address, cuGetProcAddress);
#undef PINBENCH_FIND
    return out;
  }();
  return d;
}

CUcontext active_primary_context(CUdevice device) {
  constexpr int kDevices = 64;
  static std::atomic<CUcontext> known[kDevices] = {};
  if (device < 0 || device >= kDevices) return nullptr;
  if (CUcontext c = known[device].load(std::memory_order_acquire)) return c;
  const DriverApi& a = driver().api;
  if (a.primary_ctx_get_state == nullptr || a.primary_ctx_retain == nullptr) return nullptr;
  unsigned int flags = 0;
  int active = 0;
  if (a.primary_ctx_get_state(device, &flags, &active) != CUDA_SUCCESS || active == 0) {
    return nullptr;
  }
  CUcontext c = nullptr;
  if (a.primary_ctx_retain(&c, device) != CUDA_SUCCESS) return nullptr;
  CUcontext expected = nullptr;
  // Two threads may retain it at once: the second keeps one reference more, never released,
  // as the runtime keeps its own.
  if (!known[device].compare_exchange_strong(expected, c)) return expected;
  return c;
}

}  // namespace pinbench::experiments::accel
