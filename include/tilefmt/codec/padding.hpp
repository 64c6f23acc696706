// tilefmt — pad<N>, align<N> and file_align<N>: bytes a format leaves unused
// between fields.
//
// pad<N> is N bytes; align<N> is the 0 to N-1 bytes that bring the next
// field to a multiple of N bytes from the start of the enclosing struct (the
// struct that declares the align<N> member; not the buffer, the file or an
// outer struct). That makes a struct's bytes independent of where it sits:
// a RIFF chunk `{ id, size, data, align<2> }` pads its data to an even
// length wherever the chunk starts, which is what RIFF means, since every
// chunk starts at an even offset. encoded_size() computes the same count.
//
// file_align<N> counts from the start of the buffer instead: the file, when
// the file is what is decoded (decode_at, a reader over it) or encoded. Where
// a format aligns to absolute offsets (ELF section contents, tar's 512-byte
// blocks after file data of any length, pcapng's 32-bit boundaries) the same
// struct pads differently at different offsets; encoded_size() assumes the
// value starts the buffer, encoded_size_at() is told where it starts.
//
// Encode writes zeros. On decode, padding is checked to be zero by default,
// so that encode(decode(b)) == b holds for every b that decodes: a non-zero
// byte is a format_error naming the field and the byte's offset. A format
// whose writers leave garbage there declares `pad<N, pad_bytes::any>` (or
// `align<N, pad_bytes::any>`): any bytes are skipped, and re-encoding writes
// zeros in their place.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>

#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// What decode accepts in padding.
enum class pad_bytes {
  zero, ///< only zeros (the default: the round trip stays byte-exact)
  any,  ///< anything, skipped; encode writes zeros
};

/// N unused bytes.
template <std::size_t N, pad_bytes Check = pad_bytes::zero>
struct pad {
  static_assert(N > 0, "tilefmt::codec: pad<N>: N must be at least 1");
  using codec_field_adaptor = void;
  static constexpr std::size_t bytes = N;
  static constexpr pad_bytes check = Check;
  // Not an aggregate, so that the codec can count the members of the struct
  // holding it (see magic<>).
  constexpr pad() noexcept {}
  friend constexpr bool operator==(const pad&, const pad&) noexcept { return true; }
};

/// Unused bytes up to the next multiple of N from the start of the
/// enclosing struct.
template <std::size_t N, pad_bytes Check = pad_bytes::zero>
struct align {
  static_assert(N > 0, "tilefmt::codec: align<N>: N must be at least 1");
  using codec_field_adaptor = void;
  static constexpr std::size_t alignment = N;
  static constexpr pad_bytes check = Check;
  constexpr align() noexcept {}
  friend constexpr bool operator==(const align&, const align&) noexcept { return true; }
};

/// Unused bytes up to the next multiple of N from the start of the buffer
/// (the file).
template <std::size_t N, pad_bytes Check = pad_bytes::zero>
struct file_align {
  static_assert(N > 0, "tilefmt::codec: file_align<N>: N must be at least 1");
  using codec_field_adaptor = void;
  static constexpr bool aligned_to_buffer = true;  // detail::uses_buffer_position
  static constexpr std::size_t alignment = N;
  static constexpr pad_bytes check = Check;
  constexpr file_align() noexcept {}
  friend constexpr bool operator==(const file_align&, const file_align&) noexcept { return true; }
};

namespace detail {
template <pad_bytes Check>
void check_padding(const std::byte* p, std::size_t n, const std::byte* origin) {
  if constexpr (Check == pad_bytes::zero) {
    for (std::size_t i = 0; i < n; ++i)
      if (p[i] != std::byte{0})
        throw format_error("padding byte is 0x" + hex_string(std::span(p + i, 1)) + ", not zero",
                           static_cast<std::size_t>(p + i - origin));
  } else {
    (void)p, (void)n, (void)origin;
  }
}
} // namespace detail

template <std::size_t N, pad_bytes Check>
struct traits<pad<N, Check>> {
  static constexpr std::size_t fixed_size = N;
  static constexpr std::size_t min_size = N;

  static pad<N, Check> load(const std::byte* p, const std::byte* origin) {
    detail::check_padding<Check>(p, N, origin);
    return {};
  }
  static void store(std::byte* p, const pad<N, Check>&) { std::memset(p, 0, N); }

  template <class S>
  static void decode(reader& r, pad<N, Check>&, S&) {
    load(r.take(N), r.buffer_begin());
  }
  template <class S>
  static void encode(writer& w, const pad<N, Check>& v, S&) {
    store(w.reserve(N), v);
  }
  template <class S>
  static constexpr std::size_t size(const pad<N, Check>&, S&) {
    return N;
  }
};

namespace detail {
// align<N> and file_align<N>: the same padding, counted from the start of
// the enclosing struct (starts[0]) or of the buffer (0). starts[I] is where
// this field begins, counted from the buffer's start, in all three walks.
template <std::size_t N, pad_bytes Check, bool FromBuffer>
struct align_traits {
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = 0;

  template <std::size_t I>
  static constexpr std::size_t padding(std::span<const std::size_t> starts) noexcept {
    const std::size_t used = FromBuffer ? starts[I] : starts[I] - starts[0];
    return (N - used % N) % N;
  }
  template <std::size_t I, class F, class Parent, class S>
  static void decode_field(reader& r, F&, const Parent&, std::span<const std::size_t> starts, S&) {
    const std::size_t n = padding<I>(starts);
    check_padding<Check>(r.take(n), n, r.buffer_begin());
  }
  template <std::size_t I, class F, class Parent, class S>
  static void encode_field(writer& w, const F&, const Parent&, std::span<const std::size_t> starts, S&) {
    const std::size_t n = padding<I>(starts);
    if (n) std::memset(w.reserve(n), 0, n);
  }
  template <std::size_t I, class F, class Parent, class S>
  static std::size_t size_field(const F&, const Parent&, std::span<const std::size_t> starts, S&) {
    return padding<I>(starts);
  }
};
} // namespace detail

template <std::size_t N, pad_bytes Check>
struct traits<align<N, Check>> : detail::align_traits<N, Check, false> {};

template <std::size_t N, pad_bytes Check>
struct traits<file_align<N, Check>> : detail::align_traits<N, Check, true> {};

} // namespace tilefmt::codec
