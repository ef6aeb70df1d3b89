#include "measure/gpu_host_buffers.hpp"

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "framework/host_info.hpp"
#include "framework/numa.hpp"
#include "framework/pattern.hpp"
#include "cuda/check.hpp"

namespace pinbench {

HostPair place_host_pair(const GpuInfo& gpu, std::size_t bytes, MemoryKind kind, std::uint64_t seed,
                         bool place) {
  bool bound = false;
  if (place && gpu.numa_node >= 0) bound = bind_thread_to_cpus(node_cpus(gpu.numa_node));
  HostPair p{cuda::HostBuffer(bytes, kind), cuda::HostBuffer(bytes, kind), ""};
  fill_pattern(p.src.data(), bytes, seed);
  std::memset(p.dst.data(), 0, bytes);
  if (bound) unbind_thread();
  p.placement = gpu.numa_node < 0 ? "no NUMA node named for the GPU"
                : bound           ? fmt::format("node {}", gpu.numa_node)
                                  : fmt::format("could not bind to node {}", gpu.numa_node);
  return p;
}

void read_link_under_load(GpuInfo& gpu, void* device, const void* host, std::size_t bytes,
                          int copies, const cuda::Stream& stream) {
  for (int i = 0; i < copies; ++i) {
    PINBENCH_CUDA_TRY(
        cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream.view().get()));
  }
  // Long enough for the link to leave its idle state; the copies queued last far longer.
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  gpu.pcie_loaded = read_pcie_link(gpu.pci_bus_id);
  gpu.loaded_read = true;
  stream.synchronize();
}

}  // namespace pinbench
