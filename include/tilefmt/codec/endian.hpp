// tilefmt — big<T> and little<T>: the byte order of one field. A plain
// arithmetic or enum member is little-endian on the wire (TileDB's order);
// a format that stores some fields most significant byte first (PNG, network
// headers) wraps each of them in big<T>, whatever the struct around it does.
// little<T> says the default out loud, for a format that mixes the two.
//
// T is an arithmetic type or an enum (stored as its underlying type, and
// validated with codec_enum_valid() when the enum provides it, as a plain
// enum member is).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

namespace detail {
template <class T>
concept orderable = (wire_scalar<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>;
} // namespace detail

#define TILEFMT_CODEC_ORDERED_VALUE(name)                                                          \
  static_assert(detail::orderable<T>,                                                              \
                "tilefmt::codec: " #name "<T>: T must be an arithmetic type (not bool) or an enum"); \
  using codec_field_adaptor = void;                                                                \
  using value_type = T;                                                                            \
  T value{};                                                                                       \
  constexpr name& operator=(T v) noexcept {                                                        \
    value = v;                                                                                     \
    return *this;                                                                                  \
  }                                                                                                \
  constexpr operator T() const noexcept { return value; }                                          \
  constexpr T& operator*() noexcept { return value; }                                              \
  constexpr const T& operator*() const noexcept { return value; }                                  \
  friend bool operator==(const name&, const name&) = default;

/// T stored most significant byte first.
template <class T>
struct big {
  static constexpr std::endian order = std::endian::big;
  TILEFMT_CODEC_ORDERED_VALUE(big)
};

/// T stored least significant byte first (what a plain T member is).
template <class T>
struct little {
  static constexpr std::endian order = std::endian::little;
  TILEFMT_CODEC_ORDERED_VALUE(little)
};

#undef TILEFMT_CODEC_ORDERED_VALUE

namespace detail {

template <class W>
struct ordered_traits {
  using T = typename W::value_type;
  using raw = decltype(to_raw(T{}));  // the underlying type of an enum
  static constexpr std::size_t fixed_size = sizeof(raw);
  static constexpr std::size_t min_size = sizeof(raw);

  static raw load_raw(const std::byte* p) {
    if constexpr (W::order == std::endian::big)
      return load_be<raw>(p);
    else
      return load_le<raw>(p);
  }

  static W load(const std::byte* p, const std::byte* origin) {
    W w;
    const raw r = load_raw(p);
    w.value = static_cast<T>(r);
    if constexpr (enum_with_validation<T>) {
      if (!codec_enum_valid(w.value))
        throw_invalid_enum<T>(static_cast<std::uint64_t>(r), static_cast<std::size_t>(p - origin));
    } else {
      (void)origin;
    }
    return w;
  }
  static void store(std::byte* p, const W& w) {
    if constexpr (W::order == std::endian::big)
      store_be<raw>(p, to_raw(w.value));
    else
      store_le<raw>(p, to_raw(w.value));
  }

  template <class S>
  static void decode(reader& r, W& w, S&) {
    const std::byte* p = r.take(fixed_size);
    w = load(p, r.buffer_begin());
  }
  template <class S>
  static void encode(writer& wr, const W& w, S&) {
    store(wr.reserve(fixed_size), w);
  }
  template <class S>
  static constexpr std::size_t size(const W&, S&) {
    return fixed_size;
  }
};

} // namespace detail

template <class T>
struct traits<big<T>> : detail::ordered_traits<big<T>> {};
template <class T>
struct traits<little<T>> : detail::ordered_traits<little<T>> {};

} // namespace tilefmt::codec
