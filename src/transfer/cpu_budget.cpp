// The engine's CPU budget (cpu_budget.hpp).
#include "transfer/cpu_budget.hpp"

#include "base/cgroups.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace pinbench::transfer {
namespace {

// The two lanes' coordinators and the caller of a synchronous copy, which copies slices too.
constexpr int kOtherBusyThreads = 3;

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

long long number_in(const std::string& path) {
  const std::string line = first_line(path);
  if (line.empty()) return 0;
  try {
    return std::stoll(line);
  } catch (const std::exception&) {
    return 0;
  }
}

// The tightest quota of `group` and every group above it, under the hierarchy mounted at `root`.
double tightest_quota(const std::string& root, const std::string& group, bool v2) {
  double tightest = 0.0;
  for (const std::string& g : group_and_parents(group)) {
    const std::string dir = root + (g == "/" ? "" : g);
    const double q = v2 ? quota_from_cpu_max(first_line(dir + "/cpu.max"))
                        : quota_from_cfs(number_in(dir + "/cpu.cfs_quota_us"),
                                         number_in(dir + "/cpu.cfs_period_us"));
    if (q > 0.0 && (tightest == 0.0 || q < tightest)) tightest = q;
  }
  return tightest;
}

double cgroup_quota() {
  std::ifstream in("/proc/self/cgroup");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  double tightest = 0.0;
  const auto keep = [&](double q) {
    if (q > 0.0 && (tightest == 0.0 || q < tightest)) tightest = q;
  };
  for (const CgroupLine& line : parse_proc_cgroup(text)) {
    if (line.controllers.empty()) {
      keep(tightest_quota("/sys/fs/cgroup", line.group, true));
    } else if (std::find(line.controllers.begin(), line.controllers.end(), "cpu") !=
               line.controllers.end()) {
      // Mounted as cpu,cpuacct on most systems, with cpu as a link to it.
      keep(tightest_quota("/sys/fs/cgroup/cpu", line.group, false));
    }
  }
  return tightest;
}

int affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

}  // namespace

double quota_from_cpu_max(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return 0.0;
  try {
    std::size_t used = 0;
    const long long q = std::stoll(quota, &used);
    if (used != quota.size()) return 0.0;
    return quota_from_cfs(q, period);
  } catch (const std::exception&) {
    return 0.0;
  }
}

double quota_from_cfs(long long quota_us, long long period_us) {
  if (quota_us <= 0 || period_us <= 0) return 0.0;
  return static_cast<double>(quota_us) / static_cast<double>(period_us);
}

CpuBudget budget_from(int affinity_cpus, double quota_cpus) {
  CpuBudget b;
  b.affinity_cpus = std::max(1, affinity_cpus);
  b.quota_cpus = quota_cpus > 0.0 ? quota_cpus : 0.0;
  b.usable = b.affinity_cpus;
  b.source = "affinity";
  if (b.quota_cpus > 0.0) {
    const double ceiling = std::ceil(b.quota_cpus - 1e-9);
    if (ceiling < static_cast<double>(b.usable)) {
      b.usable = std::max(1, static_cast<int>(ceiling));
      b.source = "cgroup quota";
    }
  }
  return b;
}

CpuBudget cpu_budget() {
  return budget_from(affinity_count(), cgroup_quota());
}

int host_threads_for(const CpuBudget& budget, int requested, int wanted) {
  const int room = std::max(1, budget.usable - kOtherBusyThreads);
  const int asked = requested > 0 ? requested : std::max(1, wanted);
  return std::max(1, std::min(asked, room));
}

}  // namespace pinbench::transfer
