// tilefmt — a string usable as a template argument, so that an adaptor can
// name a sibling field: `count_of<"data_parts", std::uint32_t>`.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace tilefmt::codec {

/// The characters of a string literal, held by value (a structural type, so
/// `template <fixed_string Name>` accepts "data_parts" and deduces N).
template <std::size_t N>
struct fixed_string {
  char chars[N]{};  // with the terminating '\0'

  constexpr fixed_string(const char (&s)[N]) noexcept {
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const noexcept { return {chars, N - 1}; }
  constexpr operator std::string_view() const noexcept { return view(); }

  // count_of<4, C> and field_equals<4, V> used to take a field's position,
  // which a field inserted before it silently changed; say so to old code.
  template <class I>
    requires std::is_integral_v<I>
  consteval fixed_string(I) noexcept {
    static_assert(sizeof(I) == 0,
                  "tilefmt::codec: count_of<> and field_equals<> name a field rather than number it: write "
                  "count_of<\"name\", Count> or field_equals<\"name\", Value>");
  }
};
template <class I>
  requires std::is_integral_v<I>
fixed_string(I) -> fixed_string<1>;

} // namespace tilefmt::codec
