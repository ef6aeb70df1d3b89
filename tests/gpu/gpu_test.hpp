#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cuda/device.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"

// Skips (reported as skipped, never as passed) where CUDA has no usable device.
#define PINBENCH_REQUIRE_GPU()                                                      \
  do {                                                                              \
    const std::string pinbench_why_ = ::pinbench::cuda::no_device_reason();         \
    if (!pinbench_why_.empty()) GTEST_SKIP() << "no usable GPU: " << pinbench_why_; \
  } while (0)

namespace pinbench::test {

// What a GPU test runs or reads beside it (`pinbench`, `doctor_pitfalls`, `doctor_programs/`): in
// this binary's own folder (a GPU bundle, or binaries copied side by side as the README says),
// else its parent (build/tests/ beside build/), else `fallback` (the build tree's path). A test
// run anywhere finds what it was built with, and never writes into a path it cannot see.
inline std::string beside_this_binary(const std::string& name, const std::string& fallback) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (!ec) {
    for (const fs::path& p : {self / name, self.parent_path() / name}) {
      if (fs::exists(p, ec)) return p.string();
    }
  }
  return fallback;
}

// Every case says why its sampling stopped, and the record's JSON keeps it. With `fixed_count`,
// every case that sampled to the end stopped on the count with exactly that many samples.
inline void expect_every_case_stopped(const RunRecord& r, std::size_t fixed_count = 0) {
  for (const Case& c : r.cases) {
    ASSERT_TRUE(c.stop.has_value()) << c.gate;
    EXPECT_NE(*c.stop, StopReason::kContinue) << c.gate;
    if (fixed_count > 0 && c.verified) {
      EXPECT_EQ(*c.stop, StopReason::kCount) << c.gate;
      EXPECT_EQ(c.samples_ms.size(), fixed_count) << c.gate;
    }
  }
  const RunRecord back = record_from_json(to_json(r));
  ASSERT_EQ(back.cases.size(), r.cases.size());
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    EXPECT_EQ(back.cases[i].stop, r.cases[i].stop) << r.cases[i].gate;
  }
}

}  // namespace pinbench::test
