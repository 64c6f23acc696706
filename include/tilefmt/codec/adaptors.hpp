// tilefmt — field adaptors: what a plain C++ member type cannot say about its
// bytes. Each adaptor is a small aggregate holding the value, so a format
// struct stays an aggregate that Boost.PFR can walk, and each has exactly one
// codec specialization (codec/traits.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tilefmt/codec/fixed_string.hpp"

namespace tilefmt::codec {

// Adaptors stay aggregates without base classes so that a format struct can
// be brace-initialised field by field (`{.fill_value = {bytes}}`). The two
// macros stay defined for the adaptors declared in other headers.
#define TILEFMT_CODEC_VALUE_ACCESS(T)                                          \
  constexpr T& operator*() noexcept { return value; }                          \
  constexpr const T& operator*() const noexcept { return value; }              \
  constexpr T* operator->() noexcept { return &value; }                        \
  constexpr const T* operator->() const noexcept { return &value; }
#define TILEFMT_CODEC_CONTAINER_ACCESS                                         \
  auto size() const noexcept { return value.size(); }                          \
  bool empty() const noexcept { return value.empty(); }                        \
  decltype(auto) operator[](std::size_t i) { return value[i]; }                \
  decltype(auto) operator[](std::size_t i) const { return value[i]; }          \
  auto begin() { return value.begin(); }                                       \
  auto end() { return value.end(); }                                           \
  auto begin() const { return value.begin(); }                                 \
  auto end() const { return value.end(); }

/// A container preceded by its element count, stored as `Count`
/// (`counted<std::uint32_t, std::string>` is a u32 length then the bytes).
template <class Count, class Container>
struct counted {
  static_assert(std::is_integral_v<Count> && std::is_unsigned_v<Count>,
                "counted<Count, C>: Count must be an unsigned integer type (the width of the stored count)");
  using count_type = Count;
  using container_type = Container;
  Container value{};

  TILEFMT_CODEC_CONTAINER_ACCESS
  friend bool operator==(const counted&, const counted&) = default;
};

namespace detail {
// The integer inside a count type: Count itself, or T for a byte-order
// wrapper such as big<T> (endian.hpp).
template <class Count>
struct count_integer {
  using type = Count;
};
template <class Count>
  requires requires { typename Count::codec_field_adaptor; typename Count::value_type; }
struct count_integer<Count> {
  using type = typename Count::value_type;
};
} // namespace detail

/// The element count of the field called `Name` in the same struct, stored
/// here rather than next to its elements (`count_of<"data_parts",
/// std::uint32_t>`). The name is resolved when the struct is compiled; the
/// container may come anywhere after the count. On encode the count is taken
/// from the container, so the two cannot disagree; after decode `value` holds
/// what was read. Count may also be big<U> (a big-endian count, as PNG's
/// chunk lengths) or little<U>.
template <fixed_string Name, class Count>
struct count_of {
  static_assert(std::is_integral_v<typename detail::count_integer<Count>::type> &&
                    std::is_unsigned_v<typename detail::count_integer<Count>::type>,
                "count_of<Name, Count>: Count must be an unsigned integer type (or big<U> of one)");
  static constexpr std::string_view field = Name;
  using count_type = Count;
  Count value{};
  // The count is derived from the container it counts, so two structs are
  // equal when their containers are, whatever was last decoded here.
  friend constexpr bool operator==(const count_of&, const count_of&) noexcept { return true; }
};

/// The format version for the rest of the enclosing struct (and the structs
/// nested in it) is the value of this field.
template <class T>
struct version_field {
  static_assert(std::is_integral_v<T>, "version_field<T>: T must be an integer type");
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  constexpr operator T() const noexcept { return value; }
  friend bool operator==(const version_field&, const version_field&) = default;
};

/// Present only when the format version is >= `Version`.
template <std::uint32_t Version, class T>
struct since {
  static constexpr std::uint32_t version = Version;
  using value_type = T;
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  friend bool operator==(const since&, const since&) = default;
};

/// Present only when the format version is < `Version`.
template <std::uint32_t Version, class T>
struct until {
  static constexpr std::uint32_t version = Version;
  using value_type = T;
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  friend bool operator==(const until&, const until&) = default;
};

/// Present only when `Pred{}(parent, ctx)` (or `Pred{}(parent)`) is true;
/// `parent` is the enclosing struct with the earlier fields already decoded.
template <class Pred, class T>
struct when {
  using predicate = Pred;
  using value_type = T;
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  friend bool operator==(const when&, const when&) = default;
};

/// Predicate for `when<>`: the parent's field called `Name`, which must come
/// before the when<> field, equals `Value` (`field_equals<"has_note", 1>`).
template <fixed_string Name, auto Value>
struct field_equals {
  static constexpr std::string_view field = Name;
  static constexpr auto value = Value;
};

/// A container whose element count is not stored: `Len{}(parent, ctx)` (or
/// `Len{}(parent)`) computes it from earlier fields or from the caller's
/// context (`ctx`).
template <class Len, class Container>
struct sized {
  using length = Len;
  using container_type = Container;
  Container value{};
  TILEFMT_CODEC_CONTAINER_ACCESS
  friend bool operator==(const sized&, const sized&) = default;
};

/// A value preceded by the number of bytes its encoding takes, stored as
/// `Length` (a length-prefixed record: the value must use exactly those bytes).
template <class Length, class T>
struct framed {
  static_assert(std::is_integral_v<Length> && std::is_unsigned_v<Length>,
                "framed<Length, T>: Length must be an unsigned integer type");
  using length_type = Length;
  using value_type = T;
  T value{};
  TILEFMT_CODEC_VALUE_ACCESS(T)
  friend bool operator==(const framed&, const framed&) = default;
};

/// Everything up to the end of the buffer (the enclosing region).
template <class Container>
struct rest {
  using container_type = Container;
  Container value{};
  TILEFMT_CODEC_CONTAINER_ACCESS
  friend bool operator==(const rest&, const rest&) = default;
};

} // namespace tilefmt::codec
