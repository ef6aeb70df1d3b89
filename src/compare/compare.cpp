#include "compare/compare.hpp"

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "framework/by_experiment.hpp"
#include "framework/case_figures.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/units.hpp"

namespace pinbench::compare {
namespace {

CaseKey key_of(const Case& c, const Experiment& e) {
  return {c.part, c.method, c.direction, c.memory, c.bytes, e.case_shape(c)};
}

using KeyTuple = std::tuple<const std::string&, const std::string&, const std::string&,
                            const std::string&, std::uint64_t, const std::vector<std::uint64_t>&>;
KeyTuple key_tuple(const CaseKey& k) {
  return std::tie(k.part, k.method, k.direction, k.memory, k.bytes, k.shape.key);
}
struct KeyLess {
  bool operator()(const CaseKey& x, const CaseKey& y) const { return key_tuple(x) < key_tuple(y); }
};

// Each case by its key, the first one of each as RunRecord::find and the lesson analysis take it.
using CaseIndex = std::map<CaseKey, const Case*, KeyLess>;
CaseIndex index_of(const RunRecord& r) {
  CaseIndex index;
  const Experiment& e = experiment_for(r.experiment);
  for (const Case& c : r.cases) index.emplace(key_of(c, e), &c);
  return index;
}

const Case* find(const CaseIndex& index, const CaseKey& key) {
  const auto it = index.find(key);
  return it == index.end() ? nullptr : it->second;
}

// Each key once, in the record's order, so a repeated case is compared (and listed) once.
std::vector<CaseKey> unique_keys(const RunRecord& r) {
  std::vector<CaseKey> keys;
  std::set<CaseKey, KeyLess> seen;
  const Experiment& e = experiment_for(r.experiment);
  for (const Case& c : r.cases) {
    CaseKey k = key_of(c, e);
    if (seen.insert(k).second) keys.push_back(std::move(k));
  }
  return keys;
}

std::string or_unknown(const std::string& s) {
  return s.empty() ? std::string("unknown") : s;
}

std::string driver_words(const MachineInfo& m) {
  return fmt::format("{} (CUDA {}.{})", or_unknown(m.driver_release), m.driver_version / 1000,
                     (m.driver_version % 1000) / 10);
}

}  // namespace

std::vector<std::string> machine_differences(const MachineInfo& a, const MachineInfo& b) {
  std::vector<std::string> out;
  if (a.device_name != b.device_name) {
    out.push_back(
        fmt::format("device {} vs {}", or_unknown(a.device_name), or_unknown(b.device_name)));
  }
  if (a.driver_release != b.driver_release || a.driver_version != b.driver_version) {
    out.push_back(fmt::format("driver {} vs {}", driver_words(a), driver_words(b)));
  }
  if (a.host_cpu != b.host_cpu) {
    out.push_back(fmt::format("host CPU {} vs {}", or_unknown(a.host_cpu), or_unknown(b.host_cpu)));
  }
  return out;
}

std::vector<std::string> condition_differences(const RunRecord& a, const RunRecord& b) {
  const std::vector<Condition> in_a = conditions_of(a), in_b = conditions_of(b);
  const auto value_in = [](const std::vector<Condition>& list, const std::string& name) {
    for (const Condition& c : list) {
      if (c.name == name) return std::optional<std::string>(c.value);
    }
    return std::optional<std::string>();
  };
  std::vector<std::string> out;
  const auto differ = [&](const std::string& name) {
    const std::optional<std::string> x = value_in(in_a, name), y = value_in(in_b, name);
    if (x == y) return;
    out.push_back(fmt::format("{}: {} in A, {} in B", name, x.value_or("not stated"),
                              y.value_or("not stated")));
  };
  for (const Condition& c : in_a) differ(c.name);
  for (const Condition& c : in_b) {
    if (!value_in(in_a, c.name)) differ(c.name);
  }
  return out;
}

std::string describe(const CaseKey& k) {
  return fmt::format("{} {} {} {} {}{}", k.part, k.method, k.direction, k.memory,
                     format_size(k.bytes), k.shape.text.empty() ? "" : " (" + k.shape.text + ")");
}

int Comparison::differing() const {
  int n = 0;
  for (const ComparedCase& c : common) n += c.differs ? 1 : 0;
  return n;
}

int Comparison::not_compared() const {
  int n = 0;
  for (const ComparedCase& c : common) n += c.ratio ? 0 : 1;
  return n;
}

Comparison compare_records(const RunRecord& a, const RunRecord& b, double threshold) {
  std::optional<Comparison> out = compare_common_cases(a, b, threshold);
  if (!out) {
    throw InputError(fmt::format(
        "the two records have no case in common (same part, method, direction, memory and "
        "size): {} case(s) of experiment '{}' against {} of '{}'",
        a.cases.size(), a.experiment, b.cases.size(), b.experiment));
  }
  return std::move(*out);
}

std::optional<Comparison> compare_common_cases(const RunRecord& a, const RunRecord& b,
                                               double threshold) {
  if (!(threshold >= 0.0) || !std::isfinite(threshold)) {
    throw InputError(
        fmt::format("the threshold must be a percentage of 0 or more, not {}", 100.0 * threshold));
  }
  Comparison out;
  out.threshold = threshold;
  out.machine_differences = machine_differences(a.machine, b.machine);
  const CaseIndex in_a = index_of(a), in_b = index_of(b);
  for (const CaseKey& k : unique_keys(a)) {
    const Case* cb = find(in_b, k);
    if (cb == nullptr) {
      out.only_a.push_back(k);
      continue;
    }
    ComparedCase c;
    c.key = k;
    c.a_gb_per_s = figures_of(*find(in_a, k)).gb_per_s;
    c.b_gb_per_s = figures_of(*cb).gb_per_s;
    if (c.a_gb_per_s && c.b_gb_per_s) {
      c.ratio = *c.b_gb_per_s / *c.a_gb_per_s;
      c.differs = std::fabs(*c.ratio - 1.0) > threshold;
    }
    out.common.push_back(c);
  }
  for (const CaseKey& k : unique_keys(b)) {
    if (find(in_a, k) == nullptr) out.only_b.push_back(k);
  }
  if (out.common.empty()) return std::nullopt;
  return out;
}

}  // namespace pinbench::compare
