// Hand-made traces shaped like a traced lesson: the NVTX ranges, runtime calls and copies that
// parts 1 to 3 issue, with the call times and memory kinds a test asks for.
#pragma once

#include <cstdint>
#include <string>

#include "framework/trace_model.hpp"

namespace pinbench::test {

struct LessonTraceSpec {
  int timed = 10;                             // timed calls per part 2 group
  std::int64_t pageable_call_ns = 9'300'000;  // each part 2 host-to-device call from pageable
  std::int64_t pinned_call_ns = 12'000;       // ... from pinned
  std::uint64_t bytes = 64ull << 20;
  std::uint64_t pinned_bytes = 64ull << 20;  // the pinned group's copy size
  DriverMemoryKind pinned_seen_as =
      DriverMemoryKind::kPinned;  // what the driver saw of the pinned buffer
  bool ranges = true;             // NVTX ranges present
};

Trace lesson_trace(const LessonTraceSpec& spec = {});

}  // namespace pinbench::test
