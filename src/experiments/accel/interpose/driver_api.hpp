// The CUDA driver's own functions, as accel's library calls them for itself: the driver backend
// of its engine (driver_runtime.cpp) and the checks on a driver copy call (driver_entry.cpp).
// Each is looked up in libcuda by its exported name with the real dlsym, never through the
// entry points accel hands to the program, so none of these calls comes back into accel.
// Nothing of CUDA is linked: a function libcuda lacks is null.
#pragma once

#include <cuda.h>

namespace pinbench::experiments::accel {

struct DriverApi {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxGetState) primary_ctx_get_state = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;
  decltype(&::cuEventQuery) event_query = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuMemHostAlloc) mem_host_alloc = nullptr;
  decltype(&::cuMemFreeHost) mem_free_host = nullptr;
  decltype(&::cuMemcpyAsync) memcpy_async = nullptr;
  decltype(&::cuPointerGetAttributes) pointer_get_attributes = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamGetCtx) stream_get_ctx = nullptr;
  decltype(&::cuStreamGetDevice) stream_get_device = nullptr;
  decltype(&::cuStreamIsCapturing) stream_is_capturing = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamWaitEvent) stream_wait_event = nullptr;
  decltype(&::cuThreadExchangeStreamCaptureMode) exchange_capture_mode = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuGetProcAddress) get_proc_address = nullptr;
};

// The driver's functions, found once (libcuda is opened if the process has not loaded it).
// `loaded` is false when there is no libcuda: every pointer is null then.
struct Driver {
  DriverApi api;
  bool loaded = false;
};
const Driver& driver();

// libcuda's own definition of `name` (real dlsym on libcuda's handle), or null.
void* driver_symbol(const char* name);

// The primary context of `device` while it is active (retained once, kept), else null: a
// program that made only contexts of its own has none, and asking must not make one.
CUcontext active_primary_context(CUdevice device);

}  // namespace pinbench::experiments::accel
