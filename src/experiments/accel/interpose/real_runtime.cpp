// The runtime calls of accel's library, forwarded to the program's own libcudart
// (runtime_calls.def, runtime_names.hpp). Each finds its function once, on first use: by then
// the program has called the runtime, so it is loaded.
#include <cuda_runtime_api.h>

#include "experiments/accel/interpose/symbols.hpp"

namespace {

// What a call returns when the runtime has no such function (an older libcudart).
template <typename T>
T missing();
template <>
cudaError_t missing<cudaError_t>() {
  return cudaErrorNotSupported;
}
template <>
const char* missing<const char*>() {
  return "unknown CUDA error";
}

}  // namespace

extern "C" {
#define PINBENCH_RUNTIME_CALL(ret, name, params, args)                                   \
  ret pinbench_accel_##name params {                                                     \
    using Fn = ret(*) params;                                                            \
    static const Fn real = reinterpret_cast<Fn>(pinbench::accel::runtime_symbol(#name)); \
    if (real == nullptr) return missing<ret>();                                          \
    return real args;                                                                    \
  }
#include "experiments/accel/interpose/runtime_calls.def"
#undef PINBENCH_RUNTIME_CALL
}
