#include "experiments/doctor/findings/rates.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "experiments/doctor/findings/calls.hpp"
#include "framework/case_figures.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench::experiments::doctor::findings {
namespace {

std::optional<double> per_copy_ms(const Case* c, std::uint64_t copies) {
  if (c == nullptr || copies == 0) return std::nullopt;
  const std::optional<double> ms = verified_median(*c);
  if (!ms) return std::nullopt;
  return *ms / static_cast<double>(copies);
}

}  // namespace

const Case* nearest(const RunRecord& r, const std::string& direction, const std::string& memory,
                    std::uint64_t bytes, bool engine) {
  return nearest_in_size(
      r.cases, bytes,
      [&](const Case& c) {
        return c.direction == direction && c.memory == memory &&
               (c.method == kAccelMethod) == engine && c.part != kSmallCopyPart &&
               c.part != kNumaPart && figures_of(c).gb_per_s;
      },
      [](const Case& c) { return c.bytes; });
}

std::optional<double> accel_call_ms(const RunRecord& r, const DoctorCall& call, double host) {
  static const StagedCopyOptions engine;
  double ms = 0;
  bool routed = false;
  for (const Copy& k : call.copies) {
    if (!host_side(k)) continue;
    const bool to_device = k.direction == CopyDirection::kH2D;
    const std::size_t below =
        to_device ? engine.to_device.direct_below_bytes : engine.to_host.direct_below_bytes;
    if (k.bytes < below) return host;  // accel passes the call on: as it was
    const Case* c = nearest(r, to_string(k.direction), "pageable", k.bytes, true);
    if (c == nullptr) return std::nullopt;
    ms += static_cast<double>(k.bytes) / (*figures_of(*c).gb_per_s * 1e6);
    routed = true;
  }
  return routed ? ms : host;
}

CopyCost pinned_cost(const RunRecord& r, const DoctorCall& call) {
  CopyCost cost;
  double ms = 0, call_ms = 0;
  bool all = true, calls = true;
  for (const Copy& k : call.copies) {
    if (!host_side(k)) continue;
    const Case* c = nearest(r, to_string(k.direction), "pinned", k.bytes);
    if (c == nullptr) {
      all = false;
      continue;
    }
    const CaseFigures f = figures_of(*c);
    ms += static_cast<double>(k.bytes) / (*f.gb_per_s * 1e6);
    if (f.call_median_ms) {
      call_ms = std::max(call_ms, *f.call_median_ms);
    } else {
      calls = false;
    }
  }
  if (all) cost.pinned_ms = ms;
  if (all && calls) cost.pinned_call_ms = call_ms;
  return cost;
}

void AccelSum::add(const std::optional<double>& call) {
  if (call) {
    ms += *call;
  } else {
    known = false;
  }
}

void AccelSum::say(DoctorFinding& f) const {
  if (!known || f.count == 0) return;
  f.accel_ms = ms;
  f.evidence.push_back(fmt::format(
      "under pinbench accel (the staged engine, at its calibrated rate here) the same calls "
      "would hold the host about {:.3f} ms, {:.3f} ms less, with the program unchanged: "
      "pinbench accel -- PROGRAM",
      ms, std::max(0.0, f.host_ms - ms)));
}

namespace {

// A small-copy case's copies per sample (its extra's "chunks"), or 0.
std::uint64_t chunks_from(const Case& c) {
  return extra_u64(c, "chunks");
}

// A NUMA case's host node (its extra's "host_numa_node"), or -1.
int host_numa_node_from(const Case& c) {
  return extra_int(c, "host_numa_node", -1);
}

}  // namespace

std::vector<DoctorSmallCopyRate> small_copy_rates(const RunRecord& r) {
  std::vector<DoctorSmallCopyRate> out;
  for (const Case& c : r.cases) {
    const std::uint64_t copies = chunks_from(c);
    if (c.part != kSmallCopyPart || copies == 0 || c.method != kEachMethod) continue;
    DoctorSmallCopyRate rate{c.direction, c.bytes / copies, copies, {}, {}, {}};
    rate.each_ms = per_copy_ms(&c, copies);
    for (const Case& o : r.cases) {
      if (o.part != kSmallCopyPart || o.direction != c.direction || o.bytes != c.bytes ||
          chunks_from(o) != copies) {
        continue;
      }
      if (o.method == kBatchMethod) rate.batched_ms = per_copy_ms(&o, copies);
      if (o.method == kContiguousMethod) rate.contiguous_ms = per_copy_ms(&o, copies);
    }
    out.push_back(rate);
  }
  return out;
}

const DoctorSmallCopyRate* nearest_small(const std::vector<DoctorSmallCopyRate>& rates,
                                         const std::string& direction, std::uint64_t bytes) {
  return nearest_in_size(
      rates, bytes,
      [&](const DoctorSmallCopyRate& r) {
        return r.direction == direction && r.each_ms && r.batched_ms;
      },
      [](const DoctorSmallCopyRate& r) { return r.copy_bytes; });
}

std::vector<DoctorNumaRate> numa_rates(const RunRecord& r) {
  std::vector<DoctorNumaRate> out;
  for (const Case& c : r.cases) {
    if (c.part != kNumaPart) continue;
    const int node = host_numa_node_from(c);
    out.push_back({c.direction, c.memory, c.bytes, node, node == r.machine.numa_node,
                   figures_of(c).gb_per_s});
  }
  return out;
}

std::optional<double> numa_rate(const std::vector<DoctorNumaRate>& rates, const std::string& dir,
                                const std::string& memory, int node, std::uint64_t bytes) {
  const DoctorNumaRate* best = nearest_in_size(
      rates, bytes,
      [&](const DoctorNumaRate& r) {
        return r.direction == dir && r.memory == memory && r.node == node && r.gb_per_s;
      },
      [](const DoctorNumaRate& r) { return r.bytes; });
  return best != nullptr ? best->gb_per_s : std::nullopt;
}

}  // namespace pinbench::experiments::doctor::findings
