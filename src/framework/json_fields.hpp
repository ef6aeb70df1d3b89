// Reading an experiment's own section of a run record (doctor's trace, accel's processes) field
// by field, with one clear line for a field that is missing or wrong: "run record:
// 'doctor.calls[3].api' is empty". The record's common part has its own reader (record.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pinbench {

// Throws InputError "run record: 'FIELD' WHY".
[[noreturn]] void refuse_field(const std::string& field, const std::string& why);

// One JSON object of a section, and its path in the record ("doctor.calls[3]").
class JsonFields {
 public:
  // Throws when `value` is not an object.
  JsonFields(const nlohmann::json& value, std::string path);

  const nlohmann::json& json() const { return j_; }
  const std::string& path() const { return path_; }
  std::string field(const char* key) const { return path_ + "." + key; }
  bool has(const char* key) const { return j_.contains(key); }

  const nlohmann::json& at(const char* key) const;  // present, or refused
  std::string text(const char* key) const;
  std::string text_or(const char* key, const char* fallback) const;
  std::int64_t whole(const char* key, std::int64_t lo, std::int64_t hi) const;
  std::int64_t whole_or(const char* key, std::int64_t fallback, std::int64_t lo,
                        std::int64_t hi) const;
  // A finite number from 0 up (times, rates).
  double amount(const char* key) const;
  bool flag_or(const char* key, bool fallback) const;
  const nlohmann::json& array(const char* key) const;
  // An array of strings; empty when the key is absent.
  std::vector<std::string> texts_or_none(const char* key) const;
  std::uint64_t hex(const char* key) const;  // "0x1f"
  // The text, which must be one of `names`.
  std::string one_of(const char* key, std::initializer_list<const char*> names) const;
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
