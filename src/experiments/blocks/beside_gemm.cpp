// The GEMM beside the copies (beside_gemm.hpp): cuBLAS's four functions looked up with dlsym().
#include "experiments/blocks/beside_gemm.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "cuda/check.hpp"
#include "framework/errors.hpp"

namespace pinbench::experiments::blocks {

struct CublasGemm::Api {
  void* lib = nullptr;
  cublasHandle_t handle = nullptr;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
};

namespace {

template <typename Fn>
bool look_up(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

}  // namespace

CublasGemm::CublasGemm() : api_(std::make_unique<Api>()) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PINBENCH_CUBLAS"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    candidates = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  }
  std::string tried;
  for (const std::string& c : candidates) {
    api_->lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api_->lib != nullptr) {
      library_ = c;
      break;
    }
    const char* why = dlerror();
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : ", ", c, why != nullptr ? why : "?");
  }
  if (api_->lib == nullptr) {
    throw InputError(fmt::format(
        "--beside gemm needs cuBLAS, which did not load: {}; install it or set PINBENCH_CUBLAS "
        "to the library",
        tried));
  }
  for (const auto& [ok, name] :
       {std::pair{look_up(api_->lib, api_->create, "cublasCreate_v2"), "cublasCreate_v2"},
        std::pair{look_up(api_->lib, api_->destroy, "cublasDestroy_v2"), "cublasDestroy_v2"},
        std::pair{look_up(api_->lib, api_->set_stream, "cublasSetStream_v2"), "cublasSetStream_v2"},
        std::pair{look_up(api_->lib, api_->sgemm, "cublasSgemm_v2"), "cublasSgemm_v2"}}) {
    if (!ok) {
      throw InputError(fmt::format("--beside gemm: {} has no {}", library_, name));
    }
  }
  const cublasStatus_t s = api_->create(&api_->handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw InputError(
        fmt::format("--beside gemm: cublasCreate failed with status {}", static_cast<int>(s)));
  }
}

CublasGemm::~CublasGemm() {
  if (api_->handle != nullptr) (void)api_->destroy(api_->handle);
  // The library stays loaded: cuBLAS may keep state past its handle until the process ends.
}

void CublasGemm::run(int n, cudaStream_t stream) {
  if (n != n_) {
    const std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(float);
    a_ = cuda::DeviceBuffer(bytes);
    b_ = cuda::DeviceBuffer(bytes);
    c_ = cuda::DeviceBuffer(bytes);
    PINBENCH_CUDA_TRY(cudaMemset(a_.data(), 0, bytes));
    PINBENCH_CUDA_TRY(cudaMemset(b_.data(), 0, bytes));
    n_ = n;
  }
  if (api_->set_stream(api_->handle, stream) != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error("cublasSetStream failed");
  }
  const float one = 1.0f, zero = 0.0f;
  const cublasStatus_t s = api_->sgemm(
      api_->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<const float*>(a_.data()),
      n, static_cast<const float*>(b_.data()), n, &zero, static_cast<float*>(c_.data()), n);
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(fmt::format("cublasSgemm failed with status {}", static_cast<int>(s)));
  }
}

}  // namespace pinbench::experiments::blocks
