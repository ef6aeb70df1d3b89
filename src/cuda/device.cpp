#include "cuda/device.hpp"

#include <dlfcn.h>

#include <atomic>
#include <thread>

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include "base/cuda_error_text.hpp"
#include "cuda/check.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"

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
  // The runtime answers a missing driver and an old one alike: whether libcuda.so.1 loads tells.
  if (err == cudaErrorInsufficientDriver) {
    return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) == nullptr
               ? "no CUDA driver on this machine"
               : "the CUDA driver here is older than pinbench's CUDA runtime";
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && n == 0)) return "no CUDA-capable device";
  return "CUDA cannot start: " + cuda_error_text("cudaGetDeviceCount", err);
}

void require_device() {
  const std::string why = no_device_reason();
  if (!why.empty()) throw NoGpuError("no usable GPU: " + why);
}

namespace {
std::atomic<int> g_selected{0};
}  // namespace

void select_device(int device) {
  if (device < 0) {
    throw InputError(fmt::format("--device {} is negative: devices are numbered from 0", device));
  }
  require_device();
  const int n = device_count();
  if (device >= n) {
    throw InputError(fmt::format("--device {}: this machine has {} CUDA device{} ({})", device, n,
                                 n == 1 ? "" : "s",
                                 n == 1 ? "only 0" : fmt::format("0 to {}", n - 1)));
  }
  PINBENCH_CUDA_TRY(cudaSetDevice(device));
  g_selected = device;
}

int selected_device() {
  return g_selected;
}

void use_selected_device() {
  PINBENCH_CUDA_TRY(cudaSetDevice(g_selected));
}

std::string uuid_text(const unsigned char (&b)[16]) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", b[i]);
  }
  return out;
}

GpuInfo query_gpu(int device) {
  cudaDeviceProp prop{};
  PINBENCH_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  GpuInfo g;
  g.index = device;
  g.name = prop.name;
  unsigned char bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(prop.uuid.bytes[i]);
  g.uuid = uuid_text(bytes);
  char bus[32] = {};
  PINBENCH_CUDA_TRY(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  g.pci_bus_id = bus;
  g.numa_node = read_numa_node(g.pci_bus_id);
  g.cpu_list = read_local_cpulist(g.pci_bus_id);
  g.pcie = read_pcie_link(g.pci_bus_id);
  return g;
}

MachineInfo query_machine(int device) {
  require_device();
  cudaDeviceProp prop{};
  PINBENCH_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  MachineInfo m;
  const GpuInfo gpu = query_gpu(device);
  describe_host(m);
  m.device_index = device;
  m.device_uuid = gpu.uuid;
  m.cpu_list = gpu.cpu_list;
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
  m.pcie = read_pcie_link(m.pci_bus_id);
  m.numa_node = read_numa_node(m.pci_bus_id);
  PINBENCH_CUDA_TRY(
      cudaDeviceGetAttribute(&m.pageable_memory_access, cudaDevAttrPageableMemoryAccess, device));
  PINBENCH_CUDA_TRY(cudaDeviceGetAttribute(&m.pageable_memory_access_uses_host_page_tables,
                                           cudaDevAttrPageableMemoryAccessUsesHostPageTables,
                                           device));
  return m;
}

std::uint64_t device_free_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total = 0;
  PINBENCH_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

}  // namespace pinbench::cuda
