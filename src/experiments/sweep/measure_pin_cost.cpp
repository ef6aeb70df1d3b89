// What pinning costs: the time to allocate and free `bytes` of each page-locked kind, and to
// register and unregister memory that is already touched, against malloc plus first touch of
// the same size. The lesson's advice to pin transfer buffers and not whole data sets rests on
// these numbers. Each step is timed with the host clock, since none of it is stream work; a
// sample is one round of allocating (or registering) and freeing, a fixed count of rounds.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "experiments/sweep/measure.hpp"
#include "framework/case_builder.hpp"
#include "framework/units.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::sweep {
namespace {

double time_ms(const std::function<void()>& f) {
  const auto t0 = SteadyClock::now();
  f();
  return ms_since(t0);
}

// The cases of one round's steps: the first step's samples drive the sampler, the others are
// timed in the same rounds.
struct Steps {
  std::vector<CaseSpec> specs;
  std::vector<Timed> timed;

  Steps(std::uint64_t bytes, std::initializer_list<std::pair<const char*, const char*>> steps) {
    for (const auto& [memory, method] : steps) {
      specs.push_back({"pin_cost", "host", memory, method, "host_clock", bytes, 0,
                       fmt::format("pin_cost/{}/{}", memory, method)});
    }
    timed.resize(specs.size());
  }

  // Runs `rounds` rounds; `round` times each step into the Timed it is given.
  void sample(int rounds, const std::function<void(std::vector<Timed*>&)>& round) {
    Sampler sampler(StopRule::fixed(rounds), SampleClock::kHostClock);
    std::vector<Timed*> out(timed.size());
    const Timed first = sampler.run([&](Sampler&, int, int, Timed& t) {
      out[0] = &t;
      for (std::size_t i = 1; i < timed.size(); ++i) out[i] = &timed[i];
      round(out);
    });
    timed[0] = first;
    for (Timed& t : timed) t.stop = first.stop;
  }

  void append_to(std::vector<Case>& cases) const {
    for (std::size_t i = 0; i < specs.size(); ++i) cases.push_back(make_case(specs[i], timed[i]));
  }
};

}  // namespace

std::vector<Case> measure_pin_cost(std::uint64_t bytes, int repetitions,
                                   const ProgressFn& progress) {
  progress(fmt::format("pin cost: {} of each kind", format_size(bytes)));
  Steps pageable(bytes, {{"pageable", "malloc+touch"},
                         {"registered", "cudaHostRegister"},
                         {"registered", "cudaHostUnregister"},
                         {"pageable", "free"}});
  pageable.sample(repetitions, [&](std::vector<Timed*>& t) {
    // Owned from allocation on, so a failed registration leaves nothing behind.
    std::unique_ptr<void, void (*)(void*)> p(nullptr, std::free);
    t[0]->samples_ms.push_back(time_ms([&] {
      p.reset(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
      if (!p) throw std::bad_alloc();
      std::memset(p.get(), 1, bytes);
    }));
    t[1]->samples_ms.push_back(time_ms(
        [&] { PINBENCH_CUDA_TRY(cudaHostRegister(p.get(), bytes, cudaHostRegisterDefault)); }));
    t[2]->samples_ms.push_back(time_ms([&] { PINBENCH_CUDA_TRY(cudaHostUnregister(p.get())); }));
    t[3]->samples_ms.push_back(time_ms([&] { p.reset(); }));
  });
  // The order records have always listed them in.
  std::vector<Case> out;
  for (std::size_t i : {0, 3, 1, 2}) {
    out.push_back(make_case(pageable.specs[i], pageable.timed[i]));
  }

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
    Steps steps(bytes, {{a.kind, a.alloc_name}, {a.kind, a.free_name}});
    steps.sample(repetitions, [&](std::vector<Timed*>& t) {
      void* p = nullptr;
      t[0]->samples_ms.push_back(time_ms([&] {
        if (a.flags == ~0u) {
          PINBENCH_CUDA_TRY(cudaMallocHost(&p, bytes));
        } else {
          PINBENCH_CUDA_TRY(cudaHostAlloc(&p, bytes, a.flags));
        }
      }));
      t[1]->samples_ms.push_back(time_ms([&] { PINBENCH_CUDA_TRY(cudaFreeHost(p)); }));
    });
    steps.append_to(out);
  }
  return out;
}

}  // namespace pinbench::experiments::sweep
