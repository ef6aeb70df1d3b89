// The kernels `pinbench blocks --beside KERNEL` runs back to back beside the copies, standing in
// for a model's work: one bound by arithmetic and one by device memory. Each launch fills every
// SM (two thread blocks of 512 threads per SM) and does a fixed amount of work set by `work`,
// which the run sizes so that one launch takes about a tenth of a millisecond alone. Launchers
// only; beside_kernels.cu.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace pinbench::experiments::blocks::kernels {

// `work` rounds of dependent fused multiply-adds per thread, over registers only; the result
// goes to `sink` (one float per thread block) so the compiler keeps the work.
void launch_beside_compute(unsigned work, float* sink, unsigned sms, cudaStream_t stream);

// `work` passes of reading `n` floats of `src` and writing them, scaled, to `dst` (device
// memory, grid-stride over every SM).
void launch_beside_memory(unsigned work, const float* src, float* dst, std::size_t n, unsigned sms,
                          cudaStream_t stream);

}  // namespace pinbench::experiments::blocks::kernels
