// The shape of the free-form parts of a record (an experiment's config, a case's extra, a trace
// summary): not fixed by the record's schema, but the printers and analyses read some of their
// fields by name, so each of those is checked wherever it appears, and nothing downstream meets
// a negative size or a string where it reads a number. Each experiment declares the keys of its
// own config and of its cases' extra (framework/experiment.hpp); record validation walks them
// with check_fields, whose checks of each kind are json_fields.hpp's (the one way a record's JSON
// is checked).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/json_fields.hpp"

namespace pinbench {

enum class FieldKind {
  kSize,        // one byte count, 1 to 2^63 - 1
  kSizeOrZero,  // one byte count, 0 to 2^63 - 1
  kSizes,       // byte counts, one or an array or object of them ("chunk_bytes_by_streams")
  kCount,       // one count, 0 to 2^31 - 1
  kCounts,      // counts, one or an array of them (a tuning grid's "threads")
  kBigCount,    // one count, 0 to 2^63 - 1
  kText,
  kFlag,
  kTimes,      // an array of finite times, not negative
  kTexts,      // an array of strings
  kRatio,      // one finite number, not negative
  kObjects,    // an array of objects (their fields are checked by name in turn)
  kEngine,     // the staged engine's options, as the staged reports print them
  kTimestamp,  // an RFC 3339 date-time, the form pinbench writes (base/timestamp.hpp)
};

struct ConfigField {
  const char* key;
  FieldKind kind;
};

// One value against its kind; `field` names it in the message.
void check_kind(const nlohmann::json& v, const std::string& field, FieldKind kind);

// Walks objects and arrays of objects under `field`, checking every known key it meets.
void check_fields(const nlohmann::json& j, const std::string& field,
                  const std::vector<ConfigField>& known);

// One field of a struct as a record holds it: its record key, the member, and its kind.
template <class Struct, class Member>
struct Field {
  const char* key;
  Member Struct::*member;
  FieldKind kind;
};

template <class Struct, class Member>
constexpr Field<Struct, Member> field(const char* key, Member Struct::*member, FieldKind kind) {
  return {key, member, kind};
}

// A struct as a record holds it, its fields declared once: the struct's static `fields()`
// returns a tuple of field(key, &Struct::member, kind) (the lesson's config, what an analysis
// reads of its record's config). From that one list come the keys and kinds that record
// validation checks (fields_of, in an experiment's config_fields()), the JSON written
// (put_fields) and the struct read back (get_fields), so no key is listed for validation in one
// place and read back in another. A member that is a std::optional is written only when it holds
// a value, and read only where the key is present. A member that is a list of an enum (memory
// kinds, sources) is written as the names records carry, each value's to_string (names_of,
// below); such a list is never read back by get_fields. A struct whose list starts with
// another's (a plan and the record config its printers read back) takes the other's list as a
// template, `Other::fields<Self>()`, and std::tuple_cat.

// Calls visit(key, s.*member, kind) for each field of `s`, in the list's order.
template <class Struct, class Visit>
void visit_fields(Struct& s, Visit&& visit) {
  std::apply([&](const auto&... f) { (visit(f.key, s.*(f.member), f.kind), ...); },
             std::remove_const_t<Struct>::fields());
}

template <class Struct>
std::vector<ConfigField> fields_of() {
  return std::apply(
      [](const auto&... f) {
        return std::vector<ConfigField>{ConfigField{f.key, f.kind}...};
      },
      Struct::fields());
}

// The keys alone, in the list's order: the columns of a table of such objects (add_skipped).
template <class Struct>
std::vector<std::string> keys_of() {
  std::vector<std::string> out;
  for (const ConfigField& f : fields_of<Struct>()) out.emplace_back(f.key);
  return out;
}

namespace config_fields_detail {
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsEnumList : std::false_type {};
template <class T>
struct IsEnumList<std::vector<T>> : std::is_enum<T> {};
}  // namespace config_fields_detail

template <class T>
nlohmann::json names_of(const std::vector<T>& values);

// Each field of `s` into `j` under its key.
template <class Struct>
void put_fields(nlohmann::json& j, const Struct& s) {
  visit_fields(s, [&j](const char* key, const auto& value, FieldKind) {
    if constexpr (config_fields_detail::IsOptional<std::decay_t<decltype(value)>>::value) {
      if (value) j[key] = *value;
    } else if constexpr (config_fields_detail::IsEnumList<std::decay_t<decltype(value)>>::value) {
      j[key] = names_of(value);
    } else {
      j[key] = value;
    }
  });
}

// Each field of `s` from `j`: a key `j` lacks (or a `j` that is no object) keeps the member's
// value; one of the wrong type is nlohmann::json's type_error (record validation has refused it
// already, by the kind in the list).
template <class Struct>
void get_fields(const nlohmann::json& j, Struct& s) {
  if (!j.is_object()) return;
  visit_fields(s, [&j](const char* key, auto& value, FieldKind) {
    using T = std::decay_t<decltype(value)>;
    static_assert(!config_fields_detail::IsEnumList<T>::value,
                  "a list of names is written, not read back");
    const auto it = j.find(key);
    if (it == j.end()) return;
    if constexpr (config_fields_detail::IsOptional<T>::value) {
      value = it->template get<typename T::value_type>();
    } else {
      value = it->template get<T>();
    }
  });
}

// Concatenated lists, for an experiment whose config shares another's keys.
std::vector<ConfigField> joined(std::initializer_list<std::vector<ConfigField>> lists);

// A list of a config's choices (memory kinds, directions, methods) as the names records carry:
// each value's to_string.
template <class T>
nlohmann::json names_of(const std::vector<T>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const T& v : values) out.push_back(to_string(v));
  return out;
}

}  // namespace pinbench
