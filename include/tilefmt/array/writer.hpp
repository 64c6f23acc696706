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
// Scope of this writer: dense fragments of fixed-size, non-nullable
// attributes over a subarray made of whole space tiles. Anything else is
// rejected with std::invalid_argument before a file is written.
#pragma once

#include <sodium.h>

#include <algorithm>
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

/// Per-tile metadata of one attribute, as TileDB's TileMetadataGenerator
/// computes it: min, max (one cell each) and the 8-byte sum.
struct tile_stats {
  std::vector<std::byte> min, max;
  std::uint64_t sum = 0;
};

/// Which metadata a fixed-size, non-dimension field gets
/// (tile_metadata_generator.cc has_min_max_metadata / has_sum_metadata).
inline bool has_min_max(format::Datatype t, std::uint32_t cell_val_num) {
  using D = format::Datatype;
  const bool chars = t == D::CHAR || t == D::STRING_ASCII;
  if (cell_val_num != 1 && !chars) return false;
  switch (t) {
  case D::ANY: case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT: case D::STRING_UTF8: case D::STRING_UTF16:
  case D::STRING_UTF32: case D::STRING_UCS2: case D::STRING_UCS4:
    return false;
  default:
    return true;
  }
}
inline bool has_sum(format::Datatype t, std::uint32_t cell_val_num) {
  using D = format::Datatype;
  if (cell_val_num != 1) return false;
  switch (t) {
  case D::ANY: case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT: case D::STRING_UTF8: case D::STRING_UTF16:
  case D::STRING_UTF32: case D::STRING_UCS2: case D::STRING_UCS4: case D::STRING_ASCII:
    return false;
  default:
    return true;
  }
}

enum class sum_kind { int64, uint64, float64 };

/// Calls f.template operator()<T, K>() with T the C++ type TileDB computes a
/// fixed field's metadata in and K its sum kind; false for types without
/// any (BLOB, GEOM, UTF-n strings, ANY).
template <class F>
bool with_metadata_type(format::Datatype type, F&& f) {
  using D = format::Datatype;
  switch (type) {
  case D::INT8: f.template operator()<std::int8_t, sum_kind::int64>(); return true;
  case D::INT16: f.template operator()<std::int16_t, sum_kind::int64>(); return true;
  case D::INT32: f.template operator()<std::int32_t, sum_kind::int64>(); return true;
  case D::INT64: f.template operator()<std::int64_t, sum_kind::int64>(); return true;
  case D::BOOL: case D::UINT8: f.template operator()<std::uint8_t, sum_kind::uint64>(); return true;
  case D::UINT16: f.template operator()<std::uint16_t, sum_kind::uint64>(); return true;
  case D::UINT32: f.template operator()<std::uint32_t, sum_kind::uint64>(); return true;
  case D::UINT64: f.template operator()<std::uint64_t, sum_kind::uint64>(); return true;
  case D::FLOAT32: f.template operator()<float, sum_kind::float64>(); return true;
  case D::FLOAT64: f.template operator()<double, sum_kind::float64>(); return true;
  case D::CHAR: case D::STRING_ASCII: f.template operator()<char, sum_kind::int64>(); return true;
  default:
    if (format::is_datetime(type) || format::is_time(type)) {
      f.template operator()<std::int64_t, sum_kind::int64>();
      return true;
    }
    return false;
  }
}

/// Adds `v` to a running sum the way TileDB does: a sum that would overflow
/// saturates and stops (the return value says whether to go on).
inline bool add_sum(std::int64_t& s, std::int64_t v) {
  if (s > 0 && v > 0 && s > std::numeric_limits<std::int64_t>::max() - v) {
    s = std::numeric_limits<std::int64_t>::max();
    return false;
  }
  if (s < 0 && v < 0 && s < std::numeric_limits<std::int64_t>::min() - v) {
    s = std::numeric_limits<std::int64_t>::min();
    return false;
  }
  s += v;
  return true;
}
inline bool add_sum(std::uint64_t& s, std::uint64_t v) {
  if (s > std::numeric_limits<std::uint64_t>::max() - v) {
    s = std::numeric_limits<std::uint64_t>::max();
    return false;
  }
  s += v;
  return true;
}
inline bool add_sum(double& s, double v) {
  if ((s < 0.0) == (v < 0.0) && std::abs(s) > std::numeric_limits<double>::max() - std::abs(v)) {
    s = s < 0.0 ? std::numeric_limits<double>::lowest() : std::numeric_limits<double>::max();
    return false;
  }
  s += v;
  return true;
}

template <sum_kind K>
using sum_type = std::conditional_t<K == sum_kind::int64, std::int64_t,
                                    std::conditional_t<K == sum_kind::uint64, std::uint64_t, double>>;

/// strncmp over `n` bytes, as TileDB compares fixed-size strings (stops at a NUL).
inline int strncmp_bytes(const std::byte* a, const std::byte* b, std::size_t n) {
  return std::strncmp(reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(b), n);
}

/// The min, max and sum of one tile of `cells` cells of `cell_size` bytes.
inline tile_stats compute_tile_stats(format::Datatype type, std::uint32_t cell_val_num, std::span<const std::byte> tile,
                                     std::size_t cell_size) {
  tile_stats st;
  const std::size_t cells = cell_size ? tile.size() / cell_size : 0;
  const bool mm = has_min_max(type, cell_val_num), sm = has_sum(type, cell_val_num);
  with_metadata_type(type, [&]<class T, sum_kind K>() {
    if constexpr (std::is_same_v<T, char>) {
      // Strings: the first cell, then strncmp over the cell's bytes.
      if (mm && cells > 0) {
        const std::byte* mn = tile.data();
        const std::byte* mx = tile.data();
        for (std::size_t c = 1; c < cells; ++c) {
          const std::byte* v = tile.data() + c * cell_size;
          if (strncmp_bytes(mn, v, cell_size) > 0) mn = v;
          if (strncmp_bytes(mx, v, cell_size) < 0) mx = v;
        }
        st.min.assign(mn, mn + cell_size);
        st.max.assign(mx, mx + cell_size);
      }
    } else {
      if (mm) {
        // The expressions TileDB uses, NaN behaviour included.
        T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
        for (std::size_t c = 0; c < cells; ++c) {
          T v = codec::load_le<T>(tile.data() + c * sizeof(T));
          mn = mn < v ? mn : v;
          mx = mx > v ? mx : v;
        }
        st.min.resize(sizeof(T));
        st.max.resize(sizeof(T));
        codec::store_le<T>(st.min.data(), mn);
        codec::store_le<T>(st.max.data(), mx);
      }
    }
    if (sm) {
      sum_type<K> s{};
      for (std::size_t c = 0; c < cells; ++c) {
        T v;
        if constexpr (std::is_same_v<T, char>)
          v = static_cast<char>(std::to_integer<unsigned char>(tile[c]));
        else
          v = codec::load_le<T>(tile.data() + c * sizeof(T));
        if (!add_sum(s, static_cast<sum_type<K>>(v))) break;
      }
      st.sum = std::bit_cast<std::uint64_t>(s);
    }
  });
  return st;
}

/// The fragment summary entry of an attribute: folds its tiles' values as
/// FragmentMetadata::compute_fragment_min_max_sum does.
inline format::FieldMinMaxSumNullCount fold_stats(format::Datatype type, std::uint32_t cell_val_num,
                                                  const std::vector<tile_stats>& tiles) {
  format::FieldMinMaxSumNullCount out{};
  const bool mm = has_min_max(type, cell_val_num), sm = has_sum(type, cell_val_num);
  with_metadata_type(type, [&]<class T, sum_kind K>() {
    if (mm) {
      if constexpr (std::is_same_v<T, char>) {
        // Compared over cell_val_num bytes, first tile first.
        const std::vector<std::byte>* mn = nullptr;
        const std::vector<std::byte>* mx = nullptr;
        for (const auto& t : tiles) {
          if (!mn || strncmp_bytes(mn->data(), t.min.data(), cell_val_num) > 0) mn = &t.min;
          if (!mx || strncmp_bytes(mx->data(), t.max.data(), cell_val_num) < 0) mx = &t.max;
        }
        if (mn) out.min.value.assign(mn->begin(), mn->begin() + cell_val_num);
        if (mx) out.max.value.assign(mx->begin(), mx->begin() + cell_val_num);
      } else {
        T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
        for (const auto& t : tiles) {
          T a = codec::load_le<T>(t.min.data()), b = codec::load_le<T>(t.max.data());
          mn = mn < a ? mn : a;
          mx = mx > b ? mx : b;
        }
        out.min.value.resize(sizeof(T));
        out.max.value.resize(sizeof(T));
        codec::store_le<T>(out.min.value.data(), mn);
        codec::store_le<T>(out.max.value.data(), mx);
      }
    }
    if (sm) {
      sum_type<K> s{};
      for (const auto& t : tiles)
        if (!add_sum(s, std::bit_cast<sum_type<K>>(t.sum))) break;
      out.sum = std::bit_cast<std::uint64_t>(s);
    }
  });
  return out;
}

/// One attribute's encoded tiles and their metadata.
struct attribute_tiles {
  bool set = false;
  std::vector<std::byte> file;           // the tiles back to back (a<i>.tdb)
  std::vector<std::uint64_t> offsets;    // where each tile starts
  std::vector<tile_stats> stats;
};

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
    for (const auto& a : schema_.attributes) {
      if (a.is_var())
        throw std::invalid_argument("tilefmt: dense_fragment: attribute \"" + a.name.value +
                                    "\" is var-size; this writer writes fixed-size attributes only");
      if (a.nullable.value)
        throw std::invalid_argument("tilefmt: dense_fragment: attribute \"" + a.name.value +
                                    "\" is nullable; this writer writes non-nullable attributes only");
    }
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

  /// Sets an attribute's cells, encoding its tiles with the schema's filter
  /// pipeline (built at run time). T must have the size of the attribute's
  /// type; a cell of cell_val_num values takes that many elements.
  template <class T>
  dense_fragment& set(std::string_view attribute, std::span<const T> cells) {
    static_assert(std::is_trivially_copyable_v<T>, "tilefmt::array::dense_fragment::set: values must be trivially copyable");
    auto [i, a] = check_cells<T>(attribute, cells.size());
    filter::runtime_pipeline rp(a->filters, a->type, write_format_version);
    filter::tile_context ctx = rp.context(static_cast<std::size_t>(a->cell_size()));
    encode_tiles(i, *a, std::as_bytes(cells), [&](std::span<const std::byte> tile) { return rp.encode(tile, ctx); });
    return *this;
  }
  template <class T>
  dense_fragment& set(std::string_view attribute, const std::vector<T>& cells) {
    return set<T>(attribute, std::span<const T>(cells));
  }

  /// Sets an attribute's cells, encoding its tiles with the compile-time
  /// pipeline P, which must be the one the schema declares for it
  /// (P::descriptor() equal to the attribute's filters): the same type that
  /// declared the schema writes the tiles.
  template <class P, class T>
    requires detail::is_pipeline<P>::value
  dense_fragment& set(std::string_view attribute, std::span<const T> cells) {
    static_assert(std::is_trivially_copyable_v<T>, "tilefmt::array::dense_fragment::set: values must be trivially copyable");
    auto [i, a] = check_cells<T>(attribute, cells.size());
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
    encode_tiles(i, *a, std::as_bytes(cells), [&](std::span<const std::byte> tile) {
      // The tile as values of T again (it is a whole number of cells of T).
      std::span<const T> values(reinterpret_cast<const T*>(tile.data()), per_tile);
      return P::template encode<T>(values, opt);
    });
    return *this;
  }
  template <class P, class T>
    requires detail::is_pipeline<P>::value
  dense_fragment& set(std::string_view attribute, const std::vector<T>& cells) {
    return set<P, T>(attribute, std::span<const T>(cells));
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
    for (std::size_t i = 0; i < attrs_.size(); ++i)
      write_file_atomic(dir / std::string("a").append(std::to_string(i)).append(".tdb"), attrs_[i].file);
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
  std::pair<std::size_t, const format::Attribute*> check_cells(std::string_view attribute, std::size_t n) {
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
    const std::uint64_t want = cell_num() * a->cell_val_num;
    if (n != want)
      throw std::invalid_argument("tilefmt: dense_fragment::set: attribute \"" + a->name.value + "\" needs " +
                                  std::to_string(want) + " values (" + std::to_string(tile_num_) + " tiles of " +
                                  std::to_string(cells_per_tile_) + " cells), got " + std::to_string(n));
    return {i, a};
  }

  template <class Encode>
  void encode_tiles(std::size_t i, const format::Attribute& a, std::span<const std::byte> bytes, Encode&& encode) {
    detail::attribute_tiles out;
    const std::size_t cell_size = static_cast<std::size_t>(a.cell_size());
    const std::size_t tile_bytes = static_cast<std::size_t>(cells_per_tile_) * cell_size;
    for (std::uint64_t t = 0; t < tile_num_; ++t) {
      auto tile = bytes.subspan(static_cast<std::size_t>(t) * tile_bytes, tile_bytes);
      std::vector<std::byte> enc = encode(tile);
      out.offsets.push_back(out.file.size());
      out.file.insert(out.file.end(), enc.begin(), enc.end());
      out.stats.push_back(detail::compute_tile_stats(a.type, a.cell_val_num, tile, cell_size));
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
    for (std::size_t i = 0; i < na; ++i) f.file_sizes.value[i] = attrs_[i].file.size();

    format::RTree rtree;  // dense: no levels
    f.rtree_offset = section(rtree);

    const std::vector<std::uint64_t> zeros(tiles, 0);
    auto per_field = [&](auto&& make, auto& offsets) {
      offsets.value.resize(num);
      for (std::size_t k = 0; k < num; ++k) offsets.value[k] = section(make(k));
    };
    per_field([&](std::size_t k) { return format::TileOffsets{{k < na ? attrs_[k].offsets : zeros}}; }, f.tile_offsets);
    per_field([&](std::size_t) { return format::TileOffsets{{zeros}}; }, f.tile_var_offsets);
    per_field([&](std::size_t) { return format::TileSizes{{zeros}}; }, f.tile_var_sizes);
    per_field([&](std::size_t) { return format::TileOffsets{{zeros}}; }, f.tile_validity_offsets);

    // `__coords` is not a dimension to TileDB's metadata generator: it gets
    // zero-filled min/max cells (all coordinates of a cell) and zero sums.
    const bool coords_min_max = detail::has_min_max(coord_type, 1);
    const bool coords_sum = detail::has_sum(coord_type, 1);
    auto min_max = [&](bool want_min) {
      return [&, want_min](std::size_t k) {
        format::TileMinMax m{};
        if (k < na) {
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
          if (k < na && detail::has_sum(schema_.attributes[k].type, schema_.attributes[k].cell_val_num))
            for (const auto& st : attrs_[k].stats) s.sums.value.push_back(st.sum);
          if (k == coords && coords_sum) s.sums.value = zeros;
          return s;
        },
        f.tile_sum_offsets);
    per_field([&](std::size_t) { return format::TileNullCounts{}; }, f.tile_null_count_offsets);

    format::FragmentMinMaxSumNullCount summary;
    for (std::size_t k = 0; k < num; ++k) {
      format::FieldMinMaxSumNullCount e{};
      if (k < na) {
        e = detail::fold_stats(schema_.attributes[k].type, schema_.attributes[k].cell_val_num, attrs_[k].stats);
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
