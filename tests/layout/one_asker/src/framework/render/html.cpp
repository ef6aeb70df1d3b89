// Planted for check_one_asker.py: a printer that reaches back for an experiment's timeline
// through the registry (two places: the include and the call). experiment_for in a comment, and
// "experiment_for" in a string, are not code.
#include "framework/experiment.hpp"

namespace pinbench {
std::string own_timeline(const std::string& name) {
  const char* said = "experiment_for";
  return experiment_for(name).descriptor().name + said;
}
}  // namespace pinbench
