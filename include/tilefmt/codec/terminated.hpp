// tilefmt — sequences whose end is marked in the data rather than counted:
// null_terminated<std::string> (cstring), the characters up to a NUL byte,
// and repeat_until<Pred, std::vector<T>>, elements up to and including the
// first one that Pred accepts (a terminator value, an end chunk).
//
// A sequence that runs to the end of the enclosing region (a framed<> body
// or the whole buffer) is rest<C>, in adaptors.hpp.
//
// Neither reserves memory from a count: a string's length is found by
// searching the bytes present before anything is allocated, and each element
// of a repeat_until<> is decoded from bytes present (an element that takes
// no bytes is an error, so the loop always advances).
#pragma once

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// Characters followed by a NUL byte, which is not part of the value. The
/// value cannot hold a NUL itself: encode refuses one (std::invalid_argument),
/// since decode would stop there.
template <class String>
struct null_terminated {
  static_assert(detail::is_string<String>::value && sizeof(typename String::value_type) == 1,
                "tilefmt::codec: null_terminated<S>: S must be a string of 1-byte characters (std::string)");
  using codec_field_adaptor = void;
  using value_type = String;
  String value{};
  TILEFMT_CODEC_VALUE_ACCESS(String)
  friend bool operator==(const null_terminated&, const null_terminated&) = default;
};

/// A C string: characters, then a NUL.
using cstring = null_terminated<std::string>;

/// Elements up to and including the first for which `Pred{}(element)` (or
/// `Pred{}(element, ctx)`) is true. Running out of bytes before that element
/// is an error. On encode the last element must be the only one Pred accepts
/// (std::invalid_argument otherwise), so that decode reads back the same.
template <class Pred, class Container>
struct repeat_until {
  static_assert(detail::is_vector<Container>::value,
                "tilefmt::codec: repeat_until<Pred, C>: C must be a std::vector");
  using codec_field_adaptor = void;
  using predicate = Pred;
  using container_type = Container;
  Container value{};
  TILEFMT_CODEC_CONTAINER_ACCESS
  friend bool operator==(const repeat_until&, const repeat_until&) = default;
};

/// Predicate for repeat_until<>: the element equals `Value`
/// (`repeat_until<element_equals<0>, std::vector<std::uint16_t>>`).
template <auto Value>
struct element_equals {
  template <class T>
  constexpr bool operator()(const T& element) const {
    return detail::unwrap(element) == Value;
  }
};

template <class String>
struct traits<null_terminated<String>> {
  using Ch = typename String::value_type;
  static constexpr std::size_t min_size = 1;

  template <class S>
  static void decode(reader& r, null_terminated<String>& v, S&) {
    const std::byte* start = r.position();
    const void* nul = r.remaining() ? std::memchr(start, 0, r.remaining()) : nullptr;
    if (!nul)
      throw format_error("no NUL terminator in the " + std::to_string(r.remaining()) + " bytes left", r.offset());
    const std::size_t n = static_cast<std::size_t>(static_cast<const std::byte*>(nul) - start);
    if constexpr (sizeof(Ch) == 1) {
      const auto* p = reinterpret_cast<const Ch*>(r.take(n));
      v.value.assign(p, p + n);  // one pass, no zeroing first
    } else {
      v.value.resize(n);
      if (n) std::memcpy(v.value.data(), r.take(n), n);
    }
    r.take(1);
  }
  template <class S>
  static void encode(writer& w, const null_terminated<String>& v, S&) {
    const std::size_t n = v.value.size();
    if (n && std::memchr(v.value.data(), 0, n))
      throw std::invalid_argument("tilefmt::codec: a null_terminated<> string holds a NUL at position " +
                                  std::to_string(v.value.find(Ch{})) + "; decode would stop there");
    std::byte* p = w.reserve(n + 1);
    if (n) std::memcpy(p, v.value.data(), n);
    p[n] = std::byte{0};
  }
  template <class S>
  static std::size_t size(const null_terminated<String>& v, S&) {
    return v.value.size() + 1;
  }
};

namespace detail {
template <class Pred, class T, class S>
bool ends_sequence(const T& element, const S& st) {
  if constexpr (std::is_invocable_r_v<bool, Pred, const T&, decltype(st.ctx)>) {
    return Pred{}(element, st.ctx);
  } else {
    static_assert(std::is_invocable_r_v<bool, Pred, const T&>,
                  "tilefmt::codec: repeat_until<Pred, C>: Pred must be callable as Pred{}(element) or "
                  "Pred{}(element, ctx) returning bool");
    return Pred{}(element);
  }
}
} // namespace detail

template <class Pred, class Container>
struct traits<repeat_until<Pred, Container>> {
  using T = typename Container::value_type;
  static_assert((detail::check_supported<T>(), true));
  static constexpr std::size_t min_size = detail::min_size_of<T>();

  template <class S>
  static void decode(reader& r, repeat_until<Pred, Container>& v, S& st) {
    v.value.clear();
    for (;;) {
      if (r.at_end())
        throw format_error("the input ends before the element that ends the sequence (" +
                               std::string(type_name<Pred>) + ")",
                           r.offset(), " (" + std::to_string(v.value.size()) + " elements read)");
      const std::size_t before = r.offset();
      v.value.emplace_back();
      try {
        traits<T>::decode(r, v.value.back(), st);
        if (detail::ends_sequence<Pred>(v.value.back(), st)) return;
        if (r.offset() == before) r.fail("an element that takes no bytes does not end the sequence");
      } catch (format_error& e) {
        e.prepend_index(v.value.size() - 1);
        throw;
      }
    }
  }
  template <class S>
  static void encode(writer& w, const repeat_until<Pred, Container>& v, S& st) {
    if (v.value.empty())
      throw std::invalid_argument("tilefmt::codec: repeat_until<> is empty: it needs the element that ends it");
    for (std::size_t i = 0; i < v.value.size(); ++i) {
      if (detail::ends_sequence<Pred>(v.value[i], st) != (i + 1 == v.value.size()))
        throw std::invalid_argument(
            "tilefmt::codec: repeat_until<> holds " + std::to_string(v.value.size()) + " elements, but element " +
            std::to_string(i) + (i + 1 == v.value.size() ? " (the last) does not end the sequence"
                                                         : " ends the sequence; decode would stop there"));
      traits<T>::encode(w, v.value[i], st);
    }
  }
  template <class S>
  static std::size_t size(const repeat_until<Pred, Container>& v, S& st) {
    return detail::size_elements(v.value.data(), v.value.size(), st);
  }
};

} // namespace tilefmt::codec
