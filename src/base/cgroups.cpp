// This process's control groups (cgroups.hpp).
#include "base/cgroups.hpp"

#include <sstream>

namespace pinbench {

std::vector<CgroupLine> parse_proc_cgroup(const std::string& text) {
  std::vector<CgroupLine> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    CgroupLine c;
    std::stringstream list(line.substr(a + 1, b - a - 1));
    for (std::string name; std::getline(list, name, ',');) {
      if (!name.empty()) c.controllers.push_back(name);
    }
    c.group = line.substr(b + 1);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> group_and_parents(std::string group) {
  std::vector<std::string> out;
  if (group.empty()) return out;
  for (;;) {
    out.push_back(group);
    if (group == "/") break;
    const std::size_t slash = group.find_last_of('/');
    group = slash == 0 || slash == std::string::npos ? "/" : group.substr(0, slash);
  }
  return out;
}

}  // namespace pinbench
