// Finding the GPU and describing the machine. No CUDA types in this header, so the CLI can
// include it without a CUDA include path.
#pragma once

#include <cstdint>
#include <string>

#include "framework/record.hpp"

namespace pinbench::cuda {

// Number of devices CUDA can use here; 0 (never an exception) when there is no driver or GPU.
int device_count();

// Why no device is usable, in a few words ("no CUDA driver on this machine" where libcuda.so.1
// does not load, "the CUDA driver here is older than pinbench's CUDA runtime" where it does and
// the runtime finds it too old, "no CUDA-capable device"), or "" when one is.
std::string no_device_reason();

// Throws NoGpuError when device_count() is 0.
void require_device();

// --device N of every measuring subcommand: makes `device` the current device of the calling
// thread and the one start_record describes. NoGpuError where no GPU is usable (so a command
// replays as without --device); InputError naming the device count when `device` is not one.
void select_device(int device);

// The device select_device chose (0 until it is called).
int selected_device();

// Makes the selected device current on the calling thread: a thread starts on device 0.
void use_selected_device();

// Device properties, versions, PCIe link, NUMA node and host description for `device`.
MachineInfo query_machine(int device = 0);

// Who GPU `device` is and where it sits: name, UUID, bus id, NUMA node, nearest CPUs, and its
// link as sysfs shows it now.
GpuInfo query_gpu(int device);

// "GPU-8e3f0d1a-..." from the 16 bytes of cudaDeviceProp::uuid, as nvidia-smi spells it.
std::string uuid_text(const unsigned char (&bytes)[16]);

// Free and total device memory, in bytes.
std::uint64_t device_free_bytes();

}  // namespace pinbench::cuda
