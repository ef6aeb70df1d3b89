// The engine's CPU budget (src/transfer/cpu_budget.hpp): cgroup quotas read from their files'
// text, combined with an affinity count, and the host threads the engine makes for a budget.
#include <gtest/gtest.h>
#include <unistd.h>

#include "transfer/cpu_budget.hpp"

namespace pinbench::transfer {
namespace {

TEST(CpuBudget, CgroupV2CpuMaxLines) {
  EXPECT_DOUBLE_EQ(quota_from_cpu_max("max 100000"), 0.0);
  EXPECT_DOUBLE_EQ(quota_from_cpu_max("250000 100000"), 2.5);
  EXPECT_DOUBLE_EQ(quota_from_cpu_max("400000 100000\n"), 4.0);
  EXPECT_DOUBLE_EQ(quota_from_cpu_max("50000 100000"), 0.5);
  for (const char* bad :
       {"", "max", "100000", "abc 100000", "100000 0", "100000 -5", "-1 100000", "12x 100000"}) {
    EXPECT_DOUBLE_EQ(quota_from_cpu_max(bad), 0.0) << bad;
  }
}

TEST(CpuBudget, CgroupV1Quotas) {
  EXPECT_DOUBLE_EQ(quota_from_cfs(-1, 100000), 0.0);
  EXPECT_DOUBLE_EQ(quota_from_cfs(300000, 100000), 3.0);
  EXPECT_DOUBLE_EQ(quota_from_cfs(300000, 0), 0.0);
}

TEST(CpuBudget, TheQuotaCapsTheAffinityRoundedUp) {
  CpuBudget b = budget_from(16, 0.0);
  EXPECT_EQ(b.usable, 16);
  EXPECT_EQ(b.source, "affinity");
  b = budget_from(16, 2.5);
  EXPECT_EQ(b.usable, 3);
  EXPECT_EQ(b.source, "cgroup quota");
  b = budget_from(4, 8.0);  // a quota above the mask changes nothing
  EXPECT_EQ(b.usable, 4);
  EXPECT_EQ(b.source, "affinity");
  b = budget_from(16, 0.2);
  EXPECT_EQ(b.usable, 1);
  b = budget_from(0, 0.0);  // an unreadable mask still leaves one CPU
  EXPECT_EQ(b.usable, 1);
  b = budget_from(16, 6.0);  // exactly six CPUs' time is six, not seven
  EXPECT_EQ(b.usable, 6);
}

TEST(CpuBudget, HostThreadsLeaveRoomForTheCoordinatorsAndTheCaller) {
  // 16 CPUs: 13 host threads, shared by the two lanes (not 8 + 8).
  EXPECT_EQ(host_threads_for(budget_from(16, 0.0), 0, 16), 13);
  // The rings' thread counts together are the most asked for.
  EXPECT_EQ(host_threads_for(budget_from(64, 0.0), 0, 16), 16);
  // A quota of 4 CPUs on a 64-CPU machine: one thread, never 16.
  EXPECT_EQ(host_threads_for(budget_from(64, 4.0), 0, 16), 1);
  EXPECT_EQ(host_threads_for(budget_from(2, 0.0), 0, 16), 1);
  // An explicit request is kept within the budget.
  EXPECT_EQ(host_threads_for(budget_from(16, 0.0), 6, 16), 6);
  EXPECT_EQ(host_threads_for(budget_from(16, 0.0), 40, 16), 13);
  EXPECT_EQ(host_threads_for(budget_from(8, 0.0), 40, 16), 5);
}

TEST(CpuBudget, ThisProcessHasABudgetWithinItsCpus) {
  const CpuBudget b = cpu_budget();
  EXPECT_GE(b.usable, 1);
  EXPECT_LE(b.usable, b.affinity_cpus);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0) {
    EXPECT_LE(b.affinity_cpus, online);
  }
}

}  // namespace
}  // namespace pinbench::transfer
