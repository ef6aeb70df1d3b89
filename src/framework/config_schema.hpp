// The shape of the free-form parts of a record (an experiment's config, a case's extra, a trace
// summary): not fixed by the record's schema, but the printers and analyses read some of their
// fields by name, so each of those is checked wherever it appears, and nothing downstream meets
// a negative size or a string where it reads a number. Each experiment declares the keys of its
// own config (framework/experiment.hpp); record validation walks them with check_fields.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  kTimes,    // an array of finite times, not negative
  kTexts,    // an array of strings
  kRatio,    // one finite number, not negative
  kObjects,  // an array of objects (their fields are checked by name in turn)
  kEngine,   // the staged engine's options, as the staged reports print them
};

struct ConfigField {
  const char* key;
  FieldKind kind;
};

// The largest byte count or big count a record may hold.
constexpr std::uint64_t kMaxRecordSize = (std::uint64_t{1} << 63) - 1;

// A value as a message shows it: short, and printable whatever the bytes.
std::string shown(const nlohmann::json& v);

// Throws InputError "run record: 'FIELD' WHAT".
[[noreturn]] void refuse(const std::string& field, const std::string& what);

// A whole number within [lo, hi], from an integer or a float that holds one (2^64 arrives as a
// float: JSON integers past 64 bits do). `noun` names the quantity: "a byte count".
std::int64_t whole_number(const nlohmann::json& v, const std::string& field, std::int64_t lo,
                          std::uint64_t hi, const char* noun);

// One value against its kind; `field` names it in the message.
void check_kind(const nlohmann::json& v, const std::string& field, FieldKind kind);

// Walks objects and arrays of objects under `field`, checking every known key it meets.
void check_fields(const nlohmann::json& j, const std::string& field,
                  const std::vector<ConfigField>& known);

// Concatenated lists, for an experiment whose config shares another's keys.
std::vector<ConfigField> joined(std::initializer_list<std::vector<ConfigField>> lists);

// The sampler's rules (min_samples, max_samples, max_spread, time_cap_ms), in the config of every
// experiment that samples with it.
const std::vector<ConfigField>& sampling_fields();

// A list of a config's choices (memory kinds, directions, methods) as the names records carry:
// each value's to_string.
template <class T>
nlohmann::json names_of(const std::vector<T>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const T& v : values) out.push_back(to_string(v));
  return out;
}

}  // namespace pinbench
