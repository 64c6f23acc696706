// tilefmt — the codec: how each kind of field is decoded, encoded and sized.
//
// One primary template, `traits<T>`, specialised by concept: arithmetic
// values, enums, std::array, aggregates (walked with Boost.PFR: record.hpp) and each field
// adaptor. A specialisation provides
//
//   template <class S> static void decode(reader&, T&, S& st);
//   template <class S> static void encode(writer&, const T&, S& st);
//   template <class S> static std::size_t size(const T&, S& st);
//   static constexpr std::size_t min_size;      // fewest bytes T can occupy
//   static constexpr std::size_t fixed_size;    // optional: T always has this size
//
// where `st` is a `state<Ctx>` (the caller's context plus the format version
// in force). A field adaptor declared in its own header (magic.hpp,
// endian.hpp, padding.hpp, terminated.hpp, checked.hpp) marks itself with a
// member `using codec_field_adaptor = void;` so that it is not walked as a
// record, and provides its traits<> beside it. One whose bytes depend on
// where it sits in the enclosing struct (align<N>, checksum<>) is
// "positional": instead of decode/encode/size its traits provide
//
//   static constexpr bool positional = true;
//   template <std::size_t I, class Parent, class S>
//   static void decode_field(reader&, F&, const Parent&, std::span<const std::size_t> starts, S&);
//   ... encode_field(writer&, const F&, const Parent&, starts, S&), size_field(const F&, const Parent&, starts, S&)
//
// where I is the field's position in Parent and starts[k] (k <= I) is where
// field k of the parent begins, counted from the start of the buffer: the
// reader's or writer's offset when decoding or encoding; when sizing, from
// where the value is to be encoded (state::size_at, below). A
// positional field whose fewest bytes depend on its place (a run of bit
// fields counts its bytes at its first field) also provides
// `template <class Parent, std::size_t I> static consteval std::size_t min_size_at()`.
// That is also the extension point for encodings that are
// bitstreams rather than records: specialise `traits<YourType>` the same way
// (see examples/custom_format.cpp and tests/codec/test_custom.cpp).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/pfr.hpp>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/fixed_string.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/view.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// The context used when the caller gives none.
struct no_context {};

/// What a decoder or encoder knows besides the bytes: the caller's context,
/// the format version in force (from the context's `version` member, or
/// from a `version_field` decoded earlier) and the byte order of ordered<T>
/// fields (from the context's `byte_order` member, a std::endian, or from a
/// byte_order_field decoded earlier; see endian.hpp).
template <class Ctx>
struct state {
  const Ctx& ctx;
  std::uint32_t version = 0;
  bool has_version = false;
  std::endian order = std::endian::little;
  bool has_order = false;
  // While sizing: where the value being sized will start in the encoded
  // buffer, for fields whose size depends on it (file_align<N>). Whoever
  // sizes several values in a row sets it before each; a size() may leave
  // it anywhere.
  std::size_t size_at = 0;

  explicit state(const Ctx& c) : ctx(c) {
    if constexpr (requires { static_cast<std::uint32_t>(c.version); }) {
      version = static_cast<std::uint32_t>(c.version);
      has_version = true;
    }
    if constexpr (requires { static_cast<std::endian>(c.byte_order); }) {
      order = static_cast<std::endian>(c.byte_order);
      has_order = true;
    }
  }
};

template <class T>
struct traits {
  static constexpr bool unsupported = true;
};

// ---------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------
namespace detail {

template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N> struct is_std_array<std::array<T, N>> : std::true_type {};

template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct is_string : std::false_type {};
template <class C, class Tr, class A> struct is_string<std::basic_string<C, Tr, A>> : std::true_type {};
template <class T> struct is_le_span : std::false_type {};
template <class T> struct is_le_span<le_span<T>> : std::true_type {};

template <class T> struct is_counted : std::false_type {};
template <class C, class X> struct is_counted<counted<C, X>> : std::true_type {};
template <class T> struct is_count_of : std::false_type {};
template <fixed_string N, class C> struct is_count_of<count_of<N, C>> : std::true_type {};
template <class T> struct is_field_equals : std::false_type {};
template <fixed_string N, auto V> struct is_field_equals<field_equals<N, V>> : std::true_type {};
template <class T> struct is_version_field : std::false_type {};
template <class T> struct is_version_field<version_field<T>> : std::true_type {};
template <class T> struct is_since : std::false_type {};
template <std::uint32_t V, class T> struct is_since<since<V, T>> : std::true_type {};
template <class T> struct is_until : std::false_type {};
template <std::uint32_t V, class T> struct is_until<until<V, T>> : std::true_type {};
template <class T> struct is_when : std::false_type {};
template <class P, class T> struct is_when<when<P, T>> : std::true_type {};
template <class T> struct is_sized : std::false_type {};
template <class L, class X> struct is_sized<sized<L, X>> : std::true_type {};
template <class T> struct is_rest : std::false_type {};
template <class X> struct is_rest<rest<X>> : std::true_type {};
template <class T> struct is_variant : std::false_type {};
template <class... A> struct is_variant<std::variant<A...>> : std::true_type {};
template <class T> struct is_framed : std::false_type {};
template <class L, class X> struct is_framed<framed<L, X>> : std::true_type {};

/// An adaptor declared outside adaptors.hpp (see the comment at the top).
template <class T>
concept declared_adaptor = requires { typename T::codec_field_adaptor; };

template <class T>
inline constexpr bool is_adaptor =
    is_counted<T>::value || is_count_of<T>::value || is_version_field<T>::value ||
    is_since<T>::value || is_until<T>::value || is_when<T>::value || is_sized<T>::value ||
    is_rest<T>::value || is_framed<T>::value || declared_adaptor<T>;

/// Containers whose length is stated elsewhere (counted<>, count_of<>, sized<>, rest<>).
template <class T>
inline constexpr bool is_container = is_vector<T>::value || is_string<T>::value || is_le_span<T>::value;

template <class T>
concept bulk_scalar = (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, std::byte>;

} // namespace detail

/// A struct the codec walks field by field.
template <class T>
concept record = std::is_aggregate_v<T> && std::is_class_v<T> && !detail::is_std_array<T>::value &&
                 !detail::is_adaptor<T> && !std::is_union_v<T>;

template <class T>
concept has_traits = !requires { traits<T>::unsupported; };

namespace detail {

template <class T>
consteval std::size_t min_size_of() {
  if constexpr (has_traits<T>)
    return traits<T>::min_size;
  else
    return 0;
}

template <class T>
concept has_fixed_size = has_traits<T> && requires { traits<T>::fixed_size; };

template <class T>
concept has_positive_fixed_size = has_fixed_size<T> && (traits<T>::fixed_size > 0);

/// A field whose bytes depend on its place in the enclosing struct.
template <class T>
concept positional = has_traits<T> && requires { traits<T>::positional; };

template <class T>
consteval void check_supported() {
  static_assert(!std::is_array_v<T>,
                "tilefmt::codec: C arrays cannot be reflected by Boost.PFR; declare the member as std::array<T, N>");
  static_assert(!std::is_pointer_v<T> && !std::is_reference_v<T>,
                "tilefmt::codec: a format struct cannot hold pointers or references; hold the value");
  static_assert(!is_container<T>,
                "tilefmt::codec: a container member needs its length: wrap it in counted<Count, C>, give it a "
                "count_of<\"name\", Count> member earlier in the struct, or use sized<Len, C> or rest<C>");
  static_assert(has_traits<T>,
                "tilefmt::codec: no codec for this member type; declare it as an aggregate of supported fields "
                "or specialise tilefmt::codec::traits<T>");
  static_assert(!positional<T>,
                "tilefmt::codec: align<N> and checksum fields depend on their place in a struct: declare them as "
                "direct members of one");
}

// Validation and naming hooks for enums, found by argument-dependent lookup:
//   constexpr bool codec_enum_valid(MyEnum);          // reject out-of-range values
//   constexpr std::string_view codec_enum_name(MyEnum);
template <class E>
concept enum_with_validation = requires(E e) {
  { codec_enum_valid(e) } -> std::convertible_to<bool>;
};

template <class T>
[[noreturn]] inline void throw_invalid_enum(std::uint64_t raw, std::size_t offset) {
  throw format_error("invalid " + std::string(type_name<T>) + " value " + std::to_string(raw), offset);
}

template <class T>
constexpr auto to_raw(T v) {
  if constexpr (std::is_enum_v<T>)
    return static_cast<std::underlying_type_t<T>>(v);
  else
    return v;
}

template <class T>
constexpr auto&& unwrap(const T& v) {
  if constexpr (is_adaptor<T> && requires { v.value; })
    return v.value;
  else
    return v;
}

} // namespace detail

// ---------------------------------------------------------------------------
// Scalars, enums, std::array
// ---------------------------------------------------------------------------

template <wire_scalar T>
struct traits<T> {
  static constexpr std::size_t fixed_size = sizeof(T);
  static constexpr std::size_t min_size = sizeof(T);

  static T load(const std::byte* p, const std::byte* origin) {
    if constexpr (std::is_same_v<T, bool>) {
      auto raw = std::to_integer<unsigned>(*p);
      if (raw > 1)
        throw format_error("bool must be 0 or 1, found " + std::to_string(raw),
                           static_cast<std::size_t>(p - origin));
      return raw != 0;
    } else {
      (void)origin;
      return load_le<T>(p);
    }
  }
  static void store(std::byte* p, T v) { store_le<T>(p, v); }

  template <class S>
  static void decode(reader& r, T& v, S&) {
    const std::byte* p = r.take(sizeof(T));
    v = load(p, r.buffer_begin());
  }
  template <class S>
  static void encode(writer& w, const T& v, S&) {
    w.write<T>(v);
  }
  template <class S>
  static constexpr std::size_t size(const T&, S&) {
    return sizeof(T);
  }
};

template <class E>
  requires(std::is_enum_v<E> && !wire_scalar<E>)
struct traits<E> {
  using U = std::underlying_type_t<E>;
  static constexpr std::size_t fixed_size = sizeof(U);
  static constexpr std::size_t min_size = sizeof(U);

  static E load(const std::byte* p, const std::byte* origin) {
    E v = static_cast<E>(load_le<U>(p));
    if constexpr (detail::enum_with_validation<E>) {
      if (!codec_enum_valid(v))
        detail::throw_invalid_enum<E>(static_cast<std::uint64_t>(load_le<U>(p)),
                                      static_cast<std::size_t>(p - origin));
    } else {
      (void)origin;
    }
    return v;
  }
  static void store(std::byte* p, E v) { store_le<U>(p, static_cast<U>(v)); }

  template <class S>
  static void decode(reader& r, E& v, S&) {
    const std::byte* p = r.take(sizeof(U));
    v = load(p, r.buffer_begin());
  }
  template <class S>
  static void encode(writer& w, const E& v, S&) {
    w.write<U>(static_cast<U>(v));
  }
  template <class S>
  static constexpr std::size_t size(const E&, S&) {
    return sizeof(U);
  }
};

// Forward declarations of the element helpers used by std::array and containers.
namespace detail {
template <class T, class S>
void decode_elements(reader& r, T* out, std::size_t n, S& st);
template <class T, class S>
void encode_elements(writer& w, const T* in, std::size_t n, S& st);
template <class T, class S>
std::size_t size_elements(const T* in, std::size_t n, S& st);
} // namespace detail

template <class T, std::size_t N>
struct traits<std::array<T, N>> {
  static_assert(has_traits<T>, "tilefmt::codec: std::array element type has no codec");
  static constexpr std::size_t min_size = N * detail::min_size_of<T>();

  template <class S>
  static void decode(reader& r, std::array<T, N>& v, S& st) {
    detail::decode_elements(r, v.data(), N, st);
  }
  template <class S>
  static void encode(writer& w, const std::array<T, N>& v, S& st) {
    detail::encode_elements(w, v.data(), N, st);
  }
  template <class S>
  static std::size_t size(const std::array<T, N>& v, S& st) {
    return detail::size_elements(v.data(), N, st);
  }
};

template <class T, std::size_t N>
  requires detail::has_fixed_size<T>
struct traits<std::array<T, N>> {
  static constexpr std::size_t fixed_size = N * traits<T>::fixed_size;
  static constexpr std::size_t min_size = fixed_size;

  template <class S>
  static void decode(reader& r, std::array<T, N>& v, S& st) {
    detail::decode_elements(r, v.data(), N, st);
  }
  template <class S>
  static void encode(writer& w, const std::array<T, N>& v, S& st) {
    detail::encode_elements(w, v.data(), N, st);
  }
  template <class S>
  static constexpr std::size_t size(const std::array<T, N>&, S&) {
    return fixed_size;
  }
};

// ---------------------------------------------------------------------------
// Element sequences (std::array, vectors, strings, views)
// ---------------------------------------------------------------------------
namespace detail {

// Fixed-size records are decoded from a pointer once the whole array has been
// bounds-checked, which keeps arrays of small records as fast as a
// hand-written loop.
template <class T>
void load_fixed(const std::byte* p, T& v, const std::byte* origin);
template <class T>
void store_fixed(std::byte* p, const T& v);

[[noreturn]] inline void fail_count(const reader& r, std::size_t n, std::size_t elem, bool exact) {
  // Name the first element that does not fit, so that a truncated array
  // reads like any other truncation.
  std::size_t fit = r.remaining() / elem;
  std::size_t left = r.remaining() - fit * elem;
  format_error e(exact ? "needs " + std::to_string(elem) + " bytes" : "needs at least " + std::to_string(elem) + " bytes",
                 r.offset() + fit * elem,
                 ", " + std::to_string(left) + " left (" + std::to_string(n) + " elements declared)");
  e.prepend_index(fit);
  throw e;
}

template <class T, class S>
void decode_elements(reader& r, T* out, std::size_t n, S& st) {
  if constexpr (bulk_scalar<T>) {
    if (n > r.remaining() / sizeof(T)) fail_count(r, n, sizeof(T), true);
    load_le_array(r.take(n * sizeof(T)), out, n);
  } else if constexpr (has_positive_fixed_size<T>) {
    constexpr std::size_t fs = traits<T>::fixed_size;
    if (n > r.remaining() / fs) fail_count(r, n, fs, true);
    const std::byte* origin = r.buffer_begin();
    const std::byte* p = r.take(n * fs);
    for (std::size_t i = 0; i < n; ++i) {
      try {
        load_fixed(p + i * fs, out[i], origin);
      } catch (format_error& e) {
        e.prepend_index(i);
        throw;
      }
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      try {
        traits<T>::decode(r, out[i], st);
      } catch (format_error& e) {
        e.prepend_index(i);
        throw;
      }
    }
  }
}

template <class T, class S>
void encode_elements(writer& w, const T* in, std::size_t n, S& st) {
  if constexpr (bulk_scalar<T>) {
    store_le_array(w.reserve(n * sizeof(T)), in, n);
  } else if constexpr (has_fixed_size<T>) {
    constexpr std::size_t fs = traits<T>::fixed_size;
    std::byte* p = w.reserve(n * fs);
    for (std::size_t i = 0; i < n; ++i) store_fixed(p + i * fs, in[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i) traits<T>::encode(w, in[i], st);
  }
}

template <class T, class S>
std::size_t size_elements(const T* in, std::size_t n, S& st) {
  if constexpr (has_fixed_size<T>) {
    (void)in;
    (void)st;
    return n * traits<T>::fixed_size;
  } else {
    const std::size_t at = st.size_at;
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      st.size_at = at + total;
      total += traits<T>::size(in[i], st);
    }
    return total;
  }
}

/// How a container is filled with `n` elements and written back.
template <class C>
struct container_ops;

template <class T, class A>
struct container_ops<std::vector<T, A>> {
  static_assert(!std::is_same_v<T, bool>,
                "tilefmt::codec: std::vector<bool> has no contiguous storage; use std::vector<std::uint8_t>");
  using element = T;
  static constexpr std::size_t element_min = min_size_of<T>() ? min_size_of<T>() : 1;

  template <class S>
  static void decode(reader& r, std::vector<T, A>& v, std::size_t n, S& st) {
    // Never allocate more than the remaining input can justify.
    if (n > r.remaining() / element_min) fail_count(r, n, element_min, has_fixed_size<T>);
    if constexpr (bulk_scalar<T> && sizeof(T) == 1) {
      // One pass: resize() would zero the bytes before they are copied.
      const auto* p = reinterpret_cast<const T*>(r.take(n));
      v.assign(p, p + n);
    } else {
      v.resize(n);
      decode_elements(r, v.data(), n, st);
    }
  }
  template <class S>
  static void decode_rest(reader& r, std::vector<T, A>& v, S& st) {
    if constexpr (has_positive_fixed_size<T>) {
      constexpr std::size_t fs = traits<T>::fixed_size;
      if (r.remaining() % fs != 0)
        throw format_error(std::to_string(r.remaining()) + " bytes left is not a whole number of " +
                               std::to_string(fs) + "-byte elements",
                           r.offset());
      decode(r, v, r.remaining() / fs, st);
    } else {
      v.clear();
      while (!r.at_end()) {
        v.emplace_back();
        try {
          traits<T>::decode(r, v.back(), st);
        } catch (format_error& e) {
          e.prepend_index(v.size() - 1);
          throw;
        }
      }
    }
  }
  template <class S>
  static void encode(writer& w, const std::vector<T, A>& v, S& st) {
    encode_elements(w, v.data(), v.size(), st);
  }
  template <class S>
  static std::size_t size(const std::vector<T, A>& v, S& st) {
    return size_elements(v.data(), v.size(), st);
  }
};

template <class Ch, class Tr, class A>
struct container_ops<std::basic_string<Ch, Tr, A>> {
  static_assert(bulk_scalar<Ch>, "tilefmt::codec: string element type must be a character type");
  using element = Ch;
  static constexpr std::size_t element_min = sizeof(Ch);

  template <class S>
  static void decode(reader& r, std::basic_string<Ch, Tr, A>& v, std::size_t n, S&) {
    if (n > r.remaining() / sizeof(Ch)) fail_count(r, n, sizeof(Ch), true);
    if constexpr (sizeof(Ch) == 1) {
      // One pass, no zeroing first; a string without room is built anew,
      // which skips assign()'s general replace path.
      const auto* p = reinterpret_cast<const Ch*>(r.take(n));
      if (v.capacity() < n)
        v = std::basic_string<Ch, Tr, A>(p, n, v.get_allocator());
      else
        v.assign(p, n);
    } else {
      v.resize(n);
      load_le_array(r.take(n * sizeof(Ch)), v.data(), n);
    }
  }
  template <class S>
  static void decode_rest(reader& r, std::basic_string<Ch, Tr, A>& v, S& st) {
    if (r.remaining() % sizeof(Ch) != 0)
      throw format_error("trailing bytes are not whole characters", r.offset());
    decode(r, v, r.remaining() / sizeof(Ch), st);
  }
  template <class S>
  static void encode(writer& w, const std::basic_string<Ch, Tr, A>& v, S&) {
    store_le_array(w.reserve(v.size() * sizeof(Ch)), v.data(), v.size());
  }
  template <class S>
  static std::size_t size(const std::basic_string<Ch, Tr, A>& v, S&) {
    return v.size() * sizeof(Ch);
  }
};

template <class T>
struct container_ops<le_span<T>> {
  using element = T;
  static constexpr std::size_t element_min = sizeof(T);

  template <class S>
  static void decode(reader& r, le_span<T>& v, std::size_t n, S&) {
    if (n > r.remaining() / sizeof(T)) fail_count(r, n, sizeof(T), true);
    v = le_span<T>(r.take(n * sizeof(T)), n);
  }
  template <class S>
  static void decode_rest(reader& r, le_span<T>& v, S& st) {
    if (r.remaining() % sizeof(T) != 0)
      throw format_error("trailing bytes are not whole elements", r.offset());
    decode(r, v, r.remaining() / sizeof(T), st);
  }
  template <class S>
  static void encode(writer& w, const le_span<T>& v, S&) {
    w.write_bytes(v.bytes().data(), v.bytes().size());
  }
  template <class S>
  static std::size_t size(const le_span<T>& v, S&) {
    return v.size() * sizeof(T);
  }
};

template <class Count>
Count checked_count(std::size_t n) {
  if (n > std::numeric_limits<Count>::max())
    throw std::length_error("tilefmt::codec: " + std::to_string(n) + " elements do not fit in a " +
                            std::to_string(sizeof(Count) * 8) + "-bit count");
  return static_cast<Count>(n);
}

[[noreturn]] inline void fail_no_version(const reader& r) {
  throw format_error("version-gated field, but no format version is known (pass a context with a `version` "
                     "member or declare a version_field earlier)",
                     r.offset());
}

template <class S>
void require_version(const S& st) {
  if (!st.has_version)
    throw std::logic_error("tilefmt::codec: version-gated field encoded without a format version (pass a context "
                           "with a `version` member or declare a version_field earlier)");
}

} // namespace detail

// ---------------------------------------------------------------------------
// Adaptors that stand alone (no reference to sibling fields)
// ---------------------------------------------------------------------------

template <class Count, class C>
struct traits<counted<Count, C>> {
  using ops = detail::container_ops<C>;
  static constexpr std::size_t min_size = sizeof(Count);

  template <class S>
  static void decode(reader& r, counted<Count, C>& v, S& st) {
    std::uint64_t n = r.read<Count>();
    if (n > std::numeric_limits<std::size_t>::max()) r.fail("count does not fit in memory");
    ops::decode(r, v.value, static_cast<std::size_t>(n), st);
  }
  template <class S>
  static void encode(writer& w, const counted<Count, C>& v, S& st) {
    w.write<Count>(detail::checked_count<Count>(v.value.size()));
    ops::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const counted<Count, C>& v, S& st) {
    st.size_at += sizeof(Count);
    return sizeof(Count) + ops::size(v.value, st);
  }
};

template <class C>
struct traits<rest<C>> {
  using ops = detail::container_ops<C>;
  static constexpr std::size_t min_size = 0;

  template <class S>
  static void decode(reader& r, rest<C>& v, S& st) {
    ops::decode_rest(r, v.value, st);
  }
  template <class S>
  static void encode(writer& w, const rest<C>& v, S& st) {
    ops::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const rest<C>& v, S& st) {
    return ops::size(v.value, st);
  }
};

template <class Length, class T>
struct traits<framed<Length, T>> {
  static_assert((detail::check_supported<T>(), true));
  static constexpr std::size_t min_size = sizeof(Length);

  template <class S>
  static void decode(reader& r, framed<Length, T>& v, S& st) {
    std::uint64_t n = r.read<Length>();
    if (n > r.remaining()) r.fail_short(static_cast<std::size_t>(n));
    reader sub = r.sub(static_cast<std::size_t>(n));
    traits<T>::decode(sub, v.value, st);
    if (!sub.at_end())
      throw format_error(std::to_string(sub.remaining()) + " bytes left over inside a " + std::to_string(n) +
                             "-byte frame",
                         sub.offset());
  }
  template <class S>
  static void encode(writer& w, const framed<Length, T>& v, S& st) {
    st.size_at = w.offset() + sizeof(Length);
    w.write<Length>(detail::checked_count<Length>(traits<T>::size(v.value, st)));
    traits<T>::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const framed<Length, T>& v, S& st) {
    st.size_at += sizeof(Length);
    return sizeof(Length) + traits<T>::size(v.value, st);
  }
};

// A framed<> around a field that reads its siblings (switch_on<> in a TLV
// record: type, length, value) is positional as the field is: the frame
// bounds the bytes, the field still sees the enclosing struct.
template <class Length, class T>
  requires detail::positional<T>
struct traits<framed<Length, T>> {
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = sizeof(Length);

  template <std::size_t I, class Parent, class S>
  static void decode_field(reader& r, framed<Length, T>& v, const Parent& parent, std::span<const std::size_t> starts,
                           S& st) {
    std::uint64_t n = r.read<Length>();
    if (n > r.remaining()) r.fail_short(static_cast<std::size_t>(n));
    reader sub = r.sub(static_cast<std::size_t>(n));
    traits<T>::template decode_field<I>(sub, v.value, parent, starts, st);
    if (!sub.at_end())
      throw format_error(std::to_string(sub.remaining()) + " bytes left over inside a " + std::to_string(n) +
                             "-byte frame",
                         sub.offset());
  }
  template <std::size_t I, class Parent, class S>
  static void encode_field(writer& w, const framed<Length, T>& v, const Parent& parent,
                           std::span<const std::size_t> starts, S& st) {
    st.size_at = w.offset() + sizeof(Length);
    w.write<Length>(detail::checked_count<Length>(traits<T>::template size_field<I>(v.value, parent, starts, st)));
    traits<T>::template encode_field<I>(w, v.value, parent, starts, st);
  }
  template <std::size_t I, class Parent, class S>
  static std::size_t size_field(const framed<Length, T>& v, const Parent& parent, std::span<const std::size_t> starts,
                                S& st) {
    st.size_at += sizeof(Length);
    return sizeof(Length) + traits<T>::template size_field<I>(v.value, parent, starts, st);
  }
  template <class F = framed<Length, T>>
    requires requires(const T& t) { traits<T>::held_tag(t); }
  static std::uint64_t held_tag(const F& v) {
    return traits<T>::held_tag(v.value);
  }
  // What a derived<U> field that the wrapped field names is written as (linked.hpp).
  template <std::size_t K, std::size_t I, class Parent, class S>
    requires requires { &traits<T>::template derive<K, I, Parent, S>; }
  static std::uint64_t derive(const framed<Length, T>& v, const Parent& parent, std::span<const std::size_t> starts,
                              std::size_t after_i, S& st) {
    return traits<T>::template derive<K, I>(v.value, parent, starts, after_i, st);
  }
};

template <class T>
struct traits<version_field<T>> {
  static constexpr std::size_t min_size = sizeof(T);

  template <class S>
  static void decode(reader& r, version_field<T>& v, S& st) {
    v.value = r.read<T>();
    st.version = static_cast<std::uint32_t>(v.value);
    st.has_version = true;
  }
  template <class S>
  static void encode(writer& w, const version_field<T>& v, S& st) {
    w.write<T>(v.value);
    st.version = static_cast<std::uint32_t>(v.value);
    st.has_version = true;
  }
  template <class S>
  static std::size_t size(const version_field<T>& v, S& st) {
    st.version = static_cast<std::uint32_t>(v.value);
    st.has_version = true;
    return sizeof(T);
  }
};

namespace detail {
template <class Gate, class S>
bool gate_open(const S& st) {
  if constexpr (is_since<Gate>::value)
    return st.version >= Gate::version;
  else
    return st.version < Gate::version;
}

template <class Gate>
struct gated_traits {
  using T = typename Gate::value_type;
  static_assert((check_supported<T>(), true));
  static constexpr std::size_t min_size = 0;

  template <class S>
  static void decode(reader& r, Gate& v, S& st) {
    if (!st.has_version) fail_no_version(r);
    if (gate_open<Gate>(st)) traits<T>::decode(r, v.value, st);
  }
  template <class S>
  static void encode(writer& w, const Gate& v, S& st) {
    require_version(st);
    if (gate_open<Gate>(st)) traits<T>::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const Gate& v, S& st) {
    require_version(st);
    return gate_open<Gate>(st) ? traits<T>::size(v.value, st) : 0;
  }
};
} // namespace detail

template <std::uint32_t V, class T>
struct traits<since<V, T>> : detail::gated_traits<since<V, T>> {};
template <std::uint32_t V, class T>
struct traits<until<V, T>> : detail::gated_traits<until<V, T>> {};

} // namespace tilefmt::codec
