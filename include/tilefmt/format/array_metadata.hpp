// tilefmt — array metadata (format_spec/metadata.md; tiledb/sm/metadata/
// metadata.cc): the payload of one generic tile `__meta/__t1_t2_uuid`, and of
// a group's `__meta` files, which have the same format.
//
// The payload is a run of entries to its end; TileDB writes them sorted by
// key (unsigned byte order) and writes no file when there is no entry.
// Readers apply the files in t1 order: a later entry for a key, deletion
// included, replaces an earlier one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::format {

namespace detail {
/// Bytes of a metadata value: its count times its type's size.
struct metadata_value_bytes {
  template <class V>
  std::size_t operator()(const V& v) const {
    return static_cast<std::size_t>(v.num) * datatype_size(v.type);
  }
};

/// The datatypes whose values read as T in MetadataEntry::as<T>().
template <class T>
constexpr bool metadata_type_matches(Datatype t) {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return t == Datatype::INT64 || is_datetime(t) || is_time(t);
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return t == Datatype::UINT8 || t == Datatype::BOOL;
  else if constexpr (std::is_same_v<T, char>)
    return t == Datatype::CHAR || t == Datatype::STRING_ASCII || t == Datatype::STRING_UTF8;
  else if constexpr (std::is_same_v<T, char16_t>)
    return t == Datatype::STRING_UTF16 || t == Datatype::STRING_UCS2;
  else if constexpr (std::is_same_v<T, char32_t>)
    return t == Datatype::STRING_UTF32 || t == Datatype::STRING_UCS4;
  else if constexpr (std::is_same_v<T, std::byte>)
    return t == Datatype::BLOB || t == Datatype::ANY || t == Datatype::GEOM_WKB || t == Datatype::GEOM_WKT;
  else if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
                     std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::int32_t> ||
                     std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
                     std::is_same_v<T, float> || std::is_same_v<T, double>)
    return t == datatype_of<T>();
  else
    static_assert(sizeof(T) == 0,
                  "tilefmt::format::MetadataEntry::as<T>: T must be a fixed-width integer, float, double, char, "
                  "char16_t, char32_t or std::byte");
}
} // namespace detail

/// format_spec/metadata.md, the fields present only when `Deletion` is 0
/// (`Value type`, `Number of values`, `Value`).
struct MetadataValue {
  Datatype type{};
  std::uint32_t num = 0;  // number of values (0 is allowed)
  codec::sized<detail::metadata_value_bytes, std::vector<std::byte>> bytes;  // num * datatype_size(type)

  friend bool operator==(const MetadataValue&, const MetadataValue&) = default;
};

/// format_spec/metadata.md, "Metadata File": one entry.
struct MetadataEntry {
  codec::counted<std::uint32_t, std::string> key;
  std::uint8_t deletion = 0;  // non-zero: the key is deleted (TileDB writes 1)
  codec::when<codec::field_equals<"deletion", std::uint8_t{0}>, MetadataValue> value;

  bool deleted() const noexcept { return deletion != 0; }
  Datatype type() const noexcept { return value->type; }
  std::uint32_t num() const noexcept { return value->num; }
  std::span<const std::byte> bytes() const noexcept { return value->bytes.value; }

  /// The values as T. Throws std::invalid_argument when the entry is a
  /// deletion or its type does not hold T (date and time types read as
  /// int64_t, BOOL as uint8_t, CHAR / STRING_ASCII / STRING_UTF8 as char,
  /// BLOB / ANY / GEOM as std::byte).
  template <class T>
  std::vector<T> as() const {
    check_readable(detail::metadata_type_matches<T>(value->type), sizeof(T));
    std::vector<T> out(value->num);
    if constexpr (std::is_same_v<T, std::byte>) {
      if (!out.empty()) std::memcpy(out.data(), value->bytes.value.data(), out.size());
    } else if constexpr (std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>) {
      using U = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>;
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<T>(codec::load_le<U>(value->bytes.value.data() + i * sizeof(T)));
    } else {
      codec::load_le_array(value->bytes.value.data(), out.data(), out.size());
    }
    return out;
  }

  /// A CHAR, STRING_ASCII or STRING_UTF8 value as a string.
  std::string as_string() const {
    check_readable(detail::metadata_type_matches<char>(value->type), 1);
    return std::string(reinterpret_cast<const char*>(value->bytes.value.data()), value->bytes.size());
  }

  /// An entry holding `values` as `type` (which must have sizeof(T) bytes;
  /// it defaults to T's own datatype).
  template <class T>
  static MetadataEntry of(std::string key, std::span<const T> values, Datatype type = datatype_of<T>()) {
    static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::byte>,
                  "tilefmt::format::MetadataEntry::of: T must be arithmetic or std::byte");
    if (datatype_size(type) != sizeof(T))
      throw std::invalid_argument("tilefmt: MetadataEntry::of: " + std::string(codec_enum_name(type)) +
                                  " values do not have sizeof(T) bytes");
    if (values.size() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("tilefmt: MetadataEntry::of: more than 2^32-1 values");
    MetadataEntry e;
    e.key.value = std::move(key);
    e.value->type = type;
    e.value->num = static_cast<std::uint32_t>(values.size());
    e.value->bytes.value.resize(values.size() * sizeof(T));
    codec::store_le_array(e.value->bytes.value.data(), values.data(), values.size());
    return e;
  }
  template <class T>
  static MetadataEntry of(std::string key, const std::vector<T>& values, Datatype type = datatype_of<T>()) {
    return of(std::move(key), std::span<const T>(values), type);
  }
  /// A string value (STRING_UTF8 by default, as TileDB-Py writes str).
  static MetadataEntry of_string(std::string key, std::string_view s, Datatype type = Datatype::STRING_UTF8) {
    return of(std::move(key), std::span<const char>(s.data(), s.size()), type);
  }
  /// A deletion of `key`.
  static MetadataEntry deletion_of(std::string key) {
    MetadataEntry e;
    e.key.value = std::move(key);
    e.deletion = 1;
    return e;
  }

  friend bool operator==(const MetadataEntry&, const MetadataEntry&) = default;

private:
  void check_readable(bool type_matches, std::size_t size) const {
    if (deleted()) throw std::invalid_argument("tilefmt: metadata key \"" + key.value + "\" is a deletion");
    if (!type_matches || datatype_size(value->type) != size)
      throw std::invalid_argument("tilefmt: metadata key \"" + key.value + "\" holds " +
                                  std::string(codec_enum_name(value->type)) + " values");
  }
};

/// The payload of one array (or group) metadata file: entries to the end.
struct ArrayMetadata {
  codec::rest<std::vector<MetadataEntry>> entries;

  /// The last entry for `key` in this file, or nullptr.
  const MetadataEntry* find(std::string_view key) const noexcept {
    const MetadataEntry* found = nullptr;
    for (const auto& e : entries)
      if (e.key.value == key) found = &e;
    return found;
  }

  friend bool operator==(const ArrayMetadata&, const ArrayMetadata&) = default;
};

} // namespace tilefmt::format
