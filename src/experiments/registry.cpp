// The records' side of the registry (registry.def): every experiment's kinds, and the lookup that
// the CLI, replay, `report` and record validation ask instead of switching on a name.
#include <algorithm>

#include "framework/experiment.hpp"

#define PINBENCH_EXPERIMENT(NAME)         \
  namespace pinbench::experiments::NAME { \
  std::vector<const Experiment*> kinds(); \
  }
#include "experiments/registry.def"
#undef PINBENCH_EXPERIMENT

namespace pinbench {

const std::vector<const Experiment*>& all_experiments() {
  static const std::vector<const Experiment*> all = [] {
    std::vector<const Experiment*> out;
    for (const auto& kinds : {
#define PINBENCH_EXPERIMENT(NAME) experiments::NAME::kinds(),
#include "experiments/registry.def"
#undef PINBENCH_EXPERIMENT
         }) {
      out.insert(out.end(), kinds.begin(), kinds.end());
    }
    return out;
  }();
  return all;
}

const Experiment& experiment_for(const std::string& name) {
  const std::vector<const Experiment*>& all = all_experiments();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const Experiment* e) { return e->descriptor().name == name; });
  return it == all.end() ? generic_experiment() : **it;
}

}  // namespace pinbench
