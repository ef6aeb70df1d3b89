// What `pinbench bandwidthtest` is asked for (measure.hpp), as plain data and as the record's
// config holds it. No CUDA here.
#pragma once

#include <cstdint>

#include "framework/config_schema.hpp"

namespace pinbench::experiments::bandwidthtest {

struct BandwidthTestConfig {
  std::uint64_t bytes = 16ull << 20;  // 4 Mi floats
  int warmups = 1;
  int iterations = 10;

  // The record's config: each key written (put_fields) and validated (config_fields) from here.
  static constexpr auto fields() {
    return std::make_tuple(
        field("bytes", &BandwidthTestConfig::bytes, FieldKind::kSize),
        field("warmups", &BandwidthTestConfig::warmups, FieldKind::kCount),
        field("iterations", &BandwidthTestConfig::iterations, FieldKind::kCount));
  }
};

}  // namespace pinbench::experiments::bandwidthtest
