// The one reader of the numbers a person types: every numeric option of the command line
// (cli/numbers.hpp), each number inside a size ("64MiB"), a list or a range of them, and the
// numbers of a floors file. Decimal only, so "010" is ten and "0x10" is refused; never infinity
// or NaN; nothing outside the range the caller states, and nothing outside the type it reads
// into (-1 and 2^64 for an unsigned 64-bit value are refused, not wrapped). An error is an
// InputError quoting the text ("'0x10' is not a whole number in decimal digits") that the caller
// prefixes with what the number is ("--seed: ...", "block count ...").
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "framework/errors.hpp"

namespace pinbench {

// A whole number as written: its sign and magnitude; `overflow` when the magnitude passes 2^64-1.
struct DecimalWhole {
  bool negative = false;
  std::uint64_t magnitude = 0;
  bool overflow = false;
};

// Reads `text` as an optional '-' and decimal digits, nothing else (no '+', no space, no "0x");
// throws InputError otherwise.
DecimalWhole decimal_whole(std::string_view text);

// "'TEXT' is below MIN" or "'TEXT' is above MAX".
[[noreturn]] void refuse_whole(std::string_view text, bool below, const std::string& bound);

// A whole number of type T within [min, max] (by default T's own range).
template <class T>
T read_whole(std::string_view text, T min = std::numeric_limits<T>::lowest(),
             T max = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  const DecimalWhole d = decimal_whole(text);
  if (d.negative && d.magnitude != 0) {
    if constexpr (std::is_signed_v<T>) {
      // -magnitude >= min, with min's magnitude taken without overflow.
      const std::uint64_t floor =
          min < 0 ? static_cast<std::uint64_t>(-(static_cast<std::int64_t>(min) + 1)) + 1 : 0;
      if (d.overflow || d.magnitude > floor) refuse_whole(text, true, std::to_string(min));
      const std::int64_t value = -static_cast<std::int64_t>(d.magnitude - 1) - 1;
      if (value > static_cast<std::int64_t>(max)) refuse_whole(text, false, std::to_string(max));
      return static_cast<T>(value);
    } else {
      refuse_whole(text, true, std::to_string(min));
    }
  }
  bool above = d.overflow || d.magnitude > static_cast<std::uint64_t>(max);
  if constexpr (std::is_signed_v<T>) above = above || max < 0;
  if (above) refuse_whole(text, false, std::to_string(max));
  const T value = static_cast<T>(d.magnitude);
  if (value < min) refuse_whole(text, true, std::to_string(min));
  return value;
}

// A range of real numbers; either end may be left out of it. The defaults are every finite
// number.
struct RealRange {
  double min = std::numeric_limits<double>::lowest();
  double max = std::numeric_limits<double>::max();
  bool min_excluded = false;
  bool max_excluded = false;
};

// A range as help and messages say it: "0 to 60000", "more than 0, at most 100", "at least 0",
// "more than 0" (an end that is the largest finite number is left unsaid).
std::string range_words(const RealRange& r);

// "0 to 256", "at least 1" (a maximum that is T's own largest value is left unsaid).
template <class T>
std::string range_words(T min, T max) {
  if (max != std::numeric_limits<T>::max())
    return std::to_string(min) + " to " + std::to_string(max);
  if (std::is_signed_v<T> && min == std::numeric_limits<T>::lowest()) return "any whole number";
  return "at least " + std::to_string(min);
}

// A decimal number: an optional '-', digits with an optional fraction, an optional exponent
// ("2.5", "1e-3", ".5"); finite and within `r`. "inf", "nan", "0x1p3", "1e400" and "" are
// refused.
double read_real(std::string_view text, const RealRange& r = {});

// A number as help and messages show it: the shortest text that reads back as the same double
// ("0.1", "60000", "1e+300").
std::string number_text(double v);

}  // namespace pinbench
