// The doctor's analysis: the summary of what the program did, the rates used, and every finding
// of findings.def judged in turn (each in its own file under findings/), ranked by the time a
// fix saves, with the headline over them.
#include "experiments/doctor/analysis.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "experiments/doctor/events.hpp"
#include "experiments/doctor/findings/calls.hpp"
#include "experiments/doctor/findings/finding.hpp"
#include "experiments/doctor/findings/numa_placement.hpp"
#include "experiments/doctor/findings/pinned_memory.hpp"
#include "experiments/doctor/findings/rates.hpp"
#include "experiments/doctor/findings/small_copy_storm.hpp"
#include "framework/case_figures.hpp"
#include "framework/report_tables.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::doctor {

// The findings' shared parts (what a call is, the rates, the page-locked ranges) are this file's
// words too: the summary and the calibration plan read the trace as the findings do.
using namespace findings;

namespace {

// A finding: its id and the function that judges it.
struct Finding {
  const char* id;
  void (*judge)(const FindingInput& in, DoctorAnalysis& a);
};

// Every finding, in the order they are judged (findings.def).
constexpr Finding kFindings[] = {
#define PINBENCH_DOCTOR_FINDING(id, function) {id, &findings::function},
#include "experiments/doctor/findings/findings.def"
#undef PINBENCH_DOCTOR_FINDING
};

// The size whose weight (copies, or bytes moved) is the largest; the smallest such on a tie.
std::uint64_t heaviest(const std::map<std::uint64_t, std::uint64_t>& weights) {
  std::uint64_t best = 0, most = 0;
  for (const auto& [size, weight] : weights) {
    if (weight > most) {
      best = size;
      most = weight;
    }
  }
  return best;
}

// The report's first line: what fixing the findings would save, of the program's wall time.
void say_headline(const DoctorTrace& t, DoctorAnalysis& a) {
  if (a.findings.empty()) return;
  std::string ids;
  std::size_t estimated = 0;
  double saved = 0;
  for (const DoctorFinding& f : a.findings) {
    if (!f.lost_ms) continue;
    ids += (ids.empty() ? "" : ", ") + f.id;
    saved += *f.lost_ms;
    ++estimated;
  }
  const std::size_t without = a.findings.size() - estimated;
  if (estimated == 0) {
    a.headline = fmt::format("{}, none with a time estimate (no rates for {} in the record).",
                             plural(without, "finding", "findings"), without == 1 ? "it" : "them");
    return;
  }
  a.saved_ms = saved;
  a.headline = fmt::format(
      "Fix {} ({}) and save about {} ms{}{}.",
      estimated == 1 ? std::string("this finding") : fmt::format("these {} findings", estimated),
      ids, about_ms(saved),
      t.wall_ms > 0 ? fmt::format(" of the program's {} ms", about_ms(t.wall_ms)) : std::string(),
      without > 0 ? fmt::format("; {} {} no time estimate", without,
                                without == 1 ? "more has" : "more have")
                  : std::string());
}

// Where the record's rates came from (config.rates_from), or a calibration after the program.
std::string rates_source_from(const nlohmann::json& config) {
  DoctorRecordConfig c;
  get_fields(config, c);
  return c.rates_from.value_or("a calibration after the program exited");
}

}  // namespace

const std::vector<std::string>& doctor_finding_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const Finding& finding : kFindings) out.push_back(finding.id);
    return out;
  }();
  return ids;
}

std::string doctor_api_name(const std::string& api) {
  std::string name = api;
  const std::size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      std::isdigit(static_cast<unsigned char>(name[v + 2]))) {
    name.erase(v);
  }
  return name;
}

DoctorCalibrationPlan doctor_calibration_plan(const MachineInfo& m, const DoctorTrace& t) {
  DoctorCalibrationPlan plan;
  // Small copies: per direction, the size its storms copied most often.
  std::map<std::string, std::map<std::uint64_t, std::uint64_t>> sizes;
  for (const Storm& s : storms(t)) {
    for (const DoctorCall* c : s.calls) ++sizes[call_direction(*c)][call_bytes(*c)];
  }
  for (const auto& [direction, counts] : sizes) plan.small.push_back({direction, heaviest(counts)});
  // NUMA: the nodes involved, where the host has two or more and the GPU's is known.
  if (m.host_numa_nodes >= 2 && m.numa_node >= 0) {
    const PinnedRanges pinned = pinned_ranges(t);
    const NumaSeen n = numa_seen(m, t, pinned);
    std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, std::uint64_t>> moved;
    std::map<std::pair<std::string, std::string>, std::set<int>> nodes;
    for (const Misplaced& x : n.copies) {
      const std::string d = call_direction(*x.copy);
      if (d != "h2d" && d != "d2h") continue;
      const std::uint64_t b = call_bytes(*x.copy);
      moved[{d, x.memory}][b] += b;
      nodes[{d, x.memory}].insert(x.node);
    }
    constexpr std::uint64_t kLeast = std::uint64_t{1} << 20, kMost = std::uint64_t{256} << 20;
    for (const auto& [key, by_size] : moved) {
      DoctorCalibrationPlan::Numa numa{
          key.first, key.second, std::clamp(heaviest(by_size), kLeast, kMost), {m.numa_node}};
      for (int node : nodes[key]) numa.nodes.push_back(node);
      plan.numa.push_back(std::move(numa));
    }
  }
  return plan;
}

DoctorAnalysis analyse_doctor(const RunRecord& r, const DoctorTrace& t) {
  DoctorAnalysis a;
  a.no_cuda = seen_without_cuda(t);
  a.nothing_seen = t.processes == 0 && t.calls.empty();
  a.kernels = t.kernels_total;
  std::map<std::pair<std::string, std::uint64_t>, bool> sizes;
  for (const DoctorCall& c : t.calls) {
    if (c.kind == "sync") ++a.syncs;
    if (!is_copy(c)) continue;
    ++a.copy_calls;
    for (const Copy& k : c.copies) {
      if (k.direction == CopyDirection::kH2D) a.bytes_h2d += k.bytes;
      if (k.direction == CopyDirection::kD2H) a.bytes_d2h += k.bytes;
      if (host_side(k)) sizes[{to_string(k.direction), k.bytes}] = true;
    }
    if (has_pageable(c) && c.status == 0) {
      ++a.pageable_copy_calls;
      a.pageable_blocked_ms += host_ms(c);
    }
  }
  if (t.wall_ms > 0) a.blocked_share = a.pageable_blocked_ms / t.wall_ms;
  for (const DoctorProcess& p : t.process_list) a.processes.push_back({p.pid, p.end, 0, 0, 0});
  for (const DoctorCall& c : t.calls) {
    if (!is_copy(c)) continue;
    const auto it = std::find_if(a.processes.begin(), a.processes.end(),
                                 [&](const DoctorProcessCount& p) { return p.pid == c.pid; });
    if (it == a.processes.end()) continue;
    ++it->copy_calls;
    it->bytes += host_bytes(c);
    it->from_api += c.from_api ? 1 : 0;
  }
  for (const auto& [key, unused] : sizes) {
    DoctorRate rate{key.first, key.second, {}, {}, {}, {}};
    if (const Case* c = nearest(r, key.first, "pageable", key.second)) {
      rate.pageable_gb_per_s = figures_of(*c).gb_per_s;
    }
    if (const Case* c = nearest(r, key.first, "pinned", key.second)) {
      const CaseFigures f = figures_of(*c);
      rate.pinned_gb_per_s = f.gb_per_s;
      rate.pinned_call_ms = f.call_median_ms;
    }
    if (const Case* c = nearest(r, key.first, "pageable", key.second, true)) {
      rate.engine_gb_per_s = figures_of(*c).gb_per_s;
    }
    a.rates.push_back(rate);
  }
  a.rates_from = rates_source_from(r.config);
  a.small_copy_rates = small_copy_rates(r);
  a.numa_rates = numa_rates(r);
  if (reads_pageable_through_host_page_tables(r.machine)) {
    a.pageable_note = fmt::format(
        "This GPU reads pageable memory through the host's page tables (HMM/ATS, as on Grace "
        "Hopper), where copies from pageable memory can run near the page-locked rate: a "
        "pageable finding is kept only where this machine's calibration shows pageable copies "
        "below {:.0f}% of the page-locked rate, and says so.",
        100 * kHmmNearPinned);
  }
  const PinnedRanges pinned = pinned_ranges(t);
  const AllocationPairs allocations = allocation_pairs(t);
  a.pinned_allocations = allocations.allocations;
  a.peak_pinned_bytes = allocations.peak_bytes;
  const FindingInput in{r, t, pinned, allocations};
  for (const Finding& finding : kFindings) finding.judge(in, a);
  // Ranked by the time a fix saves; findings without an estimate after them, by host time.
  std::stable_sort(a.findings.begin(), a.findings.end(),
                   [](const DoctorFinding& x, const DoctorFinding& y) {
                     if (x.lost_ms.has_value() != y.lost_ms.has_value())
                       return x.lost_ms.has_value();
                     return x.lost_ms.value_or(x.host_ms) > y.lost_ms.value_or(y.host_ms);
                   });
  say_headline(t, a);
  return a;
}

}  // namespace pinbench::experiments::doctor
