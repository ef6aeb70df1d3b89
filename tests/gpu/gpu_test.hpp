#pragma once

#include <gtest/gtest.h>

#include "framework/record.hpp"
#include "cuda/device.hpp"

// Skips (reported as skipped, never as passed) where CUDA has no usable device.
#define PINBENCH_REQUIRE_GPU()                                                      \
  do {                                                                              \
    const std::string pinbench_why_ = ::pinbench::cuda::no_device_reason();         \
    if (!pinbench_why_.empty()) GTEST_SKIP() << "no usable GPU: " << pinbench_why_; \
  } while (0)

namespace pinbench::test {

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
