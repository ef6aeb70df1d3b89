#include "cuda/device.hpp"

#include <thread>

#include <cuda_runtime_api.h>

#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "cuda/check.hpp"
#include "transfer/cuda_error_text.hpp"

namespace pinbench::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::string no_device_reason() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  if (err == cudaSuccess && n > 0) return "";
  if (err == cudaErrorInsufficientDriver) return "no CUDA driver on this machine";
  if (err == cudaErrorNoDevice || (err == cudaSuccess && n == 0)) return "no CUDA-capable device";
  return "CUDA cannot start: " + cuda_error_text("cudaGetDeviceCount", err);
}

void require_device() {
  const std::string why = no_device_reason();
  if (!why.empty()) throw NoGpuError("no usable GPU: " + why);
}

MachineInfo query_machine(int device) {
  require_device();
  cudaDeviceProp prop{};
  PINBENCH_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  MachineInfo m;
  m.device_name = prop.name;
  m.cc_major = prop.major;
  m.cc_minor = prop.minor;
  PINBENCH_CUDA_TRY(cudaDriverGetVersion(&m.driver_version));
  PINBENCH_CUDA_TRY(cudaRuntimeGetVersion(&m.runtime_version));
  // What the copy methods run on: SMs for kernel copies, copy engines for the driver's.
  m.sm_count = prop.multiProcessorCount;
  m.copy_engines = prop.asyncEngineCount;
  m.device_memory_bytes = static_cast<std::uint64_t>(prop.totalGlobalMem);
  char bus[32] = {};
  PINBENCH_CUDA_TRY(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  m.pci_bus_id = bus;
  m.driver_release = nvidia_driver_release();
  m.pcie = read_pcie_link(m.pci_bus_id);
  m.numa_node = read_numa_node(m.pci_bus_id);
  m.host_cpu = host_cpu_model();
  m.host_logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  m.host_memory_bytes = host_memory_bytes();
  m.os = os_description();
  PINBENCH_CUDA_TRY(
      cudaDeviceGetAttribute(&m.pageable_memory_access, cudaDevAttrPageableMemoryAccess, device));
  return m;
}

std::uint64_t device_free_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total = 0;
  PINBENCH_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

}  // namespace pinbench::cuda
