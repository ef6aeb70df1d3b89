// What pinning costs: the time to allocate and free `bytes` of each page-locked kind, and to
// register and unregister memory that is already touched, against malloc plus first touch of
// the same size. The lesson's advice to pin transfer buffers and not whole data sets rests on
// these numbers. Each step is timed with the host clock, since none of it is stream work.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "core/units.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "experiments/sweep.hpp"

namespace pinbench {
namespace {

double time_ms(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Case cost_case(const std::string& memory, const std::string& method, std::uint64_t bytes) {
  Case c;
  c.part = "pin_cost";
  c.direction = "host";
  c.memory = memory;
  c.method = method;
  c.timing = "host_clock";
  c.bytes = bytes;
  c.gate = fmt::format("pin_cost/{}/{}", memory, method);
  c.verified = true;
  return c;
}

}  // namespace

std::vector<Case> measure_pin_cost(std::uint64_t bytes, int repetitions,
                                   const ProgressFn& progress) {
  progress(fmt::format("pin cost: {} of each kind", format_size(bytes)));
  Case malloc_touch = cost_case("pageable", "malloc+touch", bytes);
  Case malloc_free = cost_case("pageable", "free", bytes);
  Case reg = cost_case("registered", "cudaHostRegister", bytes);
  Case unreg = cost_case("registered", "cudaHostUnregister", bytes);
  for (int r = 0; r < repetitions; ++r) {
    // Owned from allocation on, so a failed registration leaves nothing behind.
    std::unique_ptr<void, void (*)(void*)> p(nullptr, std::free);
    malloc_touch.samples_ms.push_back(time_ms([&] {
      p.reset(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
      if (!p) throw std::bad_alloc();
      std::memset(p.get(), 1, bytes);
    }));
    reg.samples_ms.push_back(time_ms(
        [&] { PINBENCH_CUDA_TRY(cudaHostRegister(p.get(), bytes, cudaHostRegisterDefault)); }));
    unreg.samples_ms.push_back(time_ms([&] { PINBENCH_CUDA_TRY(cudaHostUnregister(p.get())); }));
    malloc_free.samples_ms.push_back(time_ms([&] { p.reset(); }));
  }
  std::vector<Case> out = {malloc_touch, malloc_free, reg, unreg};

  struct Alloc {
    const char* kind;
    const char* alloc_name;
    const char* free_name;
    unsigned flags;  // for cudaHostAlloc; ~0u means cudaMallocHost
  };
  for (const Alloc& a :
       {Alloc{"pinned", "cudaMallocHost", "cudaFreeHost", ~0u},
        Alloc{"write-combined", "cudaHostAlloc(WriteCombined)", "cudaFreeHost",
              cudaHostAllocWriteCombined},
        Alloc{"mapped", "cudaHostAlloc(Mapped)", "cudaFreeHost", cudaHostAllocMapped}}) {
    Case alloc = cost_case(a.kind, a.alloc_name, bytes);
    Case release = cost_case(a.kind, a.free_name, bytes);
    for (int r = 0; r < repetitions; ++r) {
      void* p = nullptr;
      alloc.samples_ms.push_back(time_ms([&] {
        if (a.flags == ~0u) {
          PINBENCH_CUDA_TRY(cudaMallocHost(&p, bytes));
        } else {
          PINBENCH_CUDA_TRY(cudaHostAlloc(&p, bytes, a.flags));
        }
      }));
      release.samples_ms.push_back(time_ms([&] { PINBENCH_CUDA_TRY(cudaFreeHost(p)); }));
    }
    out.push_back(alloc);
    out.push_back(release);
  }
  return out;
}

}  // namespace pinbench
