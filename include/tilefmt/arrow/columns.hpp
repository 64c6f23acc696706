// tilefmt — one field of a query result as an Arrow schema and array.
//
// What already has Arrow's layout is handed over, not copied: the values of
// fixed-size fields and of var-size bytes, and the offsets of var-size
// bytes (TileDB's cell starts, to which the end is appended: the vector
// usually has room for it). Made anew, each a pass over a column: the
// validity bitmap (TileDB keeps a byte per cell), booleans as bits, list
// offsets counted in values instead of bytes, DATETIME_DAY as 32-bit days,
// the values of big-endian hosts in their byte order, and an enumeration's
// values as the dictionary. Enumeration indices are checked against the
// dictionary: an index past it, from a damaged file, would send a consumer
// out of bounds.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/arrow/owners.hpp"
#include "tilefmt/arrow/types.hpp"
#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::arrow::detail {

/// A field's columns as the query returned them, and those made for Arrow.
struct field_buffers {
  array::detail::result_field field;
  std::vector<std::uint8_t> validity_bits, value_bits;
  std::vector<std::int64_t> list_offsets;
  std::vector<std::int32_t> days;
};

/// Arrow wants a buffer, even for no values.
inline const void* nonnull(const void* p) {
  static const std::uint64_t zero = 0;
  return p ? p : &zero;
}

/// A bit per byte of `bytes` (set: non-zero); returns how many were zero.
inline std::int64_t pack_bits(const std::uint8_t* bytes, std::size_t n, std::vector<std::uint8_t>& bits) {
  bits.assign((n + 7) / 8, 0);
  std::int64_t zeros = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool v = bytes[i] != 0;
    bits[i >> 3] = static_cast<std::uint8_t>(bits[i >> 3] | (std::uint8_t{v} << (i & 7)));
    zeros += !v;
  }
  return zeros;
}

/// TileDB's little-endian values in the host's order, in place.
inline void to_native(std::byte* values, std::size_t bytes, std::size_t size) {
  if constexpr (std::endian::native == std::endian::big) {
    if (size > 1)
      for (std::size_t i = 0; i + size <= bytes; i += size) std::reverse(values + i, values + i + size);
  } else {
    (void)values, (void)bytes, (void)size;
  }
}

/// The data buffer of `count` values of `type` starting at `values`.
inline const void* value_buffer(format::Datatype type, field_buffers& b, std::uint64_t count, const std::string& name) {
  auto& f = b.field;
  if (type == format::Datatype::BOOL) {
    pack_bits(reinterpret_cast<const std::uint8_t*>(f.values.data()), count, b.value_bits);
    return nonnull(b.value_bits.data());
  }
  if (type == format::Datatype::DATETIME_DAY) {
    b.days.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::int64_t d;
      std::memcpy(&d, f.values.data() + 8 * i, 8);
      if (d < std::numeric_limits<std::int32_t>::min() || d > std::numeric_limits<std::int32_t>::max())
        throw std::out_of_range("tilefmt: arrow: field \"" + name + "\": day " + std::to_string(d) +
                                " is outside Arrow's date32");
      b.days[i] = static_cast<std::int32_t>(d);
    }
    return nonnull(b.days.data());
  }
  return nonnull(f.values.data());
}

/// The schema of one value (a list's items, a dictionary's values).
inline void value_schema(ArrowSchema* out, std::string format, std::string name) {
  make_schema(out, std::move(format), std::move(name), {}, 0, {});
}

/// An enumeration's values as a dictionary array, and their count.
inline std::pair<ArrowArray*, std::uint64_t> dictionary_array(const format::Enumeration& e) {
  struct values {
    std::vector<std::byte> data;
    std::vector<std::int64_t> offsets;
  };
  auto v = std::make_shared<values>();
  v->data = e.data.value;
  owned<ArrowArray> out;
  std::uint64_t n = 0;
  if (e.is_var()) {
    for (const auto o : e.offset_values()) {
      if (o > v->data.size() || (!v->offsets.empty() && o < static_cast<std::uint64_t>(v->offsets.back())))
        throw std::invalid_argument("tilefmt: arrow: enumeration \"" + e.name.value + "\": offsets are not increasing");
      v->offsets.push_back(static_cast<std::int64_t>(o));
    }
    n = v->offsets.size();
    v->offsets.push_back(static_cast<std::int64_t>(v->data.size()));
    make_array(out.get(), static_cast<std::int64_t>(n), 0, v, {nullptr, v->offsets.data(), nonnull(v->data.data())});
  } else {
    const std::size_t size = format::datatype_size(e.type);
    if (e.cell_val_num != 1 || e.type == format::Datatype::BOOL || size == 0)
      throw std::invalid_argument("tilefmt: arrow: enumeration \"" + e.name.value + "\": only var-size or single "
                                  "non-boolean values make a dictionary");
    n = v->data.size() / size;
    to_native(v->data.data(), n * size, size);
    make_array(out.get(), static_cast<std::int64_t>(n), 0, v, {nullptr, nonnull(v->data.data())});
  }
  return {out.hand_on(), n};
}

/// Every valid index below `n` (the dictionary's size), or an error naming the field.
template <class T>
void check_indices(const field_buffers& b, std::uint64_t cells, std::uint64_t n, const std::string& name) {
  const auto* p = b.field.values.data();
  for (std::uint64_t i = 0; i < cells; ++i) {
    if (!b.field.validity.empty() && b.field.validity[i] == 0) continue;
    T x;
    std::memcpy(&x, p + i * sizeof(T), sizeof(T));
    bool negative = false;
    if constexpr (std::is_signed_v<T>) negative = x < 0;
    if (negative || static_cast<std::uint64_t>(x) >= n)
      throw std::out_of_range("tilefmt: arrow: field \"" + name + "\": cell " + std::to_string(i) + " holds index " +
                              std::to_string(x) + ", past its enumeration's " + std::to_string(n) + " values");
  }
}

/// The schema of field `spec`.
inline void field_schema(const field_spec& spec, ArrowSchema* out) {
  std::vector<ArrowSchema*> children;
  owned<ArrowSchema> item, dictionary;
  if (!is_bytes(spec.type) && (spec.var() || spec.cell_val_num != 1)) {
    value_schema(item.get(), value_format(spec.type), "item");
    children.push_back(item.hand_on());
  }
  std::int64_t flags = spec.nullable ? ARROW_FLAG_NULLABLE : 0;
  ArrowSchema* dict = nullptr;
  if (spec.enumeration) {
    const auto& e = *spec.enumeration;
    value_schema(dictionary.get(), e.is_var() ? (is_utf8(e.type) ? "U" : "Z") : value_format(e.type), "");
    if (e.ordered) flags |= ARROW_FLAG_DICTIONARY_ORDERED;
    dict = dictionary.hand_on();
  }
  make_schema(out, field_format(spec), spec.name,
              encode_metadata({{"tiledb.datatype", std::string(format::codec_enum_name(spec.type))}}), flags,
              std::move(children), dict);
}

/// The array of field `spec`, taking the result's columns `rf` of `cells` cells.
inline void field_array(const field_spec& spec, array::detail::result_field&& rf, std::uint64_t cells,
                        ArrowArray* out) {
  auto b = std::make_shared<field_buffers>();
  b->field = std::move(rf);
  auto& f = b->field;
  const std::size_t size = format::datatype_size(spec.type);
  const auto n = static_cast<std::int64_t>(cells);
  if (!is_bytes(spec.type)) to_native(f.values.data(), f.values.size(), size);
  std::int64_t nulls = 0;
  const void* validity = nullptr;
  if (spec.nullable) {
    if (f.validity.size() != cells) throw std::logic_error("tilefmt: arrow: validity of \"" + spec.name + "\" is short");
    nulls = pack_bits(f.validity.data(), cells, b->validity_bits);
    if (nulls != 0) validity = b->validity_bits.data();
  }
  if (is_bytes(spec.type)) {
    if (spec.var()) {
      f.offsets.push_back(f.values.size());  // Arrow's offsets end with the end
      make_array(out, n, nulls, b, {validity, f.offsets.data(), nonnull(f.values.data())});
    } else {
      make_array(out, n, nulls, b, {validity, nonnull(f.values.data())});
    }
    return;
  }
  if (spec.var() || spec.cell_val_num != 1) {
    const std::uint64_t values = f.values.size() / size;
    owned<ArrowArray> child;
    make_array(child.get(), static_cast<std::int64_t>(values), 0, b,
               {nullptr, value_buffer(spec.type, *b, values, spec.name)});
    if (spec.var()) {
      b->list_offsets.reserve(f.offsets.size() + 1);
      for (const auto o : f.offsets) b->list_offsets.push_back(static_cast<std::int64_t>(o / size));
      b->list_offsets.push_back(static_cast<std::int64_t>(values));
      make_array(out, n, nulls, b, {validity, b->list_offsets.data()}, {child.hand_on()});
    } else {
      make_array(out, n, nulls, b, {validity}, {child.hand_on()});
    }
    return;
  }
  owned<ArrowArray> dictionary(nullptr);
  if (spec.enumeration) {
    const auto made = dictionary_array(*spec.enumeration);  // (clang 14 captures no structured bindings)
    dictionary.p = made.first;
    const std::uint64_t count = made.second;
    format::visit_integer_type(spec.type, [&]<class T>() { check_indices<T>(*b, cells, count, spec.name); });
  }
  const void* data = value_buffer(spec.type, *b, cells, spec.name);
  make_array(out, n, nulls, b, {validity, data}, {}, dictionary.hand_on());
}

} // namespace tilefmt::arrow::detail
