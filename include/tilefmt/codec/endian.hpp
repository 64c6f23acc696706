// tilefmt — big<T> and little<T>: the byte order of one field. A plain
// arithmetic or enum member is little-endian on the wire (TileDB's order);
// a format that stores some fields most significant byte first (PNG, network
// headers) wraps each of them in big<T>, whatever the struct around it does.
// little<T> says the default out loud, for a format that mixes the two.
//
// T is an arithmetic type or an enum (stored as its underlying type, and
// validated with codec_enum_valid() when the enum provides it, as a plain
// enum member is).
//
// Some formats say their byte order in the data: ELF's e_ident[EI_DATA],
// pcap's magic number. There an earlier field is a
// byte_order_field<T, Rule>, whose value Rule maps to a std::endian, and the
// fields stored in that order are ordered<T>. The order holds for the rest
// of the declaring struct and the structs inside it; a struct decoded on its
// own (an ELF section header read from an offset) takes it from the
// context's `byte_order` member instead. An ordered<T> with neither is a
// format_error on decode and std::logic_error on encode.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/names.hpp"
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

/// T stored in the byte order in force (set by a byte_order_field or the
/// context's `byte_order`).
template <class T>
struct ordered {
  TILEFMT_CODEC_ORDERED_VALUE(ordered)
};

#undef TILEFMT_CODEC_ORDERED_VALUE

/// A Rule for byte_order_field: `Little` means little-endian, `Big`
/// big-endian, anything else is not a byte order (ELF's EI_DATA:
/// byte_order_if<1, 2>; pcap's magic read little-endian:
/// byte_order_if<0xa1b2c3d4u, 0xd4c3b2a1u>).
template <auto Little, auto Big>
struct byte_order_if {
  template <class T>
  constexpr std::optional<std::endian> operator()(const T& v) const {
    if (v == Little) return std::endian::little;
    if (v == Big) return std::endian::big;
    return std::nullopt;
  }
  static std::string expected() { return std::to_string(Little) + " (little-endian) or " + std::to_string(Big) + " (big-endian)"; }
};

/// A T (decoded as a plain T is) whose value sets the byte order of the
/// ordered<> fields after it: `Rule{}(value)` returns a std::optional<std::endian>,
/// empty for a value that names no byte order (a format_error naming it).
template <class T, class Rule>
struct byte_order_field {
  using codec_field_adaptor = void;
  using value_type = T;
  using rule = Rule;
  static constexpr bool sets_byte_order = true;
  T value{};
  constexpr operator T() const noexcept { return value; }
  constexpr T& operator*() noexcept { return value; }
  constexpr const T& operator*() const noexcept { return value; }
  friend bool operator==(const byte_order_field&, const byte_order_field&) = default;
};

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

namespace detail {
template <class T>
std::string number_text(const T& v) {
  if constexpr (std::is_enum_v<T>)
    return std::to_string(to_raw(v));
  else if constexpr (sizeof(T) == 1)
    return std::to_string(static_cast<int>(v));
  else
    return std::to_string(v);
}
} // namespace detail

template <class T>
struct traits<ordered<T>> {
  using raw = decltype(detail::to_raw(T{}));
  // No fixed_size: the bytes' meaning depends on the state, which the
  // one-copy path of fixed-size structs does not carry.
  static constexpr std::size_t min_size = sizeof(raw);

  template <class S>
  static void decode(reader& r, ordered<T>& v, S& st) {
    if (!st.has_order)
      r.fail("the byte order is not known (declare a byte_order_field before this field, or pass a context "
             "with a `byte_order` member)");
    const std::byte* p = r.take(sizeof(raw));
    const raw x = st.order == std::endian::big ? load_be<raw>(p) : load_le<raw>(p);
    v.value = static_cast<T>(x);
    if constexpr (detail::enum_with_validation<T>) {
      if (!codec_enum_valid(v.value))
        detail::throw_invalid_enum<T>(static_cast<std::uint64_t>(x), static_cast<std::size_t>(p - r.buffer_begin()));
    }
  }
  template <class S>
  static void encode(writer& w, const ordered<T>& v, S& st) {
    if (!st.has_order)
      throw std::logic_error("tilefmt::codec: ordered<T> field encoded without a byte order (declare a "
                             "byte_order_field before it, or pass a context with a `byte_order` member)");
    std::byte* p = w.reserve(sizeof(raw));
    if (st.order == std::endian::big)
      store_be<raw>(p, detail::to_raw(v.value));
    else
      store_le<raw>(p, detail::to_raw(v.value));
  }
  template <class S>
  static constexpr std::size_t size(const ordered<T>&, S&) {
    return sizeof(raw);
  }
};

template <class T, class Rule>
struct traits<byte_order_field<T, Rule>> {
  static_assert((detail::check_supported<T>(), true));
  static constexpr std::size_t min_size = detail::min_size_of<T>();

  template <class S>
  static void set(const byte_order_field<T, Rule>& v, S& st, std::size_t at) {
    const std::optional<std::endian> order = Rule{}(v.value);
    if (!order) {
      std::string reason = detail::number_text(v.value) + " names no byte order";
      if constexpr (requires { Rule::expected(); }) reason += " (expected " + Rule::expected() + ")";
      throw format_error(reason, at);
    }
    st.order = *order;
    st.has_order = true;
  }

  template <class S>
  static void decode(reader& r, byte_order_field<T, Rule>& v, S& st) {
    const std::size_t at = r.offset();
    traits<T>::decode(r, v.value, st);
    set(v, st, at);
  }
  template <class S>
  static void encode(writer& w, const byte_order_field<T, Rule>& v, S& st) {
    try {
      set(v, st, 0);
    } catch (const format_error& e) {
      throw std::invalid_argument("tilefmt::codec: byte_order_field holds " + e.reason());
    }
    traits<T>::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const byte_order_field<T, Rule>& v, S& st) {
    if (const std::optional<std::endian> order = Rule{}(v.value)) {
      st.order = *order;
      st.has_order = true;
    }
    return traits<T>::size(v.value, st);
  }
};

template <class T>
struct traits<big<T>> : detail::ordered_traits<big<T>> {};
template <class T>
struct traits<little<T>> : detail::ordered_traits<little<T>> {};

} // namespace tilefmt::codec
