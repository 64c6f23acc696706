// Filter lists between the schema and Python: each filter a tuple
// (name, level or None[, options]), the form tilefmt.Attr/Dim take and a
// schema read from disk shows, so that a list read round-trips:
//   compressors (GZIP, ZSTD, LZ4, RLE, BZIP2, DICTIONARY)  ("ZSTD", 3)
//   DELTA, DOUBLE_DELTA                                      ("DELTA", -1[, {"reinterpret_datatype": "INT32"}])
//   BIT_WIDTH_REDUCTION, POSITIVE_DELTA                      ("POSITIVE_DELTA", None[, {"max_window_size": 1024}])
//   SCALE_FLOAT                                              ("SCALE_FLOAT", None[, {"scale": , "offset": , "byte_width": }])
//   WEBP                                                     ("WEBP", None[, {"quality": , "format": , "lossless": ,
//                                                                              "y_extent": , "x_extent": }])
//   the rest (shuffles, checksums, XOR, NONE)                ("BITSHUFFLE", None)
// Options left out take TileDB's defaults (FilterCreate::make and each
// filter's constructor).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <nanobind/nanobind.h>

#include "tilefmt/format/array_schema.hpp"

namespace tilefmt_python {

namespace nb = nanobind;
namespace tff = tilefmt::format;

namespace detail {

inline tff::Datatype datatype_named(const std::string& name) {
  for (std::uint8_t i = 0; tff::codec_enum_valid(static_cast<tff::Datatype>(i)); ++i)
    if (tff::codec_enum_name(static_cast<tff::Datatype>(i)) == name) return static_cast<tff::Datatype>(i);
  throw std::invalid_argument("tilefmt: unknown datatype \"" + name + "\"");
}

inline tff::Compressor compressor_of(tff::FilterType t) {
  switch (t) {
  case tff::FilterType::DICTIONARY: return tff::Compressor::DICTIONARY_ENCODING;
  case tff::FilterType::DELTA: return tff::Compressor::DELTA;
  default: return static_cast<tff::Compressor>(t);  // GZIP .. DOUBLE_DELTA share their numbers
  }
}

/// `options[key]` as T, or `fallback` without options or that key.
template <class T>
T option(const nb::handle& options, const char* key, T fallback) {
  if (!options.is_valid() || options.is_none()) return fallback;
  const auto d = nb::cast<nb::dict>(options);
  if (!d.contains(key)) return fallback;
  return nb::cast<T>(d[key]);
}

/// Refuses option names a filter does not have (a typo would otherwise
/// write the default silently).
inline void only_options(const nb::handle& options, const std::string& filter, std::initializer_list<const char*> keys) {
  if (!options.is_valid() || options.is_none()) return;
  for (auto [k, v] : nb::cast<nb::dict>(options)) {
    const auto name = nb::cast<std::string>(k);
    bool known = false;
    for (const char* key : keys) known = known || name == key;
    if (!known) throw std::invalid_argument("tilefmt: the filter " + filter + " has no option \"" + name + "\"");
  }
}

} // namespace detail

/// A filter list from Python's tuples (above), for a schema of format
/// `version`.
inline tff::FilterPipeline pipeline_of(const nb::list& filters, std::uint32_t version = tff::written_version) {
  using FT = tff::FilterType;
  tff::FilterPipeline p;
  for (nb::handle h : filters) {
    auto t = nb::cast<nb::tuple>(h);
    if (t.size() < 1 || t.size() > 3)
      throw std::invalid_argument("tilefmt: a filter is a tuple (name, level or None[, options])");
    const auto name = nb::cast<std::string>(t[0]);
    const std::optional<std::int32_t> level =
        t.size() < 2 || t[1].is_none() ? std::nullopt : std::optional(nb::cast<std::int32_t>(t[1]));
    const nb::handle options = t.size() == 3 ? nb::handle(t[2]) : nb::handle();
    std::optional<FT> type;
    for (std::uint8_t i = 0; tff::codec_enum_valid(static_cast<FT>(i)); ++i)
      if (tff::codec_enum_name(static_cast<FT>(i)) == name) type = static_cast<FT>(i);
    if (!type || *type == FT::AES_256_GCM || *type == FT::DEPRECATED)
      throw std::invalid_argument("tilefmt: unknown filter \"" + name + "\"");
    switch (*type) {
    case FT::GZIP: case FT::ZSTD: case FT::LZ4: case FT::RLE: case FT::BZIP2: case FT::DICTIONARY:
      detail::only_options(options, name, {});
      p.filters.value.push_back(tff::Filter::make(*type, tff::CompressionOptions{detail::compressor_of(*type), level.value_or(-1)}, version));
      break;
    case FT::DELTA: case FT::DOUBLE_DELTA: {
      detail::only_options(options, name, {"reinterpret_datatype"});
      const auto as = detail::datatype_named(detail::option<std::string>(options, "reinterpret_datatype", "ANY"));
      if (*type == FT::DELTA)
        p.filters.value.push_back(tff::Filter::make(*type, tff::DeltaOptions{detail::compressor_of(*type), level.value_or(-1), {as}}, version));
      else
        p.filters.value.push_back(tff::Filter::make(*type, tff::DoubleDeltaOptions{detail::compressor_of(*type), level.value_or(-1), {as}}, version));
      break;
    }
    case FT::BIT_WIDTH_REDUCTION: case FT::POSITIVE_DELTA:
      detail::only_options(options, name, {"max_window_size"});
      p.filters.value.push_back(tff::Filter::make(
          *type, tff::WindowOptions{detail::option<std::uint32_t>(options, "max_window_size", *type == FT::POSITIVE_DELTA ? 1024u : 256u)},
          version));
      break;
    case FT::SCALE_FLOAT:
      detail::only_options(options, name, {"scale", "offset", "byte_width"});
      p.filters.value.push_back(tff::Filter::make(
          *type,
          tff::FloatScaleOptions{detail::option<double>(options, "scale", 1.0), detail::option<double>(options, "offset", 0.0),
                                 detail::option<std::uint64_t>(options, "byte_width", 8)},
          version));
      break;
    case FT::WEBP:
      detail::only_options(options, name, {"quality", "format", "lossless", "y_extent", "x_extent"});
      p.filters.value.push_back(tff::Filter::make(
          *type,
          tff::WebpOptions{detail::option<float>(options, "quality", 100.0f), detail::option<std::uint8_t>(options, "format", 0),
                           detail::option<std::uint8_t>(options, "lossless", 0), detail::option<std::uint16_t>(options, "y_extent", 0),
                           detail::option<std::uint16_t>(options, "x_extent", 0), {0, 0}},
          version));
      break;
    default:  // shuffles, checksums, XOR, NONE: no options
      if (level || options.is_valid()) throw std::invalid_argument("tilefmt: the filter " + name + " takes no level or options");
      p.filters.value.push_back(tff::Filter::make(*type));
    }
  }
  return p;
}

/// A stored filter list as Python's tuples (the options a filter's
/// defaults would give are left out).
inline nb::list filters_list(const tff::FilterPipeline& p, std::uint32_t version) {
  using FT = tff::FilterType;
  nb::list out;
  for (const auto& f : p.filters.value) {
    const std::string name(tff::codec_enum_name(f.type));
    nb::dict options;
    nb::object level = nb::none();
    switch (f.type) {
    case FT::GZIP: case FT::ZSTD: case FT::LZ4: case FT::RLE: case FT::BZIP2: case FT::DICTIONARY:
      level = nb::int_(f.options_as<tff::CompressionOptions>(version).level);
      break;
    case FT::DELTA: case FT::DOUBLE_DELTA: {
      const auto o = f.type == FT::DELTA ? f.options_as<tff::DeltaOptions>(version)
                                         : [&] {
                                             const auto d = f.options_as<tff::DoubleDeltaOptions>(version);
                                             return tff::DeltaOptions{d.compressor, d.level, {d.reinterpret_datatype.value}};
                                           }();
      level = nb::int_(o.level);
      if (o.reinterpret_datatype.value != tff::Datatype::ANY)
        options["reinterpret_datatype"] = std::string(tff::codec_enum_name(o.reinterpret_datatype.value));
      break;
    }
    case FT::BIT_WIDTH_REDUCTION: case FT::POSITIVE_DELTA: {
      const auto w = f.options_as<tff::WindowOptions>(version).max_window_size;
      if (w != (f.type == FT::POSITIVE_DELTA ? 1024u : 256u)) options["max_window_size"] = w;
      break;
    }
    case FT::SCALE_FLOAT: {
      const auto o = f.options_as<tff::FloatScaleOptions>(version);
      options["scale"] = o.scale;
      options["offset"] = o.offset;
      options["byte_width"] = o.byte_width;
      break;
    }
    case FT::WEBP: {
      const auto o = f.options_as<tff::WebpOptions>(version);
      options["quality"] = o.quality;
      options["format"] = o.format;
      options["lossless"] = o.lossless;
      options["y_extent"] = o.y_extent;
      options["x_extent"] = o.x_extent;
      break;
    }
    default: break;
    }
    out.append(options.size() ? nb::make_tuple(name, level, options) : nb::make_tuple(name, level));
  }
  return out;
}

} // namespace tilefmt_python
