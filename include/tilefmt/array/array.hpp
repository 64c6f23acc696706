// tilefmt — opening a TileDB array and reading its fragments.
//
//   auto arr = tilefmt::array::open("path/to/array");
//   const auto& schema = arr.schema();                 // in force at the open timestamp
//   for (const auto& frag : arr.fragments()) {         // committed, oldest first
//     auto a = frag.read<std::int32_t>("a");            // a std::vector (column<T>)
//     auto name = frag.read_var<char>("name");          // offsets + bytes
//     std::vector<std::uint8_t> valid = frag.read_validity("maybe");
//   }
//   auto scale = arr.metadata().get<double>("scale");
//
// Values come back in storage order: a dense fragment gives every cell of the
// space tiles it covers (tile order, then cell order; cells it did not write
// hold the fill value), a sparse fragment its cells in global order.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <exception>
#include <thread>
#include <vector>

#include "tilefmt/array/column.hpp"
#include "tilefmt/array/directory.hpp"
#include "tilefmt/array/io.hpp"
#include "tilefmt/array/metadata.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/filter/gzip.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/legacy.hpp"

namespace tilefmt::array {

struct open_options {
  /// AES-256-GCM key of an encrypted array (32 bytes), or empty.
  std::vector<std::uint8_t> encryption_key{};
  /// Open at [timestamp_start, timestamp_end] (ms since the epoch).
  std::uint64_t timestamp_start = 0;
  std::uint64_t timestamp_end = std::numeric_limits<std::uint64_t>::max();
  /// Open the array even when some fragments' metadata cannot be read;
  /// those are left out of fragments() and listed by damaged_fragments().
  bool skip_damaged_fragments = false;
  /// Skip checksum verification for speed.
  bool verify_checksums = true;
  /// Threads decoding the tiles of a column (0: one per core).
  unsigned threads = 0;
};

/// A var-size column: `values` holds every cell's values back to back and
/// `offsets[i]` is where cell i starts (in elements of T), with no trailing
/// offset.
template <class T>
struct var_column {
  std::vector<std::uint64_t> offsets;
  std::vector<T> values;
};

/// One tile of one field, unfiltered.
struct tile_data {
  std::vector<std::byte> values;          // fixed values, or the var bytes
  std::vector<std::uint64_t> offsets;     // var fields: start of each cell within `values`
  std::vector<std::uint8_t> validity;     // nullable attributes
};

/// A field of the schema as a fragment stores it.
struct field_info {
  std::string name;
  bool is_dimension = false;
  std::size_t index = 0;        // attribute or dimension number
  std::size_t footer_index = 0; // position in the footer's per-field arrays
  format::Datatype type = format::Datatype::INT32;
  std::uint32_t cell_val_num = 1;
  bool var = false;
  bool nullable = false;
  const format::FilterPipeline* filters = nullptr;
  /// Before format 5 a sparse fragment stores its coordinates in one
  /// `__coords` file, each tile holding every dimension (footer_index is
  /// then the `__coords` slot).
  bool in_coords_file = false;
  /// One of the fields TileDB adds to fragments: `__timestamps`,
  /// `__delete_timestamps`, `__delete_condition_index` (uint64 each).
  bool special = false;

  std::size_t cell_size() const { return var ? 8 : cell_val_num * format::datatype_size(type); }
};

namespace detail {

/// The payload of a generic tile as TileDB 1.3 and earlier wrote it (no
/// format version; format::LibraryVersionGenericTileHeader), or nullopt when
/// `bytes` does not have that shape. Only zlib-compressed and uncompressed
/// tiles exist in these files (TileDB compressed its own metadata with zlib).
inline std::optional<std::vector<std::byte>> library_version_generic_tile(std::span<const std::byte> bytes) {
  constexpr std::size_t header_size = codec::fixed_wire_size<format::LibraryVersionGenericTileHeader>;
  if (bytes.size() < header_size) return std::nullopt;
  auto header = codec::decode<format::LibraryVersionGenericTileHeader>(bytes.first(header_size));
  if (header.persisted_size != bytes.size() - header_size || header.cell_size != 1 ||
      header.datatype != format::Datatype::CHAR || (header.compressor != 0 && header.compressor != 1))
    return std::nullopt;
  auto body = bytes.subspan(header_size);
  if (header.compressor == 0) {
    if (header.tile_size != body.size()) return std::nullopt;
    return std::vector<std::byte>(body.begin(), body.end());
  }
  auto tile = codec::decode<format::LibraryVersionTile>(body);
  // Chunks hold at most 64 KiB each, which bounds what the input can ask
  // for; the chunk lengths must add up to the header's tile size.
  std::uint64_t total = 0;
  for (const auto& c : tile.chunks) {
    if (c.original_length > (std::uint64_t{1} << 16))
      throw format_error("LibraryVersionChunk.original_length: " + std::to_string(c.original_length) +
                             " bytes, more than a 64 KiB chunk",
                         header_size);
    total += c.original_length;
  }
  if (total != header.tile_size)
    throw format_error("LibraryVersionGenericTileHeader.tile_size: " + std::to_string(header.tile_size) +
                           " bytes, the chunks hold " + std::to_string(total),
                       8);
  std::vector<std::byte> out(static_cast<std::size_t>(total));
  std::size_t at = 0;
  for (const auto& c : tile.chunks) {
    filter::detail::gzip_codec::decompress(c.data, std::span<std::byte>(out).subspan(at, static_cast<std::size_t>(c.original_length)));
    at += static_cast<std::size_t>(c.original_length);
  }
  return out;
}

/// A TileDB 1.3 schema in today's terms: format version 1 (the layout that
/// followed it), and a filter pipeline of one compressor where it had one.
inline format::ArraySchema from_library_version(const format::LibraryVersionArraySchema& old) {
  auto pipeline = [](const format::LibraryVersionCompressor& c, const std::string& what) {
    format::FilterPipeline p;
    format::FilterType t{};
    switch (c.compressor) {
    case 0: return p;
    case 1: t = format::FilterType::GZIP; break;
    case 2: t = format::FilterType::ZSTD; break;
    case 3: t = format::FilterType::LZ4; break;
    case 10: t = format::FilterType::RLE; break;
    case 11: t = format::FilterType::BZIP2; break;
    case 12: t = format::FilterType::DOUBLE_DELTA; break;
    default:
      throw format_error(what + ": compressor " + std::to_string(c.compressor) +
                             " (a BLOSC variant of TileDB 1.3) has no filter today",
                         0);
    }
    format::Filter f;
    f.type = t;
    f.options.value.push_back(static_cast<std::byte>(c.compressor == 10 ? 4 : c.compressor == 11 ? 5 : c.compressor == 12 ? 6 : c.compressor));
    std::byte level[4];
    codec::store_le<std::int32_t>(level, c.level);
    f.options.value.insert(f.options.value.end(), level, level + 4);
    p.filters.value.push_back(std::move(f));
    return p;
  };
  format::ArraySchema s;
  s.version.value = 1;
  s.array_type = old.array_type;
  s.tile_order = old.tile_order;
  s.cell_order = old.cell_order;
  s.capacity = old.capacity;
  s.coords_filters = pipeline(old.coords_compressor, "coords_compressor");
  s.offsets_filters = pipeline(old.offsets_compressor, "offsets_compressor");
  s.domain = old.domain;
  for (const auto& a : old.attributes) {
    format::Attribute n;
    n.name = a.name;
    n.type = a.type;
    n.cell_val_num = a.cell_val_num;
    n.filters = pipeline(a.compressor, "attribute " + a.name.value);
    s.attributes.value.push_back(std::move(n));
  }
  return s;
}

inline format::ArraySchema read_schema(const fs::path& p, const open_options& opt) {
  return naming_file(p, [&] {
    auto bytes = read_file(p);
    try {
      auto g = filter::read_generic_tile(bytes, {opt.verify_checksums, opt.encryption_key});
      return codec::decode<format::ArraySchema>(g.payload);
    } catch (const format_error&) {
      // TileDB 1.3 wrote `__array_schema.tdb` before format versions existed.
      if (p.filename() != "__array_schema.tdb") throw;
      std::optional<std::vector<std::byte>> payload;
      try {
        payload = library_version_generic_tile(bytes);
      } catch (const format_error&) {
      }
      if (!payload) throw;
      return from_library_version(codec::decode<format::LibraryVersionArraySchema>(*payload));
    }
  });
}

/// v8 fragment file names percent-encode a field name: RFC 3986's reserved
/// characters, plus characters Windows forbids, with TileDB's own codes for
/// the latter (fragment_metadata.cc encode_name).
inline std::string encode_name_v8(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    switch (c) {
    case '<': out += "%20"; break;
    case '>': out += "%2D"; break;
    case '\\': out += "%30"; break;
    case '|': out += "%3C"; break;
    case '"': out += "%22"; break;
    case '!': case '#': case '$': case '%': case '&': case '\'': case '(': case ')': case '*': case '+':
    case ',': case '/': case ':': case ';': case '=': case '?': case '@': case '[': case ']': {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
      break;
    }
    default: out += static_cast<char>(c);
    }
  }
  return out;
}

} // namespace detail

class fragment {
public:
  fragment(timestamped_path where, std::shared_ptr<const format::ArraySchema> schema, const open_options& opt)
      : where_(std::move(where)), schema_(std::move(schema)), opt_(opt) {
    meta_path_ = where_.path / "__fragment_metadata.tdb";
    version_ = where_.name.implied_format_version();
    naming_file(meta_path_, [&] {
      meta_ = read_file(meta_path_);
      ctx_.version = version_;
      ctx_.num_attributes = schema_->attributes.size();
      for (const auto& d : schema_->domain.dimensions) ctx_.dims.push_back({d.type.value, d.is_var()});
      if (version_ < 3)
        load_legacy();
      else {
        footer_ = format::read_footer(meta_, ctx_);
        ctx_ = format::with_footer_flags(ctx_, footer_);
      }
      return 0;
    });
  }

  const fs::path& path() const noexcept { return where_.path; }
  const format::TimestampedName& name() const noexcept { return where_.name; }
  std::uint64_t timestamp_start() const noexcept { return where_.name.t1; }
  std::uint64_t timestamp_end() const noexcept { return where_.name.t2; }
  std::uint32_t format_version() const noexcept { return version_; }
  bool dense() const noexcept { return footer_.dense; }
  const format::Footer& footer() const noexcept { return footer_; }
  const format::MBR& non_empty_domain() const noexcept { return footer_.non_empty_domain; }
  const format::ArraySchema& schema() const noexcept { return *schema_; }

  /// Number of tiles of every field.
  std::size_t tile_num() const { return tile_offsets(fields().front()).size(); }

  /// Cells the fragment stores (dense: whole space tiles).
  std::uint64_t cell_num() const {
    std::size_t n = tile_num();
    if (n == 0) return 0;
    return (n - 1) * full_tile_cells() + tile_cells(n - 1);
  }

  /// The fields this fragment stores: attributes, then (sparse) dimensions.
  std::vector<field_info> fields() const {
    std::vector<field_info> out;
    for (std::size_t i = 0; i < schema_->attributes.size(); ++i) {
      const auto& a = schema_->attributes[i];
      out.push_back({a.name.value, false, i, i, a.type, a.cell_val_num, a.is_var(),
                     version_ >= 7 && a.nullable.value, &a.filters});
    }
    if (!dense()) {
      for (std::size_t d = 0; d < schema_->domain.dimensions.size(); ++d) {
        const auto& dim = schema_->domain.dimensions[d];
        field_info f{dim.name.value, true, d, ctx_.dim_index(d), dim.type.value, dim.is_var() ? format::var_num : 1u,
                     dim.is_var(), false, &schema_->dimension_filters(d)};
        if (version_ < 5) {
          f.footer_index = ctx_.coords_index();
          f.in_coords_file = true;
        }
        out.push_back(f);
      }
    }
    return out;
  }

  /// Whether the fragment stores a timestamp per cell (`__timestamps`, from
  /// format 14: fragments consolidated with timestamps).
  bool has_timestamps() const noexcept { return ctx_.has_timestamps; }
  /// Whether it stores delete metadata (`__delete_timestamps` and
  /// `__delete_condition_index`, from format 15: fragments consolidated
  /// while delete commits applied to them).
  bool has_delete_meta() const noexcept { return ctx_.has_delete_meta; }

  /// The fields TileDB adds to a fragment, if it has them.
  std::vector<field_info> special_fields() const {
    std::vector<field_info> out;
    std::size_t at = ctx_.num_attributes + 1 + ctx_.dims.size();
    auto add = [&](const char* name) {
      field_info f{name, false, 0, at++, format::Datatype::UINT64, 1, false, false, &schema_->coords_filters};
      f.special = true;
      out.push_back(f);
    };
    if (has_timestamps()) add("__timestamps");
    if (has_delete_meta()) {
      add("__delete_timestamps");
      add("__delete_condition_index");
    }
    return out;
  }

  field_info field(std::string_view name) const {
    for (auto& f : fields())
      if (f.name == name) return f;
    for (auto& f : special_fields())
      if (f.name == name) return f;
    throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no field \"" + std::string(name) + "\"");
  }

  /// The time (ms since the epoch) each cell was written, in storage order.
  /// A fragment consolidated with timestamps spans several writes: a read
  /// at a timestamp range keeps only the cells written within it.
  std::vector<std::uint64_t> read_timestamps() const { return read_special("__timestamps", has_timestamps()); }
  /// When each cell was deleted (UINT64_MAX: not deleted), in storage order.
  /// A read at a range ending at T drops the cells deleted at or before T.
  std::vector<std::uint64_t> read_delete_timestamps() const {
    return read_special("__delete_timestamps", has_delete_meta());
  }
  /// For each cell, which of processed_conditions() deleted it (UINT64_MAX: none).
  std::vector<std::uint64_t> read_delete_condition_index() const {
    return read_special("__delete_condition_index", has_delete_meta());
  }
  /// The delete (and update) commits already applied to this fragment's
  /// cells, by the marker TileDB names them with (the commit file's name).
  std::vector<std::string> processed_conditions() const {
    if (version_ < 16) return {};
    auto pc = section<format::ProcessedConditions>(footer_.processed_conditions_offset.value);
    std::vector<std::string> out;
    for (const auto& c : pc.conditions.value) out.push_back(c.value);
    return out;
  }

  /// Tile `i` of a field, unfiltered. (Column reads decode tiles on several
  /// threads; a fragment itself is not meant to be shared between threads.)
  tile_data read_tile(const field_info& f, std::size_t i) const {
    tile_data t;
    const std::size_t cells = tile_cells(i);
    try {
      if (f.var) {
        // RLE and dictionary on strings store the offsets inside the var
        // tile (the v12/v13/v17 rule, judged by the schema's version); the
        // offsets file then holds an empty tile per tile.
        const bool rebuilt = filter::skip_offsets_filtering(*f.filters, f.type, schema_->version.value);
        if (!rebuilt) {
          auto offs = read_raw_tile(f, data_file(f, ""), tile_offsets(f), file_size(footer_.file_sizes, f), i,
                                    *offsets_pipeline(), cells * 8, 8);
          t.offsets.resize(cells);
          codec::load_le_array(offs.data(), t.offsets.data(), cells);
        } else {
          t.offsets.assign(cells, 0);
        }
        const auto& var_sizes = cached(section_kind::var_sizes, f);
        if (i >= var_sizes.size()) throw format_error("tile " + std::to_string(i) + " has no var size", 0);
        const std::uint64_t var_size = var_sizes[i];
        t.values = read_raw_tile(f, data_file(f, "_var"), cached(section_kind::var_offsets, f),
                                 file_size(footer_.file_var_sizes, f), i, *field_pipeline(f), var_size,
                                 format::datatype_size(f.type), rebuilt ? &t.offsets : nullptr);
        if (t.offsets.size() != cells)
          throw format_error("var tile rebuilds " + std::to_string(t.offsets.size()) + " offsets, the tile has " +
                                 std::to_string(cells) + " cells",
                             0);
        // Offsets that point outside the var tile: the offsets file is wrong
        // (or, when the offsets are rebuilt from the var tile, that one).
        naming_file(data_file(f, rebuilt ? "_var" : ""), [&] {
          for (std::size_t c = 0; c < cells; ++c)
            if (t.offsets[c] > var_size || (c && t.offsets[c] < t.offsets[c - 1]))
              throw format_error("offset of cell " + std::to_string(c) + " is " + std::to_string(t.offsets[c]) +
                                     ", the var tile has " + std::to_string(var_size) + " bytes",
                                 c * 8);
          return 0;
        });
      } else if (f.in_coords_file) {
        t.values = read_coords_tile(f, i, cells);
      } else {
        t.values = read_raw_tile(f, data_file(f, ""), tile_offsets(f), file_size(footer_.file_sizes, f), i,
                                 *field_pipeline(f), cells * f.cell_size(), f.cell_size());
      }
      if (f.nullable) {
        auto v = read_raw_tile(f, data_file(f, "_validity"), cached(section_kind::validity_offsets, f),
                               file_size(footer_.file_validity_sizes, f), i, *validity_pipeline(), cells, 1);
        t.validity.assign(reinterpret_cast<const std::uint8_t*>(v.data()),
                          reinterpret_cast<const std::uint8_t*>(v.data()) + v.size());
      }
    } catch (format_error& e) {
      e.prepend_field("fragment " + where_.name.str() + ", field " + f.name + ", tile " + std::to_string(i));
      throw;
    }
    if (dense() && !f.is_dimension && !f.special) apply_fill(f, i, t);
    return t;
  }

  /// For each cell of dense tile `i`, whether it lies in the fragment's
  /// non-empty domain (the region the write covered). TileDB stores whole
  /// space tiles; the cells outside the written region read as fill values.
  std::vector<bool> written_cells(std::size_t i) const {
    const auto w = written_window(i);
    const std::size_t nd = w.ext.size();
    const std::size_t cells = static_cast<std::size_t>(full_tile_cells());
    if (w.full()) return std::vector<bool>(cells, true);
    const bool cell_row = schema_->cell_order != format::Layout::COL_MAJOR;
    // Walk the cells in storage order with an odometer over the offsets
    // within the tile (the fastest-varying dimension first).
    std::vector<bool> out(cells);
    std::vector<std::int64_t> off(nd, 0);
    for (std::size_t c = 0; c < cells; ++c) {
      bool inside = true;
      for (std::size_t d = 0; d < nd; ++d) inside = inside && off[d] >= w.first[d] && off[d] <= w.last[d];
      out[c] = inside;
      for (std::size_t k = 0; k < nd; ++k) {
        std::size_t d = cell_row ? nd - 1 - k : k;
        if (++off[d] < w.ext[d]) break;
        off[d] = 0;
      }
    }
    return out;
  }

  /// Whether every cell of dense tile `i` lies in the non-empty domain.
  bool fully_written(std::size_t i) const { return written_window(i).full(); }

  /// Every value of a fixed-size field, as raw little-endian bytes.
  std::vector<std::byte> read_bytes(std::string_view name) const {
    auto f = field(name);
    std::vector<std::byte> out(static_cast<std::size_t>(cell_num() * f.cell_size()));
    read_fixed_into(f, out);
    return out;
  }

  /// Decodes a fixed-size field into `out`, which must hold exactly
  /// cell_num() cells. Each tile is unfiltered straight into its place in
  /// `out`, so a column costs one buffer of its decoded size.
  template <class T>
  void read_into(std::string_view name, std::span<T> out) const {
    auto f = fixed_field_of<T>(name);
    if (out.size() * sizeof(T) != cell_num() * f.cell_size())
      throw std::invalid_argument("tilefmt: field \"" + f.name + "\" has " + std::to_string(cell_num()) +
                                  " cells, the buffer holds " + std::to_string(out.size() * sizeof(T) / f.cell_size()));
    read_fixed_into(f, std::as_writable_bytes(out));
    if constexpr (std::endian::native != std::endian::little && sizeof(T) > 1)
      for (auto& v : out) v = codec::load_le<T>(reinterpret_cast<const std::byte*>(&v));
  }

  /// Every value of a fixed-size field (a std::vector; see column.hpp).
  template <class T>
  column<T> read(std::string_view name) const {
    auto f = fixed_field_of<T>(name);
    column<T> out(static_cast<std::size_t>(cell_num() * f.cell_size() / sizeof(T)));
    read_into(name, std::span<T>(out));
    return out;
  }

  template <class T>
  var_column<T> read_var(std::string_view name) const {
    auto f = field(name);
    if (!f.var) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is fixed-size: use read");
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: field \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values");
    var_column<T> out;
    std::vector<std::byte> bytes;
    for (auto& t : read_all_tiles(f)) {
      const std::uint64_t base = bytes.size();
      for (auto o : t.offsets) out.offsets.push_back((base + o) / sizeof(T));
      bytes.insert(bytes.end(), t.values.begin(), t.values.end());
    }
    out.values.resize(bytes.size() / sizeof(T));
    codec::load_le_array(bytes.data(), out.values.data(), out.values.size());
    return out;
  }

  std::vector<std::uint8_t> read_validity(std::string_view name) const {
    auto f = field(name);
    if (!f.nullable) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is not nullable");
    std::vector<std::uint8_t> out;
    for (auto& t : read_all_tiles(f)) out.insert(out.end(), t.validity.begin(), t.validity.end());
    return out;
  }

  /// Cells in a full tile: the product of the tile extents (dense) or the
  /// capacity (sparse).
  std::uint64_t full_tile_cells() const {
    if (!dense()) return schema_->capacity;
    std::uint64_t n = 1;
    for (const auto& d : schema_->domain.dimensions) n *= extent_cells(d);
    return n;
  }
  /// Cells in tile i (a sparse fragment's last tile may be shorter).
  std::uint64_t tile_cells(std::size_t i) const {
    if (!dense() && i + 1 == tile_num() && footer_.last_tile_cell_num != 0) return footer_.last_tile_cell_num;
    return full_tile_cells();
  }

private:
  /// The cells of a dense tile inside the non-empty domain: per dimension, the
  /// first and last offset within the tile, out of ext cells.
  struct tile_window {
    std::vector<std::int64_t> first, last, ext;
    bool full() const {
      for (std::size_t d = 0; d < ext.size(); ++d)
        if (first[d] != 0 || last[d] != ext[d] - 1) return false;
      return true;
    }
  };

  tile_window written_window(std::size_t i) const {
    const auto& dims = schema_->domain.dimensions.value;
    const std::size_t nd = dims.size();
    std::vector<std::int64_t> lo(nd), ned_lo(nd), ned_hi(nd), tiles(nd), first_tile(nd);
    tile_window w{std::vector<std::int64_t>(nd), std::vector<std::int64_t>(nd), std::vector<std::int64_t>(nd)};
    for (std::size_t d = 0; d < nd; ++d) {
      filter::with_integer_type(dims[d].type.value, [&]<class T>() {
        auto [dl, dh] = dims[d].domain_as<T>();
        (void)dh;
        lo[d] = static_cast<std::int64_t>(dl);
        w.ext[d] = static_cast<std::int64_t>(extent_cells(dims[d]));
        auto [a, b] = footer_.non_empty_domain.ranges.at(d).template as<T>();
        ned_lo[d] = static_cast<std::int64_t>(a);
        ned_hi[d] = static_cast<std::int64_t>(b);
      });
      first_tile[d] = (ned_lo[d] - lo[d]) / w.ext[d];
      tiles[d] = (ned_hi[d] - lo[d]) / w.ext[d] - first_tile[d] + 1;
    }
    // Tile i's position in the grid of tiles the non-empty domain touches.
    const bool tile_row = schema_->tile_order != format::Layout::COL_MAJOR;
    std::size_t rest = i;
    for (std::size_t k = 0; k < nd; ++k) {
      std::size_t d = tile_row ? nd - 1 - k : k;
      const std::int64_t pos = static_cast<std::int64_t>(rest % static_cast<std::size_t>(tiles[d]));
      rest /= static_cast<std::size_t>(tiles[d]);
      const std::int64_t start = lo[d] + (first_tile[d] + pos) * w.ext[d];
      w.first[d] = std::max<std::int64_t>(ned_lo[d] - start, 0);
      w.last[d] = std::min<std::int64_t>(ned_hi[d] - start, w.ext[d] - 1);
    }
    return w;
  }

  template <class T>
  field_info fixed_field_of(std::string_view name) const {
    auto f = field(name);
    if (f.var) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size: use read_var");
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: field \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values, not " +
                                  std::to_string(sizeof(T)) + "-byte ones");
    return f;
  }

  /// Runs fn(i) for every tile i on up to opt_.threads threads (tile i goes
  /// to thread i mod threads); rethrows the first error.
  template <class Fn>
  void for_each_tile(std::size_t n, Fn&& fn) const {
    unsigned threads = opt_.threads ? opt_.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, n));
    if (threads <= 1) {
      for (std::size_t i = 0; i < n; ++i) fn(i);
      return;
    }
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < threads; ++w)
      pool.emplace_back([&, w] {
        try {
          for (std::size_t i = w; i < n; i += threads) fn(i);
        } catch (...) {
          errors[w] = std::current_exception();
        }
      });
    for (auto& t : pool) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  /// The fixed-size path of read_tile, writing tile i's cells to `out`.
  void read_fixed_tile_into(const field_info& f, std::size_t i, std::span<std::byte> out) const {
    try {
      if (f.in_coords_file) {
        auto v = read_coords_tile(f, i, tile_cells(i));
        if (v.size() != out.size()) throw format_error("coordinate tile size", 0);
        std::memcpy(out.data(), v.data(), v.size());
      } else {
        read_raw_tile_into(f, data_file(f, ""), tile_offsets(f), file_size(footer_.file_sizes, f), i,
                           *field_pipeline(f), out, f.cell_size());
      }
    } catch (format_error& e) {
      e.prepend_field("fragment " + where_.name.str() + ", field " + f.name + ", tile " + std::to_string(i));
      throw;
    }
    if (dense() && !f.is_dimension && !f.special) fill_fixed(f, i, out);
  }

  void read_fixed_into(const field_info& f, std::span<std::byte> out) const {
    prepare(f);
    const std::size_t cs = f.cell_size();
    const std::size_t full = static_cast<std::size_t>(full_tile_cells()) * cs;
    for_each_tile(tile_num(), [&](std::size_t i) {
      read_fixed_tile_into(f, i, out.subspan(i * full, static_cast<std::size_t>(tile_cells(i)) * cs));
    });
  }

  /// Dense tiles cover whole space tiles; cells outside the fragment's
  /// non-empty domain read as the attribute's fill value.
  void fill_fixed(const field_info& f, std::size_t i, std::span<std::byte> values) const {
    if (fully_written(i)) return;
    auto written = written_cells(i);
    const std::vector<std::byte> fill = schema_->attributes.value.at(f.index).fill();
    const std::size_t cs = f.cell_size();
    if (fill.size() != cs)
      throw format_error("fill value of " + f.name + " has " + std::to_string(fill.size()) + " bytes, a cell " +
                             std::to_string(cs),
                         0);
    for (std::size_t c = 0; c < written.size(); ++c)
      if (!written[c]) std::memcpy(values.data() + c * cs, fill.data(), cs);
  }

  /// The stored bytes of a tile. A data file shorter than the footer says
  /// is a format_error (not an io_error), so that the caller can name the
  /// fragment, field and tile.
  static std::vector<std::byte> tile_bytes(const fs::path& file, std::uint64_t begin, std::uint64_t end) {
    try {
      return read_range(file, begin, end - begin);
    } catch (const io_error& e) {
      format_error fe(e.what(), static_cast<std::size_t>(begin));
      fe.set_file(file.string());
      throw fe;
    }
  }

  std::vector<std::uint64_t> read_special(const char* name, bool present) const {
    if (!present)
      throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no " + name + " field");
    auto c = read<std::uint64_t>(name);
    return std::vector<std::uint64_t>(c.begin(), c.end());
  }

  /// Fragment metadata before format 3: one generic tile holding everything
  /// (format::LegacyFragmentMetadata), or TileDB 1.3's library-versioned
  /// variant. Its contents go where the footer and the sections of later
  /// versions put them, so that reads take the same path.
  void load_legacy() {
    auto adopt = [&](const auto& m) {
      using M = std::decay_t<decltype(m)>;
      const std::size_t na = ctx_.num_attributes;
      if (m.tile_offsets.value.size() != na + 1 || m.file_sizes.value.size() != na + 1)
        throw format_error("legacy fragment metadata: per-field lists disagree with the schema's " +
                               std::to_string(na) + " attributes",
                           0);
      auto ned = format::legacy_non_empty_domain(m, ctx_);
      footer_.dense = m.mbrs.value.empty();
      footer_.null_non_empty_domain = !ned.has_value();
      if (ned) footer_.non_empty_domain = *ned;
      footer_.sparse_tile_num = m.mbrs.value.size();
      footer_.last_tile_cell_num = m.last_tile_cell_num;
      footer_.file_sizes.value = m.file_sizes.value;
      footer_.file_var_sizes.value = m.file_var_sizes.value;
      footer_.file_var_sizes.value.push_back(0);  // __coords
      for (std::size_t i = 0; i <= na; ++i) {
        sections_[{static_cast<int>(section_kind::offsets), i}] = m.tile_offsets.value[i].offsets.value;
        sections_[{static_cast<int>(section_kind::var_offsets), i}] =
            i < na ? m.tile_var_offsets.value[i].offsets.value : std::vector<std::uint64_t>{};
        sections_[{static_cast<int>(section_kind::var_sizes), i}] =
            i < na ? m.tile_var_sizes.value[i].sizes.value : std::vector<std::uint64_t>{};
      }
      if constexpr (std::is_same_v<M, format::LegacyFragmentMetadata>)
        version_ = m.version;
      else
        version_ = 0;  // TileDB 1.3: tiles stored as they are (see raw_tile)
    };
    std::optional<std::vector<std::byte>> payload;
    std::exception_ptr versioned_error;
    try {
      payload = filter::read_generic_tile(meta_, {opt_.verify_checksums, opt_.encryption_key}).payload;
    } catch (const format_error&) {
      versioned_error = std::current_exception();
    }
    if (payload) {
      adopt(codec::decode<format::LegacyFragmentMetadata>(*payload, ctx_));
      return;
    }
    try {
      payload = detail::library_version_generic_tile(meta_);
    } catch (const format_error&) {
    }
    if (!payload) std::rethrow_exception(versioned_error);
    adopt(codec::decode<format::LibraryVersionFragmentMetadata>(*payload, ctx_));
  }

  /// Tile i of one dimension, taken from a `__coords` tile (formats < 5).
  /// The tile holds every dimension's coordinates: zipped (x0 y0 x1 y1 ...)
  /// as format 1 wrote them without compression, else split (all x, then
  /// all y), which TileDB zips after unfiltering (reader_base.cc
  /// zip_tile_coordinates).
  std::vector<std::byte> read_coords_tile(const field_info& f, std::size_t i, std::uint64_t cells) const {
    const std::size_t nd = schema_->domain.dimensions.size();
    const std::size_t cs = format::datatype_size(f.type);
    auto all = read_raw_tile(f, where_.path / "__coords.tdb", tile_offsets(f), file_size(footer_.file_sizes, f), i,
                             *field_pipeline(f), cells * nd * cs, nd * cs);
    bool compressed = false;
    for (const auto& flt : f.filters->filters.value)
      switch (flt.type) {
      case format::FilterType::GZIP:
      case format::FilterType::ZSTD:
      case format::FilterType::LZ4:
      case format::FilterType::RLE:
      case format::FilterType::BZIP2:
      case format::FilterType::DOUBLE_DELTA:
      case format::FilterType::DICTIONARY:
      case format::FilterType::DELTA: compressed = true; break;
      default: break;
      }
    const bool split = version_ > 1 || compressed;
    std::vector<std::byte> out(static_cast<std::size_t>(cells) * cs);
    for (std::size_t c = 0; c < cells; ++c) {
      const std::size_t from = split ? (f.index * cells + c) * cs : (c * nd + f.index) * cs;
      std::memcpy(out.data() + c * cs, all.data() + from, cs);
    }
    return out;
  }

  /// TileDB 1.3 stored uncompressed tiles as they are (no chunk header); its
  /// compressed tiles have a chunk layout of their own, not read here.
  void raw_tile(const field_info& f, std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t expected) const {
    if (!f.filters->filters.value.empty())
      throw format_error("tiles of TileDB 1.3 compressed with " +
                             std::string(format::codec_enum_name(f.filters->filters.value.front().type)) +
                             " are not supported",
                         static_cast<std::size_t>(begin));
    if (bytes.size() != expected)
      throw format_error("tile holds " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(expected),
                         static_cast<std::size_t>(begin));
  }

  void apply_fill(const field_info& f, std::size_t i, tile_data& t) const {
    if (fully_written(i)) return;
    auto written = written_cells(i);
    const auto& attr = schema_->attributes.value.at(f.index);
    const std::vector<std::byte> fill = attr.fill();
    if (f.var) {
      std::vector<std::byte> values;
      std::vector<std::uint64_t> offsets(written.size());
      for (std::size_t c = 0; c < written.size(); ++c) {
        offsets[c] = values.size();
        if (written[c]) {
          std::uint64_t b = t.offsets[c], e = c + 1 < written.size() ? t.offsets[c + 1] : t.values.size();
          values.insert(values.end(), t.values.begin() + static_cast<std::ptrdiff_t>(b),
                        t.values.begin() + static_cast<std::ptrdiff_t>(e));
        } else {
          values.insert(values.end(), fill.begin(), fill.end());
        }
      }
      t.values = std::move(values);
      t.offsets = std::move(offsets);
    } else {
      fill_fixed(f, i, t.values);
    }
    if (f.nullable)
      for (std::size_t c = 0; c < written.size(); ++c)
        if (!written[c]) t.validity[c] = attr.fill_value_validity.value;
  }

  static std::uint64_t extent_cells(const format::Dimension& d) {
    std::uint64_t out = 0;
    filter::with_integer_type(d.type.value, [&]<class T>() {
      T e = d.tile_extent_as<T>().value_or(T{1});
      out = static_cast<std::uint64_t>(e);
    });
    if (out == 0) throw format_error("dimension " + d.name.value + " has no integer tile extent", 0);
    return out;
  }

  fs::path data_file(const field_info& f, const char* suffix) const {
    std::string base;
    if (f.special)
      base = f.name == "__timestamps" ? "t" : f.name == "__delete_timestamps" ? "dt" : "dci";
    else if (version_ >= 9)
      base = std::string(f.is_dimension ? "d" : "a").append(std::to_string(f.index));
    else if (version_ == 8)
      base = detail::encode_name_v8(f.name);
    else
      base = f.name;
    return where_.path / (base + suffix + ".tdb");
  }

  template <class L>
  std::uint64_t file_size(const codec::sized<L, std::vector<std::uint64_t>>& sizes, const field_info& f) const {
    return sizes.value.at(f.footer_index);
  }

  template <class Section>
  Section section(std::uint64_t offset) const {
    return naming_file(meta_path_, [&] {
      if (offset >= meta_.size())
        throw format_error("section offset " + std::to_string(offset) + " is past the end of the file", offset);
      auto g = filter::read_generic_tile(std::span<const std::byte>(meta_).subspan(static_cast<std::size_t>(offset)),
                                         {opt_.verify_checksums, opt_.encryption_key});
      try {
        return codec::decode<Section>(g.payload, ctx_);
      } catch (format_error& e) {
        e.add_offset(offset);
        throw;
      }
    });
  }

  enum class section_kind { offsets, var_offsets, var_sizes, validity_offsets };

  /// A per-field section, decoded once. Filled before tiles are decoded in
  /// parallel (prepare), so that the threads only read the cache.
  const std::vector<std::uint64_t>& cached(section_kind k, const field_info& f) const {
    auto key = std::make_pair(static_cast<int>(k), f.footer_index);
    auto it = sections_.find(key);
    if (it == sections_.end()) {
      std::vector<std::uint64_t> v;
      switch (k) {
      case section_kind::offsets: v = section<format::TileOffsets>(footer_.tile_offsets.value.at(f.footer_index)).offsets.value; break;
      case section_kind::var_offsets: v = section<format::TileOffsets>(footer_.tile_var_offsets.value.at(f.footer_index)).offsets.value; break;
      case section_kind::var_sizes: v = section<format::TileSizes>(footer_.tile_var_sizes.value.at(f.footer_index)).sizes.value; break;
      case section_kind::validity_offsets: v = section<format::TileOffsets>(footer_.tile_validity_offsets.value.at(f.footer_index)).offsets.value; break;
      }
      it = sections_.emplace(key, std::move(v)).first;
    }
    return it->second;
  }
  const std::vector<std::uint64_t>& tile_offsets(const field_info& f) const { return cached(section_kind::offsets, f); }

  /// Loads every section and pipeline tile reads of `f` will use.
  void prepare(const field_info& f) const {
    (void)tile_offsets(f);
    (void)field_pipeline(f);
    if (f.var) {
      (void)cached(section_kind::var_offsets, f);
      (void)cached(section_kind::var_sizes, f);
      (void)offsets_pipeline();
    }
    if (f.nullable) {
      (void)cached(section_kind::validity_offsets, f);
      (void)validity_pipeline();
    }
  }

  /// Every tile of `f`, decoded by up to opt_.threads threads.
  std::vector<tile_data> read_all_tiles(const field_info& f) const {
    prepare(f);
    std::vector<tile_data> tiles(tile_num());
    for_each_tile(tiles.size(), [&](std::size_t i) { tiles[i] = read_tile(f, i); });
    return tiles;
  }

  /// Tile i of a data file, read and checked: its chunk headers must add up to
  /// `expected` unfiltered bytes before anything that size is allocated.
  /// Format 0 (TileDB 1.3) tiles are stored unfiltered and have no view.
  struct fetched_tile {
    std::vector<std::byte> bytes;
    std::optional<format::TileView> view;  // points into bytes
    std::uint64_t begin = 0;
  };
  fetched_tile fetch_tile(const field_info& f, const fs::path& file, const std::vector<std::uint64_t>& offsets,
                          std::uint64_t file_size, std::size_t i, std::uint64_t expected) const {
    if (i >= offsets.size()) throw format_error("tile " + std::to_string(i) + " has no offset", 0);
    fetched_tile t;
    t.begin = offsets[i];
    const std::uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : file_size;
    if (end < t.begin) throw format_error("tile offsets decrease", 0);
    t.bytes = tile_bytes(file, t.begin, end);
    naming_file(file, [&] {
      if (version_ == 0) {
        raw_tile(f, t.bytes, t.begin, expected);
        return 0;
      }
      t.view = codec::decode<format::TileView>(t.bytes);
      if (filter::detail::unfiltered_size(*t.view) != expected)
        throw format_error("tile holds " + std::to_string(filter::detail::unfiltered_size(*t.view)) +
                               " bytes, expected " + std::to_string(expected),
                           static_cast<std::size_t>(t.begin));
      return 0;
    });
    return t;
  }

  std::vector<std::byte> read_raw_tile(const field_info& f, const fs::path& file, const std::vector<std::uint64_t>& offsets,
                                       std::uint64_t file_size, std::size_t i, const filter::runtime_pipeline& rp,
                                       std::uint64_t expected, std::size_t cell_size,
                                       std::vector<std::uint64_t>* rebuilt_offsets = nullptr) const {
    auto t = fetch_tile(f, file, offsets, file_size, i, expected);
    if (!t.view) return std::move(t.bytes);
    std::vector<std::byte> out(static_cast<std::size_t>(expected));
    naming_file(file, [&] {
      decode_tile(rp, *t.view, t.begin, out, cell_size, rebuilt_offsets);
      return 0;
    });
    return out;
  }

  /// read_raw_tile for a fixed-size tile whose unfiltered size is out.size(),
  /// decoded straight into `out`.
  void read_raw_tile_into(const field_info& f, const fs::path& file, const std::vector<std::uint64_t>& offsets,
                          std::uint64_t file_size, std::size_t i, const filter::runtime_pipeline& rp,
                          std::span<std::byte> out, std::size_t cell_size) const {
    auto t = fetch_tile(f, file, offsets, file_size, i, out.size());
    if (!t.view) {
      std::memcpy(out.data(), t.bytes.data(), t.bytes.size());
      return;
    }
    naming_file(file, [&] {
      decode_tile(rp, *t.view, t.begin, out, cell_size, nullptr);
      return 0;
    });
  }

  void decode_tile(const filter::runtime_pipeline& rp, const format::TileView& tile, std::uint64_t begin,
                   std::span<std::byte> out, std::size_t cell_size,
                   std::vector<std::uint64_t>* rebuilt_offsets) const {
    filter::tile_context ctx;
    ctx.version = version_;
    ctx.cell_size = cell_size;
    ctx.verify_checksums = opt_.verify_checksums;
    ctx.encryption_key = opt_.encryption_key;
    ctx.rebuilt_offsets = rebuilt_offsets;
    try {
      rp.decode_into(tile, out, ctx);
    } catch (format_error& e) {
      e.add_offset(static_cast<std::size_t>(begin));
      throw;
    }
  }

  const filter::runtime_pipeline* pipeline_for(const format::FilterPipeline& p, format::Datatype t) const {
    auto key = std::make_pair(&p, t);
    auto it = pipelines_.find(key);
    if (it == pipelines_.end()) {
      filter::runtime_pipeline rp(p, t, schema_->version.value);
      if (!opt_.encryption_key.empty()) rp.append(filter::encryption_aes256gcm{});
      it = pipelines_.emplace(key, std::make_unique<filter::runtime_pipeline>(std::move(rp))).first;
    }
    return it->second.get();
  }
  const filter::runtime_pipeline* field_pipeline(const field_info& f) const { return pipeline_for(*f.filters, f.type); }
  const filter::runtime_pipeline* offsets_pipeline() const {
    return pipeline_for(schema_->offsets_filters, format::Datatype::UINT64);
  }
  const filter::runtime_pipeline* validity_pipeline() const {
    return pipeline_for(schema_->validity_filters.value, format::Datatype::UINT8);
  }

  timestamped_path where_;
  std::shared_ptr<const format::ArraySchema> schema_;
  open_options opt_;
  fs::path meta_path_;
  std::uint32_t version_ = 0;
  std::vector<std::byte> meta_;
  format::FragmentContext ctx_;
  format::Footer footer_;
  mutable std::map<std::pair<int, std::size_t>, std::vector<std::uint64_t>> sections_;
  mutable std::map<std::pair<const format::FilterPipeline*, format::Datatype>, std::unique_ptr<filter::runtime_pipeline>>
      pipelines_;
};

class array_reader {
public:
  array_reader(const fs::path& root, open_options opt) : root_(root), opt_(std::move(opt)) {
    listing_ = list_array(root_, opt_.timestamp_start, opt_.timestamp_end);
    schema_ = load_schema(listing_.latest_schema);
    // Sparse arrays also read fragments that overlap the range in part.
    if (schema_->is_sparse()) listing_ = list_array(root_, opt_.timestamp_start, opt_.timestamp_end, true);
    for (const auto& f : listing_.fragments) {
      if (!opt_.skip_damaged_fragments) {
        fragments_.emplace_back(f, schema_for(f), opt_);
        continue;
      }
      try {
        fragments_.emplace_back(f, schema_for(f), opt_);
      } catch (const format_error& e) {
        damaged_.push_back({f, e.what()});
      } catch (const io_error& e) {
        damaged_.push_back({f, e.what()});
      }
    }
    metadata_ = read_metadata_files(listing_.metadata, opt_.verify_checksums, opt_.encryption_key);
  }

  const fs::path& path() const noexcept { return root_; }
  const format::ArraySchema& schema() const noexcept { return *schema_; }
  const std::vector<fragment>& fragments() const noexcept { return fragments_; }
  const metadata_map& metadata() const noexcept { return metadata_; }
  const listing& files() const noexcept { return listing_; }
  /// With open_options::skip_damaged_fragments: the fragments left out, and why.
  const std::vector<std::pair<timestamped_path, std::string>>& damaged_fragments() const noexcept { return damaged_; }

private:
  std::shared_ptr<const format::ArraySchema> load_schema(const fs::path& p) {
    auto it = schemas_.find(p.string());
    if (it != schemas_.end()) return it->second;
    auto s = std::make_shared<const format::ArraySchema>(detail::read_schema(p, opt_));
    schemas_.emplace(p.string(), s);
    return s;
  }

  /// The schema a fragment was written with (named in its footer from v10),
  /// else the one in force.
  std::shared_ptr<const format::ArraySchema> schema_for(const timestamped_path& f) {
    if (f.name.implied_format_version() >= 10) {
      fs::path meta = f.path / "__fragment_metadata.tdb";
      std::string name = naming_file(meta, [&] { return format::footer_schema_name(read_file(meta)); });
      fs::path p = root_ / "__schema" / name;
      if (detail::exists(p)) return load_schema(p);
    }
    return schema_;
  }

  fs::path root_;
  open_options opt_;
  listing listing_;
  std::map<std::string, std::shared_ptr<const format::ArraySchema>> schemas_;
  std::shared_ptr<const format::ArraySchema> schema_;
  std::vector<fragment> fragments_;
  std::vector<std::pair<timestamped_path, std::string>> damaged_;
  metadata_map metadata_;
};

/// Opens the array at `root` for reading.
inline array_reader open(const fs::path& root, open_options opt = {}) { return array_reader(root, std::move(opt)); }

} // namespace tilefmt::array
