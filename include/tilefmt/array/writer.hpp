// tilefmt — writing arrays: creating one, and writing dense fragments.
//
//   using IntP = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
//   auto schema = format::make_array_schema(format::ArrayType::DENSE,
//       {format::make_dimension<std::int32_t>("rows", 1, 8, 4)},
//       {format::make_attribute("a", format::Datatype::INT32, 1, false, IntP::descriptor(22))});
//   array::create("path/to/array", schema);
//
//   array::dense_fragment frag("path/to/array", {{1, 8}});   // whole space tiles
//   frag.set<IntP>("a", values);     // tiles encoded by IntP itself
//   frag.set("b", other_values);     // or by the schema's pipeline, built at run time
//   std::string name = frag.commit();
//
// The files are those TileDB 2.30 writes (format 22) for the same schema and
// cells: a new array gets the folders `__schema/` (+ `__enumerations/`),
// `__commits/`, `__fragments/`, `__fragment_meta/`, `__meta/`, `__labels/`
// and one schema file; a fragment gets `a<i>.tdb` per attribute,
// `__fragment_metadata.tdb` and the commit marker `__commits/<name>.wrt`.
// Timestamps and the random labels in file names are the only differences,
// and both can be passed in (write_options).
//
// A write is crash-safe as TileDB's is: data files first, fragment metadata
// next, the commit marker last, each written under a temporary name and
// renamed. A fragment without its marker is invisible to readers.
//
// Var-size attributes get `a<i>.tdb` (the cells' offsets, one tile per
// tile) and `a<i>_var.tdb`; nullable ones also `a<i>_validity.tdb`:
//
//   frag.set_var("name", std::vector<std::string>{"x", "yy", ...});
//   frag.set("count", counts, validity);       // validity: a byte per cell, 0 = null
//
// Scope of this writer: dense fragments over a subarray made of whole space
// tiles. Anything else is rejected with std::invalid_argument before a file
// is written.
#pragma once

#include <sodium.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/array.hpp"
#include "tilefmt/array/directory.hpp"
#include "tilefmt/array/io.hpp"
#include "tilefmt/array/tile_metadata.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/names.hpp"

namespace tilefmt::array {

/// The format version this writer writes: TileDB 2.25 to 2.30's. Schema
/// files, fragments, fragment metadata and every generic tile header carry it.
inline constexpr std::uint32_t write_format_version = 22;

/// How new files are named. Both default to what TileDB does: the current
/// time, and a fresh random label. Fixed values make the output reproducible.
struct write_options {
  /// Milliseconds since the epoch (both timestamps of the name).
  std::optional<std::uint64_t> timestamp{};
  /// 32 lowercase hexadecimal digits.
  std::optional<std::string> label{};
};

namespace detail {

inline std::uint64_t now_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

/// A label as TileDB makes one (random_label.cc): a counter that starts at a
/// random value in each millisecond and counts up within it, so that labels
/// of one millisecond sort in creation order, then 96 random bits. The
/// random bytes come from libsodium.
inline std::string random_label(std::uint64_t ms) {
  static const int init = sodium_init();
  if (init < 0) throw std::runtime_error("tilefmt: libsodium failed to initialise");
  static std::mutex m;
  static format::LabelCounter counter;
  std::uint32_t r[2];
  std::uint64_t r64 = 0;
  randombytes_buf(r, sizeof r);
  randombytes_buf(&r64, sizeof r64);
  std::lock_guard<std::mutex> lock(m);
  return format::format_label(counter.next(ms, r[0]), r[1], r64);
}

/// The timestamp and label a new file gets.
inline std::pair<std::uint64_t, std::string> name_parts(const write_options& opt) {
  const std::uint64_t t = opt.timestamp.value_or(now_ms());
  std::string label = opt.label ? *opt.label : random_label(t);
  if (!format::detail::is_hex_label(label))
    throw std::invalid_argument("tilefmt: write_options.label must be 32 hexadecimal digits, got \"" + label + "\"");
  for (char c : label)
    if (c >= 'A' && c <= 'F')
      throw std::invalid_argument("tilefmt: write_options.label must be lowercase (TileDB sorts names bytewise)");
  return {t, std::move(label)};
}

inline void make_dir(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec) throw io_error(p, "cannot create the folder: " + ec.message());
}

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

} // namespace detail

/// Creates a new array at `root` with `schema` (written at format version
/// write_format_version, whatever `schema.version` says). Returns the schema
/// file's name (`__t_t_label`, in `root/__schema/`). Throws
/// std::invalid_argument for a schema TileDB would refuse (see
/// detail::check_schema) and io_error when `root` already holds an array or
/// a folder cannot be made.
inline std::string create(const fs::path& root, format::ArraySchema schema, const write_options& opt = {}) {
  schema.version.value = write_format_version;
  detail::check_schema(schema);
  if (is_array(root)) throw io_error(root, "already holds a TileDB array");
  auto [t, label] = detail::name_parts(opt);
  // Encode before touching the disk, so a schema the codec rejects leaves nothing behind.
  std::vector<std::byte> payload = codec::encode(schema);
  std::vector<std::byte> file = filter::write_generic_tile(payload, write_format_version);
  for (const char* sub : {"__schema/__enumerations", "__commits", "__fragments", "__fragment_meta", "__meta", "__labels"})
    detail::make_dir(root / sub);
  std::string name = format::make_timestamped_name(t, t, label);
  write_file_atomic(root / "__schema" / name, file);
  return name;
}

namespace detail {

template <class P>
struct is_pipeline : std::false_type {};
template <class... F>
struct is_pipeline<filter::pipeline<F...>> : std::true_type {};

/// One attribute's encoded tiles and their metadata.
struct attribute_tiles {
  bool set = false;
  std::vector<std::byte> file;               // fixed tiles, or var offsets tiles, back to back (a<i>.tdb)
  std::vector<std::uint64_t> offsets;        // where each tile starts
  std::vector<std::byte> var_file;           // var tiles (a<i>_var.tdb)
  std::vector<std::uint64_t> var_offsets;    // where each var tile starts
  std::vector<std::uint64_t> var_sizes;      // each var tile's unfiltered size
  std::vector<std::byte> validity_file;      // validity tiles (a<i>_validity.tdb)
  std::vector<std::uint64_t> validity_offsets;
  std::vector<tile_stats> stats;             // as stored: all-null tiles keep zero min/max
};

/// Appends an encoded tile to a data file and records where it starts.
inline void append_tile(std::vector<std::byte>& file, std::vector<std::uint64_t>& offsets,
                        const std::vector<std::byte>& tile) {
  offsets.push_back(file.size());
  file.insert(file.end(), tile.begin(), tile.end());
}

} // namespace detail

/// One dense fragment of an existing array, written over a subarray that
/// consists of whole space tiles.
///
/// The subarray is given as [lo, hi] per dimension, inclusive, in the order
/// of the schema's dimensions. Each of its bounds must lie on a tile
/// boundary: lo = domain lo + k * extent and hi = domain lo + m * extent - 1,
/// inside the domain. (TileDB also writes partial tiles, padding them with
/// fill values; this writer does not.)
///
/// Cells are given per attribute in storage order: tile after tile in the
/// schema's tile order over the subarray's tiles, and inside each tile in
/// its cell order; cell_coordinates(i) says which cell the i-th value is.
/// Every attribute of the schema must be set before commit().
class dense_fragment {
public:
  /// Writes into the array at `root`, with its latest schema. Throws
  /// io_error when `root` is not an array and std::invalid_argument for a
  /// subarray or schema this writer cannot write.
  dense_fragment(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray)
      : root_(root), subarray_(std::move(subarray)) {
    listing l = list_array(root_);
    if (l.latest_schema.empty()) throw io_error(root_, "has no schema file");
    schema_ = detail::read_schema(l.latest_schema, open_options{});
    schema_name_ = l.latest_schema.filename().string();
    if (schema_.is_sparse()) throw std::invalid_argument("tilefmt: dense_fragment: the array is sparse");
    if (schema_.version.value != write_format_version)
      throw std::invalid_argument("tilefmt: dense_fragment writes format " + std::to_string(write_format_version) +
                                  " fragments; the array's schema is version " +
                                  std::to_string(schema_.version.value) + ", whose fragments TileDB writes at that version");
    detail::check_schema(schema_);
    const auto& dims = schema_.domain.dimensions.value;
    if (subarray_.size() != dims.size())
      throw std::invalid_argument("tilefmt: dense_fragment: the subarray has " + std::to_string(subarray_.size()) +
                                  " ranges, the array " + std::to_string(dims.size()) + " dimensions");
    tiles_per_dim_.resize(dims.size());
    extents_.resize(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      auto dd = detail::dense_dimension(dims[d]);
      auto [lo, hi] = subarray_[d];
      const std::string who = "tilefmt: dense_fragment: subarray range " + std::to_string(d) + " [" +
                              std::to_string(lo) + ", " + std::to_string(hi) + "] of dimension \"" +
                              dims[d].name.value + "\"";
      if (lo > hi) throw std::invalid_argument(who + " is empty");
      if (lo < dd.lo || hi > dd.hi)
        throw std::invalid_argument(who + " is outside the domain [" + std::to_string(dd.lo) + ", " +
                                    std::to_string(dd.hi) + "]");
      // Differences taken in unsigned arithmetic: the domain may span all of int64.
      const std::uint64_t from = static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(dd.lo);
      const std::uint64_t len = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
      const std::uint64_t ext = static_cast<std::uint64_t>(dd.extent);
      if (from % ext != 0 || len % ext != 0)
        throw std::invalid_argument(who + " does not consist of whole tiles of extent " + std::to_string(ext) +
                                    " from the domain's lower bound " + std::to_string(dd.lo));
      tiles_per_dim_[d] = len / ext;
      extents_[d] = ext;
    }
    tile_num_ = checked_product(tiles_per_dim_, "tiles");
    cells_per_tile_ = checked_product(extents_, "cells in a tile");
    checked_product({tile_num_, cells_per_tile_}, "cells");
    attrs_.resize(schema_.attributes.size());
  }

  const format::ArraySchema& schema() const noexcept { return schema_; }
  const std::string& schema_name() const noexcept { return schema_name_; }
  std::uint64_t tile_num() const noexcept { return tile_num_; }
  std::uint64_t cells_per_tile() const noexcept { return cells_per_tile_; }
  std::uint64_t cell_num() const noexcept { return tile_num_ * cells_per_tile_; }

  /// The coordinates of the i-th cell in storage order (one per dimension).
  std::vector<std::int64_t> cell_coordinates(std::uint64_t i) const {
    if (i >= cell_num()) throw std::out_of_range("tilefmt: dense_fragment::cell_coordinates: no cell " + std::to_string(i));
    const std::size_t nd = subarray_.size();
    std::vector<std::uint64_t> tile_pos = unravel(i / cells_per_tile_, tiles_per_dim_, schema_.tile_order);
    std::vector<std::uint64_t> cell_pos = unravel(i % cells_per_tile_, extents_, schema_.cell_order);
    std::vector<std::int64_t> out(nd);
    for (std::size_t d = 0; d < nd; ++d)
      out[d] = static_cast<std::int64_t>(static_cast<std::uint64_t>(subarray_[d].first) + tile_pos[d] * extents_[d] +
                                         cell_pos[d]);
    return out;
  }

  /// Sets a fixed-size attribute's cells, encoding its tiles with the
  /// schema's filter pipeline (built at run time). T must have the size of
  /// the attribute's type; a cell of cell_val_num values takes that many
  /// elements. Nullable attributes need `validity`, a byte per cell (0 =
  /// null; the values of null cells are stored as given); others take none.
  template <class T>
  dense_fragment& set(std::string_view attribute, std::span<const T> cells,
                      std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array::dense_fragment::set: values are numbers, characters or bytes");
    auto [i, a] = check_cells<T>(attribute, cells.size(), false, validity);
    filter::runtime_pipeline rp(a->filters, a->type, write_format_version);
    filter::tile_context ctx = rp.context(static_cast<std::size_t>(a->cell_size()));
    std::vector<std::byte> copy;
    encode_tiles(i, *a, le_bytes(cells, copy), validity,
                 [&](std::span<const std::byte> tile) { return rp.encode(tile, ctx); });
    return *this;
  }
  template <class T>
  dense_fragment& set(std::string_view attribute, const std::vector<T>& cells,
                      std::span<const std::uint8_t> validity = {}) {
    return set<T>(attribute, std::span<const T>(cells), validity);
  }

  /// Sets a var-size attribute's cells: `values` holds every cell's values
  /// back to back and `offsets[c]` is where cell c starts, in elements of T,
  /// with no trailing offset (the shape read_var returns). The var tiles
  /// are encoded with the schema's filters, the offsets with its offsets
  /// filters (or not stored, where RLE or DICTIONARY carry them). Nullable
  /// attributes need `validity` as for set().
  template <class T>
  dense_fragment& set_var(std::string_view attribute, std::span<const T> values, std::span<const std::uint64_t> offsets,
                          std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array::dense_fragment::set_var: values are numbers, characters or bytes");
    auto [i, a] = check_cells<T>(attribute, offsets.size(), true, validity);
    check_var_offsets(*a, offsets, values.size());
    std::vector<std::byte> copy;
    encode_var_tiles(i, *a, le_bytes(values, copy), offsets, sizeof(T), validity);
    return *this;
  }
  template <class T>
  dense_fragment& set_var(std::string_view attribute, const var_column<T>& cells,
                          std::span<const std::uint8_t> validity = {}) {
    return set_var<T>(attribute, std::span<const T>(cells.values), std::span<const std::uint64_t>(cells.offsets), validity);
  }
  /// Sets a var-size string attribute (CHAR, STRING_ASCII, STRING_UTF8, ...
  /// of one byte per character) from one string per cell.
  dense_fragment& set_var(std::string_view attribute, const std::vector<std::string>& cells,
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

  /// Sets an attribute's cells, encoding its tiles with the compile-time
  /// pipeline P, which must be the one the schema declares for it
  /// (P::descriptor() equal to the attribute's filters): the same type that
  /// declared the schema writes the tiles.
  template <class P, class T>
    requires detail::is_pipeline<P>::value
  dense_fragment& set(std::string_view attribute, std::span<const T> cells,
                      std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array::dense_fragment::set: values are numbers, characters or bytes");
    auto [i, a] = check_cells<T>(attribute, cells.size(), false, validity);
    if (!(P::descriptor(write_format_version, a->filters.max_chunk_size != 0) == a->filters))
      throw std::invalid_argument("tilefmt: dense_fragment::set<P>: attribute \"" + a->name.value +
                                  "\" is declared with the filters " +
                                  format::pipeline_to_text(a->filters, write_format_version) + ", P has " +
                                  format::pipeline_to_text(P::descriptor(write_format_version), write_format_version));
    filter::encode_options opt;
    opt.chunking = a->filters.max_chunk_size != 0;
    opt.version = write_format_version;
    opt.cell_val_num = a->cell_val_num;
    opt.datatype = a->type;
    const std::size_t per_tile = static_cast<std::size_t>(cells_per_tile_) * a->cell_val_num;
    std::vector<std::byte> copy;
    encode_tiles(i, *a, le_bytes(cells, copy), validity, [&](std::span<const std::byte> tile) {
      // The tile as values of T again (it is a whole number of cells of T;
      // the pipeline reads them as the little-endian bytes they are).
      std::span<const T> values(reinterpret_cast<const T*>(tile.data()), per_tile);
      return P::template encode<T>(values, opt);
    });
    return *this;
  }
  template <class P, class T>
    requires detail::is_pipeline<P>::value
  dense_fragment& set(std::string_view attribute, const std::vector<T>& cells,
                      std::span<const std::uint8_t> validity = {}) {
    return set<P, T>(attribute, std::span<const T>(cells), validity);
  }

  /// Writes the fragment: data files, `__fragment_metadata.tdb`, then the
  /// commit marker. Returns the fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {}) {
    if (committed_) throw std::logic_error("tilefmt: dense_fragment::commit: already committed");
    for (std::size_t i = 0; i < attrs_.size(); ++i)
      if (!attrs_[i].set)
        throw std::invalid_argument("tilefmt: dense_fragment::commit: attribute \"" +
                                    schema_.attributes[i].name.value + "\" has no cells (TileDB writes every attribute)");
    auto [t, label] = detail::name_parts(opt);
    const std::string name = format::make_timestamped_name(t, t, label, write_format_version);
    const fs::path dir = root_ / "__fragments" / name;
    if (detail::exists(dir)) throw io_error(dir, "already exists");
    std::vector<std::byte> meta = fragment_metadata();
    detail::make_dir(dir);
    for (std::size_t i = 0; i < attrs_.size(); ++i) {
      const std::string base = std::string("a").append(std::to_string(i));
      write_file_atomic(dir / (base + ".tdb"), attrs_[i].file);
      if (schema_.attributes[i].is_var()) write_file_atomic(dir / (base + "_var.tdb"), attrs_[i].var_file);
      if (schema_.attributes[i].nullable.value)
        write_file_atomic(dir / (base + "_validity.tdb"), attrs_[i].validity_file);
    }
    write_file_atomic(dir / "__fragment_metadata.tdb", meta);
    detail::make_dir(root_ / "__commits");
    write_file_atomic(root_ / "__commits" / (name + ".wrt"), std::span<const std::byte>{});
    committed_ = true;
    return name;
  }

private:
  static std::uint64_t checked_product(const std::vector<std::uint64_t>& v, const char* what) {
    std::uint64_t n = 1;
    for (auto x : v) {
      if (x != 0 && n > std::numeric_limits<std::uint64_t>::max() / x)
        throw std::invalid_argument(std::string("tilefmt: dense_fragment: the number of ") + what + " overflows");
      n *= x;
    }
    return n;
  }

  /// Position `i` in a grid of `sizes`, the last dimension fastest for row
  /// major, the first for column major.
  static std::vector<std::uint64_t> unravel(std::uint64_t i, const std::vector<std::uint64_t>& sizes, format::Layout l) {
    const std::size_t nd = sizes.size();
    std::vector<std::uint64_t> pos(nd);
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = l == format::Layout::COL_MAJOR ? k : nd - 1 - k;
      pos[d] = i % sizes[d];
      i /= sizes[d];
    }
    return pos;
  }

  template <class T>
  std::pair<std::size_t, const format::Attribute*> check_cells(std::string_view attribute, std::size_t n, bool var,
                                                               std::span<const std::uint8_t> validity) {
    if (committed_) throw std::logic_error("tilefmt: dense_fragment::set: the fragment is already committed");
    std::size_t i = 0;
    for (; i < schema_.attributes.size(); ++i)
      if (schema_.attributes[i].name.value == attribute) break;
    if (i == schema_.attributes.size())
      throw std::invalid_argument("tilefmt: dense_fragment::set: the array has no attribute \"" + std::string(attribute) + "\"");
    const format::Attribute* a = &schema_.attributes[i];
    if (format::datatype_size(a->type) != sizeof(T))
      throw std::invalid_argument("tilefmt: dense_fragment::set: attribute \"" + a->name.value + "\" holds " +
                                  std::string(format::codec_enum_name(a->type)) + " values, not " +
                                  std::to_string(sizeof(T)) + "-byte ones");
    if (a->is_var() != var)
      throw std::invalid_argument("tilefmt: dense_fragment::set: attribute \"" + a->name.value + "\" is " +
                                  (a->is_var() ? "var-size: use set_var" : "fixed-size: use set"));
    if (a->nullable.value && validity.size() != cell_num())
      throw std::invalid_argument("tilefmt: dense_fragment::set: attribute \"" + a->name.value +
                                  "\" is nullable and needs a validity byte per cell: " + std::to_string(cell_num()) +
                                  ", got " + std::to_string(validity.size()));
    if (!a->nullable.value && !validity.empty())
      throw std::invalid_argument("tilefmt: dense_fragment::set: attribute \"" + a->name.value +
                                  "\" is not nullable; it takes no validity");
    const std::uint64_t want = var ? cell_num() : cell_num() * a->cell_val_num;
    if (n != want)
      throw std::invalid_argument("tilefmt: dense_fragment::set: attribute \"" + a->name.value + "\" needs " +
                                  std::to_string(want) + (var ? " offsets" : " values") + " (" +
                                  std::to_string(tile_num_) + " tiles of " + std::to_string(cells_per_tile_) +
                                  " cells), got " + std::to_string(n));
    return {i, a};
  }

  /// The cells as the little-endian bytes tiles hold: a view of them on
  /// little-endian hosts, a converted copy in `copy` elsewhere.
  template <class T>
  static std::span<const std::byte> le_bytes(std::span<const T> values, std::vector<std::byte>& copy) {
    if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
      return std::as_bytes(values);
    } else {
      copy.resize(values.size_bytes());
      codec::store_le_array(copy.data(), values.data(), values.size());
      return copy;
    }
  }

  /// Calls f(start, n) for the runs of cells in which TileDB's dense writer
  /// feeds a tile to its metadata generator, in its order
  /// (DenseTiler::copy_plan for a row-major query, which TileDB-Py's dense
  /// writes are, over whole tiles): one run for 1-D arrays; for row-major
  /// cells, runs of the last dimension's extent, merged with earlier
  /// dimensions while the subarray is one tile wide in the later one; for
  /// column-major cells, cell by cell in row-major order of coordinates.
  template <class F>
  void for_each_slab(F&& f) const {
    const std::size_t nd = extents_.size();
    const std::size_t cells = static_cast<std::size_t>(cells_per_tile_);
    if (nd == 1) {
      f(std::size_t{0}, cells);
    } else if (schema_.cell_order == format::Layout::ROW_MAJOR) {
      std::size_t run = static_cast<std::size_t>(extents_[nd - 1]);
      for (std::size_t d = nd - 1; d > 0 && tiles_per_dim_[d] == 1; --d) run *= static_cast<std::size_t>(extents_[d - 1]);
      for (std::size_t at = 0; at < cells; at += run) f(at, run);
    } else {
      std::vector<std::size_t> stride(nd, 1), coord(nd, 0);
      for (std::size_t d = 1; d < nd; ++d) stride[d] = stride[d - 1] * static_cast<std::size_t>(extents_[d - 1]);
      for (std::size_t i = 0; i < cells; ++i) {
        std::size_t at = 0;
        for (std::size_t d = 0; d < nd; ++d) at += coord[d] * stride[d];
        f(at, std::size_t{1});
        for (std::size_t d = nd; d-- > 0;) {
          if (++coord[d] < extents_[d]) break;
          coord[d] = 0;
        }
      }
    }
  }

  /// Offsets start at 0, never decrease and stay within the values.
  static void check_var_offsets(const format::Attribute& a, std::span<const std::uint64_t> offsets, std::size_t values) {
    for (std::size_t c = 0; c < offsets.size(); ++c) {
      const std::uint64_t prev = c ? offsets[c - 1] : 0;
      if ((c == 0 && offsets[0] != 0) || offsets[c] < prev || offsets[c] > values)
        throw std::invalid_argument("tilefmt: dense_fragment::set_var: attribute \"" + a.name.value + "\": offset " +
                                    std::to_string(c) + " is " + std::to_string(offsets[c]) +
                                    (c == 0 ? " (the first must be 0)" : ", after " + std::to_string(prev)) + ", with " +
                                    std::to_string(values) + " values");
    }
  }

  std::span<const std::uint8_t> tile_validity(std::span<const std::uint8_t> validity, std::uint64_t t) const {
    if (validity.empty()) return {};
    return validity.subspan(static_cast<std::size_t>(t * cells_per_tile_), static_cast<std::size_t>(cells_per_tile_));
  }

  /// The validity tile, filtered with the schema's validity filters.
  void encode_validity(detail::attribute_tiles& out, std::span<const std::uint8_t> validity) const {
    filter::runtime_pipeline rp(schema_.validity_filters.value, format::Datatype::UINT8, write_format_version);
    detail::append_tile(out.validity_file, out.validity_offsets, rp.encode(std::as_bytes(validity), rp.context(1)));
  }

  /// An all-null tile keeps the zero min and max TileDB's buffers start with
  /// (the writer sets them only for tiles with a non-null cell).
  void store_stats(detail::attribute_tiles& out, const format::Attribute& a, detail::tile_stats st) const {
    if (a.nullable.value && st.null_count == cells_per_tile_) {
      std::fill(st.min.begin(), st.min.end(), std::byte{0});
      std::fill(st.max.begin(), st.max.end(), std::byte{0});
      if (a.is_var()) st.min.clear(), st.max.clear();
    }
    out.stats.push_back(std::move(st));
  }

  template <class Encode>
  void encode_tiles(std::size_t i, const format::Attribute& a, std::span<const std::byte> bytes,
                    std::span<const std::uint8_t> validity, Encode&& encode) {
    detail::attribute_tiles out;
    const std::size_t cell_size = static_cast<std::size_t>(a.cell_size());
    const std::size_t tile_bytes = static_cast<std::size_t>(cells_per_tile_) * cell_size;
    for (std::uint64_t t = 0; t < tile_num_; ++t) {
      auto tile = bytes.subspan(static_cast<std::size_t>(t) * tile_bytes, tile_bytes);
      detail::append_tile(out.file, out.offsets, encode(tile));
      const auto valid = tile_validity(validity, t);
      if (a.nullable.value) encode_validity(out, valid);
      detail::tile_metadata_generator g(a.type, a.cell_val_num, false, a.nullable.value);
      for_each_slab([&](std::size_t start, std::size_t n) { g.fixed_slab(tile, cell_size, valid, start, start + n); });
      store_stats(out, a, g.result());
    }
    out.set = true;
    attrs_[i] = std::move(out);
  }

  void encode_var_tiles(std::size_t i, const format::Attribute& a, std::span<const std::byte> values,
                        std::span<const std::uint64_t> offsets, std::size_t value_size,
                        std::span<const std::uint8_t> validity) {
    detail::attribute_tiles out;
    filter::runtime_pipeline rp(a.filters, a.type, write_format_version);
    const filter::tile_context ctx = rp.context(format::datatype_size(a.type));
    filter::runtime_pipeline offsets_rp(schema_.offsets_filters, format::Datatype::UINT64, write_format_version);
    const filter::tile_context offsets_ctx = offsets_rp.context(8);
    // RLE and DICTIONARY on strings carry the offsets in the var tile; the
    // offsets file then holds a tile of no chunks (WriterBase::filter_tile).
    const bool skip_offsets = filter::skip_offsets_filtering(a.filters, a.type, write_format_version);
    const std::size_t cpt = static_cast<std::size_t>(cells_per_tile_);
    std::vector<std::uint64_t> tile_offsets(cpt);
    std::vector<std::byte> offset_bytes(cpt * 8);
    for (std::uint64_t t = 0; t < tile_num_; ++t) {
      const std::size_t first = static_cast<std::size_t>(t) * cpt;
      const std::size_t begin = static_cast<std::size_t>(offsets[first]) * value_size;
      const std::size_t end =
          (first + cpt < offsets.size() ? static_cast<std::size_t>(offsets[first + cpt]) * value_size : values.size());
      for (std::size_t c = 0; c < cpt; ++c)
        tile_offsets[c] = offsets[first + c] * value_size - begin;  // bytes, from the tile's start
      const auto data = values.subspan(begin, end - begin);
      if (skip_offsets) {
        detail::append_tile(out.file, out.offsets, std::vector<std::byte>(8, std::byte{0}));
      } else {
        codec::store_le_array(offset_bytes.data(), tile_offsets.data(), cpt);
        detail::append_tile(out.file, out.offsets, offsets_rp.encode(offset_bytes, offsets_ctx));
      }
      detail::append_tile(out.var_file, out.var_offsets, rp.encode_var(data, tile_offsets, ctx));
      out.var_sizes.push_back(data.size());
      const auto valid = tile_validity(validity, t);
      if (a.nullable.value) encode_validity(out, valid);
      detail::tile_metadata_generator g(a.type, a.cell_val_num, true, a.nullable.value);
      for_each_slab([&](std::size_t start, std::size_t n) { g.var_slab(data, tile_offsets, valid, start, start + n); });
      store_stats(out, a, g.result());
    }
    out.set = true;
    attrs_[i] = std::move(out);
  }

  /// `__fragment_metadata.tdb` as FragmentMetadata::store writes it for a
  /// dense fragment at format 22: every section a generic tile, then the
  /// footer and its length.
  std::vector<std::byte> fragment_metadata() const {
    const auto& dims = schema_.domain.dimensions.value;
    const std::size_t na = schema_.attributes.size(), nd = dims.size();
    format::FragmentContext ctx;
    ctx.version = write_format_version;
    ctx.num_attributes = na;
    for (const auto& d : dims) ctx.dims.push_back({d.type.value, false});
    const std::size_t num = ctx.num_fields();  // attributes, __coords, dimensions
    const std::size_t coords = ctx.coords_index();
    const format::Datatype coord_type = dims[0].type.value;
    const std::size_t coord_size = format::datatype_size(coord_type);
    const std::size_t tiles = static_cast<std::size_t>(tile_num_);
    std::vector<std::vector<detail::tile_stats>> var_slots(na);
    for (std::size_t k = 0; k < na; ++k)
      if (schema_.attributes[k].is_var()) var_slots[k] = var_min_max_slots(attrs_[k].stats);

    std::vector<std::byte> file;
    auto section = [&](const auto& payload) {
      const std::uint64_t at = file.size();
      auto tile = filter::write_generic_tile(codec::encode(payload, ctx), write_format_version);
      file.insert(file.end(), tile.begin(), tile.end());
      return at;
    };

    format::Footer f{};
    f.version = write_format_version;
    f.array_schema_name.value.value = schema_name_;
    f.dense = true;
    f.null_non_empty_domain = false;
    for (std::size_t d = 0; d < nd; ++d) {
      format::Range1D r{coord_size, std::vector<std::byte>(2 * coord_size)};
      filter::with_integer_type(coord_type, [&]<class T>() {
        codec::store_le<T>(r.bytes.data(), static_cast<T>(subarray_[d].first));
        codec::store_le<T>(r.bytes.data() + sizeof(T), static_cast<T>(subarray_[d].second));
      });
      f.non_empty_domain.ranges.push_back(std::move(r));
    }
    f.sparse_tile_num = 0;
    f.last_tile_cell_num = cells_per_tile_;
    f.has_timestamps.value = false;
    f.has_delete_meta.value = false;
    f.file_sizes.value.assign(num, 0);
    f.file_var_sizes.value.assign(num, 0);
    f.file_validity_sizes.value.assign(num, 0);
    for (std::size_t i = 0; i < na; ++i) {
      f.file_sizes.value[i] = attrs_[i].file.size();
      f.file_var_sizes.value[i] = attrs_[i].var_file.size();
      f.file_validity_sizes.value[i] = attrs_[i].validity_file.size();
    }

    format::RTree rtree;  // dense: no levels
    f.rtree_offset = section(rtree);

    const std::vector<std::uint64_t> zeros(tiles, 0);
    auto per_field = [&](auto&& make, auto& offsets) {
      offsets.value.resize(num);
      for (std::size_t k = 0; k < num; ++k) offsets.value[k] = section(make(k));
    };
    per_field([&](std::size_t k) { return format::TileOffsets{{k < na ? attrs_[k].offsets : zeros}}; }, f.tile_offsets);
    auto var = [&](std::size_t k) { return k < na && schema_.attributes[k].is_var(); };
    auto nullable = [&](std::size_t k) { return k < na && schema_.attributes[k].nullable.value; };
    per_field([&](std::size_t k) { return format::TileOffsets{{var(k) ? attrs_[k].var_offsets : zeros}}; },
              f.tile_var_offsets);
    per_field([&](std::size_t k) { return format::TileSizes{{var(k) ? attrs_[k].var_sizes : zeros}}; }, f.tile_var_sizes);
    per_field([&](std::size_t k) { return format::TileOffsets{{nullable(k) ? attrs_[k].validity_offsets : zeros}}; },
              f.tile_validity_offsets);

    // `__coords` is not a dimension to TileDB's metadata generator: it gets
    // zero-filled min/max cells (all coordinates of a cell) and zero sums.
    const bool coords_min_max = detail::has_min_max(coord_type, 1);
    const bool coords_sum = detail::has_sum(coord_type, 1);
    auto min_max = [&](bool want_min) {
      return [&, want_min](std::size_t k) {
        format::TileMinMax m{};
        if (var(k)) {
          // Var fields: a u64 offset per tile into the concatenated strings.
          if (detail::has_var_min_max(schema_.attributes[k].type)) {
            m.fixed.resize(tiles * 8);
            for (std::size_t t = 0; t < tiles; ++t) {
              const auto& v = want_min ? var_slots[k][t].min : var_slots[k][t].max;
              codec::store_le<std::uint64_t>(m.fixed.data() + t * 8, m.var.size());
              m.var.insert(m.var.end(), v.begin(), v.end());
            }
          }
        } else if (k < na && detail::has_min_max(schema_.attributes[k].type, schema_.attributes[k].cell_val_num)) {
          for (const auto& s : attrs_[k].stats) {
            const auto& v = want_min ? s.min : s.max;
            m.fixed.insert(m.fixed.end(), v.begin(), v.end());
          }
        } else if (k == coords && coords_min_max) {
          m.fixed.assign(tiles * nd * coord_size, std::byte{0});
        }
        return m;
      };
    };
    per_field(min_max(true), f.tile_min_offsets);
    per_field(min_max(false), f.tile_max_offsets);
    per_field(
        [&](std::size_t k) {
          format::TileSums s{};
          if (k < na && !var(k) && detail::has_sum(schema_.attributes[k].type, schema_.attributes[k].cell_val_num))
            for (const auto& st : attrs_[k].stats) s.sums.value.push_back(st.sum);
          if (k == coords && coords_sum) s.sums.value = zeros;
          return s;
        },
        f.tile_sum_offsets);
    per_field(
        [&](std::size_t k) {
          format::TileNullCounts n{};
          if (nullable(k))
            for (const auto& st : attrs_[k].stats) n.null_counts.value.push_back(st.null_count);
          return n;
        },
        f.tile_null_count_offsets);

    format::FragmentMinMaxSumNullCount summary;
    for (std::size_t k = 0; k < num; ++k) {
      format::FieldMinMaxSumNullCount e{};
      if (k < na) {
        e = detail::fold_stats(schema_.attributes[k], var(k) ? var_slots[k] : attrs_[k].stats, cells_per_tile_);
      } else if (k == coords && coords_min_max) {
        // The fold reads the zero cells as values of the first dimension's type.
        e.min.value.assign(coord_size, std::byte{0});
        e.max.value.assign(coord_size, std::byte{0});
      }
      summary.fields.value.push_back(std::move(e));
    }
    f.fragment_min_max_sum_null_count_offset.value = section(summary);
    f.processed_conditions_offset.value = section(format::ProcessedConditions{});

    auto footer = format::write_footer(f, ctx);
    file.insert(file.end(), footer.begin(), footer.end());
    return file;
  }

  /// The var min/max strings as TileDB's dense writer stores them. Each
  /// tile's string has its own size; but when the array has more
  /// attributes than the fragment has tiles, TileDB writes the tiles one per
  /// batch and copies every batch's strings to tile 0's place, each cut to
  /// tile 0's size (OrderedWriter::dense, the "parallelize over attributes"
  /// branch restarts its index at every batch): tile 0 ends up with the last
  /// tile's strings and the other tiles with zero bytes. Where the last
  /// tile's string is shorter than tile 0's, TileDB reads past its end; the
  /// rest is written here as zeros.
  std::vector<detail::tile_stats> var_min_max_slots(std::vector<detail::tile_stats> stats) const {
    if (schema_.attributes.size() <= tile_num_ || stats.empty()) return stats;
    auto place = [&](auto member) {
      std::vector<std::byte> first((stats[0].*member).size(), std::byte{0});
      const auto& last = stats.back().*member;
      std::copy(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(std::min(first.size(), last.size())),
                first.begin());
      for (auto& st : stats) std::fill((st.*member).begin(), (st.*member).end(), std::byte{0});
      stats[0].*member = std::move(first);
    };
    place(&detail::tile_stats::min);
    place(&detail::tile_stats::max);
    return stats;
  }

  fs::path root_;
  std::vector<std::pair<std::int64_t, std::int64_t>> subarray_;
  format::ArraySchema schema_;
  std::string schema_name_;
  std::vector<std::uint64_t> tiles_per_dim_, extents_;
  std::uint64_t tile_num_ = 0, cells_per_tile_ = 0;
  std::vector<detail::attribute_tiles> attrs_;
  bool committed_ = false;
};

} // namespace tilefmt::array
