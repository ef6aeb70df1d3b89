// What pinbench tells cudaMemcpyBatchAsync about the copies of a batch between host memory and
// one device: how the source may be read, and where each end lies. The location hints matter only
// for managed memory and where kernels reach pageable memory; set, they say the obvious.
//
// Header-only and needing only the CUDA runtime's header, like cuda_error_text.hpp, so the staged
// engine and pinbench's measurements share it.
#pragma once

#include <cuda_runtime_api.h>

namespace pinbench {

inline cudaMemcpyAttributes batch_copy_attributes(bool to_device, cudaMemcpySrcAccessOrder order,
                                                  int device) {
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = order;
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = device;
  attr.srcLocHint = to_device ? host : gpu;
  attr.dstLocHint = to_device ? gpu : host;
  return attr;
}

}  // namespace pinbench
