// tilefmt — a generic dump of any format struct, as indented text or JSON,
// with field names taken from the declaration.
//
//   std::cout << codec::to_text(footer, ctx);
//   std::cout << codec::to_json(footer, ctx);
//
// Version- and value-gated fields that are absent under the given context are
// left out, so a dump shows exactly what the bytes hold. An adaptor declared
// in its own header shows its `dump_value()` when it has one (magic<> its
// bytes), else its `value` (big<T>, valid<T, P>, checksum<>), else the number
// of bytes it occupies (pad<N>, align<N>).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "tilefmt/codec/linked.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/codec/record.hpp"
#include "tilefmt/codec/traits.hpp"

namespace tilefmt::codec {

struct dump_options {
  /// Text only: arrays longer than this show their first elements and a count.
  std::size_t max_elements = 16;
  /// Spaces per nesting level.
  int indent = 2;
};

namespace detail {

template <class E>
concept enum_with_name = requires(E e) {
  { codec_enum_name(e) } -> std::convertible_to<std::string_view>;
};


template <class T>
void write_number(std::ostream& os, T v, bool json) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else if constexpr (std::is_same_v<T, std::byte>) {
    os << std::to_integer<unsigned>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) {
      // JSON has no NaN or infinity; spell them as strings there.
      const char* s = std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
      if (json)
        os << '"' << s << '"';
      else
        os << s;
      return;
    }
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    os << std::string_view(buf, static_cast<std::size_t>(res.ptr - buf));
  } else if constexpr (sizeof(T) == 1) {
    os << static_cast<int>(v);
  } else {
    os << v;
  }
}

template <class T> struct is_char_array : std::false_type {};
template <std::size_t N> struct is_char_array<std::array<char, N>> : std::true_type {};

// Elements printed on one line: numbers, enums, and adaptors of them (big<T>).
template <class E>
concept inline_element = wire_scalar<E> || std::is_enum_v<E> ||
                         (declared_adaptor<E> && requires { typename E::value_type; } &&
                          (wire_scalar<typename E::value_type> || std::is_enum_v<typename E::value_type>));

// A derived<U> field whose source can say its value without encoding (the
// tag of a switch_on<>): dumps show that, as encode would write it, rather
// than what was last decoded into the field.
template <class T, std::size_t I>
consteval bool shows_derived_value() {
  using F = field_t<T, I>;
  if constexpr (is_derived<F>::value) {
    constexpr std::size_t k = deriving_field<T, I>();
    if constexpr (k != npos)
      return requires(const field_t<T, k>& source) { traits<field_t<T, k>>::held_tag(source); };
  }
  return false;
}

template <class S>
class dumper {
public:
  dumper(std::ostream& os, S& st, bool json, dump_options opt) : os_(os), st_(st), json_(json), opt_(opt) {}

  template <class T>
  void value(const T& v, int depth) {
    if constexpr (wire_scalar<T>) {
      write_number(os_, v, json_);
    } else if constexpr (std::is_enum_v<T>) {
      if constexpr (enum_with_name<T>) {
        if (json_)
          os_ << json_string(codec_enum_name(v));
        else
          os_ << codec_enum_name(v);
      } else {
        write_number(os_, static_cast<std::underlying_type_t<T>>(v), json_);
      }
    } else if constexpr (is_string<T>::value) {
      if constexpr (sizeof(typename T::value_type) == 1)
        os_ << json_string(std::string_view(reinterpret_cast<const char*>(v.data()), v.size()));
      else
        sequence(v, depth);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      os_ << json_string(v);
    } else if constexpr (is_char_array<T>::value) {
      os_ << json_string(std::string_view(v.data(), v.size())); // magic numbers and tags read as text
    } else if constexpr (is_std_array<T>::value || is_vector<T>::value || is_le_span<T>::value) {
      sequence(v, depth);
    } else if constexpr (is_variant<T>::value) {
      // A tagged union (switch.hpp) shows the alternative it holds.
      std::visit([&](const auto& alternative) { value(alternative, depth); }, v);
    } else if constexpr (is_counted<T>::value || is_framed<T>::value) {
      st_.size_at += prefix_size<T>();  // where the elements or the framed value begin
      value(v.value, depth);
    } else if constexpr (is_rest<T>::value || is_sized<T>::value || is_version_field<T>::value) {
      value(v.value, depth);
    } else if constexpr (is_since<T>::value || is_until<T>::value) {
      value(v.value, depth); // presence is decided by the enclosing record
    } else if constexpr (declared_adaptor<T> && requires { v.dump_value(); }) {
      value(v.dump_value(), depth);
    } else if constexpr (declared_adaptor<T> && requires { v.value; }) {
      value(v.value, depth);
    } else if constexpr (declared_adaptor<T> && !positional<T>) {
      os_ << traits<T>::size(v, st_);
    } else if constexpr (uses_record_codec<T>) {
      record(v, depth);
    } else if constexpr (requires { os_ << v; }) {
      os_ << v;
    } else {
      std::size_t n = traits<T>::size(v, st_);
      if (json_)
        os_ << "{\"encoded_bytes\": " << n << "}";
      else
        os_ << "<" << display_name<T> << ", " << n << " bytes>";
    }
  }

private:
  // The bytes of a count or length written before the value.
  template <class T>
  static constexpr std::size_t prefix_size() {
    if constexpr (is_counted<T>::value)
      return sizeof(typename T::count_type);
    else
      return sizeof(typename T::length_type);
  }

  void newline(int depth) {
    os_ << '\n';
    for (int i = 0; i < depth * opt_.indent; ++i) os_ << ' ';
  }

  template <class C>
  void sequence(const C& c, int depth) {
    using E = std::remove_cvref_t<decltype(*std::begin(c))>;
    const std::size_t n = std::size(c);
    const bool scalar_elems = inline_element<E>;
    const std::size_t shown = json_ ? n : std::min(n, opt_.max_elements);
    os_ << '[';
    std::size_t i = 0;
    std::size_t at = st_.size_at;  // kept for records whose padding depends on where they sit
    for (auto it = std::begin(c); i < shown; ++it, ++i) {
      if (i) os_ << (scalar_elems ? ", " : ",");
      if (!scalar_elems) newline(depth + 1);
      if constexpr (uses_record_codec<E> && uses_buffer_position<E>()) {
        st_.size_at = at;
        const std::size_t n = traits<E>::size(*it, st_);
        st_.size_at = at;
        at += n;
      }
      value(static_cast<E>(*it), depth + 1);
    }
    if (shown < n) os_ << (scalar_elems ? ", " : "") << "... (" << n << " total)";
    if (!scalar_elems && n) newline(depth);
    os_ << ']';
  }

  template <class T, class F, std::size_t I>
  bool present(const T& parent, const F&) {
    if constexpr (is_since<F>::value || is_until<F>::value)
      return st_.has_version && gate_open<F>(st_);
    else if constexpr (is_when<F>::value)
      return eval_predicate<typename F::predicate>(parent, st_);
    else
      return true;
  }

  template <class T>
  void record(const T& v, int depth) {
    // Walk with the same version scoping as the codec.
    version_scope<T, S> scope(st_);
    os_ << (json_ ? "{" : std::string(display_name<T>) + " {");
    bool first = true;
    if constexpr (links_hold<T>) {  // otherwise traits<T> has failed to compile already
      // A positional field without a value (align<N>) shows the bytes it
      // takes at its place, so the walk keeps where each field begins,
      // counted from the start of the buffer.
      field_starts<T> starts;
      std::size_t at = st_.size_at;  // where the record begins: file_align<N> counts from the buffer's start
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
              using F = field_t<T, I>;
              const auto& f = boost::pfr::get<I>(v);
              if constexpr (is_version_field<F>::value) {
                st_.version = static_cast<std::uint32_t>(f.value);
                st_.has_version = true;
              }
              if constexpr (has_positional_field<T>()) starts.mark(I, at);
              if (!present<T, F, I>(v, f)) return;  // absent: no bytes
              // A struct holding file_align<N> at any depth counts every
              // field's bytes, so that each nested struct knows where it
              // begins (others only where their positional fields need it:
              // sizing some fields needs a context a dump may lack).
              const std::size_t field_at = at;
              if constexpr (uses_buffer_position<T>() || has_positional_field<T>()) {
                st_.size_at = field_at;
                at += size_field<T, I>(v, starts.view(), st_);
                st_.size_at = field_at;
              }
              if (json_ && !first) os_ << ',';
              first = false;
              newline(depth + 1);
              if (json_)
                os_ << json_string(field_name<T, I>);
              else
                os_ << field_name<T, I>;
              os_ << ": ";
              if constexpr (is_count_of<F>::value)
                os_ << boost::pfr::get<named_field<T, F>>(v).size();
              else if constexpr (positional<F> && !requires { f.value; })
                os_ << traits<F>::template size_field<I>(f, v, starts.view(), st_);
              else if constexpr (is_when<F>::value)
                value(f.value, depth + 1);
              else if constexpr (shows_derived_value<T, I>()) {
                constexpr std::size_t k = deriving_field<T, I>();
                value(from_raw_integer<typename F::value_type>(
                          traits<field_t<T, k>>::held_tag(boost::pfr::get<k>(v))),
                      depth + 1);
              } else
                value(f, depth + 1);
            }(),
            ...);
      }(std::make_index_sequence<field_count<T>>{});
    }
    if (!first) newline(depth);
    os_ << '}';
  }

  std::ostream& os_;
  S& st_;
  bool json_;
  dump_options opt_;
};

} // namespace detail

/// Writes `v` as indented text (`Name { field: value ... }`).
template <class T, class Ctx = no_context>
void dump_text(std::ostream& os, const T& v, const Ctx& ctx = {}, dump_options opt = {}) {
  state<Ctx> st(ctx);
  detail::dumper<state<Ctx>>(os, st, false, opt).value(v, 0);
}

/// Writes `v` as JSON; byte arrays become arrays of numbers, NaN a string.
template <class T, class Ctx = no_context>
void dump_json(std::ostream& os, const T& v, const Ctx& ctx = {}, dump_options opt = {}) {
  state<Ctx> st(ctx);
  detail::dumper<state<Ctx>>(os, st, true, opt).value(v, 0);
}

template <class T, class Ctx = no_context>
std::string to_text(const T& v, const Ctx& ctx = {}, dump_options opt = {}) {
  std::ostringstream os;
  dump_text(os, v, ctx, opt);
  return os.str();
}

template <class T, class Ctx = no_context>
std::string to_json(const T& v, const Ctx& ctx = {}, dump_options opt = {}) {
  std::ostringstream os;
  dump_json(os, v, ctx, opt);
  return os.str();
}

} // namespace tilefmt::codec
