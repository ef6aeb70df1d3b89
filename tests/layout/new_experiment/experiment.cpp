// The example as the registry sees it: one record kind, its descriptor and every default of the
// interface, so it needs no class of its own.
#include "framework/experiment.hpp"

namespace pinbench::experiments::example {

std::vector<const Experiment*> kinds() {
  static const Experiment example(
      ExperimentDescriptor{"example", "pinbench example", "Example", "example"});
  return {&example};
}

}  // namespace pinbench::experiments::example
