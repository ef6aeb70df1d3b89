#include "framework/numbers.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace pinbench {
namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// The length of the run of digits at `at`.
std::size_t digits(std::string_view t, std::size_t at) {
  std::size_t n = 0;
  while (at + n < t.size() && digit(t[at + n])) ++n;
  return n;
}

// Whether `t` is -?(D+(.D*)?|.D+)([eE][+-]?D+)?: a decimal number, and no other spelling strtod
// takes (hexadecimal, "inf", "nan", leading space or '+').
bool decimal_real(std::string_view t) {
  std::size_t at = !t.empty() && t[0] == '-' ? 1 : 0;
  const std::size_t whole = digits(t, at);
  at += whole;
  std::size_t fraction = 0;
  if (at < t.size() && t[at] == '.') {
    fraction = digits(t, at + 1);
    at += 1 + fraction;
  }
  if (whole + fraction == 0) return false;
  if (at < t.size() && (t[at] == 'e' || t[at] == 'E')) {
    ++at;
    if (at < t.size() && (t[at] == '+' || t[at] == '-')) ++at;
    const std::size_t exponent = digits(t, at);
    if (exponent == 0) return false;
    at += exponent;
  }
  return at == t.size();
}

}  // namespace

DecimalWhole decimal_whole(std::string_view text) {
  DecimalWhole d;
  std::size_t at = 0;
  if (!text.empty() && text[0] == '-') {
    d.negative = true;
    at = 1;
  }
  if (at == text.size()) {
    throw InputError(fmt::format("'{}' is not a whole number in decimal digits", text));
  }
  for (; at < text.size(); ++at) {
    if (!digit(text[at])) {
      throw InputError(fmt::format("'{}' is not a whole number in decimal digits", text));
    }
    const auto n = static_cast<std::uint64_t>(text[at] - '0');
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    if (d.magnitude > (kMax - n) / 10) d.overflow = true;
    d.magnitude = d.overflow ? kMax : d.magnitude * 10 + n;
  }
  return d;
}

void refuse_whole(std::string_view text, bool below, const std::string& bound) {
  throw InputError(fmt::format("'{}' is {} {}", text, below ? "below" : "above", bound));
}

std::string number_text(double v) {
  return fmt::format("{}", v);
}

std::string range_words(const RealRange& r) {
  constexpr double kTop = std::numeric_limits<double>::max();
  constexpr double kBottom = std::numeric_limits<double>::lowest();
  const std::string low =
      r.min == kBottom ? "" : (r.min_excluded ? "more than " : "at least ") + number_text(r.min);
  const std::string high =
      r.max == kTop ? "" : (r.max_excluded ? "less than " : "at most ") + number_text(r.max);
  if (low.empty() && high.empty()) return "any finite number";
  if (low.empty()) return high;
  if (high.empty()) return low;
  if (!r.min_excluded && !r.max_excluded) {
    return number_text(r.min) + " to " + number_text(r.max);
  }
  return low + ", " + high;
}

double read_real(std::string_view text, const RealRange& r) {
  if (!decimal_real(text)) {
    throw InputError(fmt::format("'{}' is not a decimal number", text));
  }
  const std::string owned(text);
  const double v = std::strtod(owned.c_str(), nullptr);  // the grammar above is all strtod reads
  if (!std::isfinite(v)) {
    throw InputError(fmt::format("'{}' is beyond the largest number", text));
  }
  if (r.min_excluded ? !(v > r.min) : !(v >= r.min)) {
    throw InputError(fmt::format("'{}' is {} {}", text, r.min_excluded ? "not more than" : "below",
                                 number_text(r.min)));
  }
  if (r.max_excluded ? !(v < r.max) : !(v <= r.max)) {
    throw InputError(fmt::format("'{}' is {} {}", text, r.max_excluded ? "not less than" : "above",
                                 number_text(r.max)));
  }
  return v;
}

}  // namespace pinbench
