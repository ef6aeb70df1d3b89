#include "experiments/check/mpi_gather.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

#include "cli/paths.hpp"
#include "experiments/check/fleet/analysis.hpp"
#include "framework/errors.hpp"

namespace pinbench::experiments::check {

struct MpiSession::Api {
  void* handle = nullptr;
  int (*start)(int*, char***, int*, int*, int*, int*) = nullptr;
  int (*gather)(const char*, unsigned long long, char**, unsigned long long**) = nullptr;
  void (*release)(void*) = nullptr;
  int (*finish)() = nullptr;
};

MpiSession::MpiSession() : api_(std::make_unique<Api>()) {
  const char* env = std::getenv("PINBENCH_MPI_LIBRARY");
  const std::string path =
      env != nullptr && *env != '\0' ? env : program_library("libpinbench_mpi.so", "pinbench_mpi");
  // RTLD_GLOBAL: Open MPI's own plugins resolve symbols of libmpi that they do not link.
  api_->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (api_->handle == nullptr) {
    throw InputError(fmt::format(
        "--mpi needs {} (built where CMake finds Open MPI; PINBENCH_MPI_LIBRARY names another): {}",
        path, dlerror()));
  }
  const auto sym = [&](const char* name) {
    void* p = dlsym(api_->handle, name);
    if (p == nullptr) throw InputError(fmt::format("--mpi: {} has no {}", path, name));
    return p;
  };
  api_->start = reinterpret_cast<decltype(api_->start)>(sym("pinbench_mpi_start"));
  api_->gather = reinterpret_cast<decltype(api_->gather)>(sym("pinbench_mpi_gather"));
  api_->release = reinterpret_cast<decltype(api_->release)>(sym("pinbench_mpi_free"));
  api_->finish = reinterpret_cast<decltype(api_->finish)>(sym("pinbench_mpi_finish"));
  const int rc = api_->start(nullptr, nullptr, &rank_, &size_, &local_rank_, &local_size_);
  if (rc != 0) throw InputError(fmt::format("--mpi: MPI_Init failed (MPI error {})", rc));
}

MpiSession::~MpiSession() {
  if (api_->finish != nullptr) api_->finish();
  // Not dlclose'd: Open MPI leaves handlers and threads that would point into unloaded code.
}

std::vector<std::string> MpiSession::gather(const std::string& text) {
  char* out = nullptr;
  unsigned long long* lengths = nullptr;
  const int rc = api_->gather(text.data(), text.size(), &out, &lengths);
  if (rc != 0)
    throw InputError(fmt::format("--mpi: gathering the records failed (MPI error {})", rc));
  if (rank_ != 0) return {};
  std::vector<std::uint64_t> lens(lengths, lengths + size_);
  std::uint64_t total = 0;
  for (std::uint64_t l : lens) total += l;
  const std::string bytes(out, total);
  api_->release(out);
  api_->release(lengths);
  return split_gathered(bytes, lens);
}

}  // namespace pinbench::experiments::check
