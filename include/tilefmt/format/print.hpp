// tilefmt — array schemas, filter pipelines, filters and values in words:
// text for people and JSON for tools (tilefmt-inspect, error messages,
// dumps). Values are printed by their datatype, which the wire structs do
// not carry (a dimension's domain is bytes whose type is the dimension's),
// so this is a printer of meanings beside codec/dump, which prints the
// wire structure of any declaration. Both quote strings with
// codec::json_string and print bytes with codec::hex_string.
//
//   std::cout << format::schema_to_text(schema);
//   std::string j = format::pipeline_to_json(attribute.filters, schema.version.value);
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/codec/text.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::format {

namespace detail {

template <class F>
std::string float_text(F v, bool json) {
  if (std::isnan(v)) return json ? "\"NaN\"" : "NaN";
  if (std::isinf(v)) return json ? (v > 0 ? "\"Infinity\"" : "\"-Infinity\"") : (v > 0 ? "Infinity" : "-Infinity");
  char buf[64];
#if defined(__cpp_lib_to_chars) || !defined(_LIBCPP_VERSION)
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
#else
  // A libc++ without floating to_chars (emscripten 3.1.6's): the shortest
  // precision that reads back as the same value, as to_chars gives.
  for (int precision = 1;; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(v));
    if (static_cast<F>(std::strtod(buf, nullptr)) == v || precision >= 17) return buf;
  }
#endif
}

/// One value of `type` at `p` (which holds datatype_size(type) bytes).
inline std::string value_text(Datatype type, const std::byte* p, bool json) {
  switch (type) {
  case Datatype::INT8: return std::to_string(codec::load_le<std::int8_t>(p));
  case Datatype::UINT8: case Datatype::BOOL: return std::to_string(codec::load_le<std::uint8_t>(p));
  case Datatype::INT16: return std::to_string(codec::load_le<std::int16_t>(p));
  case Datatype::UINT16: case Datatype::STRING_UTF16: case Datatype::STRING_UCS2:
    return std::to_string(codec::load_le<std::uint16_t>(p));
  case Datatype::INT32: return std::to_string(codec::load_le<std::int32_t>(p));
  case Datatype::UINT32: case Datatype::STRING_UTF32: case Datatype::STRING_UCS4:
    return std::to_string(codec::load_le<std::uint32_t>(p));
  case Datatype::UINT64: return std::to_string(codec::load_le<std::uint64_t>(p));
  case Datatype::FLOAT32: return float_text(codec::load_le<float>(p), json);
  case Datatype::FLOAT64: return float_text(codec::load_le<double>(p), json);
  default:
    if (type == Datatype::INT64 || is_datetime(type) || is_time(type))
      return std::to_string(codec::load_le<std::int64_t>(p));
    return std::to_string(std::to_integer<unsigned>(*p));
  }
}

} // namespace detail

/// Values of `type` in words: characters (CHAR, STRING_ASCII, STRING_UTF8)
/// as one quoted string, BLOB, ANY and GEOM as a quoted hex string, numbers
/// as a number or a bracketed list. In JSON, NaN and infinities are strings.
inline std::string values_to_text(Datatype type, std::span<const std::byte> bytes, bool json = false) {
  if (type == Datatype::CHAR || type == Datatype::STRING_ASCII || type == Datatype::STRING_UTF8)
    return codec::json_string(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (type == Datatype::BLOB || type == Datatype::ANY || type == Datatype::GEOM_WKB || type == Datatype::GEOM_WKT)
    return "\"" + codec::hex_string(bytes) + "\"";
  const std::size_t size = datatype_size(type);
  if (size == 0 || bytes.size() % size != 0) return "\"" + codec::hex_string(bytes) + "\"";
  const std::size_t n = bytes.size() / size;
  if (n == 1) return detail::value_text(type, bytes.data(), json);
  std::string out = "[";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    out += detail::value_text(type, bytes.data() + i * size, json);
  }
  return out + "]";
}

namespace detail {

/// A filter's options as (name, value) pairs, decoded by filter type; an
/// option blob that does not have the expected layout is shown in hex.
inline std::vector<std::pair<std::string, std::string>> filter_options(const Filter& f, std::uint32_t version,
                                                                        bool json) {
  std::vector<std::pair<std::string, std::string>> out;
  auto name = [&](auto e) {
    std::string s(codec_enum_name(e));
    return json ? codec::json_string(s) : s;
  };
  auto compression = [&](Compressor expected, Compressor got, std::int32_t level) {
    if (got != expected) out.emplace_back("compressor", name(got));
    out.emplace_back("level", std::to_string(level));
  };
  try {
    switch (f.type) {
    case FilterType::GZIP: case FilterType::ZSTD: case FilterType::LZ4: case FilterType::RLE:
    case FilterType::BZIP2: case FilterType::DICTIONARY: {
      auto o = f.options_as<CompressionOptions>(version);
      compression(f.type == FilterType::DICTIONARY ? Compressor::DICTIONARY_ENCODING
                                                   : static_cast<Compressor>(f.type),
                  o.compressor, o.level);
      break;
    }
    case FilterType::DELTA: {
      auto o = f.options_as<DeltaOptions>(version);
      compression(Compressor::DELTA, o.compressor, o.level);
      if (version >= 19) out.emplace_back("reinterpret_datatype", name(o.reinterpret_datatype.value));
      break;
    }
    case FilterType::DOUBLE_DELTA: {
      auto o = f.options_as<DoubleDeltaOptions>(version);
      compression(Compressor::DOUBLE_DELTA, o.compressor, o.level);
      if (version >= 20) out.emplace_back("reinterpret_datatype", name(o.reinterpret_datatype.value));
      break;
    }
    case FilterType::BIT_WIDTH_REDUCTION: case FilterType::POSITIVE_DELTA:
      out.emplace_back("max_window_size", std::to_string(f.options_as<WindowOptions>(version).max_window_size));
      break;
    case FilterType::SCALE_FLOAT: {
      auto o = f.options_as<FloatScaleOptions>(version);
      out.emplace_back("scale", float_text(o.scale, json));
      out.emplace_back("offset", float_text(o.offset, json));
      out.emplace_back("byte_width", std::to_string(o.byte_width));
      break;
    }
    case FilterType::WEBP: {
      auto o = f.options_as<WebpOptions>(version);
      constexpr std::string_view formats[] = {"NONE", "RGB", "BGR", "RGBA", "BGRA"};
      std::string fmt = o.format < 5 ? std::string(formats[o.format]) : std::to_string(o.format);
      out.emplace_back("quality", float_text(o.quality, json));
      out.emplace_back("format", o.format < 5 && json ? codec::json_string(fmt) : fmt);
      out.emplace_back("lossless", std::to_string(o.lossless));
      out.emplace_back("y_extent", std::to_string(o.y_extent));
      out.emplace_back("x_extent", std::to_string(o.x_extent));
      break;
    }
    default:
      if (!f.options.empty()) out.emplace_back("options", "\"" + codec::hex_string(f.options.value) + "\"");
      break;
    }
  } catch (const format_error&) {
    out.clear();
    out.emplace_back("options", "\"" + codec::hex_string(f.options.value) + "\"");
  }
  return out;
}

} // namespace detail

/// One filter in words, e.g. `ZSTD(level=-1)`, `BIT_WIDTH_REDUCTION(max_window_size=256)`,
/// `BYTESHUFFLE`. `version` is the schema's (it decides the DELTA and
/// DOUBLE_DELTA option layouts).
inline std::string filter_to_text(const Filter& f, std::uint32_t version) {
  std::string out(codec_enum_name(f.type));
  auto opts = detail::filter_options(f, version, false);
  if (opts.empty()) return out;
  out += '(';
  for (std::size_t i = 0; i < opts.size(); ++i) out += (i ? ", " : "") + opts[i].first + "=" + opts[i].second;
  return out + ')';
}

inline std::string filter_to_json(const Filter& f, std::uint32_t version) {
  std::string out = "{\"type\": " + codec::json_string(codec_enum_name(f.type));
  for (const auto& [k, v] : detail::filter_options(f, version, true)) out += ", \"" + k + "\": " + v;
  return out + "}";
}

/// A pipeline in words: `ZSTD(level=-1), BITSHUFFLE`, `(none)`; a
/// max_chunk_size other than TileDB's 65536 is appended.
inline std::string pipeline_to_text(const FilterPipeline& p, std::uint32_t version) {
  std::string out;
  for (std::size_t i = 0; i < p.filters.size(); ++i) out += (i ? ", " : "") + filter_to_text(p.filters[i], version);
  if (out.empty()) out = "(none)";
  if (p.max_chunk_size != 65536) out += " max_chunk_size=" + std::to_string(p.max_chunk_size);
  return out;
}

inline std::string pipeline_to_json(const FilterPipeline& p, std::uint32_t version) {
  std::string out = "{\"max_chunk_size\": " + std::to_string(p.max_chunk_size) + ", \"filters\": [";
  for (std::size_t i = 0; i < p.filters.size(); ++i) out += (i ? ", " : "") + filter_to_json(p.filters[i], version);
  return out + "]}";
}

namespace detail {

inline std::string cell_val_num_text(std::uint32_t n, bool json) {
  return n == var_num ? (json ? "\"var\"" : "var") : std::to_string(n);
}

inline std::string range_text(Datatype type, bool var, const Range1D& r, bool json) {
  if (var) return "[" + values_to_text(Datatype::STRING_ASCII, r.lo(), json) + ", " +
                  values_to_text(Datatype::STRING_ASCII, r.hi(), json) + "]";
  return values_to_text(type, r.bytes, json);
}

/// Writes nested `key: value` lines (text) or the same as JSON.
class dump_writer {
public:
  dump_writer(std::ostream& os, bool json) : os_(os), json_(json) {}

  void key(std::string_view k) {
    separate();
    if (json_)
      os_ << codec::json_string(k) << ':';
    else
      os_ << k << ':';
  }
  void field(std::string_view k, const std::string& value) {
    key(k);
    os_ << ' ' << value;
  }
  /// Opens an object or a list as the value of the last key (or at the top).
  void open(char c) {
    if (json_) os_ << (depth_ ? " " : "") << c;
    first_.push_back(true);
    ++depth_;
  }
  void close(char c) {
    --depth_;
    const bool empty = first_.back();
    first_.pop_back();
    if (json_) {
      if (!empty) newline();
      os_ << c;
    } else if (empty) {
      os_ << (c == ']' ? " []" : " {}");
    }
  }
  /// Opens an object that is an element of the enclosing list.
  void open_item() {
    if (json_) {
      separate();
      os_ << '{';
    } else {
      first_.back() = false;
      newline();
      os_ << "- ";
      item_line_ = true;
    }
    first_.push_back(true);
    ++depth_;
  }

private:
  void newline() {
    os_ << '\n';
    for (int i = 0; i < depth_; ++i) os_ << "  ";
  }
  void separate() {
    if (json_ && !first_.back()) os_ << ',';
    first_.back() = false;
    if (item_line_)
      item_line_ = false;  // the first field of a list item shares the "- " line
    else
      newline();
  }

  std::ostream& os_;
  bool json_;
  std::vector<bool> first_{true};
  int depth_ = 0;
  bool item_line_ = false;
};

/// An attribute's fill value in words. A default one (none stored, before
/// v6) repeats one value per value of the cell, and cell_val_num comes from
/// the file: beyond 65536 values it is shown as the value and the count
/// (`V x N`; JSON `{"value": V, "count": N}`) without building the cell,
/// which a 4-byte field could make gigabytes long.
inline std::string fill_text(const Attribute& a, bool json) {
  if (!a.fill_value->empty() || a.is_var() || a.cell_val_num <= 65536) return values_to_text(a.type, a.fill(), json);
  const std::string one = values_to_text(a.type, default_fill_value(a.type, 1), json);
  const std::string n = std::to_string(a.cell_val_num);
  return json ? "{\"value\": " + one + ", \"count\": " + n + "}" : one + " x " + n;
}

inline void schema_dump(std::ostream& os, const ArraySchema& s, bool json) {
  const std::uint32_t v = s.version.value;
  auto str = [&](std::string_view x) { return json ? codec::json_string(x) : std::string(x); };
  auto quoted = [&](std::string_view x) { return codec::json_string(x); };
  auto flag = [](bool x) { return std::string(x ? "true" : "false"); };
  auto pipeline = [&](const FilterPipeline& p) { return json ? pipeline_to_json(p, v) : pipeline_to_text(p, v); };
  dump_writer w(os, json);

  if (!json) os << "ArraySchema";
  w.open('{');
  w.field("version", std::to_string(v));
  if (v >= 5) w.field("allows_dups", flag(s.allows_dups.value));
  w.field("array_type", str(codec_enum_name(s.array_type)));
  w.field("tile_order", str(codec_enum_name(s.tile_order)));
  w.field("cell_order", str(codec_enum_name(s.cell_order)));
  w.field("capacity", std::to_string(s.capacity));
  w.field("coords_filters", pipeline(s.coords_filters));
  w.field("offsets_filters", pipeline(s.offsets_filters));
  if (v >= 7) w.field("validity_filters", pipeline(s.validity_filters.value));
  w.key("dimensions");
  w.open('[');
  for (const auto& d : s.domain.dimensions) {
    w.open_item();
    w.field("name", quoted(d.name.value));
    w.field("type", str(codec_enum_name(d.type.value)));
    w.field("cell_val_num", cell_val_num_text(d.cell_val_num.value, json));
    if (v >= 5) w.field("filters", pipeline(d.filters.value));
    if (!d.domain.empty())
      w.field("domain", range_text(d.type.value, d.is_var(), Range1D{d.coord_size(), d.domain.value}, json));
    else
      w.field("domain", "null");
    w.field("tile_extent", d.has_tile_extent() ? values_to_text(d.type.value, d.tile_extent.value, json) : "null");
    w.close('}');
  }
  w.close(']');
  w.key("attributes");
  w.open('[');
  for (const auto& a : s.attributes) {
    w.open_item();
    w.field("name", quoted(a.name.value));
    w.field("type", str(codec_enum_name(a.type)));
    w.field("cell_val_num", cell_val_num_text(a.cell_val_num, json));
    w.field("filters", pipeline(a.filters));
    w.field("fill_value", fill_text(a, json));
    if (v >= 7) {
      w.field("nullable", flag(a.nullable.value));
      w.field("fill_value_validity", std::to_string(a.fill_value_validity.value));
    }
    if (v >= 17) w.field("order", str(codec_enum_name(a.order.value)));
    if (v >= 20 && !a.enumeration_name->empty()) w.field("enumeration_name", quoted(a.enumeration_name->value));
    w.close('}');
  }
  w.close(']');
  if (v >= 18) {
    w.key("dimension_labels");
    w.open('[');
    for (const auto& l : s.dimension_labels.value) {
      w.open_item();
      w.field("dimension_index", std::to_string(l.dimension_index));
      w.field("name", quoted(l.name.value));
      w.field("relative_uri", flag(l.relative_uri));
      w.field("uri", quoted(l.uri.value));
      w.field("label_attr_name", quoted(l.label_attr_name.value));
      w.field("label_order", str(codec_enum_name(l.label_order)));
      w.field("label_type", str(codec_enum_name(l.label_type)));
      w.field("label_cell_val_num", cell_val_num_text(l.label_cell_val_num, json));
      w.field("is_external", flag(l.is_external));
      w.close('}');
    }
    w.close(']');
  }
  if (v >= 20) {
    w.key("enumerations");
    w.open('[');
    for (const auto& e : s.enumerations.value) {
      w.open_item();
      w.field("name", quoted(e.name.value));
      w.field("filename", quoted(e.filename.value));
      w.close('}');
    }
    w.close(']');
  }
  if (v >= 22) {
    const auto& cd = s.current_domain.value;
    w.key("current_domain");
    w.open('{');
    w.field("version", std::to_string(static_cast<std::uint32_t>(cd.version)));
    w.field("empty", flag(cd.empty));
    if (!cd.empty) {
      w.field("type", str(codec_enum_name(cd.type.value)));
      w.key("ranges");  // by dimension name
      w.open('{');
      const auto& ranges = cd.ndrectangle.value.ranges;
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        if (i < s.domain.dimensions.size()) {
          const Dimension& dim = s.domain.dimensions[i];
          w.field(dim.name.value, range_text(dim.type.value, dim.is_var(), ranges[i], json));
        } else {
          w.field(std::to_string(i), "\"" + codec::hex_string(ranges[i].bytes) + "\"");
        }
      }
      w.close('}');
    }
    w.close('}');
  }
  w.close('}');
  os << '\n';
}

} // namespace detail

/// The schema in words, one `key: value` per line: names, types, domains
/// and fill values as values of their types, filters with their options.
inline std::string schema_to_text(const ArraySchema& s) {
  std::ostringstream os;
  detail::schema_dump(os, s, false);
  return os.str();
}

/// The same as JSON (NaN and infinities as strings, strings escaped).
inline std::string schema_to_json(const ArraySchema& s) {
  std::ostringstream os;
  detail::schema_dump(os, s, true);
  return os.str();
}

} // namespace tilefmt::format
