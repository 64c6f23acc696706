// tilefmt — one fragment of an opened array, read field by field.
//
// Values come back in storage order: a dense fragment gives every cell of the
// space tiles it covers (tile order, then cell order; cells it did not write
// hold the fill value), a sparse fragment its cells in global order.
//
// Thread safety: every member is const, and any of them may be called from
// many threads at once on one fragment (the caches behind them are
// synchronised). Column reads decode tiles on open_options::threads threads.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/column.hpp"
#include "tilefmt/array/dense_grid.hpp"
#include "tilefmt/array/detail/compiled.hpp"
#include "tilefmt/array/detail/fill.hpp"
#include "tilefmt/array/detail/limits.hpp"
#include "tilefmt/array/detail/legacy.hpp"
#include "tilefmt/array/detail/parallel.hpp"
#include "tilefmt/array/detail/tile_source.hpp"
#include "tilefmt/array/fetched_tiles.hpp"
#include "tilefmt/array/directory.hpp"
#include "tilefmt/array/field.hpp"
#include "tilefmt/array/options.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array {

/// One tile of one field, unfiltered.
struct tile_data {
  std::vector<std::byte> values;          // fixed values, or the var bytes
  std::vector<std::uint64_t> offsets;     // var fields: start of each cell within `values`
  std::vector<std::uint8_t> validity;     // nullable attributes
};

/// What a fragment (format 11 on) stores about one tile of an attribute,
/// and TileDB answers aggregates from without reading the tile.
struct tile_summary {
  std::uint64_t cell_num = 0;           ///< the tile's cells (dense: the whole space tile)
  std::uint64_t null_count = 0;         ///< its null cells (nullable attributes)
  std::span<const std::byte> min, max;  ///< a cell's bytes, a string for var-size fields; empty: not stored
  std::optional<std::uint64_t> sum;     ///< the bits of an int64, uint64 or double, by the field's type
};

class fragment {
public:
  /// Reads the fragment's metadata (`__fragment_metadata.tdb`) from `st`.
  fragment(std::shared_ptr<const storage::backend> st, timestamped_path where,
           std::shared_ptr<const format::ArraySchema> schema, const open_options& opt)
      : where_(std::move(where)), guard_(where_.path / "__fragment_metadata.tdb", opt.max_allocation) {
    detail::tile_source::fragment_files files;
    files.storage = std::move(st);
    files.folder = where_.path;
    files.version = where_.name.implied_format_version();
    const fs::path meta_path = where_.path / "__fragment_metadata.tdb";
    std::optional<detail::legacy_fragment_metadata> legacy;
    naming_file(meta_path, [&] {
      files.metadata = files.storage->read(meta_path, opt.max_allocation);
      files.ctx.version = files.version;
      files.ctx.num_attributes = schema->attributes.size();
      for (const auto& d : schema->domain.dimensions) files.ctx.dims.push_back({d.type.value, d.is_var()});
      if (files.version < 3) {
        legacy = detail::read_legacy_fragment_metadata(files.metadata, files.ctx,
                                                       {opt.verify_checksums, opt.encryption_key, opt.max_allocation});
        files.footer = legacy->footer;
        files.version = legacy->version;
      } else {
        files.footer = format::read_footer(files.metadata, files.ctx);
        // A `__t1_t2_uuid` name says 4, yet libtiledb 1.6 wrote such names
        // with version 3 footers; TileDB takes the footer's (the two lay
        // out alike).
        if (where_.name.grammar == format::NameGrammar::t1_t2_uuid && files.footer.version == 3)
          files.version = files.ctx.version = 3;
        files.ctx = format::with_footer_flags(files.ctx, files.footer);
      }
      return 0;
    });
    source_ = std::make_unique<detail::tile_source>(std::move(files), std::move(schema), opt);
    if (legacy) {
      using k = detail::tile_source::section_kind;
      for (std::size_t i = 0; i < legacy->tile_offsets.size(); ++i) {
        source_->preload(k::offsets, i, std::move(legacy->tile_offsets[i]));
        source_->preload(k::var_offsets, i, std::move(legacy->var_offsets[i]));
        source_->preload(k::var_sizes, i, std::move(legacy->var_sizes[i]));
      }
    }
    if (dense() && !footer().null_non_empty_domain)
      grid_.emplace(naming_file(meta_path, [&] { return dense_grid::of_region(schema_ref(), footer().non_empty_domain); }));
  }

  const fs::path& path() const noexcept { return where_.path; }
  const format::TimestampedName& name() const noexcept { return where_.name; }
  std::uint64_t timestamp_start() const noexcept { return where_.name.t1; }
  std::uint64_t timestamp_end() const noexcept { return where_.name.t2; }
  /// The fragment's format version (0 for TileDB 1.3).
  std::uint32_t format_version() const noexcept { return source_->version(); }
  bool dense() const noexcept { return footer().dense; }
  const format::Footer& footer() const noexcept { return source_->footer(); }
  const format::MBR& non_empty_domain() const noexcept { return footer().non_empty_domain; }
  /// What the footer's layout depends on (version, fields, flags): the
  /// context to encode footer() with, as consolidated fragment metadata does.
  const format::FragmentContext& footer_context() const noexcept { return source_->context(); }
  const format::ArraySchema& schema() const noexcept { return source_->schema(); }

  /// Number of tiles of every field.
  std::size_t tile_num() const { return source_->section(section_kind::offsets, fields().front()).size(); }

  /// Cells the fragment stores (dense: whole space tiles).
  std::uint64_t cell_num() const {
    std::size_t n = tile_num();
    if (n == 0) return 0;
    return guard_.sum(guard_.product(n - 1, full_tile_cells(), "cells"), tile_cells(n - 1), "cells");
  }

  /// The fields this fragment stores: attributes, then (sparse) dimensions.
  std::vector<field_info> fields() const { return fragment_fields(schema(), format_version(), dense()); }

  /// Whether the fragment stores a timestamp per cell (`__timestamps`, from
  /// format 14: fragments consolidated with timestamps).
  bool has_timestamps() const noexcept { return source_->context().has_timestamps; }
  /// Whether it stores delete metadata (`__delete_timestamps` and
  /// `__delete_condition_index`, from format 15: fragments consolidated
  /// while delete commits applied to them).
  bool has_delete_meta() const noexcept { return source_->context().has_delete_meta; }

  /// The fields TileDB adds to a fragment, if it has them.
  std::vector<field_info> special_fields() const { return array::special_fields(schema(), source_->context()); }

#ifdef TILEFMT_DECLARE_ONLY
  field_info field(std::string_view name) const;
#else
  TILEFMT_EMIT
  field_info field(std::string_view name) const {
    for (auto& f : fields())
      if (f.name == name) return f;
    for (auto& f : special_fields())
      if (f.name == name) return f;
    throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no field \"" + std::string(name) + "\"");
  }
#endif

  /// The time (ms since the epoch) each cell was written, in storage order.
  /// A fragment consolidated with timestamps spans several writes: a read
  /// at a timestamp range keeps only the cells written within it.
  column<std::uint64_t> read_timestamps() const { return read_special("__timestamps", has_timestamps()); }
  /// When each cell was deleted (UINT64_MAX: not deleted), in storage order.
  /// A read at a range ending at T drops the cells deleted at or before T.
  column<std::uint64_t> read_delete_timestamps() const {
    return read_special("__delete_timestamps", has_delete_meta());
  }
  /// For each cell, which of processed_conditions() deleted it (UINT64_MAX: none).
  column<std::uint64_t> read_delete_condition_index() const {
    return read_special("__delete_condition_index", has_delete_meta());
  }
  /// The delete (and update) commits already applied to this fragment's
  /// cells, by the marker TileDB names them with (the commit file's name).
  std::vector<std::string> processed_conditions() const {
    if (format_version() < 16) return {};
    auto pc = source_->read_section<format::ProcessedConditions>(footer().processed_conditions_offset.value);
    std::vector<std::string> out;
    for (const auto& c : pc.conditions.value) out.push_back(c.value);
    return out;
  }

  /// The bounding rectangle of each data tile of a sparse fragment (the
  /// R-tree's leaves), in tile order; empty for dense fragments and for
  /// fragments older than format 3, whose R-tree is not read.
  std::vector<format::MBR> mbrs() const {
    if (dense() || format_version() < 3) return {};
    auto tree = source_->read_section<format::RTree>(footer().rtree_offset);
    if (tree.levels.value.empty()) return {};
    auto leaves = std::move(tree.levels.value.back().mbrs.value);
    if (leaves.size() != tile_num())
      throw format_error("the R-tree of fragment " + where_.name.str() + " has " + std::to_string(leaves.size()) +
                             " leaves for " + std::to_string(tile_num()) + " tiles",
                         footer().rtree_offset);
    return leaves;
  }

  /// The stored bytes of tiles `tiles` of a field, for read_tile to take
  /// them from: on storage that prefers it (an object store), one read per
  /// run of adjacent tiles; elsewhere nothing, and each tile is read when
  /// it is decoded (fetched_tiles.hpp).
  fetched_tiles fetch_tiles(const field_info& f, std::vector<std::size_t> tiles) const {
    return source_->fetch_ahead(f, std::move(tiles));
  }

  /// Tile `i` of a field, unfiltered. In dense fragments, the cells outside
  /// the non-empty domain read as the attribute's fill value. Its bytes come
  /// from `ahead` (fetch_tiles) when it holds them.
  tile_data read_tile(const field_info& f, std::size_t i, const fetched_tiles* ahead = nullptr) const {
    tile_data t = read_tile_as_stored(f, i, ahead);
    if (fills(f)) apply_fill(f, i, t);
    return t;
  }

  /// The values of tile `i` of fixed-size field `f`, unfiltered as stored
  /// straight into `out`, which holds exactly the tile's cells: a reader
  /// whose result takes the whole tile in the tile's own order saves a tile
  /// buffer and a copy.
  void read_values_as_stored_into(const field_info& f, std::size_t i, std::span<std::byte> out,
                                  const fetched_tiles* ahead = nullptr) const {
    try {
      if (f.var()) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size");
      if (out.size() != guard_.product(tile_cells(i), f.cell_size(), "bytes in a tile"))
        throw std::invalid_argument("tilefmt: read_values_as_stored_into: the buffer does not hold tile " +
                                    std::to_string(i) + " of \"" + f.name + "\"");
      if (f.in_coords_file) {
        auto v = read_coords_tile(f, i, tile_cells(i));
        if (v.size() != out.size()) throw format_error("coordinate tile size", 0);
        std::memcpy(out.data(), v.data(), v.size());
      } else {
        source_->read_into(f, i, out, ahead);
      }
    } catch (format_error& e) {
      e.prepend_field(where(f, i));
      throw;
    }
  }

  /// The values of tile `i` of fixed-size field `f` as stored, unfiltered a
  /// chunk at a time: `want(first, last)` says whether the chunk holding the
  /// tile's cells [first, last) is needed, `take(first, values)` gets each
  /// needed one. A reader that needs part of a tile holds a chunk rather
  /// than the tile, and decodes only the chunks it needs (some pieces may
  /// be larger than a chunk: the whole tile where its chunks split cells).
  template <class Want, class Take>
  void read_values_in_chunks(const field_info& f, std::size_t i, Want&& want, Take&& take,
                             const fetched_tiles* ahead = nullptr) const {
    const std::size_t cs = f.cell_size();
    try {
      if (f.var() || cs == 0) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size");
      const std::uint64_t cells = tile_cells(i);
      if (f.in_coords_file) {
        const auto v = read_coords_tile(f, i, cells);
        if (v.size() != guard_.product(cells, cs, "bytes in a tile")) throw format_error("coordinate tile size", 0);
        take(std::size_t{0}, std::span<const std::byte>(v));
        return;
      }
      source_->read_chunks(
          f, i, guard_.product(cells, cs, "bytes in a tile"), ahead,
          [&](std::size_t begin, std::size_t end) { return want(begin / cs, end / cs); },
          [&](std::size_t begin, std::span<const std::byte> values) { take(begin / cs, values); });
    } catch (format_error& e) {
      e.prepend_field(where(f, i));
      throw;
    }
  }

  /// Tile `i` of a field, unfiltered, as stored: in dense fragments the
  /// cells outside the non-empty domain hold whatever the writer put there
  /// (readers that take only cells inside it skip the fill).
  tile_data read_tile_as_stored(const field_info& f, std::size_t i, const fetched_tiles* ahead = nullptr) const {
    tile_data t;
    const std::size_t cells = static_cast<std::size_t>(tile_cells(i));
    try {
      if (f.var()) {
        read_var_tile(f, i, cells, t, ahead);
      } else if (f.in_coords_file) {
        t.values = read_coords_tile(f, i, cells);
      } else {
        t.values = source_->read(f, format::DataFile::fixed, i, guard_.product(cells, f.cell_size(), "bytes in a tile"),
                                 f.cell_size(), nullptr, ahead);
      }
      if (f.nullable) {
        auto v = source_->read(f, format::DataFile::validity, i, cells, 1, nullptr, ahead);
        t.validity.assign(reinterpret_cast<const std::uint8_t*>(v.data()),
                          reinterpret_cast<const std::uint8_t*>(v.data()) + v.size());
      }
    } catch (format_error& e) {
      e.prepend_field(where(f, i));
      throw;
    }
    return t;
  }

  /// What the fragment stores about tile `i` of attribute `name`: its
  /// min, max, sum and null count (array/tile_metadata.hpp says which
  /// fields have which). std::nullopt for fragments older than format 11,
  /// which store none. The spans point into the fragment.
  std::optional<tile_summary> tile_metadata(std::string_view name, std::size_t i) const {
    if (format_version() < 11) return std::nullopt;
    const field_info f = field(name);
    if (!f.is_attribute()) throw std::invalid_argument("tilefmt: \"" + f.name + "\" is not an attribute");
    return naming_metadata([&] {
      const auto& md = source_->tile_metadata(f);
      const std::size_t tiles = tile_num();
      if (i >= tiles) throw std::out_of_range("tilefmt: fragment " + where_.name.str() + " has no tile " + std::to_string(i));
      tile_summary out;
      out.cell_num = tile_cells(i);
      out.min = stored_extreme(md.min, f, i, tiles, md.min_offset);
      out.max = stored_extreme(md.max, f, i, tiles, md.max_offset);
      if (!md.sums.empty()) {
        if (md.sums.size() != tiles) throw format_error("field " + f.name + ": the tile sums do not match the tiles", 0);
        out.sum = md.sums[i];
      }
      if (f.nullable) {
        if (md.null_counts.size() != tiles)
          throw format_error("field " + f.name + ": the tile null counts do not match the tiles", 0);
        out.null_count = md.null_counts[i];
      }
      return out;
    });
  }

  /// For each cell of dense tile `i`, whether it lies in the fragment's
  /// non-empty domain (the region the write covered). TileDB stores whole
  /// space tiles; the cells outside the written region read as fill values.
  std::vector<bool> written_cells(std::size_t i) const {
    check_tile_size(full_tile_cells());
    if (!grid_) return std::vector<bool>(static_cast<std::size_t>(full_tile_cells()), true);
    return naming_metadata([&] { return grid_->covered_cells(i); });
  }

  /// Whether every cell of dense tile `i` lies in the non-empty domain.
  bool fully_written(std::size_t i) const {
    return !grid_ || naming_metadata([&] { return grid_->full(i); });
  }

  /// Every value of a fixed-size field, as raw little-endian bytes.
  column<std::byte> read_bytes(std::string_view name) const {
    auto f = field(name);
    column<std::byte> out(column_bytes(f));
    read_fixed_into(f, out);
    return out;
  }

  /// Decodes a fixed-size field into `out`, which must hold exactly
  /// cell_num() cells. Each tile is unfiltered straight into its place in
  /// `out`, so a column costs one buffer of its decoded size.
  template <class T>
  void read_into(std::string_view name, std::span<T> out) const {
    auto f = fixed_field_of<T>(name);
    if (out.size() * sizeof(T) != column_bytes(f))
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
    column<T> out(column_bytes(f) / sizeof(T));
    read_into(name, std::span<T>(out));
    return out;
  }

  template <class T>
  var_column<T> read_var(std::string_view name) const {
    auto f = field(name);
    if (!f.var()) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is fixed-size: use read");
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

  /// A byte per cell of a nullable attribute: 0 for null.
  column<std::uint8_t> read_validity(std::string_view name) const {
    auto f = field(name);
    if (!f.nullable) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is not nullable");
    column<std::uint8_t> out;
    for (auto& t : read_all_tiles(f)) out.insert(out.end(), t.validity.begin(), t.validity.end());
    return out;
  }

  /// Cells in a full tile: the product of the tile extents (dense) or the
  /// capacity (sparse).
  std::uint64_t full_tile_cells() const {
    if (!dense()) return schema().capacity;
    if (grid_) return grid_->cells_per_tile();
    std::uint64_t n = 1;
    for (const auto& d : schema().domain.dimensions)
      filter::with_integer_type(d.type.value, [&]<class T>() {
        n = guard_.product(n, static_cast<std::uint64_t>(d.tile_extent_as<T>().value_or(T{1})), "cells in a space tile");
      });
    return n;
  }
  /// Cells in tile i (a sparse fragment's last tile may be shorter).
  std::uint64_t tile_cells(std::size_t i) const {
    if (!dense() && i + 1 == tile_num() && footer().last_tile_cell_num != 0) return footer().last_tile_cell_num;
    return full_tile_cells();
  }

private:
  using section_kind = detail::tile_source::section_kind;

  const format::ArraySchema& schema_ref() const noexcept { return source_->schema(); }

  template <class F>
  auto naming_metadata(F&& f) const -> decltype(f()) {
    return naming_file(where_.path / "__fragment_metadata.tdb", std::forward<F>(f));
  }

  /// Tile `i`'s min or max in a stored "Tile Mins" or "Tile Maxes"
  /// section at `offset`: a cell of each tile, or an offset per tile into
  /// the strings of var-size fields. Empty when the field has none.
  static std::span<const std::byte> stored_extreme(const format::TileMinMax& s, const field_info& f, std::size_t i,
                                                   std::size_t tiles, std::uint64_t offset) {
    if (s.fixed.empty()) return {};
    const std::size_t size = f.cell_size();
    auto fail = [&](const std::string& what) {
      return format_error("field " + f.name + ": the tile " + what, static_cast<std::size_t>(offset));
    };
    if (size == 0 || s.fixed.size() / size != tiles || s.fixed.size() % size != 0)
      throw fail("mins or maxes hold " + std::to_string(s.fixed.size()) + " bytes for " + std::to_string(tiles) +
                 " tiles");
    if (!f.var()) return std::span<const std::byte>(s.fixed).subspan(i * size, size);
    const std::uint64_t begin = codec::load_le<std::uint64_t>(s.fixed.data() + i * 8);
    const std::uint64_t end = i + 1 < tiles ? codec::load_le<std::uint64_t>(s.fixed.data() + (i + 1) * 8) : s.var.size();
    if (begin > end || end > s.var.size()) throw fail("min or max strings' offsets are out of order");
    return std::span<const std::byte>(s.var).subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
  }

  /// Refuses a tile of `bytes` before anything that size is allocated, as
  /// the tile source does (open_options::max_allocation).
  void check_tile_size(std::uint64_t bytes) const { guard_.check(bytes, "a tile of this fragment", "a tile"); }
  /// Bytes of fixed-size field `f`'s column. A whole-column read allocates
  /// them at once, so the column as a whole must be within
  /// open_options::max_allocation too: tiles of fill values compress to
  /// almost nothing, and a few bytes of footer could otherwise claim
  /// terabytes. Larger columns are read tile by tile (read_tile).
#ifdef TILEFMT_DECLARE_ONLY
  std::size_t column_bytes(const field_info& f) const;
#else
  TILEFMT_EMIT
  std::size_t column_bytes(const field_info& f) const {
    const std::uint64_t bytes = guard_.product(cell_num(), f.cell_size(), "bytes in the column");
    try {
      guard_.check(bytes, "its column", "one read (read it tile by tile with read_tile)");
    } catch (format_error& e) {
      e.prepend_field("fragment " + where_.name.str() + ", field " + f.name);
      throw;
    }
    return static_cast<std::size_t>(bytes);
  }
#endif
  std::string where(const field_info& f, std::size_t i) const {
    return "fragment " + where_.name.str() + ", field " + f.name + ", tile " + std::to_string(i);
  }

  /// Whether cells outside the written region take the attribute's fill value.
  bool fills(const field_info& f) const { return dense() && f.is_attribute(); }

  /// The var-size path of read_tile: offsets (from the offsets file, or
  /// rebuilt from the var tile by RLE and dictionary strings), then values.
  void read_var_tile(const field_info& f, std::size_t i, std::size_t cells, tile_data& t,
                     const fetched_tiles* ahead) const {
    // RLE and dictionary on strings store the offsets inside the var tile
    // (the v12/v13/v17 rule, judged by the schema's version); the offsets
    // file then holds an empty tile per tile.
    const bool rebuilt = filter::skip_offsets_filtering(*f.filters, f.type, schema().version.value);
    check_tile_size(guard_.product(cells, 8, "bytes in a tile"));
    if (!rebuilt) {
      auto offs = source_->read(f, format::DataFile::fixed, i, cells * 8, 8, nullptr, ahead);
      t.offsets.resize(cells);
      codec::load_le_array(offs.data(), t.offsets.data(), cells);
    } else {
      t.offsets.assign(cells, 0);
    }
    const auto& var_sizes = source_->section(section_kind::var_sizes, f);
    if (i >= var_sizes.size()) throw format_error("tile " + std::to_string(i) + " has no var size", 0);
    const std::uint64_t var_size = var_sizes[i];
    t.values = source_->read(f, format::DataFile::var, i, var_size, format::datatype_size(f.type),
                             rebuilt ? &t.offsets : nullptr, ahead);
    if (t.offsets.size() != cells)
      throw format_error("var tile rebuilds " + std::to_string(t.offsets.size()) + " offsets, the tile has " +
                             std::to_string(cells) + " cells",
                         0);
    // Offsets that point outside the var tile: the offsets file is wrong
    // (or, when the offsets are rebuilt from the var tile, that one).
    naming_file(source_->file_path(f, rebuilt ? format::DataFile::var : format::DataFile::fixed), [&] {
      for (std::size_t c = 0; c < cells; ++c)
        if (t.offsets[c] > var_size || (c && t.offsets[c] < t.offsets[c - 1]))
          throw format_error("offset of cell " + std::to_string(c) + " is " + std::to_string(t.offsets[c]) +
                                 ", the var tile has " + std::to_string(var_size) + " bytes",
                             c * 8);
      return 0;
    });
  }

  /// Tile i of one dimension, taken from a `__coords` tile (formats < 5).
  /// The tile holds every dimension's coordinates: zipped (x0 y0 x1 y1 ...)
  /// as format 1 wrote them without compression, else split (all x, then
  /// all y), which TileDB zips after unfiltering (reader_base.cc
  /// zip_tile_coordinates).
  std::vector<std::byte> read_coords_tile(const field_info& f, std::size_t i, std::uint64_t cells) const {
    const std::size_t nd = schema().domain.dimensions.size();
    const std::size_t cs = format::datatype_size(f.type);
    auto all = source_->read(f, format::DataFile::fixed, i, guard_.product(cells, nd * cs, "bytes in a tile"), nd * cs);
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
    const bool split = format_version() > 1 || compressed;
    std::vector<std::byte> out(static_cast<std::size_t>(cells) * cs);
    for (std::size_t c = 0; c < cells; ++c) {
      const std::size_t from = split ? (f.index * cells + c) * cs : (c * nd + f.index) * cs;
      std::memcpy(out.data() + c * cs, all.data() + from, cs);
    }
    return out;
  }

  void apply_fill(const field_info& f, std::size_t i, tile_data& t) const {
    if (fully_written(i)) return;
    const auto written = written_cells(i);
    const auto& attr = schema().attributes.value.at(f.index);
    if (f.var())
      detail::fill_var_cells(attr, written, t.values, t.offsets);
    else
      detail::fill_fixed_cells(attr, f.cell_size(), written, t.values);
    if (f.nullable) detail::fill_validity(attr, written, t.validity);
  }

  /// Dense tiles cover whole space tiles; cells outside the fragment's
  /// non-empty domain read as the attribute's fill value.
  void fill_fixed(const field_info& f, std::size_t i, std::span<std::byte> values) const {
    if (fully_written(i)) return;
    detail::fill_fixed_cells(schema().attributes.value.at(f.index), f.cell_size(), written_cells(i), values);
  }

  template <class T>
  field_info fixed_field_of(std::string_view name) const {
    auto f = field(name);
    if (f.var()) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size: use read_var");
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: field \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values, not " +
                                  std::to_string(sizeof(T)) + "-byte ones");
    return f;
  }

  /// Calls `fn(i, ahead)` for every tile i of `f` on up to
  /// open_options::threads threads. Where the storage prefers few requests,
  /// the tiles are fetched ahead in runs of adjacent tiles, a bounded run
  /// at a time (tile_source::tile_batches), and `ahead` holds the run's.
  template <class Fn>
  void for_each_tile(const field_info& f, Fn&& fn) const {
    source_->prepare(f);
    const unsigned threads = source_->options().threads;
    const std::uint64_t limit = std::min(detail::tile_source::merged_read_limit * detail::thread_count(threads),
                                         source_->options().max_allocation);
    for (const auto& batch : source_->tile_batches(f, tile_num(), limit)) {
      const std::size_t first = batch.first, n = batch.second - batch.first;
      std::vector<std::size_t> tiles(n);
      for (std::size_t k = 0; k < n; ++k) tiles[k] = first + k;
      const auto ahead = fetch_tiles(f, std::move(tiles));
      detail::parallel_for(n, threads, [&](std::size_t k) { fn(first + k, &ahead); });
    }
  }

  /// Every tile of `f`, decoded on up to open_options::threads threads.
  std::vector<tile_data> read_all_tiles(const field_info& f) const {
    std::vector<tile_data> tiles(tile_num());
    for_each_tile(f, [&](std::size_t i, const fetched_tiles* ahead) { tiles[i] = read_tile(f, i, ahead); });
    return tiles;
  }

  /// The fixed-size path of read_tile, writing tile i's cells to `out`.
  void read_fixed_tile_into(const field_info& f, std::size_t i, std::span<std::byte> out,
                            const fetched_tiles* ahead = nullptr) const {
    read_values_as_stored_into(f, i, out, ahead);
    if (fills(f)) fill_fixed(f, i, out);
  }

#ifdef TILEFMT_DECLARE_ONLY
  void read_fixed_into(const field_info& f, std::span<std::byte> out) const;
#else
  TILEFMT_EMIT
  void read_fixed_into(const field_info& f, std::span<std::byte> out) const {
    const std::size_t cs = f.cell_size();
    const std::size_t full = static_cast<std::size_t>(full_tile_cells()) * cs;
    for_each_tile(f, [&](std::size_t i, const fetched_tiles* ahead) {
      read_fixed_tile_into(f, i, out.subspan(i * full, static_cast<std::size_t>(tile_cells(i)) * cs), ahead);
    });
  }
#endif

  column<std::uint64_t> read_special(const char* name, bool present) const {
    if (!present)
      throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no " + name + " field");
    return read<std::uint64_t>(name);
  }

  timestamped_path where_;
  detail::size_guard guard_;  // counts from the footer and schema, multiplied and bounded
  std::unique_ptr<detail::tile_source> source_;
  std::optional<dense_grid> grid_;  // dense fragments with a non-empty domain
};

} // namespace tilefmt::array
