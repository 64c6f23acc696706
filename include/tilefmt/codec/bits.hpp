// tilefmt — bit fields: integers of 1 to 64 bits packed into bytes.
//
//   struct DosTime {                     // ZIP's last-modified time, a little-endian u16
//     codec::bits_le<5> second_half;     // bits 0-4
//     codec::bits_le<6> minute;          // bits 5-10
//     codec::bits_le<5> hour;            // bits 11-15
//   };
//   struct Flags {                       // MSB first, as network headers and deku's default
//     codec::bits<1, bool> compressed;   // the top bit of the first byte
//     codec::bits<3> level;
//     codec::bits<12> id;                // the low 4 bits of byte 0, then byte 1
//   };
//
// Consecutive bit-field members of a struct form a run, packed in
// declaration order: bits<N> from the most significant bit of the first
// byte down (Kaitai's b5, deku's Msb), bits_le<N> from the least significant
// bit up (Kaitai's b5le, and what an integer's bit fields are when the
// integer is stored little-endian). A run must fill whole bytes and keep one
// order; both are checked when the struct is compiled. Anything else ends a
// run.
//
// T is an unsigned integer wide enough for N bits (by default the smallest),
// bool for N = 1, or an enum (validated with codec_enum_valid() when it has
// one). Decode cannot fail except on truncation or an invalid enum; encode
// refuses a value wider than N bits (std::invalid_argument), since decode
// would read back another.
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// Which end of a byte a run of bit fields starts from.
enum class bit_order {
  msb_first,  ///< the first field takes the top bits of the first byte
  lsb_first,  ///< the first field takes the low bits of the first byte
};

namespace detail {
template <std::size_t N>
using uint_for_bits = std::conditional_t<
    (N <= 8), std::uint8_t,
    std::conditional_t<(N <= 16), std::uint16_t, std::conditional_t<(N <= 32), std::uint32_t, std::uint64_t>>>;

template <class T>
consteval std::size_t value_bits() {
  if constexpr (std::is_same_v<T, bool>)
    return 1;
  else if constexpr (std::is_enum_v<T>)
    return sizeof(T) * CHAR_BIT;
  else
    return sizeof(T) * CHAR_BIT;
}
} // namespace detail

/// N bits of a run of bit fields, held as a T.
template <std::size_t N, class T, bit_order Order>
struct bit_field {
  static_assert(N >= 1 && N <= 64, "tilefmt::codec: bits<N>: N must be 1 to 64");
  static_assert((std::is_integral_v<T> && std::is_unsigned_v<T>) || std::is_enum_v<T>,
                "tilefmt::codec: bits<N, T>: T must be an unsigned integer, bool or an enum");
  static_assert(N <= detail::value_bits<T>(), "tilefmt::codec: bits<N, T>: T has fewer than N bits");
  using codec_field_adaptor = void;
  using value_type = T;
  static constexpr std::size_t width = N;
  static constexpr bit_order order = Order;
  T value{};
  constexpr bit_field& operator=(T v) noexcept {
    value = v;
    return *this;
  }
  constexpr operator T() const noexcept { return value; }
  constexpr T& operator*() noexcept { return value; }
  constexpr const T& operator*() const noexcept { return value; }
  friend bool operator==(const bit_field&, const bit_field&) = default;
};

/// N bits, most significant first.
template <std::size_t N, class T = detail::uint_for_bits<N>>
using bits = bit_field<N, T, bit_order::msb_first>;

/// N bits, least significant first.
template <std::size_t N, class T = detail::uint_for_bits<N>>
using bits_le = bit_field<N, T, bit_order::lsb_first>;

namespace detail {

template <class F> struct is_bit_field : std::false_type {};
template <std::size_t N, class T, bit_order O> struct is_bit_field<bit_field<N, T, O>> : std::true_type {};

/// Where field I of Parent sits in its run of bit fields.
struct bit_run {
  std::size_t first = 0, last = 0;  // field indices
  std::size_t offset = 0;           // bits before field I in the run
  std::size_t total = 0;            // bits in the run
  bool one_order = true;
};

template <class Parent, std::size_t I>
consteval bit_run find_bit_run() {
  constexpr std::size_t n = boost::pfr::tuple_size_v<Parent>;
  std::array<std::size_t, n> width{};  // 0: not a bit field
  std::array<int, n> order{};
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          using F = boost::pfr::tuple_element_t<K, Parent>;
          if constexpr (is_bit_field<F>::value) {
            width[K] = F::width;
            order[K] = static_cast<int>(F::order);
          }
        }(),
        ...);
  }(std::make_index_sequence<n>{});
  bit_run run;
  run.first = I;
  while (run.first > 0 && width[run.first - 1]) --run.first;
  run.last = I;
  while (run.last + 1 < n && width[run.last + 1]) ++run.last;
  for (std::size_t k = run.first; k <= run.last; ++k) {
    if (k < I) run.offset += width[k];
    run.total += width[k];
    if (order[k] != order[I]) run.one_order = false;
  }
  return run;
}

// A shift that gives 0 for 64 bits or more (a plain shift by >= 64 is undefined).
constexpr std::uint64_t shift_left(std::uint64_t v, std::size_t s) noexcept { return s >= 64 ? 0 : v << s; }
constexpr std::uint64_t shift_right(std::uint64_t v, std::size_t s) noexcept { return s >= 64 ? 0 : v >> s; }
constexpr std::uint64_t low_bits(std::size_t n) noexcept { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

// A field is n bits (1 to 64) at bit `offset` of a run: it spans at most
// nine bytes. Each byte is moved into place with one shift, not bit by bit:
// the callers pass constants, so these loops unroll into a few loads,
// shifts and ORs (the bit-at-a-time loop they replace cost ~1 ns a bit).
// For LSB-first runs, bit k of the run is bit k % 8 of byte k / 8; for
// MSB-first runs, bit 7 - k % 8, so the bytes read as one big-endian number.
template <bit_order Order>
std::uint64_t extract_bits(const std::byte* p, std::size_t offset, std::size_t n) {
  const std::byte* q = p + offset / 8;
  const std::size_t skip = offset % 8, bytes = (skip + n + 7) / 8;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    const std::uint64_t byte = std::to_integer<std::uint64_t>(q[i]);
    if constexpr (Order == bit_order::lsb_first) {
      v |= 8 * i >= skip ? shift_left(byte, 8 * i - skip) : byte >> (skip - 8 * i);
    } else {
      // Where the field's lowest bit sits, counted from the last byte's lowest bit.
      const std::size_t low = 8 * bytes - skip - n, at = 8 * (bytes - 1 - i);
      v |= at >= low ? shift_left(byte, at - low) : byte >> (low - at);
    }
  }
  return v & low_bits(n);
}

// The inverse: ORs the n low bits of v into the run (whose bytes the caller
// zeroed first).
template <bit_order Order>
void insert_bits(std::byte* p, std::size_t offset, std::size_t n, std::uint64_t v) {
  std::byte* q = p + offset / 8;
  const std::size_t skip = offset % 8, bytes = (skip + n + 7) / 8;
  v &= low_bits(n);
  for (std::size_t i = 0; i < bytes; ++i) {
    std::uint64_t part;
    if constexpr (Order == bit_order::lsb_first) {
      part = 8 * i >= skip ? shift_right(v, 8 * i - skip) : v << (skip - 8 * i);
    } else {
      const std::size_t low = 8 * bytes - skip - n, at = 8 * (bytes - 1 - i);
      part = at >= low ? shift_right(v, at - low) : v << (low - at);
    }
    q[i] |= static_cast<std::byte>(part & 0xffu);
  }
}

} // namespace detail

template <std::size_t N, class T, bit_order Order>
struct traits<bit_field<N, T, Order>> {
  using F = bit_field<N, T, Order>;
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = 0;  // the run's bytes count at its first field: min_size_at

  template <class Parent, std::size_t I>
  static consteval detail::bit_run run() {
    constexpr detail::bit_run r = detail::find_bit_run<Parent, I>();
    static_assert(r.total % 8 == 0,
                  "tilefmt::codec: bits<N>: a run of consecutive bit fields must fill whole bytes; add a field "
                  "for the bits left (a pad, or a reserved bits<N>)");
    static_assert(r.one_order, "tilefmt::codec: bits<N> and bits_le<N> cannot share a run: put another field between");
    return r;
  }

  template <std::size_t I, class Parent, class S>
  static void decode_field(reader& r, F& v, const Parent&, std::span<const std::size_t> starts, S&) {
    constexpr detail::bit_run run_ = run<Parent, I>();
    if constexpr (I == run_.first) r.take(run_.total / 8);
    const std::byte* p = r.buffer_begin() + starts[run_.first];
    const std::uint64_t raw = detail::extract_bits<Order>(p, run_.offset, N);
    if constexpr (std::is_same_v<T, bool>) {
      v.value = raw != 0;
    } else {
      v.value = static_cast<T>(raw);
    }
    if constexpr (detail::enum_with_validation<T>) {
      if (!codec_enum_valid(v.value)) detail::throw_invalid_enum<T>(raw, starts[run_.first] + run_.offset / 8);
    }
  }

  template <std::size_t I, class Parent, class S>
  static void encode_field(writer& w, const F&, const Parent& parent, std::span<const std::size_t>, S&) {
    constexpr detail::bit_run run_ = run<Parent, I>();
    if constexpr (I == run_.first) {
      std::byte* p = w.reserve(run_.total / 8);
      std::memset(p, 0, run_.total / 8);
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (pack<I + K>(p, parent), ...);
      }(std::make_index_sequence<run_.last - run_.first + 1>{});
    }
  }

  // What the enclosing struct's min_size counts for field I.
  template <class Parent, std::size_t I>
  static consteval std::size_t min_size_at() {
    constexpr detail::bit_run run_ = run<Parent, I>();
    return I == run_.first ? run_.total / 8 : 0;
  }

  template <std::size_t I, class Parent, class S>
  static constexpr std::size_t size_field(const F&, const Parent&, std::span<const std::size_t>, S&) {
    constexpr detail::bit_run run_ = run<Parent, I>();
    return I == run_.first ? run_.total / 8 : 0;
  }

private:
  template <std::size_t K, class Parent>
  static void pack(std::byte* p, const Parent& parent) {
    using FK = boost::pfr::tuple_element_t<K, Parent>;
    constexpr detail::bit_run at = detail::find_bit_run<Parent, K>();
    const auto& f = boost::pfr::get<K>(parent);
    std::uint64_t raw;
    if constexpr (std::is_enum_v<typename FK::value_type>)
      raw = static_cast<std::uint64_t>(detail::to_raw(f.value));
    else
      raw = static_cast<std::uint64_t>(f.value);
    if (FK::width < 64 && (raw >> (FK::width % 64)) != 0)
      throw std::invalid_argument("tilefmt::codec: bit field " + std::string(field_name<Parent, K>) + " holds " +
                                  std::to_string(raw) + ", which does not fit in " + std::to_string(FK::width) +
                                  " bits");
    detail::insert_bits<FK::order>(p, at.offset, FK::width, raw);
  }
};

} // namespace tilefmt::codec
