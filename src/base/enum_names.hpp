// An enum's names, one table per enum that both directions read: a value's name (name_in, what
// to_string returns) and a name's value (value_named, what a parser returns). The table sits
// beside its enum, one {value, "name"} row per enumerator, so a new enumerator is one row, its
// name is written once, and the name a record or a flag carries reads back as the same value.
// The CPU test EnumNames.* holds every table to every enumerator of its enum, each named once.
// Header-only and free of the framework, so the engine's own files (base/) use it too.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name of `value` in `table`; `unknown` where the table has no row for it.
template <class E, std::size_t N>
constexpr const char* name_in(const EnumName<E> (&table)[N], E value, const char* unknown = "?") {
  for (const EnumName<E>& row : table) {
    if (row.value == value) return row.name;
  }
  return unknown;
}

// The value named `name` in `table`; nothing for a name it does not hold.
template <class E, std::size_t N>
constexpr std::optional<E> value_named(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& row : table) {
    if (name == row.name) return row.value;
  }
  return std::nullopt;
}

// The table's names in its order, `separator` between them: a message's list of choices.
template <class E, std::size_t N>
std::string names_in(const EnumName<E> (&table)[N], std::string_view separator = ", ") {
  std::string out;
  for (const EnumName<E>& row : table) {
    if (!out.empty()) out += separator;
    out += row.name;
  }
  return out;
}

// The table's values in its order.
template <class E, std::size_t N>
std::vector<E> values_in(const EnumName<E> (&table)[N]) {
  std::vector<E> out;
  out.reserve(N);
  for (const EnumName<E>& row : table) out.push_back(row.value);
  return out;
}

}  // namespace pinbench
