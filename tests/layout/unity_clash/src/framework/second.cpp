// A planted clash for check_unity_names.py: `shown(double)` here and in first.cpp.
#include <string>
namespace pinbench {
namespace {
std::string shown(double value) {
  return std::to_string(value) + "!";
}
}  // namespace
}  // namespace pinbench
