// `pinbench compare` judges two records only where they were measured under the same conditions:
// each kind of record states its own (Experiment::conditions, after the experiment and the GPU
// model every record states), and a record of each kind, committed under data/runs/, differs from
// itself in nothing and from itself changed in one condition in that one. Then the command: two
// blocks records, one beside a kernel and one alone, shown side by side, judged by nothing, exit 5.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"

namespace pinbench {
using namespace compare;
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

// The first committed record of each experiment (by file name), read.
const std::map<std::string, RunRecord>& committed() {
  static const std::map<std::string, RunRecord> records = [] {
    std::vector<fs::path> paths;
    for (const fs::directory_entry& e :
         fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && e.path().extension() == ".json" &&
          name.find(".trace.json") == std::string::npos) {
        paths.push_back(e.path());
      }
    }
    std::sort(paths.begin(), paths.end());
    std::map<std::string, RunRecord> out;
    for (const fs::path& p : paths) {
      RunRecord r = load_record(p.string());
      const std::string experiment = r.experiment;
      out.emplace(experiment, std::move(r));
    }
    return out;
  }();
  return records;
}

const RunRecord& of(const std::string& experiment) {
  return committed().at(experiment);
}

// `r` changed by `change` and read again, as a record on disk would be.
RunRecord changed(const RunRecord& r, const std::function<void(json&)>& change) {
  json j = to_json(r);
  change(j);
  return record_from_json(j);
}

// Every registered kind has a committed record here (the recipe asks for one), states the
// experiment and the GPU model first, names each of its conditions once, and differs from itself
// in nothing; with another GPU model, in that alone.
TEST(CompareConditions, EveryKindStatesItsConditionsAndAnotherGpuModelIsOne) {
  for (const Experiment* e : all_experiments()) {
    ASSERT_EQ(committed().count(e->descriptor().name), 1u)
        << "no committed record of " << e->descriptor().name << " under data/runs/";
    const RunRecord& r = of(e->descriptor().name);
    const std::vector<Condition> c = conditions_of(r);
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c[0], (Condition{"experiment", e->descriptor().name}));
    EXPECT_EQ(c[1].name, "GPU model");
    std::set<std::string> names;
    for (const Condition& x : c) {
      EXPECT_FALSE(x.name.empty() || x.value.empty()) << e->descriptor().name;
      EXPECT_TRUE(names.insert(x.name).second)
          << e->descriptor().name << " states " << x.name << " twice";
    }
    EXPECT_TRUE(condition_differences(r, r).empty()) << e->descriptor().name;
    const RunRecord other =
        changed(r, [](json& j) { j["machine"]["device_name"] = "NVIDIA B200"; });
    EXPECT_EQ(condition_differences(r, other),
              std::vector<std::string>{"GPU model: " + c[1].value + " in A, NVIDIA B200 in B"})
        << e->descriptor().name;
  }
}

// Each kind's own conditions, one changed at a time.
struct OwnCondition {
  std::string experiment;
  std::function<void(json&)> change;
  std::string difference;  // the line condition_differences gives
};

// A record of `experiment` without the cases of `method`.
std::function<void(json&)> without_method(const std::string& method) {
  return [method](json& j) {
    json kept = json::array();
    for (const json& c : j["cases"]) {
      if (c["method"] != method) kept.push_back(c);
    }
    j["cases"] = kept;
  };
}

std::string methods_line(const std::string& experiment, const std::string& gone) {
  std::set<std::string> all;
  for (const Case& c : of(experiment).cases) all.insert(c.method);
  std::string a, b;
  for (const std::string& m : all) {
    a += (a.empty() ? "" : ", ") + m;
    if (m != gone) b += (b.empty() ? "" : ", ") + m;
  }
  return "methods: " + a + " in A, " + b + " in B";
}

TEST(CompareConditions, EachKindsOwnConditionIsSaidWhenItDiffers) {
  const std::vector<OwnCondition> cases = {
      {"blocks",
       [](json& j) {
         j["config"]["beside"] = {{"name", "compute"}, {"work_rounds", 2048}};
       },
       "kernel beside the copies: none in A, compute in B"},
      {"blocks", without_method("kernel"), methods_line("blocks", "kernel")},
      {"staged", without_method("pinned"), methods_line("staged", "pinned")},
      {"sweep", [](json& j) { j["config"]["place_on_gpu_node"] = false; },
       "host buffers on the GPU's NUMA node: asked in A, not asked in B"},
      {"check", [](json& j) { j["config"]["place_on_gpu_node"] = false; },
       "host buffers on the GPU's NUMA node: asked in A, not asked in B"},
      {"host", [](json& j) { j["config"]["place_on_gpu_node"] = false; },
       "host buffers on the GPU's NUMA node: asked in A, not asked in B"},
      {"host",
       [](json& j) {
         j["config"]["devices"] = {0, 1};
       },
       "GPUs: 0 in A, 0, 1 in B"},
      {"pipeline", [](json& j) { j["config"]["kernel_rounds"] = 8; },
       "kernel rounds per element: 0 in A, 8 in B"},
      {"pin", [](json& j) { j["config"]["neighbour_interval_us"] = 500; },
       "the neighbour's interval: 2000 µs in A, 500 µs in B"},
      {"doctor", [](json& j) { j["config"]["rates_from"] = "'rates.json', recorded then"; },
       "rates: a calibration after the program exited in A, 'rates.json', recorded then in B"},
  };
  std::set<std::string> with_own;
  for (const OwnCondition& c : cases) {
    const RunRecord& a = of(c.experiment);
    const RunRecord b = changed(a, c.change);
    EXPECT_EQ(condition_differences(a, b), std::vector<std::string>{c.difference}) << c.experiment;
    with_own.insert(c.experiment);
  }
  // A kind that states conditions of its own has its case above.
  for (const Experiment* e : all_experiments()) {
    if (conditions_of(of(e->descriptor().name)).size() > 2) {
      EXPECT_EQ(with_own.count(e->descriptor().name), 1u)
          << e->descriptor().name << " has no case here";
    }
  }
}

// Records of two experiments were measured two ways, even where their cases share keys.
TEST(CompareConditions, AnotherExperimentIsAnotherCondition) {
  const std::vector<std::string> d = condition_differences(of("lesson"), of("bandwidthtest"));
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0], "experiment: lesson in A, bandwidthtest in B");
}

// The case the command must not judge: the same blocks measured alone (A) and beside a kernel
// (B), which slowed every copy. Both shown side by side, neither judged: exit 5, no B/A, no flag.
TEST(CompareConditions, BlocksBesideAKernelAgainstAloneAreShownNotJudged) {
  const std::string dir = test::temp_dir();
  const RunRecord& alone = of("blocks");
  const RunRecord beside = changed(alone, [](json& j) {
    j["config"]["beside"] = {{"name", "compute"}, {"work_rounds", 2048}};
    for (json& c : j["cases"]) {
      for (json& s : c["samples_ms"]) s = s.get<double>() * 3.84;
      c["extra"]["slowdown_pct"] = 2.0;
    }
  });
  save_record(alone, dir + "/alone.json");
  save_record(beside, dir + "/beside.json");
  const test::Result r = test::run(kBin + "compare " + dir + "/alone.json " + dir + "/beside.json");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const std::string out = test::unwrapped(r.out);
  EXPECT_NE(out.find("Not judged: A and B were measured under different conditions"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  - kernel beside the copies: none in A, compute in B\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(out.find("none judged."), std::string::npos) << r.out;
  for (const char* verdict : {"B/A", "differs by more than", "%\n", "-74.0%"}) {
    EXPECT_EQ(out.find(verdict), std::string::npos) << verdict << " in\n" << r.out;
  }
  // The same records under one condition are judged as before.
  const test::Result same =
      test::run(kBin + "compare " + dir + "/beside.json " + dir + "/beside.json");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("B/A"), std::string::npos);
}

// An experiment's own comparison judges too (doctor's "B is worse"): it is not asked either.
TEST(CompareConditions, AnExperimentsOwnComparisonIsNotAskedAcrossConditions) {
  const std::string dir = test::temp_dir();
  const RunRecord& a = of("doctor");
  save_record(a, dir + "/a.json");
  save_record(changed(a, [](json& j) { j["machine"]["device_name"] = "NVIDIA B200"; }),
              dir + "/b.json");
  const test::Result r = test::run(kBin + "compare " + dir + "/a.json " + dir + "/b.json");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  const test::Result own = test::run(kBin + "compare " + dir + "/a.json " + dir + "/a.json");
  EXPECT_EQ(own.exit_code, 0) << own.err;
  // Doctor's table of findings (its own comparison) shows where the conditions are one, only.
  const std::string finding_table = "finding";
  EXPECT_NE(own.out.find(finding_table), std::string::npos) << own.out;
  EXPECT_EQ(r.out.find(finding_table), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pinbench
