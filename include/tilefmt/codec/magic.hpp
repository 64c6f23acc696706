// tilefmt — magic<"RIFF">: bytes a format fixes, such as a signature or a
// chunk tag. The bytes are the template argument, so the struct holds no
// value: decode checks them (a mismatch names the expected and the found
// bytes and the offset), encode writes them, and their size is a
// compile-time constant. The string literal gives the bytes exactly,
// escapes included ("\x89PNG\r\n\x1a\n"), without its terminating NUL.
//
// A plain std::array<char, N> member is still an ordinary value: any bytes
// decode, and encode writes what it holds. Use it for a tag that varies
// (a RIFF chunk id), magic<> for one that does not.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/fixed_string.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// The bytes of `Bytes` (without its terminating NUL), checked on decode and
/// written on encode.
template <fixed_string Bytes>
struct magic {
  using codec_field_adaptor = void;
  static constexpr std::string_view bytes = Bytes;
  static_assert(!bytes.empty(), "tilefmt::codec: magic<\"\">: the magic bytes cannot be empty");

  // A constructor of its own makes magic<> a non-aggregate: an empty
  // aggregate would refuse the `{x}` by which the codec counts a struct's
  // members (traits.hpp, has_c_array_member). As for any member, declare it
  // with `{}` to leave it out of designated initialisers without a warning.
  constexpr magic() noexcept {}

  /// What dumps show: the bytes, as text.
  static constexpr std::string_view dump_value() noexcept { return bytes; }
  friend constexpr bool operator==(const magic&, const magic&) noexcept { return true; }
};

namespace detail {
inline std::string quoted_bytes(std::string_view s) {
  return json_string(s) + " (" + hex_string(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size())) + ")";
}
} // namespace detail

template <fixed_string Bytes>
struct traits<magic<Bytes>> {
  static constexpr std::size_t fixed_size = magic<Bytes>::bytes.size();
  static constexpr std::size_t min_size = fixed_size;

  static magic<Bytes> load(const std::byte* p, const std::byte* origin) {
    constexpr std::string_view expected = magic<Bytes>::bytes;
    if (std::memcmp(p, expected.data(), expected.size()) != 0)
      throw format_error("expected magic " + detail::quoted_bytes(expected) + ", found " +
                             detail::quoted_bytes(std::string_view(reinterpret_cast<const char*>(p), expected.size())),
                         static_cast<std::size_t>(p - origin));
    return {};
  }
  static void store(std::byte* p, const magic<Bytes>&) {
    std::memcpy(p, magic<Bytes>::bytes.data(), fixed_size);
  }

  template <class S>
  static void decode(reader& r, magic<Bytes>&, S&) {
    if (r.remaining() < fixed_size) {
      // Name what was expected even when the input stops short.
      throw format_error("needs " + std::to_string(fixed_size) + " bytes (magic " +
                             detail::quoted_bytes(magic<Bytes>::bytes) + ")",
                         r.offset(), ", " + std::to_string(r.remaining()) + " left");
    }
    load(r.take(fixed_size), r.buffer_begin());
  }
  template <class S>
  static void encode(writer& w, const magic<Bytes>& v, S&) {
    store(w.reserve(fixed_size), v);
  }
  template <class S>
  static constexpr std::size_t size(const magic<Bytes>&, S&) {
    return fixed_size;
  }
};

} // namespace tilefmt::codec
