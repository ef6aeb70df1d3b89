// A planted clash for check_unity_names.py: `shown(double)` here and in second.cpp, and
// kPlantedDash here and in dash.hpp.
#include <string>
namespace pinbench {
namespace {
const std::string kPlantedDash = "-";
std::string shown(double v) {
  return std::to_string(v);
}
std::string shown(int v) {
  return std::to_string(v);
}  // an overload: no clash
}  // namespace
}  // namespace pinbench
