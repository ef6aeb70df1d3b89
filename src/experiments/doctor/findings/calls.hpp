// What a call of the doctor trace is and what it moved, as every finding asks it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "experiments/doctor/trace.hpp"

namespace pinbench::experiments::doctor::findings {

inline bool host_side(const Copy& c) {
  return c.direction == CopyDirection::kH2D || c.direction == CopyDirection::kD2H;
}

inline bool pageable(const Copy& c) {
  return host_side(c) &&
         (c.src_kind == DriverMemoryKind::kPageable || c.dst_kind == DriverMemoryKind::kPageable);
}

inline bool has_pageable(const DoctorCall& c) {
  return std::any_of(c.copies.begin(), c.copies.end(), pageable);
}

// An allocation or registration that left its range page-locked: it returned success, and the
// driver did not say otherwise of the range after it (pinning-failed judges the rest).
inline bool locked_a_range(const DoctorCall& c) {
  return (c.kind == "alloc" || c.kind == "register") && c.status == 0 && c.ptr != 0 &&
         !(c.locked && !*c.locked);
}

inline bool is_copy(const DoctorCall& c) {
  return c.kind == "copy" || c.kind == "copy_async" || c.kind == "batch";
}

inline double host_ms(const DoctorCall& c) {
  return static_cast<double>(c.end_ns - c.start_ns) / 1e6;
}

inline std::uint64_t host_bytes(const DoctorCall& c) {
  std::uint64_t b = 0;
  for (const Copy& k : c.copies) b += host_side(k) ? k.bytes : 0;
  return b;
}

// The bytes a copy call moved: its size argument where the collector read one, else its copies'.
inline std::uint64_t call_bytes(const DoctorCall& c) {
  if (c.bytes > 0) return c.bytes;
  std::uint64_t b = 0;
  for (const Copy& k : c.copies) b += k.bytes;
  return b;
}

// The call's direction, as its parameters said, else as its first copy between host and device.
inline std::string call_direction(const DoctorCall& c) {
  if (!c.direction.empty()) return c.direction;
  for (const Copy& k : c.copies) {
    if (host_side(k)) return to_string(k.direction);
  }
  return "";
}

}  // namespace pinbench::experiments::doctor::findings
