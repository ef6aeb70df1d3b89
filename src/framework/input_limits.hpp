// The most pinbench reads of any one input, in one place so the docs and the code agree
// (docs/record-schema.md, "Limits"). Every reader stops after the cap plus one byte, so a
// stream that never ends (/dev/zero, a pipe) is refused in milliseconds with bounded memory,
// instead of being read whole first.
#pragma once

#include <cstdint>

namespace pinbench {

// A run record. The biggest committed one (a staged run) is about 6 MiB; ten times that
// leaves room for longer runs while keeping a parse well under a second.
constexpr std::uint64_t kMaxRecordBytes = std::uint64_t{64} << 20;

// One CSV file that `nsys stats` wrote. A GPU trace of a long capture reaches hundreds of MB
// (95 MB for 600,000 copies); the reader holds at most about 3x this in memory.
constexpr std::uint64_t kMaxNsysExportBytes = std::uint64_t{1} << 30;

// A Chrome trace-event file beside a record (RUN.trace.json), drawn as the HTML timeline.
constexpr std::uint64_t kMaxTraceBytes = std::uint64_t{256} << 20;

// JSON nested deeper than this is refused while parsing: no record or trace pinbench writes
// goes beyond 6 levels, and deep nesting is the one way to make a small file costly to walk.
constexpr int kMaxJsonDepth = 64;

}  // namespace pinbench
