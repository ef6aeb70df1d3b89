// A simulated CUDA runtime for testing the staged copy engine's host logic without a GPU: the
// part of the runtime API the engine uses (plus allocation and synchronous copies for the
// tests), implemented on host memory with the semantics that matter to the engine:
//
//  - a stream is a thread that runs its operations in order, and a copy takes time (bytes over
//    a simulated rate), so work overlaps as it does on a device;
//  - an event completes when its stream has run everything queued before the record;
//    cudaStreamWaitEvent waits for the record current at the call, as CUDA's does;
//  - a copy from pageable memory to the device reads the source during the call, and one from
//    the device to pageable memory completes before the call returns, as the driver's staging
//    does; copies to and from page-locked memory are queued;
//  - cudaHostRegister refuses a range that overlaps one registered, and a copy may not run past
//    its allocation or registration (one copy across two registrations fails, as the driver's);
//  - cudaPointerGetAttributes knows the allocations made here (device, page-locked, registered)
//    and calls everything else pageable; cuMemGetAddressRange is found through
//    cudaGetDriverEntryPointByVersion;
//  - cudaGetLastError and cudaPeekAtLastError report the calling thread's last failure.
//
// It is a test double, not an emulator: no kernels, no legacy-stream synchronisation, one device.
// What it cannot show (DMA rates, the driver's real staging) the GPU tests do.
#pragma once

#include <atomic>
#include <cstddef>

#include <cuda_runtime_api.h>

namespace pinbench::sim {

// Simulated copy rate in bytes per microsecond (default 20000: 20 GB/s).
void set_copy_rate(double bytes_per_us);

// The n-th cudaMemcpyAsync from now (0: the next) returns cudaErrorInvalidValue; -1: none.
void fail_memcpy_after(int n);
// The n-th cudaHostRegister from now (0: the next) returns cudaErrorMemoryAllocation; -1: none.
void fail_register_after(int n);
// Each cudaHostRegister takes this long (outside any lock: calls may overlap).
void set_register_delay_us(long us);
// The most cudaHostRegister calls that ran at once since the last call to this (then reset).
int most_concurrent_registrations();
// The n-th cudaEventQuery from now that would report completion returns cudaErrorLaunchFailure
// instead; -1: none.
void fail_event_query_after(int n);

// Queues on `stream` an operation that holds it until `*release` is true.
void hold_stream(cudaStream_t stream, const std::atomic<bool>* release);

}  // namespace pinbench::sim
