// tilefmt — what DELTA and DOUBLE_DELTA share: their options (compressor
// byte, level, and from a format version on a reinterpret datatype) and the
// element type they compute on.
#pragma once

#include <cstdint>
#include <string>

#include "tilefmt/filter/detail/compression.hpp"

namespace tilefmt::filter::detail {

/// Calls f.template operator()<E>() with the C++ type DELTA and DOUBLE_DELTA
/// compute on for datatype `t` (tiledb/sm/compressors/delta_compressor.cc,
/// dd_compressor.cc): CHAR as int8; BOOL, BLOB, GEOM and ANY as uint8, and
/// every string type too, even the 2- and 4-byte ones; DATETIME and TIME as
/// int64. Returns false for the float types (which TileDB rejects).
template <class F>
bool with_delta_element_type(format::Datatype t, F&& f) {
  if (format::is_string(t)) t = format::Datatype::UINT8;  // every string type, as bytes
  return format::visit_integer_type(t, std::forward<F>(f));
}

/// The datatype the values are read as: the reinterpret datatype, or the
/// filter's input datatype when that is ANY. Throws `Error` (std::
/// invalid_argument when writing, format_error when reading) where TileDB
/// refuses the filter: float values, or an input whose values are not a
/// whole number of reinterpreted values.
template <class Error>
format::Datatype delta_element_datatype(format::FilterType f, format::Datatype input, format::Datatype reinterpret) {
  const format::Datatype t = reinterpret == format::Datatype::ANY ? input : reinterpret;
  auto refuse = [&](const std::string& why) -> format::Datatype {
    std::string msg = std::string(format::codec_enum_name(f)) + " filter: " + why;
    if constexpr (std::is_same_v<Error, format_error>)
      throw format_error(msg, 0);
    else
      throw Error("tilefmt: " + msg);
  };
  if (format::is_float(t)) return refuse("float values are not supported");
  if (!format::codec_enum_valid(t)) return refuse("invalid datatype");
  if (reinterpret != format::Datatype::ANY && format::datatype_size(input) % format::datatype_size(reinterpret) != 0)
    return refuse(std::string(format::codec_enum_name(input)) + " values are not a whole number of " +
                  std::string(format::codec_enum_name(reinterpret)) + " values");
  return t;
}

/// The stored options. `Options` is DeltaOptions or DoubleDeltaOptions,
/// whose reinterpret datatype exists from a format version on.
template <class Options>
format::Filter delta_descriptor(format::FilterType type, format::Compressor c, std::int32_t level,
                                format::Datatype reinterpret, std::uint32_t version) {
  constexpr std::uint32_t since = decltype(Options::reinterpret_datatype)::version;
  if (version < since && reinterpret != format::Datatype::ANY)
    throw std::invalid_argument("tilefmt: " + std::string(format::codec_enum_name(type)) +
                                " reinterpret datatype needs format version " + std::to_string(since));
  Options o{c, level, {}};
  o.reinterpret_datatype.value = reinterpret;
  return format::Filter::make(type, o, version);
}

template <class Options>
Options delta_options(const format::Filter& f, format::Compressor expected, std::uint32_t version) {
  auto o = f.options_as<Options>(version);
  if (o.compressor != expected)
    throw format_error(std::string(format::codec_enum_name(f.type)) + " filter stores compressor " +
                           std::string(format::codec_enum_name(o.compressor)),
                       0);
  return o;
}

/// A part DELTA or DOUBLE_DELTA can compress: at least one value, whole
/// values. TileDB does not check (it asserts, and release builds write
/// bytes read from past the input for an empty part, which it then cannot
/// read back), so writing such a part is refused.
inline std::size_t delta_value_count(format::FilterType f, bytes_view in, std::size_t value_size) {
  if (in.empty() || in.size() % value_size != 0)
    throw std::invalid_argument("tilefmt: " + std::string(format::codec_enum_name(f)) + " cannot compress a part of " +
                                std::to_string(in.size()) + " bytes: it needs one or more whole " +
                                std::to_string(value_size) + "-byte values");
  return in.size() / value_size;
}

} // namespace tilefmt::filter::detail
