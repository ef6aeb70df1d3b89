// The driver backend of accel's engine: each runtime call of the engine's list
// (transfer/runtime_calls.def) made with the driver's own functions (driver_api.hpp), for a process
// that has no shared runtime to forward to (a program that links the runtime statically, as nvcc
// does by default, or that calls only the driver API). real_runtime.cpp picks this backend when no
// libcudart.so is loaded.
//
// The runtime's meaning, as far as the engine relies on it:
//  - a device is its primary context, as the runtime's is: cudaSetDevice makes it current on the
//    calling thread, and a thread with no context gets device 0's, as the runtime would;
//  - errors are the driver's CUresult as a cudaError_t (the runtime's codes are the driver's,
//    number for number, for every error these calls can return), kept per thread as the last
//    error until cudaGetLastError;
//  - the special streams (0, cudaStreamLegacy, cudaStreamPerThread) are the driver's.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "experiments/accel/interpose/driver_api.hpp"

namespace pinbench::experiments::accel {
namespace {

thread_local cudaError_t t_last_error = cudaSuccess;

cudaError_t keep(CUresult r) {
  const auto e = static_cast<cudaError_t>(r);
  if (e != cudaSuccess && e != cudaErrorNotReady) t_last_error = e;
  return e;
}

const DriverApi* api() {
  const Driver& d = driver();
  return d.loaded ? &d.api : nullptr;
}

// A missing driver function: the driver is older than the call, or absent.
cudaError_t missing() {
  t_last_error = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}

CUresult primary_of(int device, CUcontext* ctx) {
  const DriverApi* a = api();
  if (a->init(0) != CUDA_SUCCESS) return CUDA_ERROR_NOT_INITIALIZED;
  CUdevice dev = 0;
  if (const CUresult r = a->device_get(&dev, device); r != CUDA_SUCCESS) return r;
  if (CUcontext c = active_primary_context(dev)) {
    *ctx = c;
    return CUDA_SUCCESS;
  }
  // Not active yet: retaining it makes it, as the runtime's first call on a device does (that
  // reference is kept, as the runtime keeps its own).
  CUcontext made = nullptr;
  if (const CUresult r = a->primary_ctx_retain(&made, dev); r != CUDA_SUCCESS) return r;
  CUcontext c = active_primary_context(dev);
  *ctx = c != nullptr ? c : made;
  return CUDA_SUCCESS;
}

// The calling thread's context, device 0's primary one when it has none (the runtime's rule).
CUresult ensure_context() {
  const DriverApi* a = api();
  CUcontext current = nullptr;
  if (a->ctx_get_current(&current) == CUDA_SUCCESS && current != nullptr) return CUDA_SUCCESS;
  CUcontext ctx = nullptr;
  if (const CUresult r = primary_of(0, &ctx); r != CUDA_SUCCESS) return r;
  return a->ctx_set_current(ctx);
}

#define PINBENCH_NEED(field)                                \
  const DriverApi* a = pinbench::experiments::accel::api(); \
  if (a == nullptr || a->field == nullptr) return missing()

}  // namespace
}  // namespace pinbench::experiments::accel

using pinbench::experiments::accel::DriverApi;
using pinbench::experiments::accel::ensure_context;
using pinbench::experiments::accel::keep;
using pinbench::experiments::accel::missing;

extern "C" {

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaEventCreateWithFlags(
    cudaEvent_t* e, unsigned int flags) {
  PINBENCH_NEED(event_create);
  if (const CUresult r = ensure_context(); r != CUDA_SUCCESS) return keep(r);
  // cudaEventDefault, BlockingSync, DisableTiming and Interprocess are CU_EVENT_*'s values.
  return keep(a->event_create(reinterpret_cast<CUevent*>(e), flags));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaEventDestroy(
    cudaEvent_t e) {
  PINBENCH_NEED(event_destroy);
  return keep(a->event_destroy(reinterpret_cast<CUevent>(e)));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaEventQuery(
    cudaEvent_t e) {
  PINBENCH_NEED(event_query);
  return keep(a->event_query(reinterpret_cast<CUevent>(e)));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaEventRecord(
    cudaEvent_t e, cudaStream_t s) {
  PINBENCH_NEED(event_record);
  return keep(a->event_record(reinterpret_cast<CUevent>(e), reinterpret_cast<CUstream>(s)));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaEventSynchronize(
    cudaEvent_t e) {
  PINBENCH_NEED(event_synchronize);
  return keep(a->event_synchronize(reinterpret_cast<CUevent>(e)));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaFreeHost(void* p) {
  PINBENCH_NEED(mem_free_host);
  return keep(a->mem_free_host(p));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaGetDevice(int* d) {
  PINBENCH_NEED(ctx_get_device);
  CUcontext current = nullptr;
  if (a->ctx_get_current(&current) != CUDA_SUCCESS || current == nullptr) {
    *d = 0;  // the runtime's device before any is chosen
    return cudaSuccess;
  }
  CUdevice dev = 0;
  const cudaError_t e = keep(a->ctx_get_device(&dev));
  if (e == cudaSuccess) *d = static_cast<int>(dev);
  return e;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaGetDeviceCount(int* n) {
  PINBENCH_NEED(device_get_count);
  if (const CUresult r = a->init(0); r != CUDA_SUCCESS) return keep(r);
  return keep(a->device_get_count(n));
}

__attribute__((visibility("hidden"))) cudaError_t
pinbench_accel_driver_cudaGetDriverEntryPointByVersion(const char* s, void** f, unsigned int v,
                                                       unsigned long long flags,
                                                       cudaDriverEntryPointQueryResult* result) {
  PINBENCH_NEED(get_proc_address);
  // cudaEnable* and CU_GET_PROC_ADDRESS_*, and the two query results, have the same values.
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const cudaError_t e = keep(a->get_proc_address(s, f, static_cast<int>(v), flags, &found));
  if (result != nullptr) *result = static_cast<cudaDriverEntryPointQueryResult>(found);
  return e;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaGetLastError(void) {
  const cudaError_t e = pinbench::experiments::accel::t_last_error;
  pinbench::experiments::accel::t_last_error = cudaSuccess;
  return e;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaPeekAtLastError(void) {
  return pinbench::experiments::accel::t_last_error;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaHostAlloc(
    void** p, size_t n, unsigned int flags) {
  PINBENCH_NEED(mem_host_alloc);
  if (const CUresult r = ensure_context(); r != CUDA_SUCCESS) return keep(r);
  // cudaHostAllocPortable, Mapped and WriteCombined are CU_MEMHOSTALLOC_*'s values.
  return keep(a->mem_host_alloc(p, n, flags));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaMemcpyAsync(
    void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t st) {
  PINBENCH_NEED(memcpy_async);
  // Unified addressing says which memory each pointer is; the engine's copies are between its
  // page-locked staging and device memory, never pageable.
  return keep(a->memcpy_async(reinterpret_cast<CUdeviceptr>(d), reinterpret_cast<CUdeviceptr>(s), n,
                              reinterpret_cast<CUstream>(st)));
}

// Only the engine's batch calls use it, and accel's router makes none.
__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaMemcpyBatchAsync(
    void* const*, const void* const*, const size_t*, size_t, cudaMemcpyAttributes*, size_t*, size_t,
    cudaStream_t) {
  return missing();
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaPointerGetAttributes(
    cudaPointerAttributes* out, const void* p) {
  PINBENCH_NEED(pointer_get_attributes);
  CUpointer_attribute which[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned int type = 0;
  int ordinal = -2;
  CUdeviceptr device_pointer = 0;
  void* host_pointer = nullptr;
  unsigned int managed = 0;
  void* data[] = {&type, &ordinal, &device_pointer, &host_pointer, &managed};
  // Memory CUDA does not know gets the attributes' empty values and CUDA_SUCCESS, as the
  // runtime answers cudaMemoryTypeUnregistered.
  const cudaError_t e =
      keep(a->pointer_get_attributes(5, which, data, reinterpret_cast<CUdeviceptr>(p)));
  if (e != cudaSuccess) return e;
  *out = cudaPointerAttributes{};
  out->type = managed != 0                    ? cudaMemoryTypeManaged
              : type == CU_MEMORYTYPE_HOST    ? cudaMemoryTypeHost
              : type == CU_MEMORYTYPE_DEVICE  ? cudaMemoryTypeDevice
              : type == CU_MEMORYTYPE_UNIFIED ? cudaMemoryTypeManaged
                                              : cudaMemoryTypeUnregistered;
  out->device = out->type == cudaMemoryTypeUnregistered ? -2 : ordinal;
  out->devicePointer = reinterpret_cast<void*>(device_pointer);
  out->hostPointer = host_pointer;
  return cudaSuccess;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaSetDevice(int d) {
  PINBENCH_NEED(ctx_set_current);
  CUcontext ctx = nullptr;
  if (const CUresult r = pinbench::experiments::accel::primary_of(d, &ctx); r != CUDA_SUCCESS)
    return keep(r);
  return keep(a->ctx_set_current(ctx));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaStreamCreateWithFlags(
    cudaStream_t* s, unsigned int flags) {
  PINBENCH_NEED(stream_create);
  if (const CUresult r = ensure_context(); r != CUDA_SUCCESS) return keep(r);
  // cudaStreamNonBlocking is CU_STREAM_NON_BLOCKING.
  return keep(a->stream_create(reinterpret_cast<CUstream*>(s), flags));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaStreamDestroy(
    cudaStream_t s) {
  PINBENCH_NEED(stream_destroy);
  return keep(a->stream_destroy(reinterpret_cast<CUstream>(s)));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaStreamGetDevice(
    cudaStream_t s, int* d) {
  PINBENCH_NEED(stream_get_device);
  CUdevice dev = 0;
  const cudaError_t e = keep(a->stream_get_device(reinterpret_cast<CUstream>(s), &dev));
  if (e == cudaSuccess) *d = static_cast<int>(dev);
  return e;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaStreamIsCapturing(
    cudaStream_t s, cudaStreamCaptureStatus* c) {
  PINBENCH_NEED(stream_is_capturing);
  // cudaStreamCaptureStatus* and CU_STREAM_CAPTURE_STATUS_* have the same values.
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  const cudaError_t e = keep(a->stream_is_capturing(reinterpret_cast<CUstream>(s), &status));
  *c = static_cast<cudaStreamCaptureStatus>(status);
  return e;
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaStreamSynchronize(
    cudaStream_t s) {
  PINBENCH_NEED(stream_synchronize);
  return keep(a->stream_synchronize(reinterpret_cast<CUstream>(s)));
}

__attribute__((visibility("hidden"))) cudaError_t pinbench_accel_driver_cudaStreamWaitEvent(
    cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  PINBENCH_NEED(stream_wait_event);
  return keep(
      a->stream_wait_event(reinterpret_cast<CUstream>(s), reinterpret_cast<CUevent>(e), flags));
}

__attribute__((visibility("hidden"))) cudaError_t
pinbench_accel_driver_cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* m) {
  PINBENCH_NEED(exchange_capture_mode);
  // cudaStreamCaptureMode* and CU_STREAM_CAPTURE_MODE_* have the same values.
  return keep(a->exchange_capture_mode(reinterpret_cast<CUstreamCaptureMode*>(m)));
}

__attribute__((visibility("hidden"))) const char* pinbench_accel_driver_cudaGetErrorName(
    cudaError_t e) {
  const DriverApi* a = pinbench::experiments::accel::api();
  const char* s = nullptr;
  if (a != nullptr && a->get_error_name != nullptr &&
      a->get_error_name(static_cast<CUresult>(e), &s) == CUDA_SUCCESS && s != nullptr) {
    return s;
  }
  return "unknown CUDA error";
}

__attribute__((visibility("hidden"))) const char* pinbench_accel_driver_cudaGetErrorString(
    cudaError_t e) {
  const DriverApi* a = pinbench::experiments::accel::api();
  const char* s = nullptr;
  if (a != nullptr && a->get_error_string != nullptr &&
      a->get_error_string(static_cast<CUresult>(e), &s) == CUDA_SUCCESS && s != nullptr) {
    return s;
  }
  return "unknown CUDA error";
}

}  // extern "C"
