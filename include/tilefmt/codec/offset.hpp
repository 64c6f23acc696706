// tilefmt — offsets: structures found at a position another field holds.
//
//   codec::derived<std::uint64_t> table_offset;     // written as where the table lands
//   ...
//   codec::at<"table_offset", Table> table;         // decoded from that position
//
// at<"field", T> decodes T, eagerly, at the position held by the earlier
// field `field`, counted from the start of the buffer being decoded (ELF's
// e_shoff, a footer's offsets). The position must not lie before the
// at<> field itself: the bytes from there to the position (what the
// declaration does not describe: ELF's section contents) are kept in
// `skipped`, so that encode writes them back and the round trip stays
// exact. On encode, a derived<U> offset field (linked.hpp) is written as the
// position T lands at; a plain one must hold it (std::invalid_argument
// otherwise, since decode would look elsewhere).
//
// T may be sized<Len, C>, whose length Len{}(parent) computes from the
// struct's fields (ELF: the section headers, e_shnum of them).
//
// An offset past the end of the input is a format_error naming the at<>
// field and the offset field, at the offset field's position. To follow an
// offset that points back into bytes already decoded (ZIP's central
// directory, found from the end record), decode from the position when it
// is needed: decode_at<T>(bytes, position) (codec.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/codec/adaptors.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/fixed_string.hpp"
#include "tilefmt/codec/linked.hpp"
#include "tilefmt/codec/names.hpp"
#include "tilefmt/codec/record.hpp"
#include "tilefmt/codec/traits.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// A T at the position the earlier field `OffsetField` holds.
template <fixed_string OffsetField, class T>
struct at {
  using codec_field_adaptor = void;
  static constexpr std::string_view linked_field = OffsetField;
  using value_type = T;
  /// The bytes between where this field stands and the position.
  std::vector<std::byte> skipped{};
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  friend bool operator==(const at&, const at&) = default;
};

template <fixed_string OffsetField, class T>
struct traits<at<OffsetField, T>> {
  using F = at<OffsetField, T>;
  static constexpr bool positional = true;
  static constexpr std::size_t min_size = 0;
  static constexpr bool sized_value = detail::is_sized<T>::value;
  static consteval bool check() {
    if constexpr (!sized_value) detail::check_supported<T>();
    return true;
  }
  static_assert(check());

  template <class Parent, std::size_t I>
  static consteval std::size_t offset_field() {
    constexpr std::size_t j = field_index<Parent>(F::linked_field);
    static_assert(j != no_such_field, "tilefmt::codec: at<Name, T>: the struct has no field of that name");
    static_assert(j == no_such_field || j < I,
                  "tilefmt::codec: at<Name, T> must name a field before it (the decoder reads the offset first)");
    return j;
  }

  template <std::size_t I, class Parent, class S>
  static void decode_field(reader& r, F& v, const Parent& parent, std::span<const std::size_t> starts, S& st) {
    constexpr std::size_t j = offset_field<Parent, I>();
    const std::uint64_t position = detail::raw_integer(boost::pfr::get<j>(parent));
    const std::size_t here = r.offset();
    if (position < here)
      throw format_error("offset " + std::to_string(position) + " (field " + std::string(F::linked_field) +
                             ") points before this field (at " + std::to_string(here) +
                             "); decode what it points to with decode_at",
                         starts[j]);
    if (position - here > r.remaining())
      throw format_error("offset " + std::to_string(position) + " (field " + std::string(F::linked_field) +
                             ") is past the end of the input (" + std::to_string(here + r.remaining()) + " bytes)",
                         starts[j]);
    const std::size_t gap = static_cast<std::size_t>(position - here);
    const std::byte* skipped = r.take(gap);
    v.skipped.assign(skipped, skipped + gap);
    if constexpr (sized_value)
      detail::container_ops<typename T::container_type>::decode(
          r, v.value.value, detail::eval_length<typename T::length>(parent, st), st);
    else
      traits<T>::decode(r, v.value, st);
  }

  template <std::size_t I, class Parent, class S>
  static void encode_field(writer& w, const F& v, const Parent& parent, std::span<const std::size_t>, S& st) {
    constexpr std::size_t j = offset_field<Parent, I>();
    using FJ = boost::pfr::tuple_element_t<j, Parent>;
    w.write_bytes(v.skipped.data(), v.skipped.size());
    if constexpr (!detail::is_derived<FJ>::value) {
      const std::uint64_t held = detail::raw_integer(boost::pfr::get<j>(parent));
      if (held != w.offset())
        throw std::invalid_argument("tilefmt::codec: at<> field " + std::string(field_name<Parent, I>) +
                                    " lands at offset " + std::to_string(w.offset()) + ", but field " +
                                    std::string(F::linked_field) + " holds " + std::to_string(held) +
                                    " (declare it derived<U> to have it computed)");
    }
    if constexpr (sized_value) {
      const std::size_t n = detail::eval_length<typename T::length>(parent, st);
      if (n != v.value.value.size())
        throw std::length_error("tilefmt::codec: at<> field " + std::string(field_name<Parent, I>) + " holds " +
                                std::to_string(v.value.value.size()) + " elements, its length function says " +
                                std::to_string(n));
      detail::container_ops<typename T::container_type>::encode(w, v.value.value, st);
    } else {
      traits<T>::encode(w, v.value, st);
    }
  }

  template <class S>
  static std::size_t value_size(const F& v, S& st) {
    if constexpr (sized_value)
      return detail::container_ops<typename T::container_type>::size(v.value.value, st);
    else
      return traits<T>::size(v.value, st);
  }

  template <std::size_t I, class Parent, class S>
  static std::size_t size_field(const F& v, const Parent&, std::span<const std::size_t>, S& st) {
    st.size_at += v.skipped.size();
    return v.skipped.size() + value_size(v, st);
  }

  /// The position a derived<U> offset field (field Jd, written before this
  /// one, field K) is written as: where T will land, after the fields
  /// between and the skipped bytes.
  template <std::size_t K, std::size_t Jd, class Parent, class S>
  static std::uint64_t derive(const F& v, const Parent& parent, std::span<const std::size_t> starts,
                              std::size_t after_j, S& st) {
    std::array<std::size_t, boost::pfr::tuple_size_v<Parent> + 1> local{};
    std::copy(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(Jd + 1), local.begin());
    std::size_t position = after_j;
    [&]<std::size_t... M>(std::index_sequence<M...>) {
      ((local[Jd + 1 + M] = position, st.size_at = position,
        position += detail::size_field<Parent, Jd + 1 + M>(parent, local, st)),
       ...);
    }(std::make_index_sequence<K - Jd - 1>{});
    return position + v.skipped.size();
  }
};

} // namespace tilefmt::codec
