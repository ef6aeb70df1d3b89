// The runtime calls of accel's library (transfer/runtime_calls.def, runtime_names.hpp): forwarded
// to the program's own libcudart where it has one, else made with the driver's functions
// (driver_runtime.cpp: a runtime linked statically, a program of the driver API). Each finds its
// function once, on first use: by then the program has called CUDA, so what it uses is loaded.
// While one runs, its thread is inside accel (entry.hpp): the runtime's own calls of the driver
// beneath it go straight to the driver, uncounted.
#include <cuda_runtime_api.h>

#include "experiments/accel/interpose/entry.hpp"
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
#define PINBENCH_RUNTIME_CALL(ret, name, params, args) ret pinbench_accel_driver_##name params;
#include "transfer/runtime_calls.def"
#undef PINBENCH_RUNTIME_CALL

#define PINBENCH_RUNTIME_CALL(ret, name, params, args)                                  \
  ret pinbench_accel_##name params {                                                    \
    using Fn = ret(*) params;                                                           \
    static const Fn real =                                                              \
        pinbench::experiments::accel::shared_runtime_loaded()                           \
            ? reinterpret_cast<Fn>(pinbench::experiments::accel::runtime_symbol(#name)) \
            : &pinbench_accel_driver_##name;                                            \
    if (real == nullptr) return missing<ret>();                                         \
    const pinbench::experiments::accel::Inside inside;                                  \
    return real args;                                                                   \
  }
#include "transfer/runtime_calls.def"
#undef PINBENCH_RUNTIME_CALL
}
