// tilefmt — the codec's public entry points: decode, decode_into, encode,
// encode_into, encoded_size.
//
//   auto v = codec::decode<Footer>(bytes, ctx);      // exactly the buffer
//   codec::reader r(bytes);
//   auto h = codec::decode<Header>(r);               // at r's position; r moves past it
//   codec::decode_into(bytes, v, ctx);               // into an existing value (or from a reader)
//   std::vector<std::byte> b = codec::encode(v, ctx);
//   codec::encode_into(v, out, ctx);                 // into a caller's buffer (or a writer)
//   std::size_t n = codec::encoded_size(v, ctx);
//   std::size_t m = codec::encoded_size_at(v, position, ctx); // placed `position` bytes in (file_align<N>)
//   auto t = codec::decode_at<Table>(bytes, offset, ctx); // a T that starts `offset` bytes in
//
// A buffer means every byte of it; a reader means from its position on.
// `ctx` is any object: a `version` member sets the format version for
// since<>/until<> fields, and sized<>/when<> callbacks receive it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/bits.hpp"
#include "tilefmt/codec/checked.hpp"
#include "tilefmt/codec/dump.hpp"
#include "tilefmt/codec/endian.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/linked.hpp"
#include "tilefmt/codec/magic.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/offset.hpp"
#include "tilefmt/codec/padding.hpp"
#include "tilefmt/codec/switch.hpp"
#include "tilefmt/codec/terminated.hpp"
#include "tilefmt/codec/record.hpp"
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
  e.prepend_field(display_name<T>);
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

/// Decodes one T at the reader's position into an existing T, and leaves
/// the reader after it. Its containers keep their capacity (a decoder
/// called once per chunk allocates once). A field that a closed gate leaves
/// out of the bytes (since<>, until<>, when<>) keeps the value `out` had:
/// that is how a decoder presets fields the bytes do not carry (see Domain
/// before format 5). To reuse an object of a type with such fields
/// (has_gated_fields<T>), assign it T{} first.
template <class T, class Ctx = no_context>
void decode_into(reader& r, T& out, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  try {
    traits<T>::decode(r, out, st);
  } catch (format_error& e) {
    detail::name_top_level<T>(e);
    throw;
  }
}

/// Decodes `bytes`, every one of them, into an existing T, as the reader
/// form does.
template <class T, class Ctx = no_context>
void decode_into(std::span<const std::byte> bytes, T& out, const Ctx& ctx = {}) {
  reader r(bytes);
  decode_into(r, out, ctx);
  if (!r.at_end()) {
    format_error e(std::to_string(r.remaining()) + " trailing bytes after the end of the structure", r.offset());
    detail::name_top_level<T>(e);
    throw e;
  }
}

/// Decodes one T at the reader's position and leaves the reader after it:
/// the T at the front of a buffer, or each of several in a row.
template <class T, class Ctx = no_context>
T decode(reader& r, const Ctx& ctx = {}) {
  T v{};
  decode_into(r, v, ctx);
  return v;
}
/// The T at the front of a buffer: `decode<T>(reader(bytes))`.
template <class T, class Ctx = no_context>
T decode(reader&& r, const Ctx& ctx = {}) {
  return decode<T>(r, ctx);
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

/// Decodes a T that starts `position` bytes into `bytes` and ends anywhere
/// before their end: what an offset in a file points to. Offsets in errors
/// count from the start of `bytes`.
template <class T, class Ctx = no_context>
T decode_at(std::span<const std::byte> bytes, std::uint64_t position, const Ctx& ctx = {}) {
  if (position > bytes.size()) {
    format_error e("offset " + std::to_string(position) + " is past the end of the input (" +
                       std::to_string(bytes.size()) + " bytes)",
                   0);
    detail::name_top_level<T>(e);
    throw e;
  }
  reader r(bytes);
  r.take(static_cast<std::size_t>(position));
  return decode<T>(r, ctx);
}

/// Bytes `v` occupies on the wire, encoded at the start of a buffer.
template <class T, class Ctx = no_context>
std::size_t encoded_size(const T& v, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  return traits<T>::size(v, st);
}

/// Bytes `v` occupies encoded `position` bytes into a buffer: differs from
/// encoded_size() only for structs with file_align<N> fields.
template <class T, class Ctx = no_context>
std::size_t encoded_size_at(const T& v, std::size_t position, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  st.size_at = position;
  return traits<T>::size(v, st);
}

/// Encodes `v` at the writer's position.
template <class T, class Ctx = no_context>
void encode_into(const T& v, writer& w, const Ctx& ctx = {}) {
  detail::check_entry<T, Ctx>();
  state<Ctx> st(ctx);
  traits<T>::encode(w, v, st);
}

/// Encodes `v` into the caller's buffer; returns the bytes written.
/// Throws std::length_error when `out` is smaller than encoded_size(v, ctx).
template <class T, class Ctx = no_context>
std::size_t encode_into(const T& v, std::span<std::byte> out, const Ctx& ctx = {}) {
  writer w(out);
  encode_into(v, w, ctx);
  return w.offset();
}

/// Encodes `v` into a new buffer of exactly encoded_size(v, ctx) bytes.
template <class T, class Ctx = no_context>
std::vector<std::byte> encode(const T& v, const Ctx& ctx = {}) {
  std::vector<std::byte> out(encoded_size(v, ctx));
  encode_into(v, std::span<std::byte>(out), ctx);
  return out;
}

} // namespace tilefmt::codec
