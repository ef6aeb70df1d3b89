#include "framework/printable.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace pinbench {
namespace {

// The length of the well-formed UTF-8 sequence at `s[i]` (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF) and its code point, or 0 when the byte starts none.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t* code) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  std::uint32_t min = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2, cp = b & 0x1Fu, min = 0x80;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3, cp = b & 0x0Fu, min = 0x800;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4, cp = b & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code = cp;
  return n;
}

}  // namespace

std::size_t first_non_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence(text, i, &cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

namespace {

bool kept_control(unsigned char b, bool keep_lines) {
  return keep_lines && (b == '\n' || b == '\t');
}

std::string escaped(std::string_view text, bool keep_lines) {
  bool plain = true;
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && !kept_control(b, keep_lines)) || b >= 0x7F) plain = false;
  }
  if (plain) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (kept_control(b, keep_lines)) {
      out += text[i];
      ++i;
    } else if (b < 0x20 || b == 0x7F) {
      out += fmt::format("\\x{:02X}", b);
      ++i;
    } else if (b < 0x80) {
      out += text[i];
      ++i;
    } else {
      std::uint32_t cp = 0;
      const std::size_t n = utf8_sequence(text, i, &cp);
      if (n == 0) {
        out += fmt::format("\\x{:02X}", b);
        ++i;
      } else if (cp <= 0x9F) {
        out += fmt::format("\\u{:04X}", cp);
        i += n;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) {
  return escaped(text, false);
}

std::string printable_text(std::string_view text) {
  return escaped(text, true);
}

}  // namespace pinbench
