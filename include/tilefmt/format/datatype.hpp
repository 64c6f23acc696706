// tilefmt — TileDB datatypes (format_spec/array_schema.md, "Datatype";
// values from tiledb/sm/enums/datatype.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tilefmt::format {

/// A cell datatype, stored as one byte wherever the format names one.
enum class Datatype : std::uint8_t {
  INT32 = 0, INT64 = 1, FLOAT32 = 2, FLOAT64 = 3, CHAR = 4, INT8 = 5, UINT8 = 6, INT16 = 7,
  UINT16 = 8, UINT32 = 9, UINT64 = 10, STRING_ASCII = 11, STRING_UTF8 = 12, STRING_UTF16 = 13,
  STRING_UTF32 = 14, STRING_UCS2 = 15, STRING_UCS4 = 16, ANY = 17, DATETIME_YEAR = 18,
  DATETIME_MONTH = 19, DATETIME_WEEK = 20, DATETIME_DAY = 21, DATETIME_HR = 22, DATETIME_MIN = 23,
  DATETIME_SEC = 24, DATETIME_MS = 25, DATETIME_US = 26, DATETIME_NS = 27, DATETIME_PS = 28,
  DATETIME_FS = 29, DATETIME_AS = 30, TIME_HR = 31, TIME_MIN = 32, TIME_SEC = 33, TIME_MS = 34,
  TIME_US = 35, TIME_NS = 36, TIME_PS = 37, TIME_FS = 38, TIME_AS = 39, BLOB = 40, BOOL = 41,
  GEOM_WKB = 42, GEOM_WKT = 43,
};

namespace detail {
struct datatype_info {
  std::string_view name;
  std::uint8_t size;
};
inline constexpr std::array<datatype_info, 44> datatypes{{
    {"INT32", 4}, {"INT64", 8}, {"FLOAT32", 4}, {"FLOAT64", 8}, {"CHAR", 1}, {"INT8", 1},
    {"UINT8", 1}, {"INT16", 2}, {"UINT16", 2}, {"UINT32", 4}, {"UINT64", 8}, {"STRING_ASCII", 1},
    {"STRING_UTF8", 1}, {"STRING_UTF16", 2}, {"STRING_UTF32", 4}, {"STRING_UCS2", 2},
    {"STRING_UCS4", 4}, {"ANY", 1}, {"DATETIME_YEAR", 8}, {"DATETIME_MONTH", 8},
    {"DATETIME_WEEK", 8}, {"DATETIME_DAY", 8}, {"DATETIME_HR", 8}, {"DATETIME_MIN", 8},
    {"DATETIME_SEC", 8}, {"DATETIME_MS", 8}, {"DATETIME_US", 8}, {"DATETIME_NS", 8},
    {"DATETIME_PS", 8}, {"DATETIME_FS", 8}, {"DATETIME_AS", 8}, {"TIME_HR", 8}, {"TIME_MIN", 8},
    {"TIME_SEC", 8}, {"TIME_MS", 8}, {"TIME_US", 8}, {"TIME_NS", 8}, {"TIME_PS", 8},
    {"TIME_FS", 8}, {"TIME_AS", 8}, {"BLOB", 1}, {"BOOL", 1}, {"GEOM_WKB", 1}, {"GEOM_WKT", 1},
}};
} // namespace detail

constexpr bool codec_enum_valid(Datatype t) {
  return static_cast<std::size_t>(t) < detail::datatypes.size();
}
constexpr std::string_view codec_enum_name(Datatype t) {
  return codec_enum_valid(t) ? detail::datatypes[static_cast<std::size_t>(t)].name : "INVALID";
}
/// Bytes of one value of `t` (0 for an invalid value).
constexpr std::size_t datatype_size(Datatype t) {
  return codec_enum_valid(t) ? detail::datatypes[static_cast<std::size_t>(t)].size : 0;
}

constexpr bool is_datetime(Datatype t) { return t >= Datatype::DATETIME_YEAR && t <= Datatype::DATETIME_AS; }
constexpr bool is_time(Datatype t) { return t >= Datatype::TIME_HR && t <= Datatype::TIME_AS; }
constexpr bool is_string(Datatype t) { return t >= Datatype::STRING_ASCII && t <= Datatype::STRING_UCS4; }
constexpr bool is_float(Datatype t) { return t == Datatype::FLOAT32 || t == Datatype::FLOAT64; }
constexpr bool is_integer(Datatype t) {
  switch (t) {
  case Datatype::INT8: case Datatype::UINT8: case Datatype::INT16: case Datatype::UINT16:
  case Datatype::INT32: case Datatype::UINT32: case Datatype::INT64: case Datatype::UINT64:
    return true;
  default:
    return false;
  }
}

/// The C++ type that holds one value of a datatype, for the types filters
/// compute on (date and time values are int64 counts).
template <Datatype T> struct datatype_traits;
#define TILEFMT_DATATYPE_CPP(DT, CPP)                                                                  \
  template <> struct datatype_traits<Datatype::DT> { using type = CPP; };
TILEFMT_DATATYPE_CPP(INT8, std::int8_t)
TILEFMT_DATATYPE_CPP(UINT8, std::uint8_t)
TILEFMT_DATATYPE_CPP(INT16, std::int16_t)
TILEFMT_DATATYPE_CPP(UINT16, std::uint16_t)
TILEFMT_DATATYPE_CPP(INT32, std::int32_t)
TILEFMT_DATATYPE_CPP(UINT32, std::uint32_t)
TILEFMT_DATATYPE_CPP(INT64, std::int64_t)
TILEFMT_DATATYPE_CPP(UINT64, std::uint64_t)
TILEFMT_DATATYPE_CPP(FLOAT32, float)
TILEFMT_DATATYPE_CPP(FLOAT64, double)
TILEFMT_DATATYPE_CPP(CHAR, char)
TILEFMT_DATATYPE_CPP(BOOL, std::uint8_t)
#undef TILEFMT_DATATYPE_CPP

/// The one datatype dispatcher: calls f.template operator()<T>() with the C++
/// type a value of `t` is stored and computed in, and returns true (false
/// for a value outside the enum):
///   integers as themselves; FLOAT32, FLOAT64 as float, double; dates and
///   times as int64 counts; CHAR as char; BOOL, BLOB, GEOM_WKB, GEOM_WKT, ANY,
///   STRING_ASCII and STRING_UTF8 as uint8; STRING_UTF16 and UCS2 as uint16;
///   STRING_UTF32 and UCS4 as uint32.
/// Where TileDB computes a datatype differently (a filter deltas strings as
/// bytes, metadata compares ASCII strings as characters), the caller says so
/// before or after this switch, not in a switch of its own.
template <class F>
constexpr bool visit_datatype(Datatype t, F&& f) {
  using D = Datatype;
  switch (t) {
  case D::INT8: f.template operator()<std::int8_t>(); return true;
  case D::UINT8: case D::BOOL: case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT: case D::ANY:
  case D::STRING_ASCII: case D::STRING_UTF8:
    f.template operator()<std::uint8_t>(); return true;
  case D::INT16: f.template operator()<std::int16_t>(); return true;
  case D::UINT16: case D::STRING_UTF16: case D::STRING_UCS2: f.template operator()<std::uint16_t>(); return true;
  case D::INT32: f.template operator()<std::int32_t>(); return true;
  case D::UINT32: case D::STRING_UTF32: case D::STRING_UCS4: f.template operator()<std::uint32_t>(); return true;
  case D::INT64: f.template operator()<std::int64_t>(); return true;
  case D::UINT64: f.template operator()<std::uint64_t>(); return true;
  case D::FLOAT32: f.template operator()<float>(); return true;
  case D::FLOAT64: f.template operator()<double>(); return true;
  case D::CHAR: f.template operator()<char>(); return true;
  default:
    if (is_datetime(t) || is_time(t)) {
      f.template operator()<std::int64_t>();
      return true;
    }
    return false;
  }
}

/// visit_datatype restricted to the types a fixed-size dimension's
/// coordinates have (integers, floats, dates and times as int64): calls
/// f.template operator()<T>() for those, and returns false for any other
/// type (strings, CHAR, BOOL, BLOB, ANY) without calling f.
template <class F>
constexpr bool visit_coordinate_type(Datatype t, F&& f) {
  using D = Datatype;
  if (t == D::CHAR || t == D::BOOL || t == D::BLOB || t == D::ANY || is_string(t)) return false;
  bool fixed = false;
  visit_datatype(t, [&]<class T>() {
    // Only the coordinate types are instantiated.
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>) {
      fixed = true;
      f.template operator()<T>();
    }
  });
  return fixed;
}

/// visit_datatype restricted to integers, as filters compute them: T the
/// C++ integer type of the datatype's width and signedness (dates and times
/// as int64, CHAR as int8). Returns false for floats.
template <class F>
constexpr bool visit_integer_type(Datatype t, F&& f) {
  bool integral = false;
  visit_datatype(t, [&]<class T>() {
    if constexpr (std::is_integral_v<T>) {
      integral = true;
      f.template operator()<std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>>();
    }
  });
  return integral;
}

/// The type TileDB accumulates a sum of T values in, for tile metadata and
/// for SUM and MEAN aggregates: int64 for signed integers and for char
/// (TileDB's metadata generator sums CHAR cells as int64), uint64 for
/// unsigned integers, double for floating point.
template <class T>
using sum_type_of =
    std::conditional_t<std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_same_v<T, char> || std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

/// The datatype a C++ value type is stored as.
template <class T>
constexpr Datatype datatype_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return Datatype::INT8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return Datatype::UINT8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return Datatype::INT16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return Datatype::UINT16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return Datatype::INT32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return Datatype::UINT32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return Datatype::INT64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return Datatype::UINT64;
  else if constexpr (std::is_same_v<T, float>) return Datatype::FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return Datatype::FLOAT64;
  else if constexpr (std::is_same_v<T, char>) return Datatype::CHAR;
  else if constexpr (std::is_same_v<T, std::byte>) return Datatype::BLOB;
  else if constexpr (std::is_same_v<T, bool>) return Datatype::BOOL;
  else static_assert(sizeof(T) == 0, "tilefmt: no TileDB datatype for this C++ type");
}

} // namespace tilefmt::format
