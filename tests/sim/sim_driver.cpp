// A simulated CUDA driver (soname libcuda.so.1) over the simulated runtime (sim_cudart.hpp),
// built into one shared library with it: the driver functions accel's driver backend calls
// (src/experiments/accel/interpose/driver_runtime.cpp), each made with the simulated runtime's
// function of the same meaning, so the engine can run through the driver backend on any
// machine. One device and its primary context; a context is current per thread, as the
// driver's is. The runtime's error codes are the driver's, number for number.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

#define SIM_DRIVER extern "C" __attribute__((visibility("default")))

namespace {

int g_primary_context_storage = 0;
const CUcontext kPrimary = reinterpret_cast<CUcontext>(&g_primary_context_storage);
bool g_primary_retained = false;
thread_local CUcontext t_current = nullptr;

CUresult as_driver(cudaError_t e) {
  return static_cast<CUresult>(e);
}

}  // namespace

SIM_DRIVER CUresult cuInit(unsigned int) {
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = t_current;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuCtxSetCurrent(CUcontext c) {
  t_current = c;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuCtxGetDevice(CUdevice* d) {
  if (t_current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *d = 0;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  g_primary_retained = true;
  *c = kPrimary;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int* flags, int* active) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  *flags = 0;
  *active = g_primary_retained ? 1 : 0;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuEventCreate(CUevent* e, unsigned int flags) {
  return as_driver(cudaEventCreateWithFlags(reinterpret_cast<cudaEvent_t*>(e), flags));
}

SIM_DRIVER CUresult cuEventDestroy_v2(CUevent e) {
  return as_driver(cudaEventDestroy(reinterpret_cast<cudaEvent_t>(e)));
}

SIM_DRIVER CUresult cuEventQuery(CUevent e) {
  return as_driver(cudaEventQuery(reinterpret_cast<cudaEvent_t>(e)));
}

SIM_DRIVER CUresult cuEventRecord(CUevent e, CUstream s) {
  return as_driver(
      cudaEventRecord(reinterpret_cast<cudaEvent_t>(e), reinterpret_cast<cudaStream_t>(s)));
}

SIM_DRIVER CUresult cuEventSynchronize(CUevent e) {
  return as_driver(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(e)));
}

SIM_DRIVER CUresult cuMemHostAlloc(void** p, size_t n, unsigned int flags) {
  return as_driver(cudaHostAlloc(p, n, flags));
}

SIM_DRIVER CUresult cuMemFreeHost(void* p) {
  return as_driver(cudaFreeHost(p));
}

// Unified addressing: the kind follows from what each pointer is.
SIM_DRIVER CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  cudaPointerAttributes d{}, from{};
  void* dp = reinterpret_cast<void*>(dst);
  const void* sp = reinterpret_cast<const void*>(src);
  (void)cudaPointerGetAttributes(&d, dp);
  (void)cudaPointerGetAttributes(&from, sp);
  const cudaMemcpyKind kind =
      d.type == cudaMemoryTypeDevice && from.type != cudaMemoryTypeDevice   ? cudaMemcpyHostToDevice
      : from.type == cudaMemoryTypeDevice && d.type != cudaMemoryTypeDevice ? cudaMemcpyDeviceToHost
                                                                            : cudaMemcpyDefault;
  return as_driver(cudaMemcpyAsync(dp, sp, n, kind, reinterpret_cast<cudaStream_t>(s)));
}

SIM_DRIVER CUresult cuPointerGetAttributes(unsigned int count, CUpointer_attribute* which,
                                           void** data, CUdeviceptr ptr) {
  cudaPointerAttributes a{};
  if (const cudaError_t e = cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(ptr));
      e != cudaSuccess) {
    return as_driver(e);
  }
  for (unsigned int i = 0; i < count; ++i) {
    switch (which[i]) {
      case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *static_cast<unsigned int*>(data[i]) =
            a.type == cudaMemoryTypeHost ? unsigned{CU_MEMORYTYPE_HOST}
            : a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged
                ? unsigned{CU_MEMORYTYPE_DEVICE}
                : 0u;
        break;
      case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *static_cast<int*>(data[i]) = a.device;
        break;
      case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *static_cast<CUdeviceptr*>(data[i]) =
            a.type == cudaMemoryTypeUnregistered ? 0 : static_cast<CUdeviceptr>(ptr);
        break;
      case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        *static_cast<void**>(data[i]) =
            a.type == cudaMemoryTypeHost ? reinterpret_cast<void*>(ptr) : nullptr;
        break;
      case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *static_cast<unsigned int*>(data[i]) = a.type == cudaMemoryTypeManaged ? 1u : 0u;
        break;
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuStreamCreate(CUstream* s, unsigned int flags) {
  return as_driver(cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t*>(s), flags));
}

SIM_DRIVER CUresult cuStreamDestroy_v2(CUstream s) {
  return as_driver(cudaStreamDestroy(reinterpret_cast<cudaStream_t>(s)));
}

SIM_DRIVER CUresult cuStreamGetCtx(CUstream, CUcontext* c) {
  *c = kPrimary;
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuStreamGetDevice(CUstream s, CUdevice* d) {
  int device = 0;
  const cudaError_t e = cudaStreamGetDevice(reinterpret_cast<cudaStream_t>(s), &device);
  *d = device;
  return as_driver(e);
}

SIM_DRIVER CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  cudaStreamCaptureStatus c = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(reinterpret_cast<cudaStream_t>(s), &c);
  *status = static_cast<CUstreamCaptureStatus>(c);
  return as_driver(e);
}

SIM_DRIVER CUresult cuStreamSynchronize(CUstream s) {
  return as_driver(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(s)));
}

SIM_DRIVER CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  return as_driver(cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(s),
                                       reinterpret_cast<cudaEvent_t>(e), flags));
}

SIM_DRIVER CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* m) {
  return as_driver(
      cudaThreadExchangeStreamCaptureMode(reinterpret_cast<cudaStreamCaptureMode*>(m)));
}

SIM_DRIVER CUresult cuGetErrorName(CUresult e, const char** s) {
  *s = cudaGetErrorName(static_cast<cudaError_t>(e));
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuGetErrorString(CUresult e, const char** s) {
  *s = cudaGetErrorString(static_cast<cudaError_t>(e));
  return CUDA_SUCCESS;
}

SIM_DRIVER CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int version,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(
      symbol, fn, static_cast<unsigned int>(version), flags, &found);
  if (status != nullptr) *status = static_cast<CUdriverProcAddressQueryResult>(found);
  return as_driver(e);
}
