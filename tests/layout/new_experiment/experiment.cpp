// The example as the registry sees it: one record kind, with every default of the interface.
#include "framework/experiment.hpp"

namespace pinbench::experiments::example {
namespace {

class Example final : public Experiment {
 public:
  std::string name() const override { return "example"; }
  std::string command() const override { return "pinbench example"; }
  std::string label() const override { return "Example"; }
  std::string noun() const override { return "example"; }
};

}  // namespace

std::vector<const Experiment*> kinds() {
  static const Example example;
  return {&example};
}

}  // namespace pinbench::experiments::example
