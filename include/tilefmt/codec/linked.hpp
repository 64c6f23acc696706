// tilefmt — derived<U>: a field whose value a later field of the same struct
// computes on encode, the way count_of<> takes its count from the container
// it names. The later field names this one:
//
//   codec::derived<std::uint8_t> type;                        // written from body's alternative
//   codec::switch_on<"type", codec::alt<1, A>, ...> body;     // switch.hpp
//
//   codec::derived<std::uint64_t> table_offset;               // written as where `table` lands
//   codec::at<"table_offset", Table> table;                   // offset.hpp
//
// Decode reads U and keeps it in `value`, for the later field to use; encode
// ignores `value` and writes what the later field says, so the two cannot
// disagree. Dumps show what encode would write when the later field can say
// it without encoding (a switch_on<>'s tag; an at<>'s position needs the
// bytes, so there the dump shows what was decoded). U is an unsigned
// integer, an enum, or an adaptor holding one (big<T>, ordered<T>).
//
// A later field that links to an earlier one says so with
//   static constexpr std::string_view linked_field = "name";
// in its type, and its traits provide
//   template <std::size_t K, std::size_t I, class Parent, class S>
//   static std::uint64_t derive(const F&, const Parent&, std::span<const std::size_t> starts,
//                               std::size_t after_i, S&);
// which returns the value field I must hold; after_i is the writer offset
// just past field I.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// A U that the later field naming it computes on encode.
template <class U>
struct derived {
  using codec_field_adaptor = void;
  using value_type = U;
  U value{};
  TILEFMT_CODEC_VALUE_ACCESS(U)
  // Derived from the field that names it, like count_of<>: two structs are
  // equal when those fields are.
  friend constexpr bool operator==(const derived&, const derived&) noexcept { return true; }
};

namespace detail {

template <class T> struct is_derived : std::false_type {};
template <class U> struct is_derived<derived<U>> : std::true_type {};

/// The integer held by an integer, an enum or an adaptor around one.
template <class U>
constexpr std::uint64_t raw_integer(const U& v) {
  if constexpr (declared_adaptor<U> && requires { v.value; })
    return raw_integer(v.value);
  else if constexpr (std::is_enum_v<U>)
    return static_cast<std::uint64_t>(to_raw(v));
  else
    return static_cast<std::uint64_t>(v);
}

/// The U holding `raw` (the inverse of raw_integer where `raw` fits).
template <class U>
constexpr U from_raw_integer(std::uint64_t raw) {
  if constexpr (declared_adaptor<U> && requires { typename U::value_type; }) {
    U u{};
    u.value = from_raw_integer<typename U::value_type>(raw);
    return u;
  } else if constexpr (std::is_enum_v<U>) {
    return static_cast<U>(static_cast<std::underlying_type_t<U>>(raw));
  } else {
    return static_cast<U>(raw);
  }
}

/// An integer, an enum, or an adaptor holding one (what a tag or an offset can be).
template <class U>
consteval bool is_integer_like() {
  if constexpr (declared_adaptor<U> && requires { typename U::value_type; })
    return is_integer_like<typename U::value_type>();
  else
    return (std::is_integral_v<U> && !std::is_same_v<U, bool>) || std::is_enum_v<U>;
}

template <class U>
constexpr bool fits_in(std::uint64_t raw) {
  return raw_integer(from_raw_integer<U>(raw)) == raw;
}

/// The name of the earlier field that field type F links to ("" for none):
/// its own linked_field, or that of the field a framed<> wraps.
template <class F>
consteval std::string_view linked_name() {
  if constexpr (requires { std::string_view(F::linked_field); })
    return F::linked_field;
  else if constexpr (is_framed<F>::value)
    return linked_name<typename F::value_type>();
  else
    return {};
}

/// The first field after I of Parent that names field I, or npos.
template <class Parent, std::size_t I>
consteval std::size_t deriving_field() {
  std::size_t found = no_such_field;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          using F = boost::pfr::tuple_element_t<K, Parent>;
          if constexpr (!linked_name<F>().empty())
            if (found == no_such_field && K > I && field_index<Parent>(linked_name<F>()) == I) found = K;
        }(),
        ...);
  }(std::make_index_sequence<boost::pfr::tuple_size_v<Parent>>{});
  return found;
}

} // namespace detail

template <class U>
struct traits<derived<U>> {
  static_assert(detail::is_integer_like<U>(),
                "tilefmt::codec: derived<U>: U must be an integer, an enum, or big<T>/ordered<T> of one");
  static_assert((detail::check_supported<U>(), true));
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = detail::min_size_of<U>();

  template <class Parent, std::size_t I>
  static consteval std::size_t source() {
    constexpr std::size_t k = detail::deriving_field<Parent, I>();
    static_assert(k != no_such_field,
                  "tilefmt::codec: derived<U>: no later field of the struct names this one (switch_on<\"name\", "
                  "...> or at<\"name\", T>); declare a plain U if nothing computes it");
    return k;
  }

  template <std::size_t I, class Parent, class S>
  static void decode_field(reader& r, derived<U>& v, const Parent&, std::span<const std::size_t>, S& st) {
    (void)source<Parent, I>();
    traits<U>::decode(r, v.value, st);
  }
  template <std::size_t I, class Parent, class S>
  static void encode_field(writer& w, const derived<U>& v, const Parent& parent, std::span<const std::size_t> starts,
                           S& st) {
    constexpr std::size_t k = source<Parent, I>();
    if constexpr (k != no_such_field) {
      st.size_at = w.offset();
      encode_from<k, I>(w, parent, starts, w.offset() + traits<U>::size(v.value, st), st);
    }
  }
  template <std::size_t I, class Parent, class S>
  static std::size_t size_field(const derived<U>& v, const Parent&, std::span<const std::size_t>, S& st) {
    return traits<U>::size(v.value, st);
  }

private:
  template <std::size_t k, std::size_t I, class Parent, class S>
  static void encode_from(writer& w, const Parent& parent, std::span<const std::size_t> starts, std::size_t after,
                          S& st) {
    using FK = boost::pfr::tuple_element_t<k, Parent>;
    const std::uint64_t raw =
        traits<FK>::template derive<k, I>(boost::pfr::get<k>(parent), parent, starts, after, st);
    if (!detail::fits_in<U>(raw))
      throw std::length_error("tilefmt::codec: derived<> field " + std::string(field_name<Parent, I>) +
                              ": the value " + std::to_string(raw) + " that field " +
                              std::string(field_name<Parent, k>) + " gives it does not fit in " +
                              std::string(type_name<U>));
    traits<U>::encode(w, detail::from_raw_integer<U>(raw), st);
  }
};

} // namespace tilefmt::codec
