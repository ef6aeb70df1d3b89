// Planted for check_unity_names.py: a name the framework's namespace declares, which first.cpp
// also defines at the top of its anonymous namespace.
#pragma once
#include <string>
namespace pinbench {
inline const std::string kPlantedDash = "-";
}  // namespace pinbench
