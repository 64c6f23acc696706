// tilefmt — the codec's public entry points: decode, encode, encoded_size.
//
//   auto v = codec::decode<Footer>(bytes, ctx);      // whole buffer, strict
//   std::vector<std::byte> b = codec::encode(v, ctx);
//   std::size_t n = codec::encoded_size(v, ctx);
//
// `ctx` is any object: a `version` member sets the format version for
// since<>/until<> fields, and sized<>/when<> callbacks receive it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/dump.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/view.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

namespace detail {
template <class T, class Ctx>
consteval void check_entry() {
  if constexpr (has_c_array_member<T>()) {
    (void)field_count<T>;  // fails first, with the sentence about C arrays
  } else {
    check_supported<T>();
    static_assert(!needs_version<T>() || requires(const Ctx& c) { static_cast<std::uint32_t>(c.version); },
                  "tilefmt::codec: this struct has version-gated fields (since<>/until<>) but no version_field "
                  "before them: pass a context with a `version` member");
  }
}

template <class T>
void name_top_level(format_error& e) {
  e.prepend_field(type_name<T>);
}
} // namespace detail

/// Any contiguous range of bytes (std::byte, char, unsigned char) as bytes.
template <class R>
concept byte_range = requires(const R& r) {
  std::data(r);
  std::size(r);
} && sizeof(*std::data(std::declval<const R&>())) == 1;

template <byte_range R>
std::span<const std::byte> as_byte_span(const R& r) noexcept {
  return {reinterpret_cast<const std::byte*>(std::data(r)), std::size(r)};
}

/// Decodes one T from the reader's position into an existing T, reusing its
/// containers' capacity (a decoder called once per chunk allocates once),
/// and leaves the reader after T. A field that a closed gate leaves out of
/// the bytes (since<>, until<>, when<>) keeps the value `out` had: that is
/// how a decoder presets fields the bytes do not carry (see Domain before
/// format 5). To reuse an object of a type with such fields
/// (has_gated_fields<T>), assign it T{} first.
template <class T, class Ctx = no_context>
void decode_from_into(reader& r, T& out, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  try {
    traits<T>::decode(r, out, st);
  } catch (format_error& e) {
    detail::name_top_level<T>(e);
    throw;
  }
}

/// Decodes one T from the reader's position, leaving it after T.
template <class T, class Ctx = no_context>
T decode_from(reader& r, const Ctx& ctx = {}) {
  T v{};
  decode_from_into(r, v, ctx);
  return v;
}

/// Decodes `bytes` into an existing T, reusing its containers' capacity.
/// Every byte must be consumed. Fields a closed gate skips keep their value,
/// as with decode_from_into.
template <class T, class Ctx = no_context>
void decode_into(std::span<const std::byte> bytes, T& out, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  reader r(bytes);
  state<Ctx> st(ctx);
  try {
    traits<T>::decode(r, out, st);
    if (!r.at_end())
      throw format_error(std::to_string(r.remaining()) + " trailing bytes after the end of the structure",
                         r.offset());
  } catch (format_error& e) {
    detail::name_top_level<T>(e);
    throw;
  }
}

/// Decodes a T occupying exactly `bytes`.
template <class T, class Ctx = no_context>
T decode(std::span<const std::byte> bytes, const Ctx& ctx = {}) {
  T v{};
  decode_into(bytes, v, ctx);
  return v;
}

template <class T, class Ctx = no_context, byte_range R>
  requires(!std::is_same_v<R, std::span<const std::byte>>)
T decode(const R& bytes, const Ctx& ctx = {}) {
  return decode<T>(as_byte_span(bytes), ctx);
}

/// Decodes a T from the front of `bytes`; returns it and the bytes it used.
template <class T, class Ctx = no_context>
std::pair<T, std::size_t> decode_prefix(std::span<const std::byte> bytes, const Ctx& ctx = {}) {
  reader r(bytes);
  T v = decode_from<T>(r, ctx);
  return {std::move(v), r.offset()};
}

/// Bytes `v` occupies on the wire.
template <class T, class Ctx = no_context>
std::size_t encoded_size(const T& v, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  return traits<T>::size(v, st);
}

/// Encodes `v` at the writer's position.
template <class T, class Ctx = no_context>
void encode_to(writer& w, const T& v, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  traits<T>::encode(w, v, st);
}

/// Encodes `v` into the caller's buffer; returns the bytes written.
/// Throws std::length_error when `out` is smaller than encoded_size(v, ctx).
template <class T, class Ctx = no_context>
std::size_t encode_into(std::span<std::byte> out, const T& v, const Ctx& ctx = {}) {
  writer w(out);
  encode_to(w, v, ctx);
  return w.offset();
}

/// Encodes `v` into a new buffer of exactly encoded_size(v, ctx) bytes.
template <class T, class Ctx = no_context>
std::vector<std::byte> encode(const T& v, const Ctx& ctx = {}) {
  std::vector<std::byte> out(encoded_size(v, ctx));
  encode_into(out, v, ctx);
  return out;
}

} // namespace tilefmt::codec
