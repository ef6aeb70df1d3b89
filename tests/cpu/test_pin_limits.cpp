// The host's limits on page-locked memory, read from crafted /proc, /sys and cgroup trees: each
// limit named with its value, the default size within them, and a size past one refused with a
// line that names it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/pin_limits.hpp"
#include "fixtures.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

struct Host {
  std::string root = test::temp_dir();
  PinSources sources;
  Host() {
    sources.proc_root = root + "/proc";
    sources.sys_root = root + "/sys";
    sources.cgroup_root = root + "/cgroup";
    sources.memlock_given = true;
    sources.memlock_bytes = 64 * 1024;
    sources.kernel_release = "6.8.0-45-generic";
    sources.driver_release = "570.86.15";
    put("proc/meminfo", "MemTotal:       263000000 kB\nMemAvailable:   200000000 kB\n");
    put("proc/sys/vm/max_map_count", "65530\n");
    put("proc/self/maps", std::string(100, '\n'));
    put("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
  }
  void put(const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(root + "/" + rel).parent_path());
    test::write_file(root + "/" + rel, text);
  }
};

TEST(PinLimits, ReadsEveryFactFromTheHost) {
  Host h;
  h.put("proc/self/cgroup", "0::/slurm/job_7/step_0\n");
  h.put("cgroup/slurm/memory.max", "max\n");
  h.put("cgroup/slurm/job_7/memory.max", "68719476736\n");  // 64 GiB
  h.put("cgroup/slurm/job_7/memory.current", "4294967296\n");
  h.put("cgroup/slurm/job_7/step_0/memory.max", "max\n");
  const PinLimits l = read_pin_limits(h.sources);
  EXPECT_EQ(l.available_bytes, 200000000ull * 1024);
  ASSERT_TRUE(l.cgroup_memory_bytes);
  EXPECT_EQ(*l.cgroup_memory_bytes, 64 * kGiB);
  EXPECT_EQ(l.usable_bytes(), 60 * kGiB);  // the job's limit less what it uses
  EXPECT_EQ(l.memlock_bytes, std::optional<std::uint64_t>(64 * 1024));
  EXPECT_EQ(l.max_map_count, std::optional<std::uint64_t>(65530));
  EXPECT_EQ(l.map_count, 100u);
  EXPECT_EQ(l.thp_mode, "madvise");
  EXPECT_EQ(default_pin_bytes(l, 64 * kGiB), 30 * kGiB);
  EXPECT_EQ(default_pin_bytes(l, 16 * kGiB), 16 * kGiB);
}

TEST(PinLimits, HugetlbfsFreeBytesAreItsFreePagesTimesTheirSize) {
  Host h;
  EXPECT_EQ(read_pin_limits(h.sources).hugetlbfs_free_bytes, 0u);  // none set aside
  h.put("proc/meminfo",
        "MemAvailable:   200000000 kB\nHugePages_Total:    1024\nHugePages_Free:      512\n"
        "Hugepagesize:       2048 kB\n");
  EXPECT_EQ(read_pin_limits(h.sources).hugetlbfs_free_bytes, 1 * kGiB);
}

TEST(PinLimits, CgroupV1AndNoLimitAtAll) {
  Host h;
  h.put("proc/self/cgroup", "7:cpu,cpuacct:/x\n4:memory:/docker/abc\n");
  h.put("cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");  // none
  h.put("cgroup/memory/docker/memory.limit_in_bytes", "17179869184\n");
  h.put("cgroup/memory/docker/memory.usage_in_bytes", "0\n");
  PinLimits l = read_pin_limits(h.sources);
  ASSERT_TRUE(l.cgroup_memory_bytes);
  EXPECT_EQ(*l.cgroup_memory_bytes, 16 * kGiB);
  EXPECT_EQ(l.usable_bytes(), 16 * kGiB);

  Host bare;
  l = read_pin_limits(bare.sources);
  EXPECT_FALSE(l.cgroup_memory_bytes);
  EXPECT_EQ(l.usable_bytes(), 200000000ull * 1024);
  EXPECT_EQ(parse_cgroup_bytes("max\n"), std::nullopt);
  EXPECT_EQ(parse_cgroup_bytes("-1"), std::nullopt);
  EXPECT_EQ(parse_cgroup_bytes("0x10"), std::nullopt);
  EXPECT_EQ(parse_cgroup_bytes("99999999999999999999999"), std::nullopt);
}

TEST(PinLimits, ASizePastALimitIsRefusedNamingIt) {
  Host h;
  h.sources.driver_release = "580.95.05";
  PinLimits l = read_pin_limits(h.sources);
  EXPECT_EQ(driver_major(l.driver_release), 580);
  EXPECT_EQ(pin_refusal(l, 64 * kGiB, 64 * kGiB, 1), std::nullopt);
  l.available_bytes = 2048 * kGiB;
  const auto driver = pin_refusal(l, 512 * kGiB, 512 * kGiB, 1);
  ASSERT_TRUE(driver);
  EXPECT_EQ(*driver,
            "512 GiB in one call crosses the NVIDIA driver's per-call limit (512 GiB, exclusive; "
            "driver 580.95.05: releases 580 and later fail one registration of 512 GiB or more)");
  EXPECT_EQ(pin_refusal(l, 1024 * kGiB, 511 * kGiB, 3), std::nullopt);  // in chunks: fine

  l.kernel_release = "6.12.3";
  const auto kernel = pin_refusal(l, 8 * kGiB, 4 * kGiB, 2);
  ASSERT_TRUE(kernel);
  EXPECT_NE(kernel->find("kernel's per-call pin limit"), std::string::npos) << *kernel;
  EXPECT_EQ(pin_refusal(l, 8 * kGiB, kGiB, 8), std::nullopt);

  l.kernel_release = "6.8.0";
  l.available_bytes = 10 * kGiB;
  const auto memory = pin_refusal(l, 11 * kGiB, kGiB, 11);
  ASSERT_TRUE(memory);
  EXPECT_EQ(*memory, "11 GiB crosses the memory this process may use (10 GiB; MemAvailable)");

  const auto maps = pin_refusal(l, kGiB, kGiB, 65500);
  ASSERT_TRUE(maps);
  EXPECT_EQ(*maps,
            "65500 new mappings beside the 100 this process holds cross vm.max_map_count (65530)");
}

TEST(PinLimits, VersionsAreReadStrictly) {
  EXPECT_EQ(kernel_version("6.12.8-arch1-1"), std::make_pair(6, 12));
  EXPECT_EQ(kernel_version("garbage"), std::make_pair(0, 0));
  EXPECT_EQ(driver_major("575.57.08"), 575);
  EXPECT_EQ(driver_major(""), 0);
  EXPECT_EQ(driver_major("x.1"), 0);
  Host h;
  h.sources.driver_release.clear();
  h.put("proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu Sep 25 2025\n");
  EXPECT_EQ(read_pin_limits(h.sources).driver_release, "580.95.05");
}

}  // namespace
}  // namespace pinbench
