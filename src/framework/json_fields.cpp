// An experiment's section of a record, read field by field (json_fields.hpp).
#include "framework/json_fields.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "framework/errors.hpp"

namespace pinbench {

void refuse_field(const std::string& field, const std::string& why) {
  throw InputError(fmt::format("run record: '{}' {}", field, why));
}

JsonFields::JsonFields(const nlohmann::json& value, std::string path)
    : j_(value), path_(std::move(path)) {
  if (!j_.is_object()) refuse_field(path_, "is not an object");
}

const nlohmann::json& JsonFields::at(const char* key) const {
  if (!j_.contains(key)) refuse_field(field(key), "is missing");
  return j_[key];
}

std::string JsonFields::text(const char* key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_string()) {
    refuse_field(field(key), fmt::format("has the wrong type ({})", v.type_name()));
  }
  return v.get<std::string>();
}

std::string JsonFields::text_or(const char* key, const char* fallback) const {
  return j_.contains(key) ? text(key) : fallback;
}

std::int64_t JsonFields::whole(const char* key, std::int64_t lo, std::int64_t hi) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number_integer() &&
      !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())) {
    refuse_field(field(key), fmt::format("is {}, not a whole number", v.dump()));
  }
  const double d = v.get<double>();
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
    refuse_field(field(key), fmt::format("is {}, outside {} to {}", v.dump(), lo, hi));
  }
  return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>())
                                : v.get<std::int64_t>();
}

std::int64_t JsonFields::whole_or(const char* key, std::int64_t fallback, std::int64_t lo,
                                  std::int64_t hi) const {
  return j_.contains(key) ? whole(key, lo, hi) : fallback;
}

double JsonFields::amount(const char* key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    refuse_field(field(key), fmt::format("is {}; it must be a finite number from 0 up", v.dump()));
  }
  return v.get<double>();
}

bool JsonFields::flag_or(const char* key, bool fallback) const {
  if (!j_.contains(key)) return fallback;
  const nlohmann::json& v = j_[key];
  if (!v.is_boolean()) refuse_field(field(key), fmt::format("is {}, not true or false", v.dump()));
  return v.get<bool>();
}

const nlohmann::json& JsonFields::array(const char* key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_array()) refuse_field(field(key), "is not an array");
  return v;
}

std::vector<std::string> JsonFields::texts_or_none(const char* key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const nlohmann::json& v = array(key);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) refuse_field(fmt::format("{}[{}]", field(key), i), "is not a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::uint64_t JsonFields::hex(const char* key) const {
  const std::string s = text(key);
  bool ok = s.size() >= 3 && s.size() <= 18 && s.compare(0, 2, "0x") == 0;
  std::uint64_t v = 0;
  for (std::size_t i = 2; ok && i < s.size(); ++i) {
    const char c = s[i];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    ok = digit >= 0;
    v = v << 4 | static_cast<std::uint64_t>(digit & 0xF);
  }
  if (!ok) refuse_field(field(key), fmt::format("is '{}', not a hexadecimal number like 0x1f", s));
  return v;
}

std::string JsonFields::one_of(const char* key, std::initializer_list<const char*> names) const {
  return one_of_list(key, names);
}

}  // namespace pinbench
