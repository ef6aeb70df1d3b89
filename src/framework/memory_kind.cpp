#include "framework/memory_kind.hpp"

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/text.hpp"

namespace pinbench {
namespace {

struct KindName {
  MemoryKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {MemoryKind::kPageable, "pageable"},
    {MemoryKind::kPageableThp, "pageable-thp"},
    {MemoryKind::kPinned, "pinned"},
    {MemoryKind::kRegistered, "registered"},
    {MemoryKind::kWriteCombined, "write-combined"},
    {MemoryKind::kMapped, "mapped"},
    {MemoryKind::kManaged, "managed"},
};

}  // namespace

const char* to_string(MemoryKind k) {
  for (const KindName& n : kKinds) {
    if (n.kind == k) return n.name;
  }
  return "?";
}

MemoryKind parse_memory_kind(std::string_view name) {
  for (const KindName& n : kKinds) {
    if (name == n.name) return n.kind;
  }
  throw InputError(fmt::format(
      "unknown host-memory kind '{}' (choose from pageable, pageable-thp, pinned, registered, "
      "write-combined, mapped, managed)",
      name));
}

std::vector<MemoryKind> all_memory_kinds() {
  std::vector<MemoryKind> out;
  for (const KindName& n : kKinds) out.push_back(n.kind);
  return out;
}

bool is_page_locked(MemoryKind k) {
  return k == MemoryKind::kPinned || k == MemoryKind::kRegistered ||
         k == MemoryKind::kWriteCombined || k == MemoryKind::kMapped;
}

const char* to_string(Direction d) {
  switch (d) {
    case Direction::kH2D:
      return "h2d";
    case Direction::kD2H:
      return "d2h";
    case Direction::kBidir:
      return "bidir";
  }
  return "?";
}

Direction parse_direction(std::string_view name) {
  if (name == "h2d") return Direction::kH2D;
  if (name == "d2h") return Direction::kD2H;
  if (name == "bidir") return Direction::kBidir;
  throw InputError(fmt::format("unknown direction '{}' (choose from h2d, d2h, bidir)", name));
}

const char* to_string(CopyMethod m) {
  return m == CopyMethod::kCopyEngine ? "ce" : "sm";
}

CopyMethod parse_copy_method(std::string_view name) {
  if (name == "ce") return CopyMethod::kCopyEngine;
  if (name == "sm") return CopyMethod::kSmKernel;
  throw InputError(fmt::format("unknown copy method '{}' (choose from ce, sm)", name));
}

std::vector<MemoryKind> parse_memory_kinds(std::string_view list) {
  return parse_list<MemoryKind>(list, "host-memory kind", parse_memory_kind);
}

std::vector<Direction> parse_directions(std::string_view list) {
  return parse_list<Direction>(list, "direction", parse_direction);
}

std::vector<CopyMethod> parse_copy_methods(std::string_view list) {
  return parse_list<CopyMethod>(list, "copy method", parse_copy_method);
}

}  // namespace pinbench
