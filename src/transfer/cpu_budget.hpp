// How many CPUs the engine's threads may keep busy: the CPUs in the process's affinity mask,
// fewer where a cgroup CPU quota (a container's --cpus, a Slurm or Kubernetes limit) allows less
// time than that. Above the budget, busy threads take turns on CPUs: a turn lost by a thread that
// holds a chunk's last slice stalls the ring, and on the H200 machine (16 CPUs) a pipeline with
// 8 + 8 host threads, two coordinators and the caller swung between 48 and 97 ms from one run to
// the next (docs/methodology.md, "Where a copy's time goes").
//
// The parsing is pure and tested on strings; only cpu_budget() reads the machine.
#pragma once

#include <string>

namespace pinbench::transfer {

// CPUs a cgroup v2 `cpu.max` line allows ("max 100000": no quota, 0; "250000 100000": 2.5).
// Anything else is no quota (0).
double quota_from_cpu_max(const std::string& cpu_max);

// CPUs a cgroup v1 quota allows (cpu.cfs_quota_us over cpu.cfs_period_us); 0 when the quota is
// -1 (none) or either number is not positive.
double quota_from_cfs(long long quota_us, long long period_us);

struct CpuBudget {
  int affinity_cpus = 0;    // CPUs in the process's affinity mask (the machine's, if unreadable)
  double quota_cpus = 0.0;  // the tightest cgroup quota on the way to the root; 0: none
  int usable = 1;           // what the engine sizes itself to: min(affinity, ceil(quota)), >= 1
  std::string source;       // how `usable` was found, for records: "affinity", "cgroup quota"
};

// Combines the two readings: the affinity count, capped by the quota rounded up (a quota of 2.5
// CPUs keeps three threads busy half the time each, not two).
CpuBudget budget_from(int affinity_cpus, double quota_cpus);

// The process's own budget, read once per call: sched_getaffinity, then the cgroup quotas of
// /proc/self/cgroup's groups and every group above them (v2's cpu.max, v1's cfs files).
CpuBudget cpu_budget();

// The engine's shared host threads for a budget: each busy CPU beyond the two lanes'
// coordinators and a synchronous caller (which helps copy), at least one, at most `wanted`
// (the two rings' thread counts together). `requested` > 0 asks for that many, still within the
// budget.
int host_threads_for(const CpuBudget& budget, int requested, int wanted);

}  // namespace pinbench::transfer
