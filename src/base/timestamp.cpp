// Date-times as records, caches and rules files hold them (timestamp.hpp).
#include "base/timestamp.hpp"

#include <algorithm>

namespace pinbench {

// RFC 3339 section 5.6: date-time = full-date "T" full-time, with "Z" or a numeric offset.
// T and Z may be lower case (section 5.6's note); the seconds may have a fraction; a leap
// second (60) is allowed, as the RFC allows it.
std::optional<std::int64_t> rfc3339_seconds(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&](std::size_t n, int* out) {
    if (i + n > s.size()) return false;
    int v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const char c = s[i + k];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    i += n;
    *out = v;
    return true;
  };
  auto literal = [&](char a, char b = '\0') {
    if (i >= s.size() || (s[i] != a && (b == '\0' || s[i] != b))) return false;
    ++i;
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(4, &year) || !literal('-') || !digits(2, &month) || !literal('-') ||
      !digits(2, &day) || !literal('T', 't') || !digits(2, &hour) || !literal(':') ||
      !digits(2, &minute) || !literal(':') || !digits(2, &second)) {
    return std::nullopt;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return std::nullopt;
  }
  int offset_minutes = 0;
  if (literal('Z', 'z')) {
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    const int sign = s[i] == '-' ? -1 : 1;
    ++i;
    int oh = 0, om = 0;
    if (!digits(2, &oh) || !literal(':') || !digits(2, &om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return std::nullopt;
  if (day < 1 || day > kDays[month - 1] + (month == 2 && leap ? 1 : 0)) return std::nullopt;
  if (hour > 23 || minute > 59 || second > 60) return std::nullopt;
  // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = y / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  return days * 86400 + hour * 3600 + minute * 60 + std::min(second, 59) - offset_minutes * 60;
}

}  // namespace pinbench
