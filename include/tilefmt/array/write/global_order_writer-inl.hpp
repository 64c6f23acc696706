// tilefmt — global_order_writer's implementation (write/global_order_writer.hpp
// declares it): each submission checked against the global order, cut into
// data tiles written as they fill. Left out of programs built with
// TILEFMT_COMPILED.
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
#include "tilefmt/array/model/global_order.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"
#include "tilefmt/array/write/global_order_writer.hpp"
#include "tilefmt/array/write/sparse_input.hpp"
#include "tilefmt/array/write/sparse_writer-inl.hpp"
#include "tilefmt/array/write/tile_buffer.hpp"

namespace tilefmt::array {

namespace detail {

class global_order_writer_impl final : public sparse_input<global_order_writer_impl> {
public:
  void encode_threads(unsigned n) override { b_.set_threads(n); }
  global_order_writer_impl(const fs::path& root, const write_options& opt, std::shared_ptr<storage::backend> storage)
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
      global_order_writer_impl& w;
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
  friend class array::global_order_writer;
  friend struct rewrite_access;
    friend class sparse_input<global_order_writer_impl>;

  /// One field's cells of the current submission: little-endian values,
  /// and for var-size fields where each cell starts (in values).
  using input = detail::pending_cells;
  using tile_buffer = detail::tile_buffer;

  void check_writable(const char* who) const {
    if (b_.committed()) throw std::logic_error(b_.message(std::string(who) + ": the fragment is already finalized"));
  }

  input& coordinates_(std::size_t d) { return in_coords_[d]; }
  void coordinates_changing() {}  // a submission's coordinates may be set again before submit()

  void clear_input() {
    for (auto& in : in_coords_) in = input{};
    for (auto& in : in_attrs_) in = input{};
    cells_.reset();
  }

  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) override {
    check_writable("set");
    const auto [i, cells] = b_.checks().fixed_attribute(name, value_size, n, validity, cells_);
    take_cells(cells, std::string("set: attribute \"") + std::string(name) + "\"");
    in_attrs_[i] = input::fixed(bytes, value_size, validity, encoder);
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) override {
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
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
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

  /// Refuses coordinates outside the domain or NaN, cells out of the global
  /// order and (unless allowed) duplicates, before anything is written.
  void check_cells(std::size_t n) {
    const auto& dims = schema().domain.dimensions.value;
    check_domain(in_coords_, n, submitted_);
    // The cells in order, after the last cell submitted before (index 0,
    // when there is one).
    const std::size_t base = submitted_ == 0 ? 0 : 1;
    const auto cell = [&](std::size_t k) { return k < base ? npos : k - base; };
    const auto text = [&](std::size_t d, std::size_t k) {
      const auto v = coord(d, cell(k));
      return std::string_view(reinterpret_cast<const char*>(v.data()), v.size());
    };
    auto order = detail::global_order::for_writing(schema());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_var()) {
        order.rank(d, n + base, [&](std::size_t k) { return text(d, k); });
        continue;
      }
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        for (std::size_t k = 0; k < n + base; ++k) order.add(d, codec::load_le<T>(coord(d, cell(k)).data()));
      });
    }
    if (order.hilbert()) order.compute_hilbert(text);
    for (std::size_t k = 1; k < n + base; ++k) {
      // In the Hilbert order TileDB checks the curve's values alone: cells of
      // equal value may come in any order.
      const bool h = order.hilbert();
      if (h ? order.hilbert_value(k - 1) <= order.hilbert_value(k) : !order.less(k, k - 1)) continue;
      // As TileDB words it: c succeeds c - 1, or the first cell comes before
      // the last one written.
      const std::size_t c = cell(k);
      const std::string which = h ? "hilbert" : "global";
      throw std::invalid_argument(b_.message(
          (c ? "Write failed; Coordinates " + coords_text(c - 1) + " succeed " + coords_text(c) + " in the " + which +
                   " order"
             : std::string(h ? "Write failed; Coordinates " : "Write failed; Coordinate ") + coords_text(0) +
                   " comes before last written coordinate in the " + which + " order") +
          (!h && order.across_tiles(k - 1, k) ? " due to writes across tiles" : "")));
    }
    if (!schema().allows_dups.value)
      for (std::size_t k = 1; k < n + base; ++k)
        if (order.same_coordinates(k - 1, k))
          throw std::invalid_argument(b_.message("Duplicate coordinates " + coords_text(cell(k)) +
                                                 " are not allowed (the schema does not allow duplicates)"));
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
        format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
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
  std::vector<tile_buffer> dim_tile_, attr_tile_; // the tile being filled
  std::vector<detail::tile_encoder> encoders_;    // set<P>'s, per attribute
  std::uint64_t fill_ = 0;                        // its cells
  std::vector<std::vector<std::byte>> last_;      // the last cell submitted, per dimension
  std::uint64_t submitted_ = 0, last_tile_cells_ = 0;
  std::vector<format::MBR> mbrs_;                 // per data tile
};

TILEFMT_FUNC std::unique_ptr<coordinate_sink> make_global_order_writer(const fs::path& root,
                                                                       const write_options& opt,
                                                                       std::shared_ptr<storage::backend> storage) {
  return std::make_unique<global_order_writer_impl>(root, opt, std::move(storage));
}

} // namespace detail

TILEFMT_FUNC detail::global_order_writer_impl& global_order_writer::impl() const {
  return static_cast<detail::global_order_writer_impl&>(*impl_);
}

TILEFMT_FUNC const format::ArraySchema& global_order_writer::schema() const noexcept { return impl().schema(); }
TILEFMT_FUNC std::uint64_t global_order_writer::cell_num() const noexcept { return impl().cell_num(); }
TILEFMT_FUNC std::size_t global_order_writer::tile_num() const noexcept { return impl().tile_num(); }
TILEFMT_FUNC std::uint64_t global_order_writer::buffered_bytes() const noexcept { return impl().buffered_bytes(); }
TILEFMT_FUNC void global_order_writer::submit() { impl().submit(); }
TILEFMT_FUNC std::string global_order_writer::finalize() { return impl().finalize(); }

} // namespace tilefmt::array
