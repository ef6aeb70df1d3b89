// A trace of one run as plain data: the runtime API calls the host made, the copies and kernels
// the GPU ran, and the NVTX ranges around them. The CUPTI collector (src/cuda/cupti_trace.cpp)
// and the nsys export reader (experiments/lesson/nsys_stats.cpp) both produce one, so prediction 4
// and the Perfetto writer never care where the trace came from. No CUDA types: times are
// nanoseconds on the producer's clock, ids are the producer's ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/enum_names.hpp"

namespace pinbench {

enum class CopyDirection { kUnknown, kH2D, kD2H, kD2D, kH2H, kP2P };

// Where the bytes of a copy lived, as the driver saw them (not as the program claimed).
enum class DriverMemoryKind { kUnknown, kPageable, kPinned, kDevice, kManaged, kArray };

inline constexpr EnumName<CopyDirection> kCopyDirectionNames[] = {
    {CopyDirection::kH2D, "h2d"}, {CopyDirection::kD2H, "d2h"},
    {CopyDirection::kD2D, "d2d"}, {CopyDirection::kH2H, "h2h"},
    {CopyDirection::kP2P, "p2p"}, {CopyDirection::kUnknown, "unknown"}};
inline constexpr EnumName<DriverMemoryKind> kDriverMemoryKindNames[] = {
    {DriverMemoryKind::kPageable, "pageable"}, {DriverMemoryKind::kPinned, "pinned"},
    {DriverMemoryKind::kDevice, "device"},     {DriverMemoryKind::kManaged, "managed"},
    {DriverMemoryKind::kArray, "array"},       {DriverMemoryKind::kUnknown, "unknown"}};
inline const char* to_string(CopyDirection d) {
  return name_in(kCopyDirectionNames, d);
}
inline const char* to_string(DriverMemoryKind k) {
  return name_in(kDriverMemoryKindNames, k);
}

// The host-side memory kind of a copy: the source for host to device, the destination for
// device to host, unknown otherwise.
DriverMemoryKind host_side(CopyDirection d, DriverMemoryKind src, DriverMemoryKind dst);

// From CUPTI's numbers for a copy's kind (CUpti_ActivityMemcpyKind) and its memory kinds
// (CUpti_ActivityMemoryKind), here without CUPTI's headers because the doctor's event lines carry
// them as plain numbers; cuda/cupti_trace.cpp checks the numbers against cupti.h.
CopyDirection direction_from_cupti(std::uint64_t copy_kind);
DriverMemoryKind memory_kind_from_cupti(std::uint64_t memory_kind);

struct ApiCall {
  std::string name;  // without version suffixes: "cudaMemcpyAsync", not "cudaMemcpyAsync_v3020"
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t thread = 0;
  std::uint32_t correlation = 0;  // the same number as the copy or kernel it started; 0: none
  // Never negative, and never overflows, whatever a damaged trace holds.
  std::int64_t duration_ns() const {
    std::int64_t d = 0;
    return __builtin_sub_overflow(end_ns, start_ns, &d) || d < 0 ? 0 : d;
  }
};

struct Copy {
  CopyDirection direction = CopyDirection::kUnknown;
  std::uint64_t bytes = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t stream = 0;
  DriverMemoryKind src_kind = DriverMemoryKind::kUnknown;
  DriverMemoryKind dst_kind = DriverMemoryKind::kUnknown;
  std::uint32_t correlation = 0;
};

struct Kernel {
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
};

struct NvtxRange {
  std::string name;
  std::string domain;  // "" for NVTX's default domain
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t thread = 0;
};

struct Trace {
  std::string source;          // "CUPTI 130001", "nsys exports in DIR", ...
  std::int64_t origin_ns = 0;  // the run's start on the same clock; writers rebase to it
  std::vector<ApiCall> api_calls;
  std::vector<Copy> copies;
  std::vector<Kernel> kernels;
  std::vector<NvtxRange> ranges;
  std::uint64_t dropped_records = 0;  // records the producer says it lost
  std::vector<std::string> notes;     // what the producer could not do, in one line each

  // The copy a call started, or nullptr. Linear; traces here hold thousands of items, not
  // millions, and callers index once when they need more.
  const Copy* copy_of(const ApiCall& call) const;
};

// Each copy by the correlation id of the call that started it, and the copy a call started
// (nullptr where the trace has none).
using CopyIndex = std::unordered_map<std::uint32_t, const Copy*>;
CopyIndex copies_by_correlation(const Trace& trace);
const Copy* find_copy(const CopyIndex& index, const ApiCall& call);

// A call made within an NVTX range, on its thread (where both name one).
bool inside(const ApiCall& call, const NvtxRange& range);

// "cudaMemcpyAsync_v3020" -> "cudaMemcpyAsync", "cudaMemcpyAsync_ptsz" -> "cudaMemcpyAsync".
std::string api_base_name(std::string_view name);

}  // namespace pinbench
