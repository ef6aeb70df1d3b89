#include "framework/memory_kind.hpp"

#include "framework/text.hpp"

namespace pinbench {

MemoryKind parse_memory_kind(std::string_view name) {
  return parse_name(kMemoryKindNames, name, "host-memory kind");
}

std::vector<MemoryKind> all_memory_kinds() {
  return values_in(kMemoryKindNames);
}

bool is_page_locked(MemoryKind k) {
  return k == MemoryKind::kPinned || k == MemoryKind::kRegistered ||
         k == MemoryKind::kWriteCombined || k == MemoryKind::kMapped;
}

Direction parse_direction(std::string_view name) {
  return parse_name(kDirectionNames, name, "direction");
}

CopyMethod parse_copy_method(std::string_view name) {
  return parse_name(kCopyMethodNames, name, "copy method");
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
