// tilefmt — writing arrays: creating one, and writing dense and sparse
// fragments.
//
//   using IntP = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
//   auto schema = format::make_array_schema({.type = format::ArrayType::DENSE, .dimensions = //
//   {format::make_dimension<std::int32_t>("rows", 1, 8, 4)}, .attributes = //       {format::make_attribute({.name =
//   "a", .type = format::Datatype::INT32, .filters = IntP::descriptor(22)})}}); array::create("path/to/array", schema);
//
//   array::dense_fragment frag("path/to/array", {{1, 8}});   // whole space tiles, storage order
//   // or {{2, 5}}, array::cell_layout::row_major: any subarray, cells row-major
//   frag.set<IntP>("a", values);     // tiles encoded by IntP itself
//   frag.set("b", other_values);     // or by the schema's pipeline, built at run time
//   std::string name = frag.commit();
//
//   array::sparse_fragment s("path/to/sparse");              // cells in any order
//   s.set_coords<std::int32_t>("x", xs).set_coords<std::int64_t>("y", ys).set("a", values);
//   s.commit();
//
// Var-size attributes take values and offsets (or one std::string per
// cell), nullable ones a validity byte per cell:
//
//   frag.set_var("name", std::vector<std::string>{"x", "yy", ...});
//   frag.set("count", counts, validity);       // 0 = null
//
// The files are those TileDB 2.30 writes (format 22) for the same schema and
// cells, written as TileDB-Py writes them (a row-major query for dense
// fragments, an unordered one for sparse fragments): a new array gets the
// folders `__schema/` (+ `__enumerations/`), `__commits/`, `__fragments/`,
// `__fragment_meta/`, `__meta/`, `__labels/` and one schema file; a fragment
// gets `a<i>.tdb` per attribute (+ `a<i>_var.tdb` for var-size ones, the
// former then holding the offsets, + `a<i>_validity.tdb` for nullable ones),
// `d<j>.tdb` per dimension of a sparse fragment, `__fragment_metadata.tdb`
// and the commit marker `__commits/<name>.wrt`. Timestamps and the random
// labels in file names are the only differences, and both can be passed in
// (write_options).
//
// A write is crash-safe as TileDB's is: data files first, fragment metadata
// next, the commit marker last, each written under a temporary name and
// renamed. A fragment without its marker is invisible to readers. On the
// local file system each file is also fsync'ed before its rename and its
// folder after it (storage/local.hpp), so a marker cannot outlive a power
// failure that the fragment's files did not. A writer killed during a
// commit leaves at most a fragment folder without a marker and `*.tmp`
// files in it or in `__commits/`: TileDB (2.25, 2.30) and tilefmt ignore
// both, and nothing removes them (TileDB leaves the same behind). Several
// processes may commit to one array at once: fragment names differ by their
// random labels, in the same millisecond too (tests/array/crash_writer.cpp).
//
// Scope: dense fragments (any subarray with cell_layout::row_major, whole
// space tiles in storage order otherwise); sparse fragments with fixed-size
// dimensions in row- or column-major cell order; no encryption. Anything
// else is rejected with std::invalid_argument before a file is written.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/dense_grid.hpp"
#include "tilefmt/array/fragment_builder.hpp"

namespace tilefmt::array {

namespace detail {

/// A dimension's [lo, hi] and tile extent as int64 (dense dimensions are
/// integers, or dates and times stored as int64).
struct dense_dim {
  std::int64_t lo = 0, hi = 0, extent = 1;
};

inline dense_dim dense_dimension(const format::Dimension& d) {
  dense_dim out;
  const std::string who = "tilefmt: dense dimension \"" + d.name.value + "\"";
  if (d.is_var()) throw std::invalid_argument(who + " is var-size; dense arrays need integer dimensions");
  if (!d.has_tile_extent()) throw std::invalid_argument(who + " has no tile extent");
  const bool integral = filter::with_integer_type(d.type.value, [&]<class T>() {
    if (d.domain.size() != 2 * sizeof(T) || d.tile_extent.size() != sizeof(T))
      throw std::invalid_argument(who + ": domain or tile extent does not match its type");
    auto [lo, hi] = d.domain_as<T>();
    T ext = *d.tile_extent_as<T>();
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      if (hi > static_cast<T>(std::numeric_limits<std::int64_t>::max()))
        throw std::invalid_argument(who + ": uint64 domains past INT64_MAX are not supported by this writer");
    }
    out.lo = static_cast<std::int64_t>(lo);
    out.hi = static_cast<std::int64_t>(hi);
    out.extent = static_cast<std::int64_t>(ext);
  });
  if (!integral || format::datatype_size(d.type.value) == 0 || d.type.value == format::Datatype::CHAR ||
      d.type.value == format::Datatype::BOOL || d.type.value == format::Datatype::BLOB ||
      d.type.value == format::Datatype::ANY || d.type.value == format::Datatype::STRING_ASCII)
    throw std::invalid_argument(who + " has type " + std::string(format::codec_enum_name(d.type.value)) +
                                "; dense arrays need integer, date or time dimensions");
  if (out.lo > out.hi) throw std::invalid_argument(who + ": the domain's lower bound is above its upper bound");
  if (out.extent <= 0) throw std::invalid_argument(who + ": the tile extent must be positive");
  return out;
}

/// What TileDB checks of a schema before creating an array, as far as this
/// writer relies on it.
inline void check_schema(const format::ArraySchema& s) {
  if (s.domain.dimensions.empty()) throw std::invalid_argument("tilefmt: the schema has no dimensions");
  if (s.attributes.empty()) throw std::invalid_argument("tilefmt: the schema has no attributes");
  std::vector<std::string> names;
  for (const auto& d : s.domain.dimensions) names.push_back(d.name.value);
  for (const auto& a : s.attributes) names.push_back(a.name.value);
  for (const auto& n : names) {
    if (n.empty()) throw std::invalid_argument("tilefmt: a dimension or attribute has an empty name");
    if (n.rfind("__", 0) == 0) throw std::invalid_argument("tilefmt: names starting with \"__\" are TileDB's: " + n);
  }
  std::sort(names.begin(), names.end());
  if (auto it = std::adjacent_find(names.begin(), names.end()); it != names.end())
    throw std::invalid_argument("tilefmt: the name \"" + *it + "\" is used twice");
  if (!s.is_sparse()) {
    if (s.cell_order == format::Layout::HILBERT || s.tile_order == format::Layout::HILBERT)
      throw std::invalid_argument("tilefmt: dense arrays cannot use the Hilbert order");
    for (const auto& d : s.domain.dimensions) {
      (void)dense_dimension(d);
      if (d.type.value != s.domain.dimensions[0].type.value)
        throw std::invalid_argument("tilefmt: the dimensions of a dense array must all have one type");
    }
  }
  for (const auto& a : s.attributes)
    if (a.cell_val_num == 0) throw std::invalid_argument("tilefmt: attribute \"" + a.name.value + "\" has cell_val_num 0");
}

/// The set(), set_var() and set<P>() calls both fragment writers offer;
/// `Fragment` takes the checked cells through put_fixed() and put_var().
template <class Fragment>
class cells_api {
public:
  /// Sets a fixed-size attribute's cells, encoding its tiles with the
  /// schema's filter pipeline (built at run time). T must have the size of
  /// the attribute's type; a cell of cell_val_num values takes that many
  /// elements. Nullable attributes need `validity`, a byte per cell (0 =
  /// null; the values of null cells are stored as given); others take none.
  template <class T>
  Fragment& set(std::string_view attribute, std::span<const T> cells, std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set(): values are numbers, characters or bytes");
    std::vector<std::byte> copy;
    self().put_fixed(attribute, sizeof(T), cells.size(), le_bytes(cells, copy), validity, tile_encoder{});
    return self();
  }
  template <class T>
  Fragment& set(std::string_view attribute, const std::vector<T>& cells, std::span<const std::uint8_t> validity = {}) {
    return set<T>(attribute, std::span<const T>(cells), validity);
  }

  /// Sets an attribute's cells, encoding its tiles with the compile-time
  /// pipeline P, which must be the one the schema declares for it
  /// (P::descriptor() equal to the attribute's filters): the same type that
  /// declared the schema writes the tiles.
  template <class P, class T>
    requires is_pipeline<P>::value
  Fragment& set(std::string_view attribute, std::span<const T> cells, std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set<P>(): values are numbers, characters or bytes");
    const format::Attribute* a = nullptr;
    for (const auto& at : self().schema().attributes)
      if (at.name.value == attribute) a = &at;
    if (a && !(P::descriptor(format::written_version, a->filters.max_chunk_size != 0) == a->filters))
      throw std::invalid_argument(
          "tilefmt: set<P>: attribute \"" + a->name.value + "\" is declared with the filters " +
          format::pipeline_to_text(a->filters, format::written_version) + ", P has " +
          format::pipeline_to_text(P::descriptor(format::written_version), format::written_version));
    filter::encode_options opt;
    if (a) {
      opt.chunking = a->filters.max_chunk_size != 0;
      opt.cell_val_num = a->cell_val_num;
      opt.datatype = a->type;
    }
    opt.version = format::written_version;
    std::vector<std::byte> copy;
    self().put_fixed(attribute, sizeof(T), cells.size(), le_bytes(cells, copy), validity,
                     [opt](std::span<const std::byte> tile) {
                       // The tile (little-endian bytes, a whole number of
                       // cells) as values of T again, which P stores
                       // little-endian: a view here, a converted copy on
                       // big-endian hosts.
                       if constexpr (std::endian::native == std::endian::little || !codec::wire_scalar<T>) {
                         std::span<const T> values(reinterpret_cast<const T*>(tile.data()), tile.size() / sizeof(T));
                         return P::template encode<T>(values, opt);
                       } else {
                         std::vector<T> values(tile.size() / sizeof(T));
                         codec::load_le_array(tile.data(), values.data(), values.size());
                         return P::template encode<T>(values, opt);
                       }
                     });
    return self();
  }
  template <class P, class T>
    requires is_pipeline<P>::value
  Fragment& set(std::string_view attribute, const std::vector<T>& cells, std::span<const std::uint8_t> validity = {}) {
    return set<P, T>(attribute, std::span<const T>(cells), validity);
  }

  /// Sets a var-size attribute's cells: `values` holds every cell's values
  /// back to back and `offsets[c]` is where cell c starts, in elements of T,
  /// with no trailing offset (the shape read_var returns). The var tiles
  /// are encoded with the schema's filters, the offsets with its offsets
  /// filters (or not stored, where RLE or DICTIONARY carry them). Nullable
  /// attributes need `validity` as for set().
  template <class T>
  Fragment& set_var(std::string_view attribute, std::span<const T> values, std::span<const std::uint64_t> offsets,
                    std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set_var(): values are numbers, characters or bytes");
    std::vector<std::byte> copy;
    self().put_var(attribute, sizeof(T), le_bytes(values, copy), offsets, validity);
    return self();
  }
  template <class T>
  Fragment& set_var(std::string_view attribute, const var_column<T>& cells, std::span<const std::uint8_t> validity = {}) {
    return set_var<T>(attribute, std::span<const T>(cells.values), std::span<const std::uint64_t>(cells.offsets), validity);
  }
  /// Sets a var-size string attribute (CHAR, STRING_ASCII, STRING_UTF8, ...
  /// of one byte per character) from one string per cell.
  Fragment& set_var(std::string_view attribute, const std::vector<std::string>& cells,
                    std::span<const std::uint8_t> validity = {}) {
    std::vector<char> values;
    std::vector<std::uint64_t> offsets;
    offsets.reserve(cells.size());
    for (const auto& c : cells) {
      offsets.push_back(values.size());
      values.insert(values.end(), c.begin(), c.end());
    }
    return set_var<char>(attribute, std::span<const char>(values), std::span<const std::uint64_t>(offsets), validity);
  }

private:
  Fragment& self() { return static_cast<Fragment&>(*this); }
};

} // namespace detail

/// Creates a new array at `root` with `schema` (written at format version
/// format::written_version, whatever `schema.version` says). Returns the schema
/// file's name (`__t_t_label`, in `root/__schema/`). Throws
/// std::invalid_argument for a schema TileDB would refuse (see
/// detail::check_schema) and io_error when `root` already holds an array or
/// a folder cannot be made.
inline std::string create(const fs::path& root, format::ArraySchema schema, const write_options& opt = {}) {
  schema.version.value = format::written_version;
  detail::check_schema(schema);
  auto st = detail::or_local(opt.storage);
  if (is_array(*st, root)) throw io_error(root, "already holds a TileDB array");
  auto [t, label] = detail::name_parts(opt);
  // Encode before touching the disk, so a schema the codec rejects leaves nothing behind.
  std::vector<std::byte> payload = codec::encode(schema);
  std::vector<std::byte> file = filter::write_generic_tile(payload, format::written_version);
  for (const char* sub : {"__schema/__enumerations", "__commits", "__fragments", "__fragment_meta", "__meta", "__labels"})
    st->make_folder(root / sub);
  std::string name = format::make_timestamped_name(t, t, label);
  st->write(root / "__schema" / name, file);
  return name;
}

/// How the cells of a dense fragment are given.
enum class cell_layout {
  /// Tile after tile in the schema's tile order, and inside each tile in its
  /// cell order (dense_fragment::cell_coordinates(i) says which cell the
  /// i-th value is). The subarray must consist of whole space tiles.
  storage,
  /// Row-major over the subarray, as a C-ordered array of its shape (what
  /// TileDB-Py writes). Any subarray inside the domain: the parts of its
  /// space tiles outside it are stored as TileDB stores them (zero bytes,
  /// null, one zero value for var-size cells) and read back as fill values.
  row_major,
};

/// One dense fragment of an existing array, written over a subarray: [lo,
/// hi] per dimension, inclusive, in the order of the schema's dimensions.
/// Every attribute of the schema must be set before commit().
class dense_fragment : public detail::cells_api<dense_fragment> {
public:
  /// Writes into the array at `root`, with its latest schema. Throws
  /// io_error when `root` is not an array and std::invalid_argument for a
  /// subarray or schema this writer cannot write.
  dense_fragment(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray,
                 cell_layout layout = cell_layout::row_major, std::shared_ptr<storage::backend> storage = {})
      : b_(root, "dense_fragment", false, std::move(storage)), subarray_(std::move(subarray)), layout_(layout) {
    const auto& schema = b_.schema();
    detail::check_schema(schema);
    const auto& dims = schema.domain.dimensions.value;
    if (subarray_.size() != dims.size())
      throw std::invalid_argument(b_.message(std::string("the subarray has ") + std::to_string(subarray_.size()) +
                                             " ranges, the array " + std::to_string(dims.size()) + " dimensions"));
    std::vector<dense_range> ranges;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      auto dd = detail::dense_dimension(dims[d]);
      auto [lo, hi] = subarray_[d];
      const std::string who = std::string("subarray range ") + std::to_string(d) + " [" + std::to_string(lo) + ", " +
                              std::to_string(hi) + "] of dimension \"" + dims[d].name.value + "\"";
      if (lo > hi) throw std::invalid_argument(b_.message(who + " is empty"));
      if (lo < dd.lo || hi > dd.hi)
        throw std::invalid_argument(b_.message(who + " is outside the domain [" + std::to_string(dd.lo) + ", " +
                                               std::to_string(dd.hi) + "]"));
      const dense_range r{dense_grid::distance(dd.lo, lo), dense_grid::distance(lo, hi) + 1,
                          static_cast<std::uint64_t>(dd.extent)};
      if (layout_ == cell_layout::storage && (r.from % r.extent != 0 || r.width % r.extent != 0))
        throw std::invalid_argument(b_.message(who + " does not consist of whole tiles of extent " +
                                               std::to_string(r.extent) + " from the domain's lower bound " +
                                               std::to_string(dd.lo) + " (cell_layout::row_major takes any subarray)"));
      ranges.push_back(r);
    }
    try {
      grid_.emplace(std::move(ranges), schema.tile_order, schema.cell_order);
      (void)grid_->cell_num();
      if (grid_->cells_per_tile() != 0 &&
          grid_->tile_num() > std::numeric_limits<std::uint64_t>::max() / grid_->cells_per_tile())
        throw format_error("the number of cells overflows 64 bits", 0);
    } catch (const format_error& e) {
      throw std::invalid_argument(b_.message(e.reason()));
    }
    b_.set_tiles(std::vector<std::uint64_t>(static_cast<std::size_t>(grid_->tile_num()), grid_->cells_per_tile()));
    b_.set_slabs(slab_plan());
  }

  const format::ArraySchema& schema() const noexcept { return b_.schema(); }
  const std::string& schema_name() const noexcept { return b_.schema_name(); }
  std::uint64_t tile_num() const noexcept { return grid_->tile_num(); }
  std::uint64_t cells_per_tile() const noexcept { return grid_->cells_per_tile(); }
  /// The cells set() takes: those of the subarray.
  std::uint64_t cell_num() const { return grid_->cell_num(); }

  /// The coordinates of the i-th cell as set() takes them (one per dimension).
  std::vector<std::int64_t> cell_coordinates(std::uint64_t i) const {
    if (i >= cell_num()) throw std::out_of_range(std::string("tilefmt: dense_fragment::cell_coordinates: no cell ") + std::to_string(i));
    const std::size_t nd = subarray_.size();
    std::vector<std::int64_t> out(nd);
    if (layout_ == cell_layout::row_major) {
      auto pos = dense_grid::unravel(i, grid_->widths(), format::Layout::ROW_MAJOR);
      for (std::size_t d = 0; d < nd; ++d)
        out[d] = static_cast<std::int64_t>(static_cast<std::uint64_t>(subarray_[d].first) + pos[d]);
      return out;
    }
    const auto tile_pos = grid_->tile_position(i / grid_->cells_per_tile());
    const auto cell_pos = grid_->cell_position(i % grid_->cells_per_tile());
    for (std::size_t d = 0; d < nd; ++d)
      out[d] = static_cast<std::int64_t>(static_cast<std::uint64_t>(subarray_[d].first) +
                                         tile_pos[d] * grid_->extents()[d] + cell_pos[d]);
    return out;
  }

  /// Writes the fragment: data files, `__fragment_metadata.tdb`, then the
  /// commit marker. Returns the fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {}) {
    detail::fragment_shape shape;
    shape.dense = true;
    const auto& dims = schema().domain.dimensions.value;
    const format::Datatype coord_type = dims[0].type.value;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::size_t size = format::datatype_size(coord_type);
      format::Range1D r{size, std::vector<std::byte>(2 * size)};
      filter::with_integer_type(coord_type, [&]<class T>() {
        codec::store_le<T>(r.bytes.data(), static_cast<T>(subarray_[d].first));
        codec::store_le<T>(r.bytes.data() + sizeof(T), static_cast<T>(subarray_[d].second));
      });
      shape.non_empty_domain.ranges.push_back(std::move(r));
    }
    shape.last_tile_cell_num = grid_->cells_per_tile();
    return b_.commit(opt, shape);
  }

private:
  friend class detail::cells_api<dense_fragment>;

  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) {
    const std::size_t i = b_.attribute(name, value_size, n, false, validity, cell_num());
    const auto spec = b_.attribute_spec(i);
    if (layout_ == cell_layout::storage)
      return b_.encode_fixed(b_.attribute_tiles(i), spec, bytes, validity, encoder);
    // Into storage order: TileDB's dense tiler starts each tile zeroed
    // (values and validity) and copies the written cells in.
    const std::size_t cell_size = spec.cell_size();
    const auto& src = storage_source();
    std::vector<std::byte> tiles(src.size() * cell_size, std::byte{0});
    std::vector<std::uint8_t> valid(spec.nullable ? src.size() : 0, 0);
    for (std::size_t k = 0; k < src.size(); ++k) {
      if (src[k] == no_cell) continue;
      std::memcpy(tiles.data() + k * cell_size, bytes.data() + src[k] * cell_size, cell_size);
      if (spec.nullable) valid[k] = validity[src[k]];
    }
    b_.encode_fixed(b_.attribute_tiles(i), spec, tiles, valid, encoder);
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) {
    const std::size_t i = b_.attribute(name, value_size, offsets.size(), true, validity, cell_num());
    const auto spec = b_.attribute_spec(i);
    b_.check_var_offsets(spec.name, offsets, values.size() / value_size);
    if (layout_ == cell_layout::storage)
      return b_.encode_var(b_.attribute_tiles(i), spec, values, offsets, value_size, validity);
    // Cells outside the subarray hold one zero value (DenseTiler::get_tile).
    const auto& src = storage_source();
    std::vector<std::byte> tiles;
    std::vector<std::uint64_t> tile_offsets;
    std::vector<std::uint8_t> valid(spec.nullable ? src.size() : 0, 0);
    tile_offsets.reserve(src.size());
    for (std::size_t k = 0; k < src.size(); ++k) {
      tile_offsets.push_back(tiles.size() / value_size);
      if (src[k] == no_cell) {
        tiles.resize(tiles.size() + value_size, std::byte{0});
        continue;
      }
      const std::size_t c = src[k];
      const auto cell = detail::var_cell(values, offsets, c, value_size);
      tiles.insert(tiles.end(), cell.begin(), cell.end());
      if (spec.nullable) valid[k] = validity[c];
    }
    b_.encode_var(b_.attribute_tiles(i), spec, tiles, tile_offsets, value_size, valid);
  }

  static constexpr std::size_t no_cell = std::numeric_limits<std::size_t>::max();

  /// For each cell of the tiles in storage order, the row-major index of
  /// the subarray cell it holds, or no_cell.
  const std::vector<std::size_t>& storage_source() {
    if (!source_.empty()) return source_;
    const std::size_t nd = grid_->dim_num();
    const std::size_t per_tile = static_cast<std::size_t>(grid_->cells_per_tile());
    const auto widths = grid_->widths();
    source_.assign(static_cast<std::size_t>(grid_->tile_num()) * per_tile, no_cell);
    for (std::size_t t = 0; t < grid_->tile_num(); ++t) {
      const auto w = grid_->covered(t);
      const auto tile_pos = grid_->tile_position(t);
      for (std::size_t c = 0; c < per_tile; ++c) {
        const auto cell_pos = grid_->cell_position(c);
        std::size_t index = 0;
        bool inside = true;
        for (std::size_t d = 0; d < nd && inside; ++d) {
          inside = cell_pos[d] >= w.start[d] && cell_pos[d] - w.start[d] < w.width[d];
          // The cell's offset from the subarray's start, in this dimension.
          const std::uint64_t at =
              (grid_->first_tile()[d] + tile_pos[d]) * grid_->extents()[d] + cell_pos[d] - grid_->ranges()[d].from;
          if (inside) index = index * static_cast<std::size_t>(widths[d]) + static_cast<std::size_t>(at);
        }
        if (inside) source_[t * per_tile + c] = index;
      }
    }
    return source_;
  }

  /// The runs of cells in which TileDB's dense writer feeds a tile to its
  /// metadata generator, in its order (DenseTiler::copy_plan for a
  /// row-major query, which TileDB-Py's dense writes are): only the cells
  /// the subarray covers; one run for 1-D arrays; for row-major cells, runs
  /// along the last dimension, merged with earlier dimensions while the
  /// subarray lies within one tile and spans it whole in the later one; for
  /// column-major cells, cell by cell in row-major order of coordinates.
  detail::slab_plan slab_plan() const {
    const std::size_t nd = grid_->dim_num();
    // Per tile and dimension: the covered cells' first position in the tile, and their count.
    std::vector<std::vector<std::uint64_t>> starts(static_cast<std::size_t>(grid_->tile_num())), widths(starts.size());
    for (std::size_t t = 0; t < starts.size(); ++t) {
      auto w = grid_->covered(t);
      starts[t] = std::move(w.start);
      widths[t] = std::move(w.width);
    }
    std::vector<bool> one_tile_wide(nd);  // the subarray is exactly one space tile in this dimension
    for (std::size_t d = 0; d < nd; ++d)
      one_tile_wide[d] = grid_->tiles_per_dim()[d] == 1 && grid_->ranges()[d].width == grid_->extents()[d];
    const std::vector<std::uint64_t> extents = grid_->extents();
    const bool row_major = schema().cell_order == format::Layout::ROW_MAJOR;
    return [=](std::size_t t, std::uint64_t, const std::function<void(std::size_t, std::size_t)>& f) {
      const auto& s = starts[t];
      const auto& w = widths[t];
      std::vector<std::size_t> stride(nd, 1);  // of the tile's cells
      if (row_major)
        for (std::size_t d = nd - 1; d-- > 0;) stride[d] = stride[d + 1] * static_cast<std::size_t>(extents[d + 1]);
      else
        for (std::size_t d = 1; d < nd; ++d) stride[d] = stride[d - 1] * static_cast<std::size_t>(extents[d - 1]);
      std::size_t origin = 0;
      for (std::size_t d = 0; d < nd; ++d) origin += static_cast<std::size_t>(s[d]) * stride[d];
      std::size_t run = 1, outer = nd;  // dimensions [0, outer) are walked, the rest is one run
      if (nd == 1) {
        run = static_cast<std::size_t>(w[0]);
        outer = 0;
      } else if (row_major) {
        run = static_cast<std::size_t>(w[nd - 1]);
        outer = nd - 1;
        while (outer > 0 && one_tile_wide[outer]) run *= static_cast<std::size_t>(w[--outer]);
      }
      std::vector<std::size_t> coord(outer, 0);
      while (true) {
        std::size_t at = origin;
        for (std::size_t d = 0; d < outer; ++d) at += coord[d] * stride[d];
        f(at, run);
        std::size_t d = outer;
        while (d-- > 0) {
          if (++coord[d] < w[d]) break;
          coord[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) break;
      }
    };
  }

  detail::fragment_builder b_;
  std::vector<std::pair<std::int64_t, std::int64_t>> subarray_;
  cell_layout layout_;
  std::optional<dense_grid> grid_; // the subarray's space tiles
  std::vector<std::size_t> source_;
};

namespace detail {

/// Calls f.template operator()<T>() with the C++ type of a fixed-size
/// sparse dimension's coordinates (integers, floats, dates and times as
/// int64); false for any other type.
template <class F>
bool with_coordinate_type(format::Datatype t, F&& f) {
  using D = format::Datatype;
  if (t == D::CHAR || t == D::BOOL || t == D::BLOB || t == D::ANY || format::is_string(t)) return false;
  return format::visit_datatype(t, std::forward<F>(f));
}

/// A coordinate as a key whose unsigned order is the coordinate's order.
template <class T>
std::uint64_t order_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    std::uint64_t bits;
    if constexpr (sizeof(T) == 4)
      bits = std::bit_cast<std::uint32_t>(v);
    else
      bits = std::bit_cast<std::uint64_t>(v);
    const std::uint64_t sign = std::uint64_t{1} << (8 * sizeof(T) - 1);
    return (bits & sign) ? ~bits & (sign | (sign - 1)) : bits | sign;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) ^ (std::uint64_t{1} << 63);
  } else {
    return static_cast<std::uint64_t>(v);
  }
}

} // namespace detail

/// One sparse fragment of an existing array: cells with their coordinates,
/// in any order.
///
/// Every dimension's coordinates (set_coords) and every attribute's values
/// (set, set_var, one per cell, in the same order) must be given before
/// commit(), which sorts the cells into TileDB's global order (tile order
/// over the space tiles, then cell order; ties keep the order given), cuts
/// them into data tiles of the schema's capacity and writes the fragment
/// with its R-tree. Coordinates outside the domain, NaN coordinates and,
/// unless the schema allows duplicates, cells with equal coordinates are
/// refused as TileDB refuses them. (Where duplicates are allowed, TileDB
/// orders equal coordinates by an unstable sort whose result depends on its
/// thread count; byte-identical files are then not to be expected.)
class sparse_fragment : public detail::cells_api<sparse_fragment> {
public:
  /// Writes into the array at `root`, with its latest schema. Throws
  /// io_error when `root` is not an array and std::invalid_argument for a
  /// schema this writer cannot write.
  explicit sparse_fragment(const fs::path& root, std::shared_ptr<storage::backend> storage = {})
      : b_(root, "sparse_fragment", true, std::move(storage)) {
    const auto& s = b_.schema();
    detail::check_schema(s);
    if (s.cell_order != format::Layout::ROW_MAJOR && s.cell_order != format::Layout::COL_MAJOR)
      throw std::invalid_argument(b_.message("the Hilbert cell order is not written by this writer"));
    if (s.capacity == 0) throw std::invalid_argument(b_.message("the schema's capacity is 0"));
    for (const auto& d : s.domain.dimensions)
      if (d.is_var() || !detail::with_coordinate_type(d.type.value, []<class>() {}))
        throw std::invalid_argument(b_.message("dimension \"" + d.name.value + "\" has type " +
                                               std::string(format::codec_enum_name(d.type.value)) +
                                               "; this writer writes integer, float, date and time dimensions"));
    coords_.resize(s.domain.dimensions.size());
    attrs_.resize(s.attributes.size());
  }

  const format::ArraySchema& schema() const noexcept { return b_.schema(); }
  const std::string& schema_name() const noexcept { return b_.schema_name(); }
  /// Cells given so far (by the first set or set_coords call).
  std::uint64_t cell_num() const noexcept { return cells_.value_or(0); }

  /// Sets a dimension's coordinates, one per cell. T must be the
  /// dimension's type (an integer of its size, float or double).
  template <class T>
  sparse_fragment& set_coords(std::string_view dimension, std::span<const T> coords) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array::sparse_fragment::set_coords: coordinates are numbers");
    if (b_.committed()) throw std::logic_error(b_.message("set_coords: the fragment is already committed"));
    const auto& dims = schema().domain.dimensions.value;
    std::size_t d = 0;
    while (d < dims.size() && dims[d].name.value != dimension) ++d;
    if (d == dims.size())
      throw std::invalid_argument(b_.message(std::string("set_coords: the array has no dimension \"").append(dimension).append("\"")));
    const format::Datatype type = dims[d].type.value;
    const bool is_float = type == format::Datatype::FLOAT32 || type == format::Datatype::FLOAT64;
    if (format::datatype_size(type) != sizeof(T) || is_float != std::is_floating_point_v<T>)
      throw std::invalid_argument(b_.message("set_coords: dimension \"" + dims[d].name.value + "\" holds " +
                                             std::string(format::codec_enum_name(type)) + " coordinates"));
    take_cells(coords.size(), "set_coords: dimension \"" + dims[d].name.value + "\"");
    std::vector<std::byte> copy;
    auto bytes = detail::le_bytes(coords, copy);
    coords_[d].bytes.assign(bytes.begin(), bytes.end());
    coords_[d].set = true;
    return *this;
  }
  template <class T>
  sparse_fragment& set_coords(std::string_view dimension, const std::vector<T>& coords) {
    return set_coords<T>(dimension, std::span<const T>(coords));
  }

  /// Sorts the cells, writes the fragment: data files,
  /// `__fragment_metadata.tdb`, then the commit marker. Returns the
  /// fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {}) {
    if (b_.committed()) throw std::logic_error(b_.message("commit: already committed"));
    const auto& s = schema();
    const auto& dims = s.domain.dimensions.value;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (!coords_[d].set)
        throw std::invalid_argument(b_.message("commit: dimension \"" + dims[d].name.value + "\" has no coordinates"));
    for (std::size_t i = 0; i < attrs_.size(); ++i)
      if (!attrs_[i].set)
        throw std::invalid_argument(b_.message("commit: attribute \"" + s.attributes[i].name.value +
                                               "\" has no cells (TileDB writes every attribute)"));
    const std::size_t n = static_cast<std::size_t>(cell_num());
    if (n == 0) throw std::invalid_argument(b_.message("commit: no cells (TileDB writes no fragment)"));

    const std::vector<std::size_t> order = global_order();
    if (!s.allows_dups.value) check_duplicates(order);

    // Data tiles of `capacity` cells in global order; the last one short.
    const std::uint64_t cap = s.capacity;
    std::vector<std::uint64_t> tiles(static_cast<std::size_t>((n + cap - 1) / cap), cap);
    tiles.back() = n - (tiles.size() - 1) * cap;
    b_.set_tiles(tiles);

    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto spec = b_.dimension_spec(d);
      b_.encode_fixed(b_.dimension_tiles(d), spec, permute_fixed(coords_[d].bytes, spec.cell_size(), order), {}, {});
    }
    for (std::size_t i = 0; i < attrs_.size(); ++i) {
      const auto spec = b_.attribute_spec(i);
      const auto& a = attrs_[i];
      std::vector<std::uint8_t> validity;
      if (!a.validity.empty())
        for (std::size_t c : order) validity.push_back(a.validity[c]);
      if (spec.var()) {
        std::vector<std::byte> values;
        std::vector<std::uint64_t> offsets;
        offsets.reserve(n);
        for (std::size_t c : order) {
          const auto cell = detail::var_cell(a.bytes, a.offsets, c, a.value_size);
          offsets.push_back(values.size() / a.value_size);
          values.insert(values.end(), cell.begin(), cell.end());
        }
        b_.encode_var(b_.attribute_tiles(i), spec, values, offsets, a.value_size, validity);
      } else {
        b_.encode_fixed(b_.attribute_tiles(i), spec, permute_fixed(a.bytes, spec.cell_size(), order), validity,
                        a.encoder);
      }
    }

    detail::fragment_shape shape;
    shape.dense = false;
    shape.sparse_tile_num = tiles.size();
    shape.last_tile_cell_num = tiles.back();
    build_rtree(order, tiles, shape);
    return b_.commit(opt, shape);
  }

private:
  friend class detail::cells_api<sparse_fragment>;

  struct pending {
    bool set = false;
    std::vector<std::byte> bytes;          // little-endian values
    std::vector<std::uint64_t> offsets;    // var: where each cell starts, in values
    std::size_t value_size = 0;
    std::vector<std::uint8_t> validity;
    detail::tile_encoder encoder;
  };

  /// The cell count: the first call sets it, the others must agree.
  void take_cells(std::uint64_t n, const std::string& who) {
    if (cells_ && *cells_ != n)
      throw std::invalid_argument(b_.message(who + " has " + std::to_string(n) + " cells, earlier calls " +
                                             std::to_string(*cells_)));
    cells_ = n;
  }

  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) {
    std::uint64_t cells = cells_.value_or(0);
    if (!cells_)
      for (const auto& a : schema().attributes)
        if (a.name.value == name && !a.is_var() && a.cell_val_num) cells = n / a.cell_val_num;
    const std::size_t i = b_.attribute(name, value_size, n, false, validity, cells);
    take_cells(cells, std::string("set: attribute \"") + std::string(name) + "\"");
    attrs_[i] = pending{true, {bytes.begin(), bytes.end()}, {}, value_size, {validity.begin(), validity.end()}, encoder};
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) {
    const std::size_t i = b_.attribute(name, value_size, offsets.size(), true, validity, cells_.value_or(offsets.size()));
    b_.check_var_offsets(b_.attribute_spec(i).name, offsets, values.size() / value_size);
    take_cells(offsets.size(), std::string("set_var: attribute \"") + std::string(name) + "\"");
    attrs_[i] = pending{true, {values.begin(), values.end()}, {offsets.begin(), offsets.end()}, value_size,
                        {validity.begin(), validity.end()}, {}};
  }

  /// The cells' positions in TileDB's global order (GlobalCmpQB): space
  /// tiles in the tile order (dimensions without a tile extent left out),
  /// then coordinates in the cell order. Also refuses coordinates TileDB
  /// refuses (outside the domain, NaN).
  std::vector<std::size_t> global_order() const {
    const auto& dims = schema().domain.dimensions.value;
    const std::size_t nd = dims.size(), n = static_cast<std::size_t>(cell_num());
    std::vector<std::vector<std::uint64_t>> tile_key(nd), cell_key(nd);
    std::vector<bool> tiled(nd);
    for (std::size_t d = 0; d < nd; ++d) {
      const auto& dim = dims[d];
      tiled[d] = dim.has_tile_extent();
      tile_key[d].resize(n);
      cell_key[d].resize(n);
      detail::with_coordinate_type(dim.type.value, [&]<class T>() {
        auto [lo, hi] = dim.domain_as<T>();
        const T ext = tiled[d] ? *dim.tile_extent_as<T>() : T{1};
        for (std::size_t c = 0; c < n; ++c) {
          const T v = codec::load_le<T>(coords_[d].bytes.data() + c * sizeof(T));
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(v))
              throw std::invalid_argument(b_.message(std::string("coordinate ") + std::to_string(c) + " of dimension \"" +
                                                     dim.name.value + "\" is NaN"));
          }
          if (v < lo || v > hi)
            throw std::invalid_argument(b_.message(std::string("coordinate ") + std::to_string(c) + " of dimension \"" +
                                                   dim.name.value + "\" is " + std::to_string(v) +
                                                   ", outside the domain [" + std::to_string(lo) + ", " +
                                                   std::to_string(hi) + "]"));
          cell_key[d][c] = detail::order_key(v);
          if (tiled[d]) {
            // Dimension::tile_idx: unsigned arithmetic for integers, the
            // type's own for floats, truncated.
            if constexpr (std::is_floating_point_v<T>)
              tile_key[d][c] = static_cast<std::uint64_t>((v - lo) / ext);
            else
              tile_key[d][c] = (static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) -
                                static_cast<std::uint64_t>(static_cast<std::int64_t>(lo))) /
                               static_cast<std::uint64_t>(static_cast<std::int64_t>(ext));
          }
        }
      });
    }
    const bool tile_row = schema().tile_order == format::Layout::ROW_MAJOR;
    const bool cell_row = schema().cell_order == format::Layout::ROW_MAJOR;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      for (std::size_t k = 0; k < nd; ++k) {
        const std::size_t d = tile_row ? k : nd - 1 - k;
        if (!tiled[d] || tile_key[d][a] == tile_key[d][b]) continue;
        return tile_key[d][a] < tile_key[d][b];
      }
      for (std::size_t k = 0; k < nd; ++k) {
        const std::size_t d = cell_row ? k : nd - 1 - k;
        if (cell_key[d][a] != cell_key[d][b]) return cell_key[d][a] < cell_key[d][b];
      }
      return false;
    });
    return order;
  }

  /// "Duplicate coordinates (c0, c1) are not allowed", as TileDB says it
  /// when cells next to each other in global order have the same bytes.
  void check_duplicates(const std::vector<std::size_t>& order) const {
    const auto& dims = schema().domain.dimensions.value;
    for (std::size_t k = 1; k < order.size(); ++k) {
      bool same = true;
      for (std::size_t d = 0; d < dims.size() && same; ++d) {
        const std::size_t size = format::datatype_size(dims[d].type.value);
        same = std::memcmp(coords_[d].bytes.data() + order[k] * size, coords_[d].bytes.data() + order[k - 1] * size,
                           size) == 0;
      }
      if (!same) continue;
      std::string c;
      for (std::size_t d = 0; d < dims.size(); ++d)
        detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
          c += (d ? ", " : "") + std::to_string(codec::load_le<T>(coords_[d].bytes.data() + order[k] * sizeof(T)));
        });
      throw std::invalid_argument(b_.message("Duplicate coordinates (" + c +
                                             ") are not allowed (the schema does not allow duplicates)"));
    }
  }

  static std::vector<std::byte> permute_fixed(const std::vector<std::byte>& bytes, std::size_t cell_size,
                                              const std::vector<std::size_t>& order) {
    std::vector<std::byte> out(bytes.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      std::memcpy(out.data() + k * cell_size, bytes.data() + order[k] * cell_size, cell_size);
    return out;
  }

  /// One MBR per data tile (per dimension, the least and greatest
  /// coordinate), grouped ten at a time into the levels above, root first
  /// (RTree::build_tree); the non-empty domain is their union.
  void build_rtree(const std::vector<std::size_t>& order, const std::vector<std::uint64_t>& tiles,
                   detail::fragment_shape& shape) const {
    const auto& dims = schema().domain.dimensions.value;
    const std::size_t fanout = shape.rtree.fanout;
    std::vector<format::MBR> level(tiles.size());
    for (std::size_t d = 0; d < dims.size(); ++d)
      detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
        std::size_t at = 0;
        for (std::size_t t = 0; t < tiles.size(); ++t) {
          T lo = codec::load_le<T>(coords_[d].bytes.data() + order[at] * sizeof(T)), hi = lo;
          for (std::size_t c = at; c < at + tiles[t]; ++c) {
            const T v = codec::load_le<T>(coords_[d].bytes.data() + order[c] * sizeof(T));
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
          level[t].ranges.push_back(format::fixed_range<T>(lo, hi));
          at += static_cast<std::size_t>(tiles[t]);
        }
      });
    auto unite = [&](const std::vector<format::MBR>& mbrs, std::size_t begin, std::size_t end) {
      format::MBR out = mbrs[begin];
      for (std::size_t d = 0; d < dims.size(); ++d)
        detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
          auto [lo, hi] = out.ranges[d].as<T>();
          for (std::size_t m = begin + 1; m < end; ++m) {
            auto [l, h] = mbrs[m].ranges[d].as<T>();
            lo = std::min(lo, l);
            hi = std::max(hi, h);
          }
          out.ranges[d] = format::fixed_range<T>(lo, hi);
        });
      return out;
    };
    std::vector<std::vector<format::MBR>> levels{level};
    while (levels.back().size() > 1) {
      const auto& below = levels.back();
      std::vector<format::MBR> up;
      for (std::size_t i = 0; i < below.size(); i += fanout) up.push_back(unite(below, i, std::min(i + fanout, below.size())));
      levels.push_back(std::move(up));
    }
    shape.non_empty_domain = unite(level, 0, level.size());
    for (auto it = levels.rbegin(); it != levels.rend(); ++it) shape.rtree.levels.value.push_back({{std::move(*it)}});
  }

  detail::fragment_builder b_;
  std::optional<std::uint64_t> cells_;
  std::vector<pending> coords_, attrs_;
};

} // namespace tilefmt::array
