// This process's control groups, as /proc/self/cgroup names them, and the groups above each: what
// the engine's CPU budget (a cgroup CPU quota) and the limits on page-locked memory (a cgroup
// memory limit) both read. A limit set on any group on the way to the root applies.
#pragma once

#include <string>
#include <vector>

namespace pinbench {

struct CgroupLine {
  std::vector<std::string> controllers;  // v1: "cpu", "cpuacct", "memory", ...; v2: none
  std::string group;                     // "/slurm/job_7/step_0"
};

// The lines of /proc/self/cgroup's text: "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1); malformed
// lines are skipped.
std::vector<CgroupLine> parse_proc_cgroup(const std::string& text);

// `group` and every group above it, the root ("/") last: "/a/b" -> {"/a/b", "/a", "/"}.
std::vector<std::string> group_and_parents(std::string group);

}  // namespace pinbench
