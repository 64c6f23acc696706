// tilefmt — little-endian wire primitives (and big-endian ones, for fields
// declared big<T>) and the bounded byte reader/writer every decoder and
// encoder is built on.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <boost/endian/conversion.hpp>

#include "tilefmt/codec/error.hpp"

namespace tilefmt::codec {

/// std::bit_cast, or the compiler's builtin where the standard library
/// predates it (emscripten 3.1.6's libc++, for the WebAssembly module).
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<To>(from);
#else
  return __builtin_bit_cast(To, from);
#endif
}

/// Types stored as their own bytes in little-endian order.
template <class T>
concept wire_scalar = std::is_arithmetic_v<T> || std::is_same_v<T, std::byte>;

namespace detail {

template <std::size_t N> struct uint_of_size;
template <> struct uint_of_size<1> { using type = std::uint8_t; };
template <> struct uint_of_size<2> { using type = std::uint16_t; };
template <> struct uint_of_size<4> { using type = std::uint32_t; };
template <> struct uint_of_size<8> { using type = std::uint64_t; };

inline constexpr bool host_is_little = std::endian::native == std::endian::little;

} // namespace detail

/// Reads a T stored in byte order `Order` at `p` (any alignment).
template <boost::endian::order Order, wire_scalar T>
inline T load_ordered(const std::byte* p) noexcept {
  using U = typename detail::uint_of_size<sizeof(T)>::type;
  U u;
  std::memcpy(&u, p, sizeof(U));
  u = boost::endian::conditional_reverse<Order, boost::endian::order::native>(u);
  if constexpr (std::is_same_v<T, bool>)
    return u != 0;
  else
    return codec::bit_cast<T>(u);
}

/// Writes `v` in byte order `Order` at `p` (any alignment).
template <boost::endian::order Order, wire_scalar T>
inline void store_ordered(std::byte* p, T v) noexcept {
  using U = typename detail::uint_of_size<sizeof(T)>::type;
  U u;
  if constexpr (std::is_same_v<T, bool>)
    u = v ? 1 : 0;
  else
    u = codec::bit_cast<U>(v);
  u = boost::endian::conditional_reverse<boost::endian::order::native, Order>(u);
  std::memcpy(p, &u, sizeof(U));
}

/// Reads a T stored little-endian at `p` (any alignment).
template <wire_scalar T>
inline T load_le(const std::byte* p) noexcept {
  return load_ordered<boost::endian::order::little, T>(p);
}
/// Writes `v` little-endian at `p` (any alignment).
template <wire_scalar T>
inline void store_le(std::byte* p, T v) noexcept {
  store_ordered<boost::endian::order::little, T>(p, v);
}
/// Reads a T stored big-endian at `p` (any alignment).
template <wire_scalar T>
inline T load_be(const std::byte* p) noexcept {
  return load_ordered<boost::endian::order::big, T>(p);
}
/// Writes `v` big-endian at `p` (any alignment).
template <wire_scalar T>
inline void store_be(std::byte* p, T v) noexcept {
  store_ordered<boost::endian::order::big, T>(p, v);
}

/// Copies `n` little-endian values of T from `src` into `dst`: one memcpy on
/// little-endian hosts, a swap pass on big-endian ones.
template <wire_scalar T>
inline void load_le_array(const std::byte* src, T* dst, std::size_t n) noexcept {
  if constexpr (detail::host_is_little || sizeof(T) == 1) {
    if (n) std::memcpy(dst, src, n * sizeof(T));
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = load_le<T>(src + i * sizeof(T));
  }
}

template <wire_scalar T>
inline void store_le_array(std::byte* dst, const T* src, std::size_t n) noexcept {
  if constexpr (detail::host_is_little || sizeof(T) == 1) {
    if (n) std::memcpy(dst, src, n * sizeof(T));
  } else {
    for (std::size_t i = 0; i < n; ++i) store_le<T>(dst + i * sizeof(T), src[i]);
  }
}

/// A cursor over untrusted input. Every access is checked against the end;
/// a short read throws format_error naming the offset and what is left.
class reader {
public:
  reader() = default;
  explicit reader(std::span<const std::byte> bytes) noexcept
      : begin_(bytes.data()), cur_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  std::size_t offset() const noexcept { return static_cast<std::size_t>(cur_ - begin_); }
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - cur_); }
  bool at_end() const noexcept { return cur_ == end_; }
  const std::byte* position() const noexcept { return cur_; }
  const std::byte* buffer_begin() const noexcept { return begin_; }

  /// Consumes `n` bytes and returns where they start. Always inlined: it is
  /// on every field's path, and a call per field cost ~5% of decoding
  /// records of small fields (bench/micro/bench_formats.cpp).
  [[gnu::always_inline]] const std::byte* take(std::size_t n) {
    if (n > remaining()) fail_short(n);
    const std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  template <wire_scalar T>
  T read() {
    return load_le<T>(take(sizeof(T)));
  }

  /// Throws the standard "needs N bytes at offset X, R left" error. Kept
  /// out of line and cold, so that take() (on every field's path) stays
  /// small enough to be inlined everywhere.
  [[noreturn, gnu::noinline, gnu::cold]] void fail_short(std::size_t n) const {
    throw format_error("needs " + std::to_string(n) + " bytes", offset(),
                       ", " + std::to_string(remaining()) + " left");
  }
  [[noreturn]] void fail(std::string reason) const { throw format_error(std::move(reason), offset()); }

  /// A reader over the next `n` bytes, consuming them here. Offsets reported
  /// by the sub-reader stay relative to this reader's buffer.
  reader sub(std::size_t n) {
    const std::byte* p = take(n);
    reader r;
    r.begin_ = begin_;
    r.cur_ = p;
    r.end_ = p + n;
    return r;
  }

private:
  const std::byte* begin_ = nullptr;
  const std::byte* cur_ = nullptr;
  const std::byte* end_ = nullptr;
};

/// A cursor over an output buffer the caller sized (encoded_size tells how
/// much). Overrunning it is a caller bug and throws std::length_error.
class writer {
public:
  explicit writer(std::span<std::byte> out) noexcept
      : begin_(out.data()), cur_(out.data()), end_(out.data() + out.size()) {}

  std::size_t offset() const noexcept { return static_cast<std::size_t>(cur_ - begin_); }
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - cur_); }

  std::byte* reserve(std::size_t n) {
    if (n > remaining())
      throw std::length_error("tilefmt::codec::writer: output buffer too small (" +
                              std::to_string(n) + " bytes needed at offset " +
                              std::to_string(offset()) + ", " + std::to_string(remaining()) +
                              " left)");
    std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  template <wire_scalar T>
  void write(T v) {
    store_le<T>(reserve(sizeof(T)), v);
  }

  void write_bytes(const void* p, std::size_t n) {
    if (n) std::memcpy(reserve(n), p, n);
  }

  /// The bytes written so far (a checksum field covers some of them).
  std::span<const std::byte> written() const noexcept { return {begin_, offset()}; }

private:
  std::byte* begin_;
  std::byte* cur_;
  std::byte* end_;
};

} // namespace tilefmt::codec
