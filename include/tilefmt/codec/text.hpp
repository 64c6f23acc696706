// tilefmt — bytes as text, for dumps and tools: hexadecimal, and JSON string
// literals that stay valid JSON whatever the bytes are (names, labels and
// values in files are not always UTF-8).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace tilefmt::codec {

/// `b` as lowercase hexadecimal digits, two per byte.
inline std::string hex_string(std::span<const std::byte> b) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * b.size());
  for (std::byte x : b) {
    s += digits[std::to_integer<unsigned>(x) >> 4];
    s += digits[std::to_integer<unsigned>(x) & 15];
  }
  return s;
}

namespace detail {

inline bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 4;
    if (n == 4 || (n > 0 && i + n >= s.size())) return false;
    for (std::size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n + 1;
  }
  return true;
}

} // namespace detail

/// `s` as a JSON string literal, quotes included. Valid UTF-8 is kept;
/// otherwise every byte from 0x80 is written as \u00XX (as if Latin-1), so
/// any bytes give valid JSON. Dumps (codec::to_json, the schema and
/// metadata printers) and tools quote every string with it.
inline std::string json_string(std::string_view s) {
  constexpr char digits[] = "0123456789abcdef";
  const bool utf8 = detail::valid_utf8(s);
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8)) {
        out += "\\u00";
        out += digits[c >> 4];
        out += digits[c & 15];
      } else {
        out += ch;
      }
    }
  }
  return out + "\"";
}

} // namespace tilefmt::codec
