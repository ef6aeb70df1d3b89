#include "experiments/fleet/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/stats.hpp"
#include "version.hpp"

namespace pinbench {
namespace {

std::string group_of(const GpuInfo& g) {
  if (g.pcie.max_gen <= 0) return fmt::format("{}, link unknown", g.name);
  return fmt::format("{}, gen {} x{}", g.name, g.pcie.max_gen, g.pcie.max_width);
}

std::string host_name_of(const RunRecord& r) {
  return r.machine.hostname.empty() ? "unnamed host" : r.machine.hostname;
}

struct Metric {
  const char* name;
  std::optional<double> GpuCheck::*field;
  bool higher_is_worse;
  const char* unit;
};

const Metric kMetrics[] = {
    {"pinned h2d", &GpuCheck::pinned_h2d, false, "GB/s"},
    {"pinned d2h", &GpuCheck::pinned_d2h, false, "GB/s"},
    {"pageable h2d", &GpuCheck::pageable_h2d, false, "GB/s"},
    {"pageable d2h", &GpuCheck::pageable_d2h, false, "GB/s"},
    {"4 KiB round trip p50", &GpuCheck::round_trip_p50_us, true, "µs"},
};

}  // namespace

std::optional<OutlierTest> outlier_test(double value, const std::vector<double>& group,
                                        bool higher_is_worse) {
  std::optional<OutlierTest> t = outlier_rule(group, higher_is_worse);
  if (t) t->outlier = higher_is_worse ? value > t->bound : value < t->bound;
  return t;
}

std::optional<OutlierTest> outlier_rule(const std::vector<double>& group, bool higher_is_worse) {
  if (group.size() < 3) return std::nullopt;
  OutlierTest t;
  t.median = median(group);
  std::vector<double> dev;
  dev.reserve(group.size());
  for (double x : group) dev.push_back(std::fabs(x - t.median));
  t.scaled_mad = kMadScale * median(dev);
  const double share = higher_is_worse ? kOutlierLatencyShare : kOutlierRateShare;
  const double reach = std::max(kOutlierMads * t.scaled_mad, share * t.median);
  t.bound = higher_is_worse ? t.median + reach : t.median - reach;
  return t;
}

std::vector<std::string> FleetAnalysis::flagged() const {
  std::vector<std::string> out;
  for (const FleetHost& h : hosts) {
    if (!h.no_gpu.empty())
      out.push_back(fmt::format("host {}: no GPU checked ({})", h.host, h.no_gpu));
  }
  for (const FleetGpu& g : gpus) {
    for (const std::string& f : g.flags) {
      out.push_back(
          fmt::format("host {} GPU {} ({}): {}", g.host, g.check.gpu.index, g.check.gpu.uuid, f));
    }
  }
  return out;
}

FleetAnalysis analyse_fleet(const std::vector<RunRecord>& records,
                            const std::vector<std::string>& sources) {
  FleetAnalysis a;
  // The newest record of a (host, UUID) wins; each later sighting is named once.
  std::map<std::pair<std::string, std::string>, std::size_t> seen;  // -> index into a.gpus
  std::vector<std::int64_t> seen_at;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const RunRecord& r = records[i];
    const std::string& source = i < sources.size() ? sources[i] : std::string("record");
    if (r.experiment != kCheckExperiment) {
      throw InputError(fmt::format(
          "'{}' is a record of experiment '{}', not a check: fleet reads check records{}", source,
          r.experiment,
          r.experiment == kFleetExperiment ? " (give the fleet record's sources instead)" : ""));
    }
    const CheckAnalysis c = analyse_check(r);
    const std::string host = host_name_of(r);
    a.hosts.push_back(
        {host, source,
         c.gpus.empty() ? (c.no_gpu.empty() ? "the record holds none" : c.no_gpu) : std::string()});
    const std::int64_t when = rfc3339_seconds(r.created_utc).value_or(0);
    for (const GpuCheck& g : c.gpus) {
      const auto key = std::make_pair(host, g.gpu.uuid);
      FleetGpu row{host, source, g, group_of(g.gpu), {}};
      const auto it = seen.find(key);
      if (it == seen.end()) {
        seen.emplace(key, a.gpus.size());
        seen_at.push_back(when);
        a.gpus.push_back(std::move(row));
        continue;
      }
      FleetGpu& kept = a.gpus[it->second];
      const bool newer = when > seen_at[it->second];
      a.duplicates.push_back(
          fmt::format("host {} GPU {} ({}) is in {} and {}: counted once, from {}", host,
                      g.gpu.index, g.gpu.uuid, kept.source, source, newer ? source : kept.source));
      if (newer) {
        kept = std::move(row);
        seen_at[it->second] = when;
      }
    }
  }
  std::stable_sort(a.gpus.begin(), a.gpus.end(), [](const FleetGpu& x, const FleetGpu& y) {
    return std::make_pair(x.host, x.check.gpu.index) < std::make_pair(y.host, y.check.gpu.index);
  });

  std::map<std::string, std::size_t> group_sizes;
  for (const FleetGpu& g : a.gpus) ++group_sizes[g.group];
  for (const auto& [group, n] : group_sizes) {
    if (n < 3) {
      a.notes.push_back(fmt::format(
          "{}: {} GPU{}, too few to judge outliers (the rule needs 3 of a model and link)", group,
          n, n == 1 ? "" : "s"));
    }
  }
  // Each group's rule for each metric, worked out once: a fleet of 80,000 GPUs in one group
  // takes one median per metric, not one per GPU.
  struct GroupRule {
    std::optional<OutlierTest> test;
    std::size_t size = 0;
  };
  std::map<std::pair<std::string, std::size_t>, GroupRule> rules;
  {
    std::map<std::pair<std::string, std::size_t>, std::vector<double>> values;
    for (const FleetGpu& g : a.gpus) {
      for (std::size_t k = 0; k < std::size(kMetrics); ++k) {
        std::vector<double>& group = values[{g.group, k}];
        if (const std::optional<double>& v = g.check.*(kMetrics[k].field)) group.push_back(*v);
      }
    }
    for (const auto& [key, group] : values) {
      rules[key] = {outlier_rule(group, kMetrics[key.second].higher_is_worse), group.size()};
    }
  }
  for (FleetGpu& g : a.gpus) {
    for (const std::string& f : g.check.failures()) g.flags.push_back("check failed: " + f);
    const GpuInfo& info = g.check.gpu;
    const PcieLink& l = info.loaded_read ? info.pcie_loaded : info.pcie;
    if (info.pcie.max_gen > 0 && l.current_gen > 0 &&
        (l.current_gen < info.pcie.max_gen || l.current_width < info.pcie.max_width)) {
      g.flags.push_back(fmt::format("link gen {} x{}{}, below its max gen {} x{}", l.current_gen,
                                    l.current_width, info.loaded_read ? " under load" : " idle",
                                    info.pcie.max_gen, info.pcie.max_width));
    }
    for (std::size_t k = 0; k < std::size(kMetrics); ++k) {
      const Metric& m = kMetrics[k];
      const std::optional<double>& v = g.check.*(m.field);
      if (!v) continue;
      const GroupRule& rule = rules.at({g.group, k});
      if (!rule.test) continue;
      OutlierTest t = *rule.test;
      t.outlier = m.higher_is_worse ? *v > t.bound : *v < t.bound;
      if (t.outlier) {
        g.flags.push_back(fmt::format(
            "outlier: {} {:.2f} {}, {} {:.2f} (median {:.2f} of {} GPUs of {}, scaled MAD {:.2f})",
            m.name, *v, m.unit, m.higher_is_worse ? "above" : "below", t.bound, t.median,
            rule.size, g.group, t.scaled_mad));
      }
    }
  }
  return a;
}

RunRecord make_fleet_record(std::vector<RunRecord> checks, const std::vector<std::string>& sources,
                            const std::string& hostname) {
  RunRecord r;
  r.experiment = kFleetExperiment;
  r.pinbench_version = kVersion;
  r.created_utc = utc_now_iso8601();
  r.machine.hostname = hostname;
  r.config = {{"sources", sources}};
  r.members = std::move(checks);
  return r;
}

std::vector<std::string> split_gathered(const std::string& bytes,
                                        const std::vector<std::uint64_t>& lengths) {
  std::vector<std::string> out;
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > bytes.size() - at) {
      throw InputError(fmt::format("rank {} sent {} bytes, but only {} of the {} gathered are left",
                                   i, lengths[i], bytes.size() - at, bytes.size()));
    }
    out.push_back(bytes.substr(at, lengths[i]));
    at += lengths[i];
  }
  if (at != bytes.size()) {
    throw InputError(fmt::format("the ranks' lengths add up to {} bytes, but {} were gathered", at,
                                 bytes.size()));
  }
  return out;
}

RunRecord fleet_from_rank_texts(const std::vector<std::string>& texts,
                                const std::string& hostname) {
  std::vector<RunRecord> checks;
  std::vector<std::string> sources;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string source = fmt::format("rank {}", i);
    try {
      if (texts[i].empty()) throw InputError("an empty record");
      checks.push_back(record_from_json(parse_record_text(texts[i])));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} sent a record pinbench cannot use: {}", source, e.what()));
    }
    if (checks.back().experiment != kCheckExperiment) {
      throw InputError(fmt::format("{} sent a record of experiment '{}', not a check", source,
                                   checks.back().experiment));
    }
    sources.push_back(source);
  }
  return make_fleet_record(std::move(checks), sources, hostname);
}

}  // namespace pinbench
