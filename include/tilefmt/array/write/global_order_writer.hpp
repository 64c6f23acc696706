// tilefmt — writing one sparse fragment as a stream of submissions whose
// cells are already in TileDB's global order (TileDB's global-order writer:
// a query of layout GLOBAL_ORDER submitted several times, then finalized),
// so that a fragment larger than memory can be written.
//
//   array::global_order_writer w("path/to/sparse");
//   w.set_coords("x", xs1).set_coords("y", ys1).set("a", a1);  // cells 0..n1, in global order
//   w.submit();
//   w.set_coords("x", xs2).set_coords("y", ys2).set("a", a2);  // they continue the order
//   w.submit();
//   std::string name = w.finalize();
//
// Each submission's cells are checked (every cell after the one before it
// in the global order, the first after the last cell of the submission
// before) and cut into data tiles of the schema's capacity, exactly where
// one write of every cell would cut them, whatever the submissions' sizes:
// a tile left partly filled by one submission is filled by the next. Each
// full tile is encoded and appended to its field's data file at once
// (storage::backend::open_write); the data files appear, whole, at
// finalize(), followed by the fragment metadata and the commit marker, as
// for any fragment. The files are those of sparse_writer given all the
// cells at once (and those of TileDB's own global-order write).
//
// Memory: between set() and submit(), a copy of the submission's cells;
// after submit(), at most one partly filled tile per field, the fragment
// metadata (per tile: offsets, MBR, min/max/sum/null count) and, on
// backends without streaming writes (memory, S3: backend.hpp), the data
// files themselves.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/hilbert.hpp"
#include "tilefmt/array/write/cells_api.hpp"
#include "tilefmt/array/write/coordinates_api.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"
#include "tilefmt/array/write/sparse_writer.hpp"
#include "tilefmt/array/write/tile_buffer.hpp"

namespace tilefmt::array {

/// A sparse fragment written submission by submission, its cells given in
/// TileDB's global order (above).
///
/// A submission is every dimension's coordinates (set_coords) and every
/// attribute's values (set, set_var), one per cell, then submit(). Refused,
/// with std::invalid_argument and nothing of the submission written (the
/// writer stays usable; the submission is dropped): cells out of the
/// global order, within the submission or after the last cell submitted
/// before ("Write failed; Coordinates (3, 1) succeed (2, 7) in the global
/// order", as TileDB says it); equal coordinates where the schema does not
/// allow duplicates, also across submissions (TileDB 2.30 checks them
/// within a submission only: given cells 1, 5 then 5, 7 on a dimension, it
/// writes both cells 5, a fragment its own reads then return twice, where
/// one write of the same cells is refused); coordinates outside the
/// domain or NaN. In the Hilbert cell order, as in TileDB, the order
/// checked is that of the cells' Hilbert values: cells of equal value are
/// written in the order given.
class global_order_writer : public detail::coordinates_api<global_order_writer> {
public:
  /// Writes into the array at `root`, with its latest schema. The fragment
  /// is named now, from `opt` (timestamp and label); its folder is made at
  /// the first submission with cells. Throws io_error when `root` is not an
  /// array and std::invalid_argument for a schema this writer cannot write.
  explicit global_order_writer(const fs::path& root, const write_options& opt = {},
                               std::shared_ptr<storage::backend> storage = {})
      : b_(root, "global_order_writer", true, storage ? std::move(storage) : opt.storage, opt.encryption_key) {
    check_sparse_schema(b_);
    const auto& s = b_.schema();
    // The name is fixed now: the timestamp is the write's, not the first submission's.
    auto [t, label] = detail::name_parts(opt);
    name_options_.timestamp = t;
    name_options_.label = std::move(label);
    const std::size_t nd = s.domain.dimensions.size(), na = s.attributes.size();
    in_coords_.resize(nd);
    in_attrs_.resize(na);
    dim_tile_.resize(nd);
    attr_tile_.resize(na);
    encoders_.resize(na);
    last_.resize(nd);
  }
  // Dropped unfinished, the writer drops the data files written so far
  // (their temporary files removed) and the fragment's folder with them
  // (fragment_builder::drop_stream); no fragment appears.

  const format::ArraySchema& schema() const noexcept { return b_.schema(); }
  /// Cells submitted so far.
  std::uint64_t cell_num() const noexcept { return submitted_; }
  /// Data tiles written so far (each of the schema's capacity).
  std::size_t tile_num() const noexcept { return b_.tile_num(); }
  /// Bytes of cells held between submissions: the partly filled tile of
  /// each field (at most capacity cells each).
  std::uint64_t buffered_bytes() const noexcept {
    std::uint64_t n = 0;
    for (const auto* v : {&dim_tile_, &attr_tile_})
      for (const auto& t : *v) n += t.byte_size();
    return n;
  }

  // set_coords(): the next submission's coordinates (detail::coordinates_api).

  /// Checks the cells set since the last submission and writes every data
  /// tile they fill (see the class comment for what is refused).
  void submit() {
    check_writable("submit");
    const auto& s = schema();
    const auto& dims = s.domain.dimensions.value;
    struct drop_submission {
      global_order_writer& w;
      ~drop_submission() { w.clear_input(); }
    } drop{*this};
    check_every_field_set("submit", in_coords_, in_attrs_);
    const std::size_t n = static_cast<std::size_t>(cells_.value_or(0));
    if (n == 0) return;
    check_cells(n);
    if (!b_.streaming()) b_.begin_stream(name_options_, false);
    for (std::size_t i = 0; i < in_attrs_.size(); ++i)
      if (in_attrs_[i].encoder) encoders_[i] = in_attrs_[i].encoder;
    // The cells, a tile's worth at a time: into the partly filled tile,
    // which is written when full.
    for (std::size_t c = 0; c < n;) {
      const std::size_t k = std::min<std::size_t>(n - c, static_cast<std::size_t>(s.capacity - fill_));
      for (std::size_t d = 0; d < dims.size(); ++d) dim_tile_[d].append(in_coords_[d], b_.dimension_spec(d), c, k);
      for (std::size_t i = 0; i < in_attrs_.size(); ++i) attr_tile_[i].append(in_attrs_[i], b_.attribute_spec(i), c, k);
      fill_ += k;
      c += k;
      if (fill_ == s.capacity) write_tile();
    }
    // The last cell, which the next submission's first must follow.
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto cell = coord(d, n - 1);
      last_[d].assign(cell.begin(), cell.end());
    }
    if (hilbert()) last_hilbert_ = hilbert_values_.back();
    submitted_ += n;
  }

  /// Writes the last, partly filled tile, commits the data files, then
  /// writes the fragment metadata and the commit marker. Returns the
  /// fragment's name. Cells set but not submitted are refused.
  std::string finalize() {
    check_writable("finalize");
    for (const auto& in : in_coords_)
      if (in.set) throw std::logic_error(b_.message("finalize: cells were set but not submitted"));
    for (const auto& in : in_attrs_)
      if (in.set) throw std::logic_error(b_.message("finalize: cells were set but not submitted"));
    if (submitted_ == 0) throw std::invalid_argument(b_.message("finalize: no cells (TileDB writes no fragment)"));
    if (fill_ != 0) write_tile();
    detail::fragment_shape shape;
    shape.dense = false;
    shape.sparse_tile_num = b_.tile_num();
    shape.last_tile_cell_num = last_tile_cells_;
    detail::finish_rtree(schema(), std::move(mbrs_), shape);
    return b_.commit({}, shape);
  }

private:
  friend class detail::cells_api<global_order_writer>;
  friend class detail::coordinates_api<global_order_writer>;

  /// One field's cells of the current submission: little-endian values,
  /// and for var-size fields where each cell starts (in values).
  using input = detail::pending_cells;
  using tile_buffer = detail::tile_buffer;

  void check_writable(const char* who) const {
    if (b_.committed()) throw std::logic_error(b_.message(std::string(who) + ": the fragment is already finalized"));
  }

  input& coordinates_(std::size_t d) { return in_coords_[d]; }
  void coordinates_changing() {}  // a submission's coordinates may be set again before submit()

  bool hilbert() const { return schema().cell_order == format::Layout::HILBERT; }

  void clear_input() {
    for (auto& in : in_coords_) in = input{};
    for (auto& in : in_attrs_) in = input{};
    cells_.reset();
    hilbert_values_.clear();
  }



  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) {
    check_writable("set");
    const auto [i, cells] = b_.checks().fixed_attribute(name, value_size, n, validity, cells_);
    take_cells(cells, std::string("set: attribute \"") + std::string(name) + "\"");
    in_attrs_[i] = input::fixed(bytes, value_size, validity, encoder);
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) {
    check_writable("set_var");
    const std::size_t i = b_.checks().var_attribute(name, value_size, values, offsets, validity, cells_);
    take_cells(offsets.size(), std::string("set_var: attribute \"") + std::string(name) + "\"");
    in_attrs_[i] = input::var(values, offsets, value_size, validity);
  }

  /// Cell `c`'s coordinate along dimension `d` (little-endian bytes, or a
  /// string's characters): the submission's cell, or (c == npos) the last
  /// cell submitted before.
  std::span<const std::byte> coord(std::size_t d, std::size_t c) const {
    if (c == npos) return last_[d];
    const auto& dim = schema().domain.dimensions.value[d];
    if (dim.is_var()) return detail::var_cell(in_coords_[d].bytes, in_coords_[d].offsets, c);
    const std::size_t size = format::datatype_size(dim.type.value);
    return std::span<const std::byte>(in_coords_[d].bytes).subspan(c * size, size);
  }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  std::string coords_text(std::size_t c) const {
    const auto& dims = schema().domain.dimensions.value;
    std::string out = "(";
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto v = coord(d, c);
      if (d) out += ", ";
      if (dims[d].is_var()) {
        out.append(reinterpret_cast<const char*>(v.data()), v.size());
        continue;
      }
      detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
        if constexpr (std::is_floating_point_v<T>) {
          std::ostringstream o;
          o << codec::load_le<T>(v.data());
          out += o.str();
        } else {
          out += std::to_string(codec::load_le<T>(v.data()));
        }
      });
    }
    return out + ")";
  }

  /// Cells a and b compared in the global order: by space tile (tile
  /// order, dimensions with a tile extent), then by coordinates (cell
  /// order). `across_tiles` is set when the space tiles differ.
  int compare(std::size_t a, std::size_t b, bool& across_tiles) const {
    const auto& dims = schema().domain.dimensions.value;
    const std::size_t nd = dims.size();
    across_tiles = false;
    auto cmp_coords = [&](std::size_t d) -> int {
      const auto x = coord(d, a), y = coord(d, b);
      if (dims[d].is_var()) {
        const std::string_view sx(reinterpret_cast<const char*>(x.data()), x.size()),
            sy(reinterpret_cast<const char*>(y.data()), y.size());
        return sx < sy ? -1 : sx > sy ? 1 : 0;
      }
      int r = 0;
      detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
        const auto kx = detail::order_key(codec::load_le<T>(x.data())), ky = detail::order_key(codec::load_le<T>(y.data()));
        r = kx < ky ? -1 : kx > ky ? 1 : 0;
      });
      return r;
    };
    const bool tile_row = schema().tile_order != format::Layout::COL_MAJOR;
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = tile_row ? k : nd - 1 - k;
      if (dims[d].is_var() || !dims[d].has_tile_extent()) continue;
      int r = 0;
      detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
        auto [lo, hi] = dims[d].domain_as<T>();
        (void)hi;
        const T ext = *dims[d].tile_extent_as<T>();
        const auto ta = detail::tile_index(codec::load_le<T>(coord(d, a).data()), lo, ext);
        const auto tb = detail::tile_index(codec::load_le<T>(coord(d, b).data()), lo, ext);
        r = ta < tb ? -1 : ta > tb ? 1 : 0;
      });
      if (r != 0) {
        across_tiles = true;
        return r;
      }
    }
    const bool cell_row = schema().cell_order != format::Layout::COL_MAJOR;
    for (std::size_t k = 0; k < nd; ++k) {
      const int r = cmp_coords(cell_row ? k : nd - 1 - k);
      if (r != 0) return r;
    }
    return 0;
  }

  bool same_coordinates(std::size_t a, std::size_t b) const {
    for (std::size_t d = 0; d < last_.size(); ++d) {
      const auto x = coord(d, a), y = coord(d, b);
      if (x.size() != y.size() || (!x.empty() && std::memcmp(x.data(), y.data(), x.size()) != 0)) return false;
    }
    return true;
  }

  /// Refuses coordinates outside the domain or NaN, cells out of the global
  /// order and (unless allowed) duplicates, before anything is written.
  void check_cells(std::size_t n) {
    const auto& dims = schema().domain.dimensions.value;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& dim = dims[d];
      if (dim.is_var()) continue;
      detail::with_coordinate_type(dim.type.value, [&]<class T>() {
        auto [lo, hi] = dim.domain_as<T>();
        for (std::size_t c = 0; c < n; ++c) {
          const T v = codec::load_le<T>(in_coords_[d].bytes.data() + c * sizeof(T));
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(v))
              throw std::invalid_argument(b_.message("coordinate " + std::to_string(submitted_ + c) +
                                                     " of dimension \"" + dim.name.value + "\" is NaN"));
          }
          if (v < lo || v > hi)
            throw std::invalid_argument(b_.message("coordinate " + std::to_string(submitted_ + c) + " of dimension \"" +
                                                   dim.name.value + "\" is " + std::to_string(v) +
                                                   ", outside the domain [" + std::to_string(lo) + ", " +
                                                   std::to_string(hi) + "]"));
        }
      });
    }
    const bool first = submitted_ == 0;
    if (hilbert()) {
      hilbert_values_ = hilbert_values(n);
      for (std::size_t c = 0; c < n; ++c) {
        const std::uint64_t before = c ? hilbert_values_[c - 1] : last_hilbert_;
        if ((c || !first) && before > hilbert_values_[c])
          throw std::invalid_argument(b_.message(
              c ? "Write failed; Coordinates " + coords_text(c - 1) + " succeed " + coords_text(c) +
                      " in the hilbert order"
                : "Write failed; Coordinates " + coords_text(0) +
                      " comes before last written coordinate in the hilbert order"));
      }
    } else {
      for (std::size_t c = first ? 1 : 0; c < n; ++c) {
        bool across = false;
        if (compare(c ? c - 1 : npos, c, across) > 0)
          throw std::invalid_argument(b_.message(
              (c ? "Write failed; Coordinates " + coords_text(c - 1) + " succeed " + coords_text(c) +
                       " in the global order"
                 : "Write failed; Coordinate " + coords_text(0) +
                       " comes before last written coordinate in the global order") +
              (across ? " due to writes across tiles" : "")));
      }
    }
    if (!schema().allows_dups.value)
      for (std::size_t c = first ? 1 : 0; c < n; ++c)
        if (same_coordinates(c ? c - 1 : npos, c))
          throw std::invalid_argument(b_.message("Duplicate coordinates " + coords_text(c) +
                                                 " are not allowed (the schema does not allow duplicates)"));
  }

  /// The submission's cells' places on the Hilbert curve, as sparse_writer
  /// computes them.
  std::vector<std::uint64_t> hilbert_values(std::size_t n) const {
    const auto& dims = schema().domain.dimensions.value;
    const std::size_t nd = dims.size();
    const auto curve = detail::hilbert_curve::for_writing(dims, schema().version.value);
    std::vector<std::uint64_t> out(n), x(nd);
    for (std::size_t c = 0; c < n; ++c) {
      for (std::size_t d = 0; d < nd; ++d) {
        const auto v = coord(d, c);
        if (dims[d].is_var()) {
          x[d] = curve.bucket(std::string_view(reinterpret_cast<const char*>(v.data()), v.size()));
          continue;
        }
        detail::with_coordinate_type(dims[d].type.value,
                                     [&]<class T>() { x[d] = curve.bucket(d, codec::load_le<T>(v.data())); });
      }
      out[c] = curve.value(x);
    }
    return out;
  }

  /// Encodes the tile being filled, appends it to the data files and
  /// records its MBR.
  void write_tile() {
    const auto& dims = schema().domain.dimensions.value;
    b_.add_tile(fill_);
    format::MBR mbr;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      auto& t = dim_tile_[d];
      const auto spec = b_.dimension_spec(d);
      if (dims[d].is_var()) {
        std::string_view lo, hi;
        for (std::size_t c = 0; c < t.offsets.size(); ++c) {
          const std::size_t b = static_cast<std::size_t>(t.offsets[c]);
          const std::size_t e = c + 1 < t.offsets.size() ? static_cast<std::size_t>(t.offsets[c + 1]) : t.bytes.size();
          const std::string_view v(reinterpret_cast<const char*>(t.bytes.data()) + b, e - b);
          if (c == 0 || v < lo) lo = v;
          if (c == 0 || v > hi) hi = v;
        }
        mbr.ranges.push_back(format::var_range(lo, hi));
        b_.stream_var(b_.dimension_tiles(d), spec, t.bytes, t.offsets, {});
      } else {
        detail::with_coordinate_type(dims[d].type.value, [&]<class T>() {
          T lo = codec::load_le<T>(t.bytes.data()), hi = lo;
          for (std::size_t c = 1; c < t.bytes.size() / sizeof(T); ++c) {
            const T v = codec::load_le<T>(t.bytes.data() + c * sizeof(T));
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
          mbr.ranges.push_back(format::fixed_range<T>(lo, hi));
        });
        b_.stream_fixed(b_.dimension_tiles(d), spec, t.bytes, {}, {});
      }
      t = tile_buffer{};
    }
    detail::stream_attribute_tiles(b_, attr_tile_, encoders_);
    mbrs_.push_back(std::move(mbr));
    last_tile_cells_ = fill_;
    fill_ = 0;
  }

  detail::fragment_builder b_;
  write_options name_options_;
  std::optional<std::uint64_t> cells_;            // the submission's cell count
  std::vector<input> in_coords_, in_attrs_;       // the submission's cells
  std::vector<std::uint64_t> hilbert_values_;     // the submission's, in the Hilbert order
  std::vector<tile_buffer> dim_tile_, attr_tile_; // the tile being filled
  std::vector<detail::tile_encoder> encoders_;    // set<P>'s, per attribute
  std::uint64_t fill_ = 0;                        // its cells
  std::vector<std::vector<std::byte>> last_;      // the last cell submitted, per dimension
  std::uint64_t last_hilbert_ = 0;
  std::uint64_t submitted_ = 0, last_tile_cells_ = 0;
  std::vector<format::MBR> mbrs_;                 // per data tile
};

} // namespace tilefmt::array
