#include "framework/units.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/numbers.hpp"
#include "framework/text.hpp"

namespace pinbench {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Multiplier for a unit suffix, or 0 when the suffix is not a unit we know.
std::uint64_t unit_multiplier(const std::string& unit) {
  if (unit.empty() || unit == "b") return 1;
  if (unit == "k" || unit == "kib") return kKiB;
  if (unit == "m" || unit == "mib") return kMiB;
  if (unit == "g" || unit == "gib") return kGiB;
  if (unit == "kb") return 1000;
  if (unit == "mb") return 1000 * 1000;
  if (unit == "gb") return 1000 * 1000 * 1000;
  return 0;
}

// A size: its number read by the one number reader (framework/numbers.hpp), decimal only, then
// its unit; zero only where `zero_ok`.
std::uint64_t read_size(std::string_view text, bool zero_ok) {
  const std::string_view t = trim(text);
  if (t.empty()) throw InputError("size is empty");
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  if (i == 0) {
    if (t.front() == '-') throw InputError(fmt::format("size '{}' is negative", t));
    throw InputError(
        fmt::format("size '{}' is not a number with an optional unit (e.g. 64MiB)", t));
  }
  const std::string_view number = t.substr(0, i);
  const std::string unit = lower(trim(t.substr(i)));
  const std::uint64_t mult = unit_multiplier(unit);
  if (mult == 0) {
    throw InputError(
        fmt::format("size '{}' has an unknown unit '{}' (use B, KiB, MiB, GiB, KB, MB or GB)", t,
                    std::string(trim(t.substr(i)))));
  }
  constexpr std::uint64_t kLargest = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t bytes = 0;
  if (number.find('.') == std::string_view::npos) {
    std::uint64_t n = 0;
    try {
      n = read_whole<std::uint64_t>(number);
    } catch (const InputError&) {
      throw InputError(fmt::format("size '{}' is too large", t));
    }
    if (n > kLargest / mult) throw InputError(fmt::format("size '{}' is too large", t));
    bytes = n * mult;
  } else {
    double value = 0.0;
    try {
      value = read_real(number) * static_cast<double>(mult);
    } catch (const InputError&) {
      throw InputError(
          fmt::format("size '{}' is not a number with an optional unit (e.g. 64MiB)", t));
    }
    if (!(value < static_cast<double>(kLargest))) {
      throw InputError(fmt::format("size '{}' is too large", t));
    }
    if (value != std::floor(value)) {
      throw InputError(fmt::format("size '{}' is not a whole number of bytes", t));
    }
    bytes = static_cast<std::uint64_t>(value);
  }
  if (bytes == 0 && !zero_ok) throw InputError(fmt::format("size '{}' is zero", t));
  return bytes;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  return read_size(text, false);
}

std::uint64_t parse_size_or_zero(std::string_view text) {
  return read_size(text, true);
}

std::vector<std::uint64_t> parse_size_list(std::string_view text) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  if (trim(text).empty()) throw InputError("size list is empty");
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
    out.push_back(parse_size(text.substr(start, end - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_size(std::uint64_t bytes) {
  struct Unit {
    std::uint64_t size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{kGiB, "GiB"}, {kMiB, "MiB"}, {kKiB, "KiB"}};
  for (const Unit& u : kUnits) {
    if (bytes >= u.size) {
      std::string s =
          fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(u.size));
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      return s + " " + u.name;
    }
  }
  return fmt::format("{} B", bytes);
}

std::string exact_size(std::uint64_t bytes) {
  struct Unit {
    std::uint64_t size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{kGiB, "GiB"}, {kMiB, "MiB"}, {kKiB, "KiB"}};
  // 1 GiB - 1 B reads better than 1073741823 B, and 1000 B better than 1 KiB - 24 B.
  for (const Unit& u : kUnits) {
    const std::uint64_t n = (bytes + u.size / 2) / u.size;
    if (n == 0) continue;
    const std::uint64_t whole = n * u.size;
    const std::uint64_t off = bytes > whole ? bytes - whole : whole - bytes;
    if (off >= u.size / 64) continue;
    if (off == 0) return fmt::format("{} {}", n, u.name);
    return fmt::format("{} {} {} {} B", n, u.name, bytes > whole ? '+' : '-', off);
  }
  return fmt::format("{} B", bytes);
}

double gb_per_s(std::uint64_t bytes, double ms) {
  return static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

std::vector<std::uint64_t> parse_sizes(std::string_view text) {
  constexpr std::size_t kMaxSizes = 4096;
  const std::string_view t = trim(text);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos) {
    std::vector<std::uint64_t> sizes = parse_size_list(t);
    if (sizes.size() > kMaxSizes) throw InputError("more than 4096 sizes");
    return sizes;
  }
  const std::size_t colon2 = t.find(':', colon + 1);
  if (colon2 == std::string_view::npos || t.find(':', colon2 + 1) != std::string_view::npos) {
    throw InputError(fmt::format(
        "size range '{}' is not START:END:xFACTOR or START:END:+STEP (e.g. 4KiB:1GiB:x2)", t));
  }
  const std::uint64_t start = parse_size(t.substr(0, colon));
  const std::uint64_t end = parse_size(t.substr(colon + 1, colon2 - colon - 1));
  const std::string_view step = trim(t.substr(colon2 + 1));
  if (end < start) {
    throw InputError(fmt::format("size range '{}' is inverted: {} is below {}", t, format_size(end),
                                 format_size(start)));
  }
  std::vector<std::uint64_t> sizes;
  if (!step.empty() && (step[0] == 'x' || step[0] == '*')) {
    std::uint64_t factor = 0;
    try {
      factor = read_whole<std::uint64_t>(trim(step.substr(1)), 2);
    } catch (const InputError&) {
      throw InputError(
          fmt::format("size range '{}' needs a whole factor of at least 2 after 'x'", t));
    }
    for (std::uint64_t s = start; s <= end; s *= factor) {
      sizes.push_back(s);
      if (sizes.size() > kMaxSizes)
        throw InputError(fmt::format("size range '{}' has more than 4096 sizes", t));
      if (s > std::numeric_limits<std::uint64_t>::max() / factor) break;
    }
  } else if (!step.empty() && step[0] == '+') {
    const std::uint64_t inc = parse_size(step.substr(1));  // zero is rejected there
    for (std::uint64_t s = start; s <= end; s += inc) {
      sizes.push_back(s);
      if (sizes.size() > kMaxSizes)
        throw InputError(fmt::format("size range '{}' has more than 4096 sizes", t));
      if (s > std::numeric_limits<std::uint64_t>::max() - inc) break;
    }
  } else {
    throw InputError(
        fmt::format("size range '{}' needs a step: xFACTOR or +STEP (e.g. 4KiB:1GiB:x2)", t));
  }
  return sizes;
}

}  // namespace pinbench
