#pragma once

#include <gtest/gtest.h>

#include "cuda/device.hpp"

// Skips (reported as skipped, never as passed) where CUDA has no usable device.
#define PINBENCH_REQUIRE_GPU()                                                      \
  do {                                                                              \
    const std::string pinbench_why_ = ::pinbench::cuda::no_device_reason();         \
    if (!pinbench_why_.empty()) GTEST_SKIP() << "no usable GPU: " << pinbench_why_; \
  } while (0)
