// The one way pinbench words a failed CUDA call: "cudaMemcpyAsync failed: cudaErrorInvalidValue
// (invalid argument)", or with the place, "cudaMemcpyAsync failed at lane.cpp:12: ...".
//
// Header-only and needing nothing but the CUDA runtime's header, so the installed transfer
// library (which may not depend on fmt, JSON or pinbench's CUDA layer) and pinbench's CUDA layer
// (cuda/check.cpp) share it without either linking the other.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

namespace pinbench {

// `place`: "file:line" of the call, or nullptr. Only formats: clearing CUDA's last-error slot is
// the caller's business.
inline std::string cuda_error_text(const char* call, cudaError_t err, const char* place = nullptr) {
  std::string out = std::string(call) + " failed";
  if (place != nullptr) out += std::string(" at ") + place;
  return out + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

}  // namespace pinbench
