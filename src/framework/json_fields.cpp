// A record's fields, read and checked field by field (json_fields.hpp).
#include "framework/json_fields.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/timestamp.hpp"
#include "framework/errors.hpp"

namespace pinbench {
namespace {

// A range's end as a message says it: -5, 10000, 31536000000, 0.5.
std::string range_end(double x) {
  return x == std::floor(x) && std::fabs(x) < 1e18 ? fmt::format("{:.0f}", x)
                                                   : fmt::format("{}", x);
}

}  // namespace

void refuse_field(const std::string& field, const std::string& why) {
  if (field.empty()) throw InputError(fmt::format("run record: {}", why));
  // "': run record: ...": a refusal of what the field holds, nested whole.
  throw InputError(
      fmt::format("run record: '{}'{}{}", field, why.rfind(':', 0) == 0 ? "" : " ", why));
}

std::string shown(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

void refuse_type(const std::string& field, const nlohmann::json& v) {
  refuse_field(field, fmt::format("has the wrong type ({})", v.type_name()));
}

std::int64_t whole_number(const nlohmann::json& v, const std::string& field, std::int64_t lo,
                          std::uint64_t hi, const char* noun) {
  const auto too_large = [&](const std::string& x) {
    refuse_field(field, hi == kMaxRecordSize
                            ? fmt::format("is {}, too large for {} (the most is 2^63 - 1)", x, noun)
                            : fmt::format("is {}, more than {} allows ({})", x, noun, hi));
  };
  const auto too_small = [&](const std::string& x, bool negative) {
    refuse_field(field, negative && lo >= 0
                            ? fmt::format("is {}: {} cannot be negative", x, noun)
                            : fmt::format("is {}, less than {} allows ({})", x, noun, lo));
  };
  if (v.is_number_unsigned()) {
    const std::uint64_t x = v.get<std::uint64_t>();
    if (x > hi) too_large(std::to_string(x));
    if (lo > 0 && x < static_cast<std::uint64_t>(lo)) too_small(std::to_string(x), false);
    return static_cast<std::int64_t>(x);
  }
  if (v.is_number_integer()) {
    const std::int64_t x = v.get<std::int64_t>();
    if (x < lo) too_small(std::to_string(x), x < 0);
    if (x >= 0 && static_cast<std::uint64_t>(x) > hi) too_large(std::to_string(x));
    return x;
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (!std::isfinite(x) || x != std::floor(x)) {
      refuse_field(field, fmt::format("is {}, not a whole number for {}", shown(v), noun));
    }
    if (x < static_cast<double>(lo)) too_small(shown(v), x < 0);
    // 2^63 as a double is the first value past the range; every double below it converts.
    if (x >= 9223372036854775808.0 || x > static_cast<double>(hi)) too_large(shown(v));
    return static_cast<std::int64_t>(x);
  }
  refuse_type(field, v);
}

bool flag_of(const nlohmann::json& v, const std::string& field) {
  if (!v.is_boolean()) refuse_field(field, fmt::format("is {}, not true or false", shown(v)));
  return v.get<bool>();
}

std::string meaning_words(const Meaning& m) {
  return fmt::format("{} from {} to {}", m.what, range_end(m.least), range_end(m.most));
}

bool within(const nlohmann::json& v, const Meaning& m) {
  // NaN and infinity fail both comparisons; a JSON number past a double never parses.
  return v.is_number() && v.get<double>() >= m.least && v.get<double>() <= m.most;
}

double figure_of(const nlohmann::json& v, const std::string& field, const Meaning& m) {
  if (!within(v, m)) refuse_field(field, fmt::format("is {}, not {}", shown(v), meaning_words(m)));
  return v.get<double>();
}

std::string timestamp_of(const nlohmann::json& v, const std::string& field) {
  if (!v.is_string() || !rfc3339_seconds(v.get<std::string>())) {
    refuse_field(field, fmt::format("is {}, not {}", shown(v), kTimestampWords));
  }
  return v.get<std::string>();
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
  if (!v.is_string()) refuse_type(field(key), v);
  return v.get<std::string>();
}

std::string JsonFields::text_or(const char* key, const std::string& fallback) const {
  return j_.contains(key) ? text(key) : fallback;
}

std::string JsonFields::name_text(const char* key) const {
  std::string s = text(key);
  if (s.empty()) refuse_field(field(key), "is empty");
  return s;
}

double JsonFields::number(const char* key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number()) refuse_type(field(key), v);
  return v.get<double>();
}

std::int64_t JsonFields::whole(const char* key, std::int64_t lo, std::int64_t hi,
                               const char* noun) const {
  return whole_number(at(key), field(key), lo,
                      static_cast<std::uint64_t>(std::max<std::int64_t>(hi, 0)), noun);
}

std::int64_t JsonFields::whole_or(const char* key, std::int64_t fallback, std::int64_t lo,
                                  std::int64_t hi, const char* noun) const {
  return j_.contains(key) ? whole(key, lo, hi, noun) : fallback;
}

double JsonFields::figure(const char* key, const Meaning& m) const {
  return figure_of(at(key), field(key), m);
}

std::optional<double> JsonFields::figure_or_none(const char* key, const Meaning& m) const {
  if (!has(key)) return std::nullopt;
  return figure(key, m);
}

double JsonFields::ms_or(const char* key, double fallback) const {
  return has(key) ? ms(key) : fallback;
}

double JsonFields::percent(const char* key, const char* what, double least, double most) const {
  const std::string words = std::string(what) + " in percent";
  return figure(key, Meaning{words.c_str(), least, most});
}

std::uint64_t JsonFields::count(const char* key, std::uint64_t least, std::uint64_t most) const {
  const auto in_range = [](std::uint64_t n) {
    return static_cast<std::int64_t>(std::min<std::uint64_t>(n, kMostBytes));
  };
  return static_cast<std::uint64_t>(whole_number(
      at(key), field(key), in_range(least), static_cast<std::uint64_t>(in_range(most)), "a count"));
}

std::uint64_t JsonFields::count_or(const char* key, std::uint64_t fallback,
                                   std::uint64_t most) const {
  return has(key) ? count(key, most) : fallback;
}

std::uint64_t JsonFields::bytes(const char* key) const {
  return static_cast<std::uint64_t>(
      whole_number(at(key), field(key), 0, kMaxRecordSize, "a byte count"));
}

std::uint64_t JsonFields::bytes_or(const char* key, std::uint64_t fallback) const {
  return has(key) ? bytes(key) : fallback;
}

std::uint64_t JsonFields::size(const char* key) const {
  const std::uint64_t b = bytes(key);
  if (b == 0) refuse_field(field(key), "is zero; a byte count must be positive");
  return b;
}

std::int64_t JsonFields::ns(const char* key) const {
  return whole_number(at(key), field(key), 0, kMostNanoseconds, "a time in ns");
}

int JsonFields::pid(const char* key) const {
  return static_cast<int>(whole_number(at(key), field(key), 0, kMostPid, "a process id"));
}

int JsonFields::pid_or(const char* key, int fallback) const {
  return has(key) ? pid(key) : fallback;
}

int JsonFields::exit_status(const char* key) const {
  return static_cast<int>(whole_number(at(key), field(key), 0, 255, "an exit status"));
}

std::string JsonFields::timestamp(const char* key) const {
  return timestamp_of(at(key), field(key));
}

bool JsonFields::flag(const char* key) const {
  return flag_of(at(key), field(key));
}

bool JsonFields::flag_or(const char* key, bool fallback) const {
  return has(key) ? flag(key) : fallback;
}

const nlohmann::json& JsonFields::array(const char* key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_array()) refuse_field(field(key), "is not an array");
  return v;
}

std::vector<std::string> JsonFields::texts_or_none(const char* key) const {
  return has(key) ? texts(key) : std::vector<std::string>{};
}

std::vector<std::string> JsonFields::texts(const char* key) const {
  std::vector<std::string> out;
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
