// The one way pinbench checks the JSON it reads (framework/record.cpp reads a record's common part
// with it, every experiment its own section, and config_schema.hpp's kinds are checked by its
// value checks): a record's fields read field by field, with one clear line for a field that is
// missing or wrong, "run record: 'doctor.calls[3].api' is empty", whoever asks.
//
// A field is read for what it means, not only for its type: a rate, a time in ms, a count, a
// process id, a date-time, a slowdown in percent each have their range, so a value no measurement
// gives (a slowdown of -200%, a rate of -1e308, a created_utc of "yesterday") is refused by the
// field's name like a missing one. The named readers below are the meanings records share; an
// experiment states its own range with a Meaning, read with figure(), or a percent() (blocks'
// slowdown).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"

namespace pinbench {

// Throws InputError "run record: 'FIELD' WHY" (the one refusal of a record's field); "run record:
// WHY" where `field` is empty (the record itself), and "run record: 'FIELD': ..." where WHY starts
// with ':' (a refusal of a record the field holds, nested whole: a fleet's members).
[[noreturn]] void refuse_field(const std::string& field, const std::string& why);

// A value as a message shows it: short, and printable whatever the bytes.
std::string shown(const nlohmann::json& v);

// "'FIELD' has the wrong type (string)".
[[noreturn]] void refuse_type(const std::string& field, const nlohmann::json& v);

// The largest byte count or big count a record may hold.
constexpr std::uint64_t kMaxRecordSize = (std::uint64_t{1} << 63) - 1;

// A whole number within [lo, hi], from an integer or a float that holds one (2^64 arrives as a
// float: JSON integers past 64 bits do), or InputError naming `field` and why: "is -3: a count
// cannot be negative", "is 4294967296, more than a count allows (2147483647)", "is 1.5, not a
// whole number for a byte count", "has the wrong type (string)". `noun` names the quantity.
std::int64_t whole_number(const nlohmann::json& v, const std::string& field, std::int64_t lo,
                          std::uint64_t hi, const char* noun);

// true or false, or InputError "'FIELD' is "yes", not true or false".
bool flag_of(const nlohmann::json& v, const std::string& field);

// What a number means, and so the values it may take, both ends included: refused as
// "is -200, not a kernel's slowdown in percent from -5 to 10000".
struct Meaning {
  const char* what;  // "a rate in GB/s"
  double least;
  double most;
};

// The meanings records share. A rate: 0 to 10^6 GB/s (a petabyte a second; every link pinbench
// measures is under 10^4). A time in ms: 0 to a year. A time in ns of a program's run: 0 to 2^62.
inline constexpr Meaning kRateGbPerS{"a rate in GB/s", 0.0, 1e6};
inline constexpr Meaning kMilliseconds{"a time in ms", 0.0, 365.0 * 86400.0 * 1000.0};
inline constexpr std::int64_t kMostNanoseconds = std::int64_t{1} << 62;
// Linux's largest process id (PID_MAX_LIMIT, 2^22); 0 where a record does not know it.
inline constexpr std::int64_t kMostPid = std::int64_t{1} << 22;
inline constexpr std::int64_t kMostBytes = std::numeric_limits<std::int64_t>::max();  // 2^63 - 1

// "a rate in GB/s from 0 to 1000000": the words a refusal says `m` in.
std::string meaning_words(const Meaning& m);
// Whether `v` is a number within `m` (never NaN or infinite).
bool within(const nlohmann::json& v, const Meaning& m);
// `v` against `m`: the number, or InputError naming `field`. Also for a value read outside a
// JsonFields (a case's extra kept as JSON).
double figure_of(const nlohmann::json& v, const std::string& field, const Meaning& m);
// An RFC 3339 date-time (base/timestamp.hpp), or InputError naming `field`.
std::string timestamp_of(const nlohmann::json& v, const std::string& field);

// One JSON object of a section, and its path in the record ("doctor.calls[3]").
class JsonFields {
 public:
  // Throws when `value` is not an object.
  JsonFields(const nlohmann::json& value, std::string path);

  const nlohmann::json& json() const { return j_; }
  const std::string& path() const { return path_; }
  // The key's path in the record: "doctor.calls[3].api"; the key alone at the top ("" path).
  std::string field(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  bool has(const char* key) const { return j_.contains(key); }

  const nlohmann::json& at(const char* key) const;  // present, or refused
  std::string text(const char* key) const;
  std::string text_or(const char* key, const std::string& fallback) const;
  // A text that names something (a part, a gate): empty is refused like missing.
  std::string name_text(const char* key) const;
  // The object under `key`, read the same way.
  JsonFields child(const char* key) const { return JsonFields(at(key), field(key)); }
  // Any JSON number.
  double number(const char* key) const;
  // A whole number of what `noun` names ("a count", "a thread id"), lo to hi (whole_number).
  std::int64_t whole(const char* key, std::int64_t lo, std::int64_t hi,
                     const char* noun = "a count") const;
  std::int64_t whole_or(const char* key, std::int64_t fallback, std::int64_t lo, std::int64_t hi,
                        const char* noun = "a count") const;

  // --- fields read for what they mean ---------------------------------------------------------
  // A number within `m` (figure_of).
  double figure(const char* key, const Meaning& m) const;
  // The same, or nothing where the key is absent.
  std::optional<double> figure_or_none(const char* key, const Meaning& m) const;
  double rate(const char* key) const { return figure(key, kRateGbPerS); }  // GB/s
  double ms(const char* key) const { return figure(key, kMilliseconds); }  // a time in ms
  double ms_or(const char* key, double fallback) const;
  // A percentage within [least, most], named `what` in a refusal ("a kernel's slowdown").
  double percent(const char* key, const char* what, double least, double most) const;
  // A whole number of things, `least` (0 unless given) to `most`.
  std::uint64_t count(const char* key, std::uint64_t least, std::uint64_t most) const;
  std::uint64_t count(const char* key, std::uint64_t most) const { return count(key, 0, most); }
  std::uint64_t count_or(const char* key, std::uint64_t fallback, std::uint64_t most) const;
  // A byte count, 0 to 2^63 - 1.
  std::uint64_t bytes(const char* key) const;
  // A size, a byte count 1 to 2^63 - 1: "is zero; a byte count must be positive".
  std::uint64_t size(const char* key) const;
  std::uint64_t bytes_or(const char* key, std::uint64_t fallback) const;
  // A time in ns since a program's run began, 0 to 2^62.
  std::int64_t ns(const char* key) const;
  // A process id, 0 to 2^22 (Linux's most).
  int pid(const char* key) const;
  int pid_or(const char* key, int fallback) const;
  // A process's exit status, 0 to 255.
  int exit_status(const char* key) const;
  // An RFC 3339 date-time, the form pinbench writes ("2026-11-30T16:04:05Z"), as written.
  std::string timestamp(const char* key) const;
  bool flag(const char* key) const;  // flag_of
  bool flag_or(const char* key, bool fallback) const;
  const nlohmann::json& array(const char* key) const;
  // An array of strings.
  std::vector<std::string> texts(const char* key) const;
  // The same; empty when the key is absent.
  std::vector<std::string> texts_or_none(const char* key) const;
  std::uint64_t hex(const char* key) const;  // "0x1f"
  // The text, which must be one of `names`.
  std::string one_of(const char* key, std::initializer_list<const char*> names) const;
  // The value `table` gives the text (base/enum_names.hpp), which must be one of its names.
  template <class E, std::size_t N>
  E named(const char* key, const EnumName<E> (&table)[N]) const {
    const std::string v = text(key);
    if (const std::optional<E> e = value_named(table, v)) return *e;
    refuse_field(field(key), "is '" + v + "', not one of " + names_in(table));
  }
  template <typename Names>
  std::string one_of_list(const char* key, const Names& names) const {
    const std::string v = text(key);
    for (const auto& n : names) {
      if (v == n) return v;
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    refuse_field(field(key), "is '" + v + "', not one of " + list);
  }

 private:
  const nlohmann::json& j_;
  std::string path_;
};

}  // namespace pinbench
