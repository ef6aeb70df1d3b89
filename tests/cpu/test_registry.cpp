// The registry (src/experiments/registry.def): every experiment answers to its own name, once;
// a name nobody registered gets the generic experiment; the experiments agree on the kind of each
// key of a case's extra; every registered experiment has a committed record that validates
// against its own config rules and renders through it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "framework/by_experiment.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/text.hpp"

namespace pinbench {
namespace {

TEST(Registry, EveryExperimentAnswersToItsOwnNameOnce) {
  std::set<std::string> names;
  for (const Experiment* e : all_experiments()) {
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(e->descriptor().name.empty());
    EXPECT_TRUE(names.insert(e->descriptor().name).second)
        << "registered twice: " << e->descriptor().name;
    EXPECT_EQ(&experiment_for(e->descriptor().name), e);
    EXPECT_FALSE(e->descriptor().label.empty()) << e->descriptor().name;
    EXPECT_FALSE(e->descriptor().noun.empty()) << e->descriptor().name;
  }
  // The records pinbench makes, each of them registered.
  for (const char* name : {"lesson", "sweep", "bandwidthtest", "race", "staged", "staged-tune",
                           "pipeline", "doctor", "check", "host", "fleet", "blocks", "pin"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
}

TEST(Registry, AnUnknownNameGetsTheGenericExperiment) {
  EXPECT_EQ(&experiment_for("made-up"), &generic_experiment());
  EXPECT_EQ(&experiment_for(""), &generic_experiment());
  EXPECT_TRUE(generic_experiment().descriptor().config_fields.empty());
}

// A case's extra is checked against every experiment's keys at once (case_extra_fields), so one
// key declared with two kinds would be checked by whichever came first; none is.
TEST(Registry, ExperimentsAgreeOnTheKindOfEachExtraKey) {
  EXPECT_TRUE(generic_experiment().descriptor().extra_fields.empty());
  const std::vector<ConfigField>& all = case_extra_fields();
  std::set<std::string> keys;
  for (const ConfigField& f : all) EXPECT_TRUE(keys.insert(f.key).second) << "twice: " << f.key;
  for (const Experiment* e : all_experiments()) {
    for (const ConfigField& f : e->descriptor().extra_fields) {
      const auto it = std::find_if(all.begin(), all.end(), [&](const ConfigField& g) {
        return std::string(g.key) == f.key;
      });
      ASSERT_NE(it, all.end()) << e->descriptor().name << ": " << f.key;
      EXPECT_EQ(it->kind, f.kind) << e->descriptor().name << " gives " << f.key << " another kind";
    }
  }
}

TEST(Registry, EveryExperimentHasACommittedRecordItPrints) {
  std::set<std::string> seen;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json" || path.find(".trace.json") != std::string::npos) {
      continue;
    }
    const RunRecord r = load_record(path);
    const ReportModel m = analyse(r);
    EXPECT_FALSE(render_text(m).empty()) << path;
    seen.insert(r.experiment);
  }
  for (const Experiment* e : all_experiments())
    EXPECT_EQ(seen.count(e->descriptor().name), 1u) << e->descriptor().name;
}

}  // namespace
}  // namespace pinbench
