// Forced ahead of every file of accel's library that calls the CUDA runtime for itself (the staged
// engine, the router; not interpose.cpp, which defines the program's entry points): each runtime
// call of transfer/runtime_calls.def is renamed to pinbench_accel_NAME, which real_runtime.cpp
// defines as a call into the program's own libcudart. Included before <cuda_runtime_api.h>, so the
// header declares the renamed functions with the runtime's own signatures.
#pragma once

#define PINBENCH_ACCEL_RENAMED(name) pinbench_accel_##name
#define cudaEventCreateWithFlags PINBENCH_ACCEL_RENAMED(cudaEventCreateWithFlags)
#define cudaEventDestroy PINBENCH_ACCEL_RENAMED(cudaEventDestroy)
#define cudaEventQuery PINBENCH_ACCEL_RENAMED(cudaEventQuery)
#define cudaEventRecord PINBENCH_ACCEL_RENAMED(cudaEventRecord)
#define cudaEventSynchronize PINBENCH_ACCEL_RENAMED(cudaEventSynchronize)
#define cudaFreeHost PINBENCH_ACCEL_RENAMED(cudaFreeHost)
#define cudaGetDevice PINBENCH_ACCEL_RENAMED(cudaGetDevice)
#define cudaGetDeviceCount PINBENCH_ACCEL_RENAMED(cudaGetDeviceCount)
#define cudaGetDriverEntryPointByVersion PINBENCH_ACCEL_RENAMED(cudaGetDriverEntryPointByVersion)
#define cudaGetLastError PINBENCH_ACCEL_RENAMED(cudaGetLastError)
#define cudaHostAlloc PINBENCH_ACCEL_RENAMED(cudaHostAlloc)
#define cudaMemcpyAsync PINBENCH_ACCEL_RENAMED(cudaMemcpyAsync)
#define cudaMemcpyBatchAsync PINBENCH_ACCEL_RENAMED(cudaMemcpyBatchAsync)
#define cudaPeekAtLastError PINBENCH_ACCEL_RENAMED(cudaPeekAtLastError)
#define cudaPointerGetAttributes PINBENCH_ACCEL_RENAMED(cudaPointerGetAttributes)
#define cudaSetDevice PINBENCH_ACCEL_RENAMED(cudaSetDevice)
#define cudaStreamCreateWithFlags PINBENCH_ACCEL_RENAMED(cudaStreamCreateWithFlags)
#define cudaStreamDestroy PINBENCH_ACCEL_RENAMED(cudaStreamDestroy)
#define cudaStreamGetDevice PINBENCH_ACCEL_RENAMED(cudaStreamGetDevice)
#define cudaStreamIsCapturing PINBENCH_ACCEL_RENAMED(cudaStreamIsCapturing)
#define cudaStreamSynchronize PINBENCH_ACCEL_RENAMED(cudaStreamSynchronize)
#define cudaStreamWaitEvent PINBENCH_ACCEL_RENAMED(cudaStreamWaitEvent)
#define cudaThreadExchangeStreamCaptureMode \
  PINBENCH_ACCEL_RENAMED(cudaThreadExchangeStreamCaptureMode)
#define cudaGetErrorName PINBENCH_ACCEL_RENAMED(cudaGetErrorName)
#define cudaGetErrorString PINBENCH_ACCEL_RENAMED(cudaGetErrorString)
