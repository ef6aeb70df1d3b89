// `pinbench sweep`: for every host-memory kind asked for, allocate its buffers once (on the
// GPU's NUMA node where the platform names one), then measure each direction, copy method and
// size with measure_cases.cpp's engine, and finally what pinning itself costs
// (measure_pin_cost.cpp).
#include "experiments/sweep/measure.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/device.hpp"
#include "experiments/sweep/analysis.hpp"
#include "experiments/sweep/measure_cases.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/numa.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"

namespace pinbench::experiments::sweep {
namespace {

constexpr std::uint64_t kSeed = 0x5EEB;

}  // namespace

RunRecord run_sweep(const SweepConfig& config, const ProgressFn& progress,
                    const SweepHooks& hooks) {
  const auto start = SteadyClock::now();
  config.validate();
  cuda::require_device();
  const std::uint64_t largest = config.sizes.back();
  // Refused before anything is allocated.
  const std::string problem = sweep_fit_problem(config, cuda::device_free_bytes(),
                                                host_memory_bytes(), host_available_bytes());
  if (!problem.empty()) throw InputError(problem);

  RunRecord record = start_record("sweep", to_json(config));

  // Host buffers are allocated and first touched by a thread on the GPU's NUMA node, so the
  // kernel's first-touch policy places their pages there.
  const int gpu_node = record.machine.numa_node;
  bool bound = false;
  if (config.place_on_gpu_node && gpu_node >= 0) bound = bind_thread_to_cpus(node_cpus(gpu_node));
  SweepRecordConfig written;
  written.placement =
      gpu_node < 0 ? "the platform names no NUMA node for the GPU; buffers left where the OS "
                     "puts them"
      : bound      ? fmt::format("allocating thread bound to node {}", gpu_node)
                   : fmt::format("could not bind to node {}", gpu_node);
  put_fields(record.config, written);

  cuda::HostBuffer expected(largest, MemoryKind::kPageable);
  fill_pattern(expected.data(), largest, kSeed);
  sweep::Measurer measurer(config, record.machine.pageable_memory_access != 0, hooks);

  nlohmann::json skipped = nlohmann::json::array();
  nlohmann::json landed = nlohmann::json::object();
  std::size_t total_cases =
      config.kinds.size() * config.directions.size() * config.methods.size() * config.sizes.size();
  std::size_t n = 0;
  for (MemoryKind kind : config.kinds) {
    if (stop_before_next_case(record)) break;
    progress(fmt::format("allocating {} of {} memory", format_size(2 * largest), to_string(kind)));
    sweep::KindBuffers buffers(kind, largest, expected);
    const int node = page_node(buffers.host.data());
    landed[to_string(kind)] = node;
    const bool kind_ok = add_gate(
        record, kind_gate(fmt::format("kind/{}", to_string(kind)), buffers.host.data(), kind));

    for (Direction d : config.directions) {
      for (CopyMethod m : config.methods) {
        for (std::uint64_t bytes : config.sizes) {
          if (stop_before_next_case(record)) break;
          ++n;
          progress(fmt::format("[{}/{}] {} {} {} {}", n, total_cases, to_string(kind), to_string(d),
                               to_string(m), format_size(bytes)));
          const std::size_t before = record.cases.size();
          const std::string why = measurer.measure(buffers, d, m, bytes, record);
          if (!why.empty()) {
            nlohmann::json skip = nlohmann::json::object();
            put_fields(skip, SweepSkip{to_string(kind), to_string(d), to_string(m), bytes, why});
            skipped.push_back(std::move(skip));
          }
          // A buffer that is not the kind it claims gates every rate measured on it.
          for (std::size_t i = before; i < record.cases.size(); ++i) {
            record.cases[i].verified = record.cases[i].verified && kind_ok;
            record.cases[i].extra["host_numa_node"] = node;
          }
        }
        if (record.incomplete) break;
      }
      if (record.incomplete) break;
    }
  }
  record.config["skipped"] = skipped;
  record.config["host_numa_node_by_kind"] = landed;

  if (config.pin_cost_bytes > 0 && !stop_before_next_case(record)) {
    for (Case& c : measure_pin_cost(config.pin_cost_bytes, 2, progress)) {
      record.gates.push_back({c.gate, c.verified, c.verified ? "allocated and freed" : "failed"});
      record.cases.push_back(std::move(c));
    }
  }
  if (bound) unbind_thread();
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::sweep
