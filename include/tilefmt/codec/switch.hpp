// tilefmt — tagged unions: a std::variant whose alternative a tag selects,
// from a table of tag -> type.
//
//   codec::tagged<std::uint8_t, codec::alt<1, Point>, codec::alt<2, Text>> shape;
//       the tag is read just before the value (deku's `id` enums)
//
//   codec::derived<std::uint8_t> type;
//   codec::framed<std::uint16_t, codec::switch_on<"type", codec::alt<1, Point>,
//                                                 codec::otherwise<codec::rest<std::vector<std::byte>>>>> value;
//       the tag is the earlier field called "type" (Kaitai's switch-on), here
//       a TLV record: type, length, value
//
// `value` holds std::variant<Point, Text, ...> in the order of the table. On
// encode the tag comes from the alternative held: tagged<> writes it, and a
// switch_on<>'s tag field, declared derived<U> (linked.hpp), is written from
// it; a plain tag field is written as it is and must agree
// (std::invalid_argument otherwise, since decode would choose another
// alternative).
//
// A tag that is not in the table is a format_error naming the tag and the
// tags known, at the tag's offset; unless the table ends with
// otherwise<Body>: then the value holds unknown<Body>, with the tag and the
// Body decoded from the bytes (in a TLV format, rest<std::vector<std::byte>>
// inside the frame keeps the bytes as they were, so encode reproduces them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/fixed_string.hpp"
#include "tilefmt/codec/linked.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// One row of the table: tag `Tag` (an integer or an enum) selects T.
template <auto Tag, class T>
struct alt {
  static constexpr auto tag = Tag;
  using type = T;
};

/// What otherwise<Body> decodes a tag outside the table into.
template <class Body>
struct unknown {
  using codec_field_adaptor = void;
  using value_type = Body;
  std::uint64_t tag{};
  Body value{};
  friend bool operator==(const unknown&, const unknown&) = default;
};

/// The last row of a table: every other tag, decoded as Body and kept.
template <class Body>
struct otherwise {
  using type = unknown<Body>;
};

namespace detail {
template <class C> struct is_alt : std::false_type {};
template <auto Tag, class T> struct is_alt<alt<Tag, T>> : std::true_type {};
template <class C> struct is_otherwise : std::false_type {};
template <class B> struct is_otherwise<otherwise<B>> : std::true_type {};

template <class C>
constexpr std::uint64_t case_tag() {
  if constexpr (is_alt<C>::value)
    return raw_integer(C::tag);
  else
    return 0;
}

template <class... Cases>
struct case_table {
  using variant = std::variant<typename Cases::type...>;
  static constexpr std::size_t count = sizeof...(Cases);
  static constexpr std::array<bool, count> rows_are_alt{is_alt<Cases>::value...};
  static constexpr bool keeps_unknown = is_otherwise<std::tuple_element_t<count - 1, std::tuple<Cases...>>>::value;
  static constexpr std::size_t known = keeps_unknown ? count - 1 : count;
  static constexpr std::array<std::uint64_t, count> tags{case_tag<Cases>()...};

  static consteval bool well_formed() {
    for (std::size_t i = 0; i < known; ++i)
      if (!rows_are_alt[i]) return false;
    return true;
  }
  static consteval bool distinct() {
    for (std::size_t i = 0; i < known; ++i)
      for (std::size_t j = i + 1; j < known; ++j)
        if (tags[i] == tags[j]) return false;
    return true;
  }
  static_assert(count > 0, "tilefmt::codec: a tagged union needs at least one alt<Tag, T>");
  static_assert(well_formed(), "tilefmt::codec: a tagged union's table is alt<Tag, T> rows, then at most one "
                               "otherwise<Body>, last");
  static_assert(distinct(), "tilefmt::codec: two alt<Tag, T> rows of a tagged union have the same tag");
  static_assert(((check_supported<typename Cases::type>(), ...), true));

  static constexpr bool is_known(std::uint64_t tag) {
    for (std::size_t i = 0; i < known; ++i)
      if (tags[i] == tag) return true;
    return false;
  }

  static std::string known_tags() {
    std::string s;
    for (std::size_t i = 0; i < known; ++i) s += (i ? ", " : "") + std::to_string(tags[i]);
    return s;
  }

  /// Decodes the alternative `tag` selects; `what` names the tag in errors
  /// ("tag", "field type") and `tag_at` is its offset.
  template <class S>
  static void decode(reader& r, variant& v, std::uint64_t tag, std::string_view what, std::size_t tag_at, S& st) {
    const bool found = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return ((tags[K] == tag && (traits<std::variant_alternative_t<K, variant>>::decode(r, v.template emplace<K>(), st),
                                  true)) ||
              ...);
    }(std::make_index_sequence<known>{});
    if (found) return;
    if constexpr (keeps_unknown) {
      auto& u = v.template emplace<known>();
      u.tag = tag;
      traits<typename std::variant_alternative_t<known, variant>::value_type>::decode(r, u.value, st);
    } else {
      throw format_error("unknown " + std::string(what) + " " + std::to_string(tag) + " (known: " + known_tags() + ")",
                         tag_at);
    }
  }

  /// The tag of the alternative `v` holds.
  static std::uint64_t tag_of(const variant& v) {
    if (v.valueless_by_exception())
      throw std::invalid_argument("tilefmt::codec: a tagged union holds no value (valueless_by_exception)");
    if (v.index() < known) return tags[v.index()];
    if constexpr (keeps_unknown) {
      const std::uint64_t tag = std::get<known>(v).tag;
      if (is_known(tag))
        throw std::invalid_argument("tilefmt::codec: a tagged union holds unknown<> with tag " + std::to_string(tag) +
                                    ", which the table knows; decode would read another alternative");
      return tag;
    }
    return 0;  // not reached: every index below `count` is known or the unknown row
  }

  // unknown<Body> encodes its Body alone (its traits are below).
  template <class S>
  static void encode(writer& w, const variant& v, S& st) {
    std::visit([&]<class A>(const A& a) { traits<A>::encode(w, a, st); }, v);
  }
  template <class S>
  static std::size_t size(const variant& v, S& st) {
    if (v.valueless_by_exception()) return 0;
    return std::visit([&]<class A>(const A& a) -> std::size_t { return traits<A>::size(a, st); }, v);
  }

};
} // namespace detail

/// A tag of type Tag (an integer, an enum, big<T>, ...) and the alternative
/// it selects.
template <class Tag, class... Cases>
struct tagged {
  using codec_field_adaptor = void;
  using tag_type = Tag;
  using value_type = std::variant<typename Cases::type...>;
  value_type value{};
  TILEFMT_CODEC_VALUE_ACCESS(value_type)
  friend bool operator==(const tagged&, const tagged&) = default;
};

/// The alternative that the earlier field called `TagField` selects.
template <fixed_string TagField, class... Cases>
struct switch_on {
  using codec_field_adaptor = void;
  static constexpr std::string_view linked_field = TagField;
  using value_type = std::variant<typename Cases::type...>;
  value_type value{};
  TILEFMT_CODEC_VALUE_ACCESS(value_type)
  friend bool operator==(const switch_on&, const switch_on&) = default;
};

template <class Tag, class... Cases>
struct traits<tagged<Tag, Cases...>> {
  using table = detail::case_table<Cases...>;
  static_assert((detail::check_supported<Tag>(), true));
  static_assert(detail::is_integer_like<Tag>(),
                "tilefmt::codec: tagged<Tag, ...>: Tag must be an integer, an enum, or big<T>/ordered<T> of one");
  static constexpr std::size_t min_size = detail::min_size_of<Tag>();

  template <class S>
  static void decode(reader& r, tagged<Tag, Cases...>& v, S& st) {
    const std::size_t at = r.offset();
    Tag tag{};
    traits<Tag>::decode(r, tag, st);
    table::decode(r, v.value, detail::raw_integer(tag), "tag", at, st);
  }
  template <class S>
  static void encode(writer& w, const tagged<Tag, Cases...>& v, S& st) {
    const std::uint64_t tag = table::tag_of(v.value);
    if (!detail::fits_in<Tag>(tag))
      throw std::length_error("tilefmt::codec: tagged<>: tag " + std::to_string(tag) + " does not fit in " +
                              std::string(type_name<Tag>));
    traits<Tag>::encode(w, detail::from_raw_integer<Tag>(tag), st);
    table::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const tagged<Tag, Cases...>& v, S& st) {
    const std::size_t tag_size = traits<Tag>::size(Tag{}, st);
    st.size_at += tag_size;
    return tag_size + table::size(v.value, st);
  }
};

template <fixed_string TagField, class... Cases>
struct traits<switch_on<TagField, Cases...>> {
  using F = switch_on<TagField, Cases...>;
  using table = detail::case_table<Cases...>;
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = 0;

  template <class Parent, std::size_t I>
  static consteval std::size_t tag_field() {
    constexpr std::size_t j = field_index<Parent>(F::linked_field);
    static_assert(j != no_such_field, "tilefmt::codec: switch_on<Name, ...>: the struct has no field of that name");
    static_assert(j == no_such_field || j < I,
                  "tilefmt::codec: switch_on<Name, ...> must name a field before it (the decoder reads the tag first)");
    return j;
  }

  template <std::size_t I, class Parent, class S>
  static void decode_field(reader& r, F& v, const Parent& parent, std::span<const std::size_t> starts, S& st) {
    constexpr std::size_t j = tag_field<Parent, I>();
    const std::uint64_t tag = detail::raw_integer(boost::pfr::get<j>(parent));
    table::decode(r, v.value, tag, "tag " + std::string(F::linked_field), starts[j], st);
  }
  template <std::size_t I, class Parent, class S>
  static void encode_field(writer& w, const F& v, const Parent& parent, std::span<const std::size_t>, S& st) {
    constexpr std::size_t j = tag_field<Parent, I>();
    const std::uint64_t tag = table::tag_of(v.value);
    using FJ = boost::pfr::tuple_element_t<j, Parent>;
    if constexpr (!detail::is_derived<FJ>::value) {
      const std::uint64_t held = detail::raw_integer(boost::pfr::get<j>(parent));
      if (held != tag)
        throw std::invalid_argument("tilefmt::codec: switch_on<> field " + std::string(field_name<Parent, I>) +
                                    " holds the alternative of tag " + std::to_string(tag) + ", but field " +
                                    std::string(F::linked_field) + " holds " + std::to_string(held) +
                                    " (declare it derived<U> to have it written from the alternative)");
    }
    table::encode(w, v.value, st);
  }
  template <std::size_t I, class Parent, class S>
  static std::size_t size_field(const F& v, const Parent&, std::span<const std::size_t>, S& st) {
    return table::size(v.value, st);
  }
  /// The tag of the alternative held (what dumps show for the tag field).
  static std::uint64_t held_tag(const F& v) { return table::tag_of(v.value); }
  /// The tag a derived<U> field named by this one is written as.
  template <std::size_t K, std::size_t I, class Parent, class S>
  static std::uint64_t derive(const F& v, const Parent&, std::span<const std::size_t>, std::size_t, S&) {
    return table::tag_of(v.value);
  }
};

template <class Body>
struct traits<unknown<Body>> {
  // Only inside a tagged union's table, which encodes the Body alone.
  static constexpr std::size_t min_size = detail::min_size_of<Body>();
  template <class S>
  static void decode(reader& r, unknown<Body>& v, S& st) {
    traits<Body>::decode(r, v.value, st);
  }
  template <class S>
  static void encode(writer& w, const unknown<Body>& v, S& st) {
    traits<Body>::encode(w, v.value, st);
  }
  template <class S>
  static std::size_t size(const unknown<Body>& v, S& st) {
    return traits<Body>::size(v.value, st);
  }
};

} // namespace tilefmt::codec
