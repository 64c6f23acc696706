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

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/model/limits.hpp"
#include "tilefmt/array/model/options.hpp"
#include "tilefmt/array/read/fetched_tiles.hpp"
#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array {

namespace detail {
class tile_source;
}

/// One tile of one field, unfiltered.
struct tile_data {
  column<std::byte> values;               // fixed values, or the var bytes (sized unzeroed: decoded whole)
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

/// Cells [first, first + count) of a tile, to be written to `dest`
/// (count times the field's cell size bytes).
struct cell_copy {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::byte* dest = nullptr;
};

class fragment {
public:
  /// Reads the fragment's metadata (`__fragment_metadata.tdb`) from `st`,
  /// unless `metadata` holds its bytes already (array_reader reads them
  /// first, for the schema the footer names).
  fragment(std::shared_ptr<const storage::backend> st, timestamped_path where,
           std::shared_ptr<const format::ArraySchema> schema, const open_options& opt,
           std::optional<std::vector<std::byte>> metadata = std::nullopt);

  const fs::path& path() const noexcept { return where_.path; }
  const format::TimestampedName& name() const noexcept { return where_.name; }
  std::uint64_t timestamp_start() const noexcept { return where_.name.t1; }
  std::uint64_t timestamp_end() const noexcept { return where_.name.t2; }
  /// The fragment's format version (0 for TileDB 1.3).
  std::uint32_t format_version() const noexcept;
  bool dense() const noexcept { return footer().dense; }
  const format::Footer& footer() const noexcept;
  const format::MBR& non_empty_domain() const noexcept { return footer().non_empty_domain; }
  /// What the footer's layout depends on (version, fields, flags): the
  /// context to encode footer() with, as consolidated fragment metadata does.
  const format::FragmentContext& footer_context() const noexcept;
  const format::ArraySchema& schema() const noexcept;

  /// Number of tiles of every field.
  std::size_t tile_num() const;

  /// Cells the fragment stores (dense: whole space tiles).
  std::uint64_t cell_num() const;

  /// The fields this fragment stores: attributes, then (sparse) dimensions.
  const std::vector<field_info>& fields() const noexcept { return fields_; }

  /// Whether the fragment stores a timestamp per cell (`__timestamps`, from
  /// format 14: fragments consolidated with timestamps).
  bool has_timestamps() const noexcept { return footer_context().has_timestamps; }
  /// Whether it stores delete metadata (`__delete_timestamps` and
  /// `__delete_condition_index`, from format 15: fragments consolidated
  /// while delete commits applied to them).
  bool has_delete_meta() const noexcept { return footer_context().has_delete_meta; }

  /// The fields TileDB adds to a fragment, if it has them.
  const std::vector<field_info>& special_fields() const noexcept { return special_fields_; }

  /// The field named `name`, of fields() or special_fields().
  const field_info& field(std::string_view name) const;

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
  std::vector<std::string> processed_conditions() const;

  /// The bounding rectangle of each data tile of a sparse fragment (the
  /// R-tree's leaves), in tile order; empty for dense fragments and for
  /// fragments older than format 3, whose R-tree is not read.
  std::vector<format::MBR> mbrs() const;

  /// The stored bytes of tiles `tiles` of a field, for read_tile to take
  /// them from: on storage that prefers it (an object store), one read per
  /// run of adjacent tiles; elsewhere nothing, and each tile is read when
  /// it is decoded (fetched_tiles.hpp). Up to `requests` reads at once
  /// (0: open_options::threads).
  fetched_tiles fetch_tiles(const field_info& f, std::vector<std::size_t> tiles, unsigned requests = 0) const;

  /// Tile `i` of a field, unfiltered. In dense fragments, the cells outside
  /// the non-empty domain read as the attribute's fill value. Its bytes come
  /// from `ahead` (fetch_tiles) when it holds them.
  tile_data read_tile(const field_info& f, std::size_t i, const fetched_tiles* ahead = nullptr) const;

  /// The values of tile `i` of fixed-size field `f`, unfiltered as stored
  /// straight into `out`, which holds exactly the tile's cells: a reader
  /// whose result takes the whole tile in the tile's own order saves a tile
  /// buffer and a copy.
  void read_values_as_stored_into(const field_info& f, std::size_t i, std::span<std::byte> out,
                                  const fetched_tiles* ahead = nullptr) const;

  /// The bytes tile `i` of var-size field `f` holds once unfiltered, as
  /// the fragment's metadata records them; std::nullopt where the var tile
  /// also holds the cells' offsets (RLE and dictionary strings), whose
  /// unfiltered values only decoding tells.
  std::optional<std::uint64_t> var_tile_bytes(const field_info& f, std::size_t i) const;

  /// Tile `i` of var-size field `f` as stored, unfiltered straight into
  /// `values` (exactly var_tile_bytes(f, i) bytes) and `offsets` (one per
  /// cell of the tile: where it starts in `values`): a reader that knows
  /// where the tile's cells go saves a tile buffer and a copy.
  void read_var_tile_into(const field_info& f, std::size_t i, std::span<std::byte> values,
                          std::span<std::uint64_t> offsets, const fetched_tiles* ahead = nullptr) const;

  /// Of tile `i` of fixed-size field `f` as stored, the cells `copies`
  /// name, each range written to its destination. Only the chunks holding
  /// one are decoded, and where the pipeline's first filter is a byte
  /// shuffle it writes the cells straight there: a reader that needs part
  /// of a tile holds neither the tile nor a chunk of it.
  void read_cells_into(const field_info& f, std::size_t i, std::span<const cell_copy> copies,
                       const fetched_tiles* ahead = nullptr) const;

  /// The values of tile `i` of fixed-size field `f` as stored, unfiltered a
  /// chunk at a time: `want(first, last)` says whether the chunk holding the
  /// tile's cells [first, last) is needed, `take(first, values)` gets each
  /// needed one. A reader that needs part of a tile holds a chunk rather
  /// than the tile, and decodes only the chunks it needs (a piece may be
  /// larger than a chunk: from a chunk that splits a cell, the rest of the
  /// tile).
  /// Defined in fragment-inl.hpp.
  template <class Want, class Take>
  void read_values_in_chunks(const field_info& f, std::size_t i, Want&& want, Take&& take,
                             const fetched_tiles* ahead = nullptr) const;

  /// Tile `i` of a field, unfiltered, as stored: in dense fragments the
  /// cells outside the non-empty domain hold whatever the writer put there
  /// (readers that take only cells inside it skip the fill).
  tile_data read_tile_as_stored(const field_info& f, std::size_t i, const fetched_tiles* ahead = nullptr) const;

  /// What the fragment stores about tile `i` of attribute `name`: its
  /// min, max, sum and null count (array/write/tile_metadata.hpp says which
  /// fields have which). std::nullopt for fragments older than format 11,
  /// which store none. The spans point into the fragment.
  std::optional<tile_summary> tile_metadata(std::string_view name, std::size_t i) const;

  /// For each cell of dense tile `i`, whether it lies in the fragment's
  /// non-empty domain (the region the write covered). TileDB stores whole
  /// space tiles; the cells outside the written region read as fill values.
  std::vector<bool> written_cells(std::size_t i) const;

  /// Whether every cell of dense tile `i` lies in the non-empty domain.
  bool fully_written(std::size_t i) const;

  /// Every value of a fixed-size field, as raw little-endian bytes.
  column<std::byte> read_bytes(std::string_view name) const;

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
    const tile_data all = read_var_bytes(f);
    var_column<T> out;
    out.offsets.reserve(all.offsets.size());
    for (auto o : all.offsets) out.offsets.push_back(o / sizeof(T));
    out.values.resize(all.values.size() / sizeof(T));
    codec::load_le_array(all.values.data(), out.values.data(), out.values.size());
    return out;
  }

  /// A byte per cell of a nullable attribute: 0 for null.
  column<std::uint8_t> read_validity(std::string_view name) const;

  /// Cells in a full tile: the product of the tile extents (dense) or the
  /// capacity (sparse).
  std::uint64_t full_tile_cells() const;
  /// Cells in tile i (a sparse fragment's last tile may be shorter).
  std::uint64_t tile_cells(std::size_t i) const;

private:
  template <class F>
  auto naming_metadata(F&& f) const -> decltype(f()) {
    return naming_file(where_.path / "__fragment_metadata.tdb", std::forward<F>(f));
  }

  static std::span<const std::byte> stored_extreme(const format::TileMinMax& s, const field_info& f, std::size_t i,
                                                   std::size_t tiles, std::uint64_t offset);

  /// Refuses a tile of `bytes` before anything that size is allocated, as
  /// the tile source does (open_options::max_allocation).
  void check_tile_size(std::uint64_t bytes) const { guard_.check(bytes, "a tile of this fragment", "a tile"); }
  /// Bytes of fixed-size field `f`'s column. A whole-column read allocates
  /// them at once, so the column as a whole must be within
  /// open_options::max_allocation too: tiles of fill values compress to
  /// almost nothing, and a few bytes of footer could otherwise claim
  /// terabytes. Larger columns are read tile by tile (read_tile).
  std::size_t column_bytes(const field_info& f) const;
  std::string where(const field_info& f, std::size_t i) const {
    return "fragment " + where_.name.str() + ", field " + f.name + ", tile " + std::to_string(i);
  }

  /// Whether cells outside the written region take the attribute's fill value.
  bool fills(const field_info& f) const { return dense() && f.is_attribute(); }

  void read_var_tile(const field_info& f, std::size_t i, std::size_t cells, tile_data& t,
                     const fetched_tiles* ahead) const;
  void read_tile_offsets(const field_info& f, std::size_t i, std::span<std::uint64_t> out,
                         const fetched_tiles* ahead) const;
  std::uint64_t stored_var_size(const field_info& f, std::size_t i) const;
  void check_var_offsets(const field_info& f, bool rebuilt, std::span<const std::uint64_t> offsets,
                         std::uint64_t var_size) const;
  column<std::byte> read_coords_tile(const field_info& f, std::size_t i, std::uint64_t cells) const;
  void apply_fill(const field_info& f, std::size_t i, tile_data& t) const;
  void fill_fixed(const field_info& f, std::size_t i, std::span<std::byte> values) const;

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
  /// open_options::threads threads (defined in fragment-inl.hpp).
  template <class Fn>
  void for_each_tile(const field_info& f, Fn&& fn) const;

  std::vector<tile_data> read_all_tiles(const field_info& f) const;
  /// Every tile of var-size field `f` back to back: the values, and each
  /// cell's start among them in bytes.
  tile_data read_var_bytes(const field_info& f) const;
  void read_fixed_tile_into(const field_info& f, std::size_t i, std::span<std::byte> out,
                            const fetched_tiles* ahead = nullptr) const;
  void read_fixed_into(const field_info& f, std::span<std::byte> out) const;

  column<std::uint64_t> read_special(const char* name, bool present) const {
    if (!present)
      throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no " + name + " field");
    return read<std::uint64_t>(name);
  }

  timestamped_path where_;
  detail::size_guard guard_;  // counts from the footer and schema, multiplied and bounded
  // Shared, not owned alone: a fragment moves and copies without the tile
  // source's definition (fragment-inl.hpp), and the source is immutable.
  std::shared_ptr<const detail::tile_source> source_;
  std::optional<dense_grid> grid_;  // dense fragments with a non-empty domain
  // Made once at open: the readers ask for a field, or the tile count, per
  // tile (a vector of names and pipelines made each time was most of a
  // read of many small tiles).
  std::vector<field_info> fields_, special_fields_;
};

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/read/fragment-inl.hpp"
#endif
