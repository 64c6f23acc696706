// tilefmt — fields whose bytes are checked on decode: valid<T, Pred>, a value
// a predicate must accept, and checksum<Algorithm, "first", "last">, a
// checksum of the bytes of earlier fields of the same struct, verified on
// decode and computed on encode.
//
// A rejected value or a checksum mismatch is a format_error naming the field
// and its offset, like any other. Encode refuses a valid<> value that its
// predicate rejects (std::invalid_argument): decode could not read it back.
//
// The algorithm is a policy, so that this header needs nothing beyond the
// standard library:
//
//   struct Algorithm {
//     using value_type = std::uint32_t;              // an unsigned integer
//     static constexpr std::string_view name = "CRC-32";
//     static value_type compute(std::span<const std::byte>);
//   };
//
// codec/crc32.hpp provides crc32_of<"first", "last"> with zlib's crc32.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/fixed_string.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// A T that `Pred{}(value)` (or `Pred{}(value, ctx)`) must accept. When Pred
/// has a `static constexpr std::string_view description` ("a PNG bit depth"),
/// errors read "3 is not a PNG bit depth"; otherwise they name Pred.
template <class T, class Pred>
struct valid {
  using codec_field_adaptor = void;
  using value_type = T;
  using predicate = Pred;
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  friend bool operator==(const valid&, const valid&) = default;
};

/// The checksum, computed by Algorithm, of the bytes from the start of the
/// field called `First` to the end of the field called `Last`, both earlier
/// fields of the same struct (First may be Last). Stored with byte order
/// `Order`. After decode `value` holds the stored (verified) checksum; on
/// encode it is computed from the bytes just written, so `value` is ignored.
template <class Algorithm, fixed_string First, fixed_string Last, std::endian Order = std::endian::little>
struct checksum {
  static_assert(std::is_unsigned_v<typename Algorithm::value_type>,
                "tilefmt::codec: checksum<Algorithm, ...>: Algorithm::value_type must be an unsigned integer");
  using codec_field_adaptor = void;
  using algorithm = Algorithm;
  using value_type = typename Algorithm::value_type;
  static constexpr std::string_view first = First;
  static constexpr std::string_view last = Last;
  static constexpr std::endian order = Order;
  value_type value{};
  // Derived from the bytes it covers, like count_of<>: two structs are equal
  // when those are.
  friend constexpr bool operator==(const checksum&, const checksum&) noexcept { return true; }
};

namespace detail {

template <class T>
std::string value_text(const T& v) {
  if constexpr (std::is_enum_v<T>)
    return std::to_string(to_raw(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (std::is_arithmetic_v<T> && sizeof(T) == 1)
    return std::to_string(static_cast<int>(v));
  else if constexpr (std::is_arithmetic_v<T>)
    return std::to_string(v);
  else if constexpr (requires { v.value; })
    return value_text(v.value);
  else
    return "the value";
}

template <class Pred, class T, class S>
bool accepts(const T& v, const S& st) {
  if constexpr (std::is_invocable_r_v<bool, Pred, const T&, decltype(st.ctx)>) {
    return Pred{}(v, st.ctx);
  } else {
    static_assert(std::is_invocable_r_v<bool, Pred, const T&>,
                  "tilefmt::codec: valid<T, Pred>: Pred must be callable as Pred{}(value) or Pred{}(value, ctx) "
                  "returning bool");
    return Pred{}(v);
  }
}

template <class Pred, class T>
std::string rejection(const T& v) {
  if constexpr (requires { std::string_view(Pred::description); })
    return value_text(v) + " is not " + std::string(Pred::description);
  else
    return value_text(v) + " fails " + std::string(type_name<Pred>);
}

template <class T, class Pred>
struct valid_traits {
  static_assert((check_supported<T>(), true));
  static constexpr std::size_t min_size = min_size_of<T>();

  template <class S>
  static void decode(reader& r, valid<T, Pred>& v, S& st) {
    const std::size_t at = r.offset();
    traits<T>::decode(r, v.value, st);
    if (!accepts<Pred>(v.value, st)) throw format_error(rejection<Pred>(v.value), at);
  }
  template <class S>
  static void encode(writer& w, const valid<T, Pred>& v, S& st) {
    if (!accepts<Pred>(v.value, st))
      throw std::invalid_argument("tilefmt::codec: valid<> field holds " + rejection<Pred>(v.value) +
                                  "; decode would reject it");
    traits<T>::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const valid<T, Pred>& v, S& st) {
    return traits<T>::size(v.value, st);
  }
};

// A fixed-size T keeps valid<T, P> fixed-size, so that the structs holding
// it keep the one-copy path; such a predicate is called without a context.
template <class T, class Pred>
struct fixed_valid_traits : valid_traits<T, Pred> {
  static constexpr std::size_t fixed_size = traits<T>::fixed_size;

  static valid<T, Pred> load(const std::byte* p, const std::byte* origin) {
    valid<T, Pred> v;
    load_fixed(p, v.value, origin);
    if (!Pred{}(v.value)) throw format_error(rejection<Pred>(v.value), static_cast<std::size_t>(p - origin));
    return v;
  }
  static void store(std::byte* p, const valid<T, Pred>& v) {
    if (!Pred{}(v.value))
      throw std::invalid_argument("tilefmt::codec: valid<> field holds " + rejection<Pred>(v.value) +
                                  "; decode would reject it");
    store_fixed(p, v.value);
  }
};

template <class U>
std::string hex_number(U v) {
  char buf[2 * sizeof(U)];
  for (std::size_t i = 0; i < sizeof buf; ++i)
    buf[sizeof buf - 1 - i] = "0123456789abcdef"[(v >> (4 * i)) & 0xf];
  return "0x" + std::string(buf, sizeof buf);
}

} // namespace detail

template <class T, class Pred>
struct traits<valid<T, Pred>> : detail::valid_traits<T, Pred> {};

template <class T, class Pred>
  requires(detail::has_fixed_size<T> && std::is_invocable_r_v<bool, Pred, const T&>)
struct traits<valid<T, Pred>> : detail::fixed_valid_traits<T, Pred> {};

template <class Algorithm, fixed_string First, fixed_string Last, std::endian Order>
struct traits<checksum<Algorithm, First, Last, Order>> {
  using C = checksum<Algorithm, First, Last, Order>;
  using U = typename C::value_type;
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = sizeof(U);

  // [starts[J1], starts[J2 + 1]): the covered fields' bytes.
  template <class Parent, std::size_t I>
  static consteval std::pair<std::size_t, std::size_t> range() {
    constexpr std::size_t j1 = field_index<Parent>(C::first), j2 = field_index<Parent>(C::last);
    static_assert(j1 != no_such_field && j2 != no_such_field,
                  "tilefmt::codec: checksum<Algorithm, First, Last>: the struct has no field of that name");
    static_assert(j1 == no_such_field || j2 == no_such_field || (j1 <= j2 && j2 < I),
                  "tilefmt::codec: checksum<Algorithm, First, Last>: First and Last must name earlier fields, "
                  "First no later than Last");
    return {j1, j2 + 1};
  }
  static std::string covered() { return "fields " + std::string(C::first) + " to " + std::string(C::last); }

  template <std::size_t I, class Parent, class S>
  static void decode_field(reader& r, C& v, const Parent&, std::span<const std::size_t> starts, S&) {
    constexpr auto j = range<Parent, I>();
    const std::byte* p = r.take(sizeof(U));
    v.value = Order == std::endian::big ? load_be<U>(p) : load_le<U>(p);
    const U computed = Algorithm::compute({r.buffer_begin() + starts[j.first], starts[j.second] - starts[j.first]});
    if (computed != v.value)
      throw format_error(std::string(Algorithm::name) + " mismatch: stored " + detail::hex_number(v.value) +
                             ", computed " + detail::hex_number(computed) + " over " + covered(),
                         static_cast<std::size_t>(p - r.buffer_begin()));
  }
  template <std::size_t I, class Parent, class S>
  static void encode_field(writer& w, const C&, const Parent&, std::span<const std::size_t> starts, S&) {
    constexpr auto j = range<Parent, I>();
    const U computed = Algorithm::compute(w.written().subspan(starts[j.first], starts[j.second] - starts[j.first]));
    if constexpr (Order == std::endian::big)
      store_be<U>(w.reserve(sizeof(U)), computed);
    else
      store_le<U>(w.reserve(sizeof(U)), computed);
  }
  template <std::size_t I, class Parent, class S>
  static constexpr std::size_t size_field(const C&, const Parent&, std::span<const std::size_t>, S&) {
    (void)range<Parent, I>();
    return sizeof(U);
  }
};

} // namespace tilefmt::codec
