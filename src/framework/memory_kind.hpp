// The host-memory kinds, directions and copy methods pinbench measures, each with one name used
// in flags, tables, records and CSV alike.
#pragma once

#include <string_view>
#include <vector>

#include "base/enum_names.hpp"

namespace pinbench {

enum class MemoryKind {
  kPageable,       // "pageable": malloc'd, touched before use
  kPageableThp,    // "pageable-thp": pageable, 2 MiB aligned, madvise(MADV_HUGEPAGE)
  kPinned,         // "pinned": cudaMallocHost
  kRegistered,     // "registered": pageable memory pinned with cudaHostRegister
  kWriteCombined,  // "write-combined": cudaHostAlloc(cudaHostAllocWriteCombined)
  kMapped,         // "mapped": cudaHostAlloc(cudaHostAllocMapped)
  kManaged,        // "managed": cudaMallocManaged, touched on the host
};

inline constexpr EnumName<MemoryKind> kMemoryKindNames[] = {
    {MemoryKind::kPageable, "pageable"},
    {MemoryKind::kPageableThp, "pageable-thp"},
    {MemoryKind::kPinned, "pinned"},
    {MemoryKind::kRegistered, "registered"},
    {MemoryKind::kWriteCombined, "write-combined"},
    {MemoryKind::kMapped, "mapped"},
    {MemoryKind::kManaged, "managed"},
};
inline const char* to_string(MemoryKind k) {
  return name_in(kMemoryKindNames, k);
}
MemoryKind parse_memory_kind(std::string_view name);  // throws InputError naming the choices
std::vector<MemoryKind> all_memory_kinds();
bool is_page_locked(MemoryKind k);  // the driver can DMA it directly

enum class Direction { kH2D, kD2H, kBidir };
inline constexpr EnumName<Direction> kDirectionNames[] = {
    {Direction::kH2D, "h2d"}, {Direction::kD2H, "d2h"}, {Direction::kBidir, "bidir"}};
inline const char* to_string(Direction d) {
  return name_in(kDirectionNames, d);
}
Direction parse_direction(std::string_view name);  // "h2d", "d2h", "bidir"

enum class CopyMethod {
  kCopyEngine,  // "ce": cudaMemcpyAsync, moved by a copy engine
  kSmKernel,    // "sm": a kernel on the SMs reads or writes host memory through a pointer
};
inline constexpr EnumName<CopyMethod> kCopyMethodNames[] = {{CopyMethod::kCopyEngine, "ce"},
                                                            {CopyMethod::kSmKernel, "sm"}};
inline const char* to_string(CopyMethod m) {
  return name_in(kCopyMethodNames, m);
}
CopyMethod parse_copy_method(std::string_view name);  // "ce", "sm"

// Comma-separated lists of the above; throw InputError on an empty list or unknown name.
std::vector<MemoryKind> parse_memory_kinds(std::string_view list);
std::vector<Direction> parse_directions(std::string_view list);
std::vector<CopyMethod> parse_copy_methods(std::string_view list);

}  // namespace pinbench
