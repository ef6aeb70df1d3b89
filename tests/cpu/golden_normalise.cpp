#include "golden_normalise.hpp"

#include <cctype>
#include <string_view>

namespace pinbench::test {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A number at `at` ("-12", "3.25", "4e2"), or 0 when none starts there.
std::size_t number_length(std::string_view s, std::size_t at) {
  std::size_t i = at;
  if (i < s.size() && s[i] == '-') ++i;
  const std::size_t digits_from = i;
  while (i < s.size() && (digit(s[i]) || s[i] == '.')) ++i;
  if (i == digits_from) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    if (j < s.size() && digit(s[j])) {
      while (j < s.size() && digit(s[j])) ++j;
      i = j;
    }
  }
  return i - at;
}

// One tag, "<rect x=\"1\" ...>", with the numbers of its quoted values as '#'.
std::string placeholder_tag(std::string_view tag) {
  std::string out;
  bool in_value = false;
  for (std::size_t i = 0; i < tag.size();) {
    const char c = tag[i];
    if (c == '"') in_value = !in_value;
    // A number stands alone, or after one letter as in a path ("M1,2"), never inside a word
    // such as a class "h2d".
    const auto alnum = [&](std::size_t k) {
      return k < tag.size() && std::isalnum(static_cast<unsigned char>(tag[k])) != 0;
    };
    const bool after_one_letter = i >= 1 && std::isalpha(static_cast<unsigned char>(tag[i - 1])) &&
                                  (i < 2 || !alnum(i - 2));
    const bool starts = i == 0 || !alnum(i - 1) || after_one_letter;
    std::size_t n = in_value && starts ? number_length(tag, i) : 0;
    if (n > 0 && alnum(i + n)) n = 0;
    if (n > 0) {
      out += '#';
      i += n;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string normalise_html(const std::string& html) {
  std::string s = html;
  const std::size_t open = s.find("<style>");
  const std::size_t close = s.find("</style>");
  if (open != std::string::npos && close != std::string::npos && close > open) {
    s.replace(open, close - open, "<style>{css}");
  }
  std::string out;
  out.reserve(s.size());
  int svg_depth = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] != '<') {
      out += s[i++];
      continue;
    }
    const std::size_t end = s.find('>', i);
    if (end == std::string::npos) {
      out.append(s, i, std::string::npos);
      break;
    }
    const std::string_view tag(s.data() + i, end - i + 1);
    if (tag.substr(0, 4) == "<svg") ++svg_depth;
    out += svg_depth > 0 ? placeholder_tag(tag) : std::string(tag);
    if (tag.substr(0, 5) == "</svg" && svg_depth > 0) --svg_depth;
    i = end + 1;
  }
  return out;
}

}  // namespace pinbench::test
