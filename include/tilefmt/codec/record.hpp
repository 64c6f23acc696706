// tilefmt — the codec's records: how a struct's fields are walked (Boost.PFR
// reflects them), how fields that name their siblings (count_of<>,
// field_equals<>, when<>, sized<>) are tied to them, how a version_field or
// byte_order_field scopes what follows it, and the compile-time facts the
// walk gives (fixed_wire_size, min_wire_size, has_gated_fields).
//
// traits.hpp holds everything else the codec knows about a value; a header
// that only specialises traits<> for an adaptor of its own includes that
// one. Whatever decodes, encodes or sizes a struct includes this one
// (codec.hpp does).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include <boost/pfr.hpp>

#include "tilefmt/codec/traits.hpp"

namespace tilefmt::codec {

// ---------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------
namespace detail {

// Boost.PFR counts a struct's fields by aggregate initialisation, where brace
// elision spreads a C array member over one initialiser per element, and then
// fails inside PFR. Before asking PFR, count the members twice: with one
// braced initialiser per member ({x} initialises a whole array), and check
// whether one more unbraced initialiser than that still compiles, which only
// elision into an array member of two or more elements allows. (An object
// that converts to anything initialises other aggregate members whole.)
struct any_initialiser {
  template <class U>
  constexpr operator U() const noexcept;
};
template <std::size_t>
using any_initialiser_t = any_initialiser;

template <class T, std::size_t... I>
consteval bool braced_initialisable(std::index_sequence<I...>) {
  return requires { T{{any_initialiser_t<I>{}}...}; };
}
template <class T, std::size_t... I>
consteval bool flat_initialisable(std::index_sequence<I...>) {
  return requires { T{any_initialiser_t<I>{}...}; };
}
template <class T, std::size_t N = 0>
consteval std::size_t braced_member_count() {
  if constexpr (N > 256 || !braced_initialisable<T>(std::make_index_sequence<N + 1>{}))
    return N;
  else
    return braced_member_count<T, N + 1>();
}
template <class T>
consteval bool has_c_array_member() {
  if constexpr (!std::is_aggregate_v<T> || std::is_array_v<T>)
    return false;
  else
    return flat_initialisable<T>(std::make_index_sequence<braced_member_count<T>() + 1>{});
}

template <class T>
consteval std::size_t checked_field_count() {
  if constexpr (has_c_array_member<T>()) {
    static_assert(!has_c_array_member<T>(),
                  "tilefmt::codec: C arrays cannot be reflected by Boost.PFR; declare the member as std::array<T, N>");
    return 0;
  } else {
    return boost::pfr::tuple_size_v<T>;
  }
}

template <class T>
inline constexpr std::size_t field_count = checked_field_count<T>();

template <class T, std::size_t I>
using field_t = boost::pfr::tuple_element_t<I, T>;

inline constexpr std::size_t npos = no_such_field;

// Position in T of the field that adaptor A (count_of<>, field_equals<>)
// names, or npos.
template <class T, class A>
inline constexpr std::size_t named_field = field_index<T>(A::field);

// Index of the count_of<> member that counts field J of T, or npos; `links`
// is how many count_of<> members name it.
struct count_link {
  std::size_t index = npos;
  std::size_t links = 0;
};
template <class T, std::size_t J>
consteval count_link find_count_link() {
  count_link found;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using F = field_t<T, I>;
          if constexpr (is_count_of<F>::value) {
            if (named_field<T, F> == J) {
              if (found.index == npos) found.index = I;
              ++found.links;
            }
          }
        }(),
        ...);
  }(std::make_index_sequence<field_count<T>>{});
  return found;
}
template <class T, std::size_t J>
inline constexpr std::size_t linked_count_index = find_count_link<T, J>().index;

template <class T>
consteval bool record_fields_fixed() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (has_fixed_size<field_t<T, I>> && ...);
  }(std::make_index_sequence<field_count<T>>{});
}

template <class T>
consteval std::size_t record_fixed_size() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + traits<field_t<T, I>>::fixed_size);
  }(std::make_index_sequence<field_count<T>>{});
}

template <class T, std::size_t I>
consteval std::size_t field_min_size() {
  using F = field_t<T, I>;
  if constexpr (is_container<F>)
    return 0;
  else if constexpr (is_when<F>::value || is_sized<F>::value)
    return 0;
  else if constexpr (requires { traits<F>::template min_size_at<T, I>(); })
    return traits<F>::template min_size_at<T, I>();  // a positional field whose size depends on its place
  else
    return min_size_of<F>();
}

template <class T>
consteval std::size_t record_min_size() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + field_min_size<T, I>());
  }(std::make_index_sequence<field_count<T>>{});
}

// Whether the links of field I of T (a count_of<> or field_equals<> naming a
// sibling, a container counted by a sibling) hold; check_field says what is
// wrong when they do not.
template <class T, std::size_t I>
consteval bool field_links_hold() {
  using F = field_t<T, I>;
  if constexpr (is_container<F>) {
    constexpr count_link link = find_count_link<T, I>();
    return link.index != npos && link.index < I && link.links == 1;
  } else if constexpr (is_count_of<F>::value) {
    constexpr std::size_t J = named_field<T, F>;
    if constexpr (J == npos || J == I)
      return false;
    else
      return is_container<field_t<T, J>>;
  } else if constexpr (is_when<F>::value) {
    if constexpr (is_field_equals<typename F::predicate>::value)
      return named_field<T, typename F::predicate> < I;  // false for npos too
    else
      return true;
  } else {
    return true;
  }
}

/// True when every link between fields of T holds. The field operations are
/// instantiated only then, so that a broken link gives its sentence alone
/// rather than followed by errors from inside Boost.PFR.
template <class T>
inline constexpr bool links_hold = []<std::size_t... I>(std::index_sequence<I...>) {
  return (field_links_hold<T, I>() && ...);
}(std::make_index_sequence<field_count<T>>{});

// A count_of<> whose name finds no other field: its container is reported
// through that count_of<>, not as a container without a length.
template <class T>
consteval bool has_unresolved_count_of() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return ([] {
      using F = field_t<T, I>;
      if constexpr (is_count_of<F>::value)
        return named_field<T, F> == npos || named_field<T, F> == I;
      else
        return false;
    }() || ...);
  }(std::make_index_sequence<field_count<T>>{});
}

// The checks take the adaptor as a template argument so that the compiler's
// "in instantiation of" note shows the name it was given.
template <class T, std::size_t I, class CountOf>
consteval void check_count_of() {
  constexpr std::size_t J = named_field<T, CountOf>;
  static_assert(J != npos, "tilefmt::codec: count_of<Name, Count>: the struct has no field of that name");
  if constexpr (J != npos) {
    static_assert(J != I,
                  "tilefmt::codec: count_of<Name, Count> names its own field: name the container it counts");
    static_assert(J == I || is_container<field_t<T, J>>,
                  "tilefmt::codec: count_of<Name, Count> must name a plain container member "
                  "(std::vector, std::basic_string or le_span) of the same struct");
  }
}

template <class T, std::size_t I, class FieldEquals>
consteval void check_field_equals() {
  constexpr std::size_t J = named_field<T, FieldEquals>;
  static_assert(J != npos, "tilefmt::codec: field_equals<Name, Value>: the struct has no field of that name");
  static_assert(J == npos || J < I,
                "tilefmt::codec: field_equals<Name, Value> must name a field before the when<> it gates (the "
                "decoder reads that field first)");
}

template <class T, std::size_t I>
consteval void check_field() {
  using F = field_t<T, I>;
  if constexpr (is_container<F>) {
    static_assert(linked_count_index<T, I> != npos || has_unresolved_count_of<T>(),
                  "tilefmt::codec: a container member needs its length: wrap it in counted<Count, C>, give it a "
                  "count_of<\"name\", Count> member earlier in the struct, or use sized<Len, C> or rest<C>");
    static_assert(linked_count_index<T, I> == npos || linked_count_index<T, I> < I,
                  "tilefmt::codec: count_of<Name, Count> must come before the container it counts");
    static_assert(find_count_link<T, I>().links <= 1,
                  "tilefmt::codec: two count_of<> members name the same container");
  } else if constexpr (is_count_of<F>::value) {
    check_count_of<T, I, F>();
  } else if constexpr (is_when<F>::value) {
    if constexpr (is_field_equals<typename F::predicate>::value) check_field_equals<T, I, typename F::predicate>();
    check_supported<typename F::value_type>();
  } else if constexpr (is_sized<F>::value) {
    static_assert(is_container<typename F::container_type>,
                  "tilefmt::codec: sized<Len, C>: C must be std::vector, std::basic_string or le_span");
  } else if constexpr (positional<F>) {
    // checked by its traits when the field is walked
  } else {
    check_supported<F>();
  }
}

template <class T>
consteval bool check_record() {
  static_assert(field_count<T> > 0 || std::is_empty_v<T>, "tilefmt::codec: cannot reflect this struct");
  []<std::size_t... I>(std::index_sequence<I...>) {
    (check_field<T, I>(), ...);
  }(std::make_index_sequence<field_count<T>>{});
  return true;
}

// Sibling-aware field operations: count_of<> links, when<> and sized<>.
template <class Pred, class T, class S>
bool eval_predicate(const T& parent, const S& st) {
  if constexpr (is_field_equals<Pred>::value) {
    return unwrap(boost::pfr::get<named_field<T, Pred>>(parent)) == Pred::value;
  } else if constexpr (std::is_invocable_r_v<bool, Pred, const T&, decltype(st.ctx)>) {
    return Pred{}(parent, st.ctx);
  } else {
    static_assert(std::is_invocable_r_v<bool, Pred, const T&>,
                  "tilefmt::codec: when<Pred, T>: Pred must be field_equals<\"name\", Value> or callable as "
                  "Pred{}(parent) or Pred{}(parent, ctx) returning bool");
    return Pred{}(parent);
  }
}

template <class Len, class T, class S>
std::size_t eval_length(const T& parent, const S& st) {
  if constexpr (std::is_invocable_v<Len, const T&, decltype(st.ctx)>) {
    return static_cast<std::size_t>(Len{}(parent, st.ctx));
  } else {
    static_assert(std::is_invocable_v<Len, const T&>,
                  "tilefmt::codec: sized<Len, C>: Len must be callable as Len{}(parent) or Len{}(parent, ctx) "
                  "and return the element count");
    return static_cast<std::size_t>(Len{}(parent));
  }
}

template <class T, std::size_t I, class S>
void decode_field(reader& r, T& parent, std::span<const std::size_t> starts, S& st) {
  using F = field_t<T, I>;
  auto& f = boost::pfr::get<I>(parent);
  if constexpr (positional<F>) {
    traits<F>::template decode_field<I>(r, f, std::as_const(parent), starts, st);
  } else if constexpr (is_count_of<F>::value) {
    traits<typename F::count_type>::decode(r, f.value, st);
  } else if constexpr (is_container<F>) {
    std::uint64_t n = boost::pfr::get<linked_count_index<T, I>>(parent).value;
    if (n > std::numeric_limits<std::size_t>::max()) r.fail("count does not fit in memory");
    container_ops<F>::decode(r, f, static_cast<std::size_t>(n), st);
  } else if constexpr (is_when<F>::value) {
    if (eval_predicate<typename F::predicate>(parent, st)) traits<typename F::value_type>::decode(r, f.value, st);
  } else if constexpr (is_sized<F>::value) {
    container_ops<typename F::container_type>::decode(r, f.value, eval_length<typename F::length>(parent, st), st);
  } else {
    traits<F>::decode(r, f, st);
  }
}

template <class T, std::size_t I, class S>
void encode_field(writer& w, const T& parent, std::span<const std::size_t> starts, S& st) {
  using F = field_t<T, I>;
  const auto& f = boost::pfr::get<I>(parent);
  if constexpr (positional<F>) {
    traits<F>::template encode_field<I>(w, f, parent, starts, st);
  } else if constexpr (is_count_of<F>::value) {
    using N = typename count_integer<typename F::count_type>::type;
    traits<typename F::count_type>::encode(
        w, typename F::count_type{checked_count<N>(boost::pfr::get<named_field<T, F>>(parent).size())}, st);
  } else if constexpr (is_container<F>) {
    container_ops<F>::encode(w, f, st);
  } else if constexpr (is_when<F>::value) {
    if (eval_predicate<typename F::predicate>(parent, st)) traits<typename F::value_type>::encode(w, f.value, st);
  } else if constexpr (is_sized<F>::value) {
    std::size_t n = eval_length<typename F::length>(parent, st);
    if (n != f.value.size())
      throw std::length_error("tilefmt::codec: sized<> field " + std::string(field_name<T, I>) + " holds " +
                              std::to_string(f.value.size()) + " elements, its length function says " +
                              std::to_string(n));
    container_ops<typename F::container_type>::encode(w, f.value, st);
  } else {
    traits<F>::encode(w, f, st);
  }
}

template <class T, std::size_t I, class S>
std::size_t size_field(const T& parent, std::span<const std::size_t> starts, S& st) {
  using F = field_t<T, I>;
  const auto& f = boost::pfr::get<I>(parent);
  if constexpr (positional<F>) {
    return traits<F>::template size_field<I>(f, parent, starts, st);
  } else if constexpr (is_count_of<F>::value) {
    return traits<typename F::count_type>::size(f.value, st);
  } else if constexpr (is_container<F>) {
    return container_ops<F>::size(f, st);
  } else if constexpr (is_when<F>::value) {
    return eval_predicate<typename F::predicate>(parent, st) ? traits<typename F::value_type>::size(f.value, st) : 0;
  } else if constexpr (is_sized<F>::value) {
    return container_ops<typename F::container_type>::size(f.value, st);
  } else {
    return traits<F>::size(f, st);
  }
}

template <class T>
consteval bool has_version_field() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (is_version_field<field_t<T, I>>::value || ...);
  }(std::make_index_sequence<field_count<T>>{});
}

/// A field that sets the byte order of the ordered<T> fields after it
/// (byte_order_field, endian.hpp).
template <class T>
concept byte_order_setter = declared_adaptor<T> && requires { T::sets_byte_order; };

template <class T>
consteval bool has_byte_order_field() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (byte_order_setter<field_t<T, I>> || ...);
  }(std::make_index_sequence<field_count<T>>{});
}

// A version_field (or byte_order_field) scopes the version (or byte order)
// to its struct: restore the outer one on exit.
template <class T, class S>
struct version_scope {
  S& st;
  std::uint32_t version;
  bool has_version;
  std::endian order;
  bool has_order;
  explicit version_scope(S& s)
      : st(s), version(s.version), has_version(s.has_version), order(s.order), has_order(s.has_order) {}
  ~version_scope() {
    if constexpr (has_version_field<T>()) {
      st.version = version;
      st.has_version = has_version;
    }
    if constexpr (has_byte_order_field<T>()) {
      st.order = order;
      st.has_order = has_order;
    }
  }
  version_scope(const version_scope&) = delete;
  version_scope& operator=(const version_scope&) = delete;
};

template <class T>
consteval bool has_positional_field() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (positional<field_t<T, I>> || ...);
  }(std::make_index_sequence<field_count<T>>{});
}

/// Where each field of a struct being walked begins, kept only when a
/// positional field needs it (otherwise empty, and the walk pays nothing).
template <class T, bool Kept = has_positional_field<T>()>
struct field_starts {
  void mark(std::size_t, std::size_t) noexcept {}
  std::span<const std::size_t> view() const noexcept { return {}; }
};
template <class T>
struct field_starts<T, true> {
  std::array<std::size_t, field_count<T> + 1> at{};
  void mark(std::size_t i, std::size_t offset) noexcept { at[i] = offset; }
  std::span<const std::size_t> view() const noexcept { return at; }
};

template <class T> struct record_traits;

// True when T is walked field by field (not a user specialisation of traits<T>).
template <class T>
inline constexpr bool uses_record_codec = std::is_base_of_v<record_traits<T>, traits<T>>;

template <class T>
void load_fixed(const std::byte* p, T& v, const std::byte* origin) {
  if constexpr (uses_record_codec<T>) {
    std::size_t off = 0;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            using F = field_t<T, I>;
            try {
              load_fixed(p + off, boost::pfr::get<I>(v), origin);
            } catch (format_error& e) {
              e.prepend_field(field_name<T, I>);
              throw;
            }
            off += traits<F>::fixed_size;
          }(),
          ...);
    }(std::make_index_sequence<field_count<T>>{});
  } else if constexpr (is_std_array<T>::value) {
    using E = typename T::value_type;
    for (std::size_t i = 0; i < v.size(); ++i) {
      try {
        load_fixed(p + i * traits<E>::fixed_size, v[i], origin);
      } catch (format_error& e) {
        e.prepend_index(i);
        throw;
      }
    }
  } else {
    v = traits<T>::load(p, origin);
  }
}

template <class T>
void store_fixed(std::byte* p, const T& v) {
  if constexpr (uses_record_codec<T>) {
    std::size_t off = 0;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((store_fixed(p + off, boost::pfr::get<I>(v)), off += traits<field_t<T, I>>::fixed_size), ...);
    }(std::make_index_sequence<field_count<T>>{});
  } else if constexpr (is_std_array<T>::value) {
    using E = typename T::value_type;
    for (std::size_t i = 0; i < v.size(); ++i) store_fixed(p + i * traits<E>::fixed_size, v[i]);
  } else {
    traits<T>::store(p, v);
  }
}

template <class T>
struct record_traits {
  static_assert(check_record<T>());
  static constexpr std::size_t min_size = record_min_size<T>();

  // With a broken link (links_hold<T> false) check_record has failed to
  // compile already, and the bodies are left out.
  template <class S>
  static void decode(reader& r, T& v, S& st) {
    version_scope<T, S> scope(st);
    if constexpr (links_hold<T>) {
      field_starts<T> starts;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
              starts.mark(I, r.offset());
              try {
                decode_field<T, I>(r, v, starts.view(), st);
              } catch (format_error& e) {
                e.prepend_field(field_name<T, I>);
                throw;
              }
            }(),
            ...);
      }(std::make_index_sequence<field_count<T>>{});
    }
  }
  template <class S>
  static void encode(writer& w, const T& v, S& st) {
    version_scope<T, S> scope(st);
    if constexpr (links_hold<T>) {
      field_starts<T> starts;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((starts.mark(I, w.offset()), encode_field<T, I>(w, v, starts.view(), st)), ...);
      }(std::make_index_sequence<field_count<T>>{});
    }
  }
  template <class S>
  static std::size_t size(const T& v, S& st) {
    version_scope<T, S> scope(st);
    if constexpr (links_hold<T>) {
      field_starts<T> starts;
      const std::size_t at = st.size_at;
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        std::size_t total = 0;
        ((starts.mark(I, at + total), st.size_at = at + total, total += size_field<T, I>(v, starts.view(), st)),
         ...);
        return total;
      }(std::make_index_sequence<field_count<T>>{});
    } else {
      return 0;
    }
  }
};

template <class T>
struct fixed_record_traits : record_traits<T> {
  static constexpr std::size_t fixed_size = record_fixed_size<T>();

  static T load(const std::byte* p, const std::byte* origin) {
    T v{};
    load_fixed(p, v, origin);
    return v;
  }
  static void store(std::byte* p, const T& v) { store_fixed(p, v); }

  template <class S>
  static void decode(reader& r, T& v, S& st) {
    if (r.remaining() < fixed_size) {
      record_traits<T>::decode(r, v, st); // field by field, to name the field that is cut off
      return;
    }
    const std::byte* origin = r.buffer_begin();
    load_fixed(r.take(fixed_size), v, origin);
  }
  template <class S>
  static void encode(writer& w, const T& v, S&) {
    store_fixed(w.reserve(fixed_size), v);
  }
  template <class S>
  static constexpr std::size_t size(const T&, S&) {
    return fixed_size;
  }
};

} // namespace detail

template <record T>
  requires(!detail::record_fields_fixed<T>())
struct traits<T> : detail::record_traits<T> {};

template <record T>
  requires(detail::record_fields_fixed<T>())
struct traits<T> : detail::fixed_record_traits<T> {};

// ---------------------------------------------------------------------------
// Compile-time facts
// ---------------------------------------------------------------------------

/// The wire size of a fixed-layout struct (every field has a fixed size).
template <class T>
inline constexpr std::size_t fixed_wire_size = [] {
  static_assert(detail::has_fixed_size<T>,
                "tilefmt::codec::fixed_wire_size<T>: T has a field whose size depends on the data "
                "(a container, or a version- or value-gated field)");
  return traits<T>::fixed_size;
}();

namespace detail {
template <class T>
consteval bool needs_version() {
  if constexpr (is_since<T>::value || is_until<T>::value) {
    return true;
  } else if constexpr (is_when<T>::value) {
    return needs_version<typename T::value_type>();
  } else if constexpr (is_counted<T>::value || is_sized<T>::value || is_rest<T>::value) {
    return needs_version<typename T::container_type>();
  } else if constexpr (is_framed<T>::value) {
    return needs_version<typename T::value_type>();
  } else if constexpr (is_vector<T>::value || is_std_array<T>::value) {
    return needs_version<typename T::value_type>();
  } else if constexpr (declared_adaptor<T> && requires { typename T::container_type; }) {
    return needs_version<typename T::container_type>();
  } else if constexpr (declared_adaptor<T> && requires { typename T::value_type; }) {
    return needs_version<typename T::value_type>();
  } else if constexpr (record<T>) {
    if constexpr (has_version_field<T>())
      return false;
    else
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (needs_version<field_t<T, I>>() || ...);
      }(std::make_index_sequence<field_count<T>>{});
  } else {
    return false;
  }
}

/// Whether T holds, at any depth, a field whose bytes depend on where T sits
/// in the buffer (file_align<N>, marked `aligned_to_buffer`).
template <class T>
consteval bool uses_buffer_position() {
  if constexpr (requires { T::aligned_to_buffer; }) {
    return true;
  } else if constexpr (is_variant<T>::value) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (uses_buffer_position<std::variant_alternative_t<I, T>>() || ...);
    }(std::make_index_sequence<std::variant_size_v<T>>{});
  } else if constexpr (is_when<T>::value || is_framed<T>::value || is_vector<T>::value || is_std_array<T>::value) {
    return uses_buffer_position<typename T::value_type>();
  } else if constexpr (is_counted<T>::value || is_sized<T>::value || is_rest<T>::value) {
    return uses_buffer_position<typename T::container_type>();
  } else if constexpr (declared_adaptor<T> && requires { typename T::container_type; }) {
    return uses_buffer_position<typename T::container_type>();
  } else if constexpr (declared_adaptor<T> && requires { typename T::value_type; }) {
    return uses_buffer_position<typename T::value_type>();
  } else if constexpr (record<T>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (uses_buffer_position<field_t<T, I>>() || ...);
    }(std::make_index_sequence<field_count<T>>{});
  } else {
    return false;
  }
}

template <class T>
consteval bool has_gated_fields() {
  if constexpr (is_since<T>::value || is_until<T>::value || is_when<T>::value) {
    return true;
  } else if constexpr (is_counted<T>::value || is_sized<T>::value || is_rest<T>::value) {
    return has_gated_fields<typename T::container_type>();
  } else if constexpr (is_framed<T>::value) {
    return has_gated_fields<typename T::value_type>();
  } else if constexpr (is_vector<T>::value || is_std_array<T>::value) {
    return has_gated_fields<typename T::value_type>();
  } else if constexpr (declared_adaptor<T> && requires { typename T::container_type; }) {
    return has_gated_fields<typename T::container_type>();
  } else if constexpr (declared_adaptor<T> && requires { typename T::value_type; }) {
    return has_gated_fields<typename T::value_type>();
  } else if constexpr (record<T>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (has_gated_fields<field_t<T, I>>() || ...);
    }(std::make_index_sequence<field_count<T>>{});
  } else {
    return false;
  }
}
} // namespace detail

/// True when T (or a struct inside it) has a field that a version or an
/// earlier field can leave out of the bytes; decoding into a used T then
/// keeps that field's old value (see decode_into).
template <class T>
inline constexpr bool has_gated_fields = detail::has_gated_fields<T>();

} // namespace tilefmt::codec
