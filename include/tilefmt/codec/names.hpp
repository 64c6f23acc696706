// tilefmt — compile-time names of types and of aggregate fields.
//
// Boost.PFR gained field names in 1.84; Debian 12 ships 1.81, so the same
// technique is implemented here: a pointer to a member of an `extern` object
// is passed as a template argument, and the compiler spells the member's name
// in __PRETTY_FUNCTION__. The pointer sits inside a small struct because
// clang 14 does not accept the bare pointer there. The extern object is never
// defined or odr-used; only its address is formed at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include <boost/pfr.hpp>

namespace tilefmt::codec {
namespace detail {

template <class T>
struct fake_object_holder {
  T value;
};

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#pragma clang diagnostic ignored "-Wundefined-internal"
#endif
template <class T>
extern const fake_object_holder<T> fake_object;

template <class P>
struct member_address {
  const P* ptr;
};

template <class T, std::size_t I>
consteval auto member_address_of() {
  using F = std::remove_cvref_t<decltype(boost::pfr::get<I>(fake_object<T>.value))>;
  return member_address<F>{&boost::pfr::get<I>(fake_object<T>.value)};
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

template <auto Address>
consteval std::string_view pretty_of_address() {
  return __PRETTY_FUNCTION__;
}

template <class T>
consteval std::string_view pretty_of_type() {
  return __PRETTY_FUNCTION__;
}

constexpr bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// g++:     "... [with auto Address = member_address<int>{(& fake_object<S>.fake_object_holder<S>::value.S::field)}; ...]"
// clang++: "... [Address = {&fake_object.value.field}]"
// In both, the member name is the identifier right before the last '}'
// (skipping ')'); earlier braces may belong to "{anonymous}" namespaces.
constexpr std::string_view member_from_pretty(std::string_view s) {
  std::size_t end = s.rfind('}');
  if (end == std::string_view::npos) return {};
  while (end > 0 && !is_ident_char(s[end - 1])) --end;
  std::size_t begin = end;
  while (begin > 0 && is_ident_char(s[begin - 1])) --begin;
  return s.substr(begin, end - begin);
}

// g++: "... [with T = ns::Foo<int>; std::string_view = ...]"; clang: "... [T = ns::Foo<int>]".
// Namespaces are dropped for readability in paths: "Foo<int>".
constexpr std::string_view type_from_pretty(std::string_view s) {
  std::size_t begin = s.find("T = ");
  if (begin == std::string_view::npos) return {};
  begin += 4;
  std::size_t end = begin;
  int depth = 0;
  for (; end < s.size(); ++end) {
    char c = s[end];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && (c == ';' || c == ']')) break;
    if (depth < 0) break;
  }
  std::string_view full = s.substr(begin, end - begin);
  // Drop the namespace qualification of the outermost name.
  std::size_t tmpl = full.find('<');
  std::size_t scope = full.substr(0, tmpl).rfind("::");
  if (scope != std::string_view::npos) full.remove_prefix(scope + 2);
  return full;
}

} // namespace detail

/// The name of field I of aggregate T, as written in its declaration.
template <class T, std::size_t I>
inline constexpr std::string_view field_name =
    detail::member_from_pretty(detail::pretty_of_address<detail::member_address_of<T, I>()>());

/// All field names of aggregate T, in declaration order.
template <class T>
inline constexpr auto field_names = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<std::string_view, sizeof...(I)>{field_name<T, I>...};
}(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});

/// What field_index<T>(name) returns when T has no field of that name.
inline constexpr std::size_t no_such_field = static_cast<std::size_t>(-1);

/// The position of the field of aggregate T called `name`, or no_such_field.
/// This is how adaptors that refer to a sibling by name (count_of<"n", C>,
/// field_equals<"n", V>) find it: inserting a field cannot relink them.
template <class T>
consteval std::size_t field_index(std::string_view name) {
  for (std::size_t i = 0; i < field_names<T>.size(); ++i)
    if (field_names<T>[i] == name) return i;
  return no_such_field;
}

/// T's name without namespaces, e.g. "WindowMD<int>".
template <class T>
inline constexpr std::string_view type_name = detail::type_from_pretty(detail::pretty_of_type<T>());

namespace detail {
constexpr std::string_view display_from(std::string_view name) {
  const std::size_t args = name.find('<');
  if (args == std::string_view::npos) return name;
  name = name.substr(0, args);
  constexpr std::string_view basic = "Basic";
  if (name.size() > basic.size() && name.substr(0, basic.size()) == basic) name.remove_prefix(basic.size());
  return name;
}
} // namespace detail

/// The name error paths start with and dumps show: type_name<T> without
/// template arguments, which name C++ types rather than the format
/// (`BasicTile<le_span<byte>>`), and without the "Basic" of the templates
/// that only choose owned or viewed bytes (BasicTile is the spec's Tile,
/// whatever its bytes): "Tile", "WindowMD".
template <class T>
inline constexpr std::string_view display_name = detail::display_from(type_name<T>);

} // namespace tilefmt::codec
