#include "experiments/check/fleet/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/check/floors.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/json_fields.hpp"
#include "framework/stats.hpp"
#include "version.hpp"

namespace pinbench::experiments::check {
namespace {

using nlohmann::json;

std::string group_of(const GpuInfo& g) {
  if (g.pcie.max_gen <= 0) return fmt::format("{}, link unknown", g.name);
  return fmt::format("{}, gen {} x{}", g.name, g.pcie.max_gen, g.pcie.max_width);
}

std::string host_name_of(const RunRecord& r) {
  return r.machine.hostname.empty() ? "unnamed host" : r.machine.hostname;
}

struct FleetMetric {
  const char* name;
  std::optional<double> GpuCheck::*field;
  bool higher_is_worse;
  const char* unit;
};

const FleetMetric kMetrics[] = {
    {"pinned h2d", &GpuCheck::pinned_h2d, false, "GB/s"},
    {"pinned d2h", &GpuCheck::pinned_d2h, false, "GB/s"},
    {"pageable h2d", &GpuCheck::pageable_h2d, false, "GB/s"},
    {"pageable d2h", &GpuCheck::pageable_d2h, false, "GB/s"},
    {"4 KiB round trip p50", &GpuCheck::round_trip_p50_us, true, "µs"},
    {"pin rate", &GpuCheck::pin_gb_per_s, false, "GB/s"},
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

FleetMember fleet_member(const RunRecord& r, const std::string& source) {
  if (r.experiment != kCheckExperiment) {
    throw InputError(fmt::format(
        "'{}' is a record of experiment '{}', not a check: fleet reads check records{}", source,
        r.experiment,
        r.experiment == kFleetExperiment ? " (give the fleet record's sources instead)" : ""));
  }
  FleetMember m{source, r.created_utc, analyse_check(r)};
  m.check.hostname = host_name_of(r);
  return m;
}

std::vector<FleetMember> fleet_members(const std::vector<RunRecord>& records,
                                       const std::vector<std::string>& sources) {
  std::vector<FleetMember> members;
  members.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    members.push_back(fleet_member(records[i], i < sources.size() ? sources[i] : "record"));
  }
  return members;
}

namespace {

// One GPU sits in one host: a UUID two hosts claim is a copied record or a host misnamed, and
// one of the two rows does not describe the GPU it names. Each flag names at most kHostsNamed of
// the other hosts, so a UUID copied into every record of a fleet flags each GPU in one line of its
// own length, not one as long as the fleet.
void flag_shared_uuids(FleetAnalysis& a) {
  constexpr std::size_t kHostsNamed = 5;
  std::map<std::string, std::vector<std::string>> hosts_of_uuid;
  for (const FleetGpu& g : a.gpus) {
    if (!g.check.gpu.uuid.empty()) hosts_of_uuid[g.check.gpu.uuid].push_back(g.host);
  }
  for (FleetGpu& g : a.gpus) {
    const auto it = hosts_of_uuid.find(g.check.gpu.uuid);
    if (it == hosts_of_uuid.end() || it->second.size() < 2) continue;
    std::vector<std::string> others;
    std::size_t more = 0;
    for (const std::string& h : it->second) {
      if (h == g.host) continue;
      if (others.size() < kHostsNamed) {
        others.push_back(h);
      } else {
        ++more;
      }
    }
    g.flags.push_back(fmt::format(
        "UUID also claimed by host {}{}: one GPU cannot sit in two hosts (a copied record, or a "
        "host misnamed)",
        fmt::join(others, ", "), more > 0 ? fmt::format(" and {} more", more) : std::string()));
  }
}

}  // namespace

FleetAnalysis analyse_fleet(const std::vector<RunRecord>& records,
                            const std::vector<std::string>& sources) {
  return analyse_fleet(fleet_members(records, sources));
}

FleetAnalysis analyse_fleet(const std::vector<FleetMember>& members) {
  FleetAnalysis a;
  // The newest record of a (host, UUID) wins; each later sighting is named once.
  std::map<std::pair<std::string, std::string>, std::size_t> seen;  // -> index into a.gpus
  std::vector<std::int64_t> seen_at;
  for (const FleetMember& m : members) {
    const CheckAnalysis& c = m.check;
    const std::string& host = c.hostname;
    const std::string& source = m.source;
    a.hosts.push_back(
        {host, source,
         c.gpus.empty() ? (c.no_gpu.empty() ? "the record holds none" : c.no_gpu) : std::string(),
         c.pin_limits_read, c.pin_warnings});
    const std::int64_t when = rfc3339_seconds(m.created_utc).value_or(0);
    for (const GpuCheck& g : c.gpus) {
      const auto key = std::make_pair(host, g.gpu.uuid);
      FleetGpu row{host,          source, g, group_of(g.gpu), {}, m.created_utc, c.pin_limits_read,
                   c.pin_warnings};
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
      a.duplicate_rows.push_back({host, std::to_string(g.gpu.index), g.gpu.uuid,
                                  kept.source + " and " + source, newer ? source : kept.source});
      if (newer) {
        kept = std::move(row);
        seen_at[it->second] = when;
      }
    }
  }
  std::stable_sort(a.gpus.begin(), a.gpus.end(), [](const FleetGpu& x, const FleetGpu& y) {
    return std::make_pair(x.host, x.check.gpu.index) < std::make_pair(y.host, y.check.gpu.index);
  });
  flag_shared_uuids(a);

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
      const FleetMetric& m = kMetrics[k];
      const std::optional<double>& v = g.check.*(m.field);
      if (!v) continue;
      const GroupRule& rule = rules.at({g.group, k});
      if (!rule.test) continue;
      OutlierTest t = *rule.test;
      t.outlier = m.higher_is_worse ? *v > t.bound : *v < t.bound;
      if (t.outlier) {
        g.flags.push_back(fmt::format(
            "outlier: {} {:.2f} {}, {} {:.2f} (median {:.2f} of {} GPUs of {}, scaled MAD {:.2f})",
            m.name, *v, m.unit, m.higher_is_worse ? "above" : "below", t.bound, t.median, rule.size,
            g.group, t.scaled_mad));
      }
    }
  }
  return a;
}

namespace {

// A GPU of a fleet record: the columns its figures are kept in, named in the record itself
// (config.gpu_columns), in this order when pinbench writes them. The first kRequiredColumns are
// in every fleet record pinbench wrote; those after them were added since, and a record without
// one reads it as no figure.
constexpr std::size_t kRequiredColumns = 17;
const std::vector<std::string>& gpu_columns() {
  static const std::vector<std::string> columns = {
      "index",      "name",         "uuid",         "pci_bus_id", "max_gen",      "max_width",
      "idle_gen",   "idle_width",   "loaded_read",  "loaded_gen", "loaded_width", "pinned_h2d",
      "pinned_d2h", "pageable_h2d", "pageable_d2h", "rt_p50_us",  "rt_p99_us",    "pin_gb_per_s"};
  return columns;
}

// A check's 4 KiB round trip, in µs: up to an hour.
constexpr Meaning kRoundTripUs{"a round trip in µs", 0.0, 3.6e9};

json figure(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json gpu_row(const GpuCheck& g) {
  const GpuInfo& i = g.gpu;
  return json::array(
      {i.index, i.name, i.uuid, i.pci_bus_id, i.pcie.max_gen, i.pcie.max_width, i.pcie.current_gen,
       i.pcie.current_width, i.loaded_read, i.pcie_loaded.current_gen, i.pcie_loaded.current_width,
       figure(g.pinned_h2d), figure(g.pinned_d2h), figure(g.pageable_h2d), figure(g.pageable_d2h),
       figure(g.round_trip_p50_us), figure(g.round_trip_p99_us), figure(g.pin_gb_per_s)});
}

// Where each of gpu_columns() lies in a record's rows: from the record's own config.gpu_columns,
// so a row is read by what its columns are called, not by where pinbench would put them.
struct ColumnPlaces {
  // at[k]: the position of gpu_columns()[k]; nullopt for a column added since that the record
  // does not name.
  std::vector<std::optional<std::size_t>> at;
  std::size_t width = 0;  // columns in a row
};

// A row is never read by position alone: a record without the names is refused.
ColumnPlaces column_places_from(const json& config) {
  ColumnPlaces p;
  const std::vector<std::string>& ours = gpu_columns();
  const json& names = JsonFields(config, "config").array("gpu_columns");
  std::map<std::string, std::size_t> place;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string field = fmt::format("config.gpu_columns[{}]", i);
    if (!names[i].is_string()) refuse_field(field, "is not a string");
    if (!place.emplace(names[i].get<std::string>(), i).second) {
      refuse_field(field, fmt::format("names '{}' a second time", names[i].get<std::string>()));
    }
  }
  for (std::size_t k = 0; k < ours.size(); ++k) {
    const auto it = place.find(ours[k]);
    if (it != place.end()) {
      p.at.push_back(it->second);
    } else if (k >= kRequiredColumns) {
      p.at.push_back(std::nullopt);
    } else {
      refuse_field("config.gpu_columns",
                   fmt::format("has no column '{}' (it needs {})", ours[k],
                               fmt::join(ours.begin(), ours.begin() + kRequiredColumns, ", ")));
    }
  }
  p.width = names.size();
  return p;
}

GpuCheck gpu_from_row(const json& row, const std::string& where, const ColumnPlaces& places) {
  if (!row.is_array() || row.size() != places.width) {
    refuse_field(where, fmt::format("is not a row of {} columns", places.width));
  }
  static const json kNoFigure = nullptr;
  const auto cell = [&](std::size_t k) -> const json& {
    return places.at[k] ? row[*places.at[k]] : kNoFigure;
  };
  const auto refuse = [&](std::size_t k, const std::string& what) {
    refuse_field(fmt::format("{}[{}]", where, places.at[k].value_or(0)),
                 fmt::format("({}) is {}", gpu_columns()[k], what));
  };
  // A rate (GB/s) or a round trip (µs), or null where the check had none (or the record has no
  // such column).
  const auto number = [&](std::size_t k, const Meaning& m) -> std::optional<double> {
    const json& v = cell(k);
    if (v.is_null()) return std::nullopt;
    if (!v.is_number()) refuse(k, "not a figure");
    if (!within(v, m)) refuse(k, fmt::format("{}, not {}", shown(v), meaning_words(m)));
    return v.get<double>();
  };
  // The same bounds as a check record's own machine section (framework/record.hpp).
  const auto count = [&](std::size_t k, int most) {
    const json& v = cell(k);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > most) {
      refuse(k, fmt::format("{}, not a count from 0 to {}", v.dump(), most));
    }
    return v.get<int>();
  };
  const auto text = [&](std::size_t k) {
    if (!cell(k).is_string()) refuse(k, "not a string");
    return cell(k).get<std::string>();
  };
  GpuCheck g;
  g.gpu.index = count(0, kMaxGpuIndex);
  g.gpu.name = text(1);
  g.gpu.uuid = text(2);
  g.gpu.pci_bus_id = text(3);
  g.gpu.pcie.max_gen = count(4, kMaxLinkCount);
  g.gpu.pcie.max_width = count(5, kMaxLinkCount);
  g.gpu.pcie.current_gen = count(6, kMaxLinkCount);
  g.gpu.pcie.current_width = count(7, kMaxLinkCount);
  if (!cell(8).is_boolean()) refuse(8, "not a flag");
  g.gpu.loaded_read = cell(8).get<bool>();
  g.gpu.pcie_loaded.current_gen = count(9, kMaxLinkCount);
  g.gpu.pcie_loaded.current_width = count(10, kMaxLinkCount);
  g.gpu.pcie_loaded.max_gen = g.gpu.pcie.max_gen;
  g.gpu.pcie_loaded.max_width = g.gpu.pcie.max_width;
  g.pinned_h2d = number(11, kRateGbPerS);
  g.pinned_d2h = number(12, kRateGbPerS);
  g.pageable_h2d = number(13, kRateGbPerS);
  g.pageable_d2h = number(14, kRateGbPerS);
  g.round_trip_p50_us = number(15, kRoundTripUs);
  g.round_trip_p99_us = number(16, kRoundTripUs);
  g.pin_gb_per_s = number(17, kRateGbPerS);
  return g;
}

}  // namespace

json fleet_members_to_json(const std::vector<FleetMember>& members) {
  json hosts = json::array();
  for (const FleetMember& m : members) {
    json gpus = json::array();
    for (const GpuCheck& g : m.check.gpus) gpus.push_back(gpu_row(g));
    json host{{"source", m.source},
              {"created_utc", m.created_utc},
              {"host", m.check.hostname},
              {"no_gpu", m.check.no_gpu},
              {"floors", to_json(m.check.floors)}};
    FleetHostPin pin;
    pin.pin_bytes = m.check.pin_asked;
    if (!m.check.pin_refused.empty()) pin.pin_refused = m.check.pin_refused;
    put_fields(host, pin);
    if (m.check.pin_limits_read) host["pin_warnings"] = to_json(m.check.pin_warnings);
    host["gpus"] = std::move(gpus);
    hosts.push_back(std::move(host));
  }
  return hosts;
}

std::vector<FleetMember> fleet_members_from_json(const json& hosts, const json& config) {
  if (!hosts.is_array()) refuse_field("config.hosts", "is not an array");
  const ColumnPlaces places = column_places_from(config);
  std::vector<FleetMember> members;
  members.reserve(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const std::string where = fmt::format("config.hosts[{}]", i);
    const JsonFields h(hosts[i], where);
    FleetMember m;
    m.source = h.text("source");
    m.created_utc = h.timestamp("created_utc");  // which of two sightings is newer
    m.check.hostname = h.text("host");
    m.check.no_gpu = h.text("no_gpu");
    if (!h.at("floors").is_object()) refuse_field(h.field("floors"), "is not an object");
    m.check.floors = floors_from_json(h.at("floors"));
    FleetHostPin pin;
    get_fields(hosts[i], pin);
    m.check.pin_asked = pin.pin_bytes;
    m.check.pin_refused = pin.pin_refused.value_or("");
    if (h.has("pin_warnings")) {
      m.check.pin_limits_read = true;
      m.check.pin_warnings = pin_warnings_from_json(h.at("pin_warnings"), h.field("pin_warnings"));
    }
    const json& gpus = h.array("gpus");
    for (std::size_t k = 0; k < gpus.size(); ++k) {
      m.check.gpus.push_back(gpu_from_row(gpus[k], fmt::format("{}.gpus[{}]", where, k), places));
    }
    judge_check(m.check);
    members.push_back(std::move(m));
  }
  return members;
}

RunRecord make_fleet_record(const std::vector<FleetMember>& members, const std::string& hostname) {
  RunRecord r;
  r.experiment = kFleetExperiment;
  r.pinbench_version = kVersion;
  r.created_utc = utc_now_iso8601();
  r.machine.hostname = hostname;
  std::vector<std::string> sources;
  for (const FleetMember& m : members) sources.push_back(m.source);
  r.config = {{"hosts", fleet_members_to_json(members)}};
  put_fields(r.config, FleetRecordConfig{sources, gpu_columns()});
  return r;
}

json read_members(const json& members) {
  if (!members.is_array()) refuse_field("members", "is not an array");
  json kept = json::array();
  for (std::size_t i = 0; i < members.size(); ++i) {
    try {
      kept.push_back(to_json(record_from_json(members[i])));
    } catch (const InputError& e) {
      refuse_field(fmt::format("members[{}]", i), fmt::format(": {}", e.what()));
    }
  }
  return kept.empty() ? json(nullptr) : kept;
}

std::vector<FleetMember> fleet_members_from(const RunRecord& fleet) {
  // A fleet record of pinbench 0.1 holds its members whole, each valid (read_members).
  std::vector<RunRecord> whole;
  for (const json& m : fleet.section(kMembersSection)) whole.push_back(record_from_json(m));
  if (!whole.empty()) {
    std::vector<std::string> sources;
    if (fleet.config.contains("sources") && fleet.config["sources"].is_array()) {
      for (const auto& s : fleet.config["sources"]) sources.push_back(s.get<std::string>());
    }
    while (sources.size() < whole.size()) {
      sources.push_back(fmt::format("members[{}]", sources.size()));
    }
    return fleet_members(whole, sources);
  }
  if (!fleet.config.contains("hosts")) return {};
  return fleet_members_from_json(fleet.config["hosts"], fleet.config);
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
  return make_fleet_record(fleet_members(checks, sources), hostname);
}

}  // namespace pinbench::experiments::check
