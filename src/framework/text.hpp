// Small text helpers shared by the parsers of sizes, lists and plans, and by messages.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/enum_names.hpp"
#include "framework/errors.hpp"

namespace pinbench {

// "a, b or c", each item between `quote`s: a list of choices in a message.
inline std::string or_list(const std::vector<std::string>& items, std::string_view quote = "") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
    out.append(quote).append(items[i]).append(quote);
  }
  return out;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The value `table` gives `name` (base/enum_names.hpp), or InputError "unknown WHAT 'NAME' (choose
// from a, b, c)".
template <class E, std::size_t N>
E parse_name(const EnumName<E> (&table)[N], std::string_view name, const char* what) {
  if (const std::optional<E> v = value_named(table, name)) return *v;
  throw InputError(fmt::format("unknown {} '{}' (choose from {})", what, name, names_in(table)));
}

// Parses a comma-separated list with `parse` (which throws InputError for a bad item), keeping
// the first of repeated values. An empty list is an InputError naming `what`.
template <typename T, typename Parse>
std::vector<T> parse_list(std::string_view list, const char* what, Parse parse) {
  if (trim(list).empty()) throw InputError(fmt::format("the {} list is empty", what));
  std::vector<T> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string_view item =
        trim(list.substr(start, comma == std::string_view::npos ? list.npos : comma - start));
    const T value = parse(item);
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace pinbench
