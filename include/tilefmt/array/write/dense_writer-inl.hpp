// tilefmt — dense_writer's implementation (write/dense_writer.hpp declares
// it): the subarray's tile grid, cells into storage order, and the
// fragment's shape. Left out of programs built with TILEFMT_COMPILED.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/write/dense_writer.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"
#include "tilefmt/array/write/schema_rules.hpp"

namespace tilefmt::array {

namespace detail {

/// The tile grid of a dense write over `subarray` ([lo, hi] per dimension,
/// in the schema's order), checked: as many ranges as dimensions, none
/// empty or outside the domain (past its upper bounds only with
/// `past_domain`), and with `whole_tiles` each one whole space tiles
/// (`hint` then ends the message). Throws std::invalid_argument naming the
/// range.
inline dense_grid dense_subarray_grid(const fragment_builder& b,
                                      const std::vector<std::pair<std::int64_t, std::int64_t>>& subarray,
                                      bool whole_tiles, std::string_view hint, bool past_domain = false) {
  const auto& schema = b.schema();
  check_schema(schema);
  const auto& dims = schema.domain.dimensions.value;
  if (subarray.size() != dims.size())
    throw std::invalid_argument(b.message(std::string("the subarray has ") + std::to_string(subarray.size()) +
                                          " ranges, the array " + std::to_string(dims.size()) + " dimensions"));
  std::vector<dense_range> ranges;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    auto dd = dense_dimension(dims[d]);
    auto [lo, hi] = subarray[d];
    const std::string who = std::string("subarray range ") + std::to_string(d) + " [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "] of dimension \"" + dims[d].name.value + "\"";
    if (lo > hi) throw std::invalid_argument(b.message(who + " is empty"));
    if (lo < dd.lo || (hi > dd.hi && !past_domain))
      throw std::invalid_argument(b.message(who + " is outside the domain [" + std::to_string(dd.lo) + ", " +
                                            std::to_string(dd.hi) + "]"));
    const dense_range r{dense_grid::distance(dd.lo, lo), dense_grid::distance(lo, hi) + 1,
                        static_cast<std::uint64_t>(dd.extent)};
    if (whole_tiles && (r.from % r.extent != 0 || r.width % r.extent != 0))
      throw std::invalid_argument(b.message(who + " does not consist of whole tiles of extent " +
                                            std::to_string(r.extent) + " from the domain's lower bound " +
                                            std::to_string(dd.lo) + std::string(hint)));
    ranges.push_back(r);
  }
  try {
    dense_grid grid(std::move(ranges), schema.tile_order, schema.cell_order);
    (void)grid.cell_num();
    if (grid.cells_per_tile() != 0 && grid.tile_num() > std::numeric_limits<std::uint64_t>::max() / grid.cells_per_tile())
      throw format_error("the number of cells overflows 64 bits", 0);
    return grid;
  } catch (const format_error& e) {
    throw std::invalid_argument(b.message(e.reason()));
  }
}

/// The shape of a dense fragment whose non-empty domain is `written`.
inline fragment_shape dense_shape(const format::ArraySchema& schema,
                                  const std::vector<std::pair<std::int64_t, std::int64_t>>& written,
                                  std::uint64_t cells_per_tile) {
  fragment_shape shape;
  shape.dense = true;
  const auto& dims = schema.domain.dimensions.value;
  const format::Datatype coord_type = dims[0].type.value;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::size_t size = format::datatype_size(coord_type);
    format::Range1D r{size, std::vector<std::byte>(2 * size)};
    format::visit_integer_type(coord_type, [&]<class T>() {
      codec::store_le<T>(r.bytes.data(), static_cast<T>(written[d].first));
      codec::store_le<T>(r.bytes.data() + sizeof(T), static_cast<T>(written[d].second));
    });
    shape.non_empty_domain.ranges.push_back(std::move(r));
  }
  shape.last_tile_cell_num = cells_per_tile;
  return shape;
}

class dense_writer_impl final : public cell_sink {
public:
  void encode_threads(unsigned n) override { b_.set_threads(n); }

  /// `consolidation`: written as TileDB's consolidation writes (its
  /// global-order writer): the subarray may reach past the domain's upper
  /// bounds (whole tiles of a domain that is no multiple of its extents),
  /// and the fragment metadata is the global-order writer's
  /// (fragment_shape::global_order).
  dense_writer_impl(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray, cell_layout layout,
                 const write_options& opt, bool consolidation)
      : b_(root, "dense_writer", false, opt.storage, opt.encryption_key), subarray_(std::move(subarray)),
        layout_(layout), global_order_(consolidation) {
    grid_.emplace(detail::dense_subarray_grid(b_, subarray_, layout_ == cell_layout::storage,
                                              " (cell_layout::row_major takes any subarray)", consolidation));
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
    if (i >= cell_num()) throw std::out_of_range(std::string("tilefmt: dense_writer::cell_coordinates: no cell ") + std::to_string(i));
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

  /// dense_writer::stream.
  dense_writer_impl& stream(const write_options& opt = {}) {
    for (std::size_t i = 0; i < schema().attributes.size(); ++i)
      if (b_.attribute_tiles(i).set)
        throw std::logic_error(b_.message("stream: call it before the first set()"));
    b_.begin_stream(opt, true);
    return *this;
  }

  /// Writes the fragment: data files, `__fragment_metadata.tdb`, then the
  /// commit marker. Returns the fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {}) {
    auto shape = detail::dense_shape(schema(), non_empty_domain_.empty() ? subarray_ : non_empty_domain_,
                                     grid_->cells_per_tile());
    shape.global_order = global_order_;
    return b_.commit(opt, shape);
  }

private:
  friend class array::dense_writer;
  friend struct rewrite_access;
    

  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) override {
    const std::size_t i = b_.checks().attribute(name, value_size, n, false, validity, cell_num());
    b_.stream_where_possible();
    const auto spec = b_.attribute_spec(i);
    if (layout_ == cell_layout::storage)
      return b_.encode_fixed(b_.attribute_tiles(i), spec, bytes, validity, encoder);
    // Into storage order, tile by tile on the encoding threads: TileDB's
    // dense tiler starts each tile zeroed (values and validity) and copies
    // the written cells in.
    const std::size_t cell_size = spec.cell_size();
    const std::size_t per_tile = static_cast<std::size_t>(grid_->cells_per_tile());
    std::vector<std::uint8_t> valid(spec.nullable ? static_cast<std::size_t>(grid_->tile_num()) * per_tile : 0);
    if (spec.nullable)
      for (std::size_t t = 0; t < grid_->tile_num(); ++t)
        if (const auto* v = tile_from_rows(t, std::as_bytes(validity), 1,
                                           [&] { return reinterpret_cast<std::byte*>(valid.data()) + t * per_tile; }))
          std::memcpy(valid.data() + t * per_tile, v, per_tile);
    b_.encode_fixed(
        b_.attribute_tiles(i), spec,
        [&](std::size_t t, std::vector<std::byte>& scratch) -> std::span<const std::byte> {
          // The scratch is sized only for a tile that is copied: a tile
          // taken from the rows as they are (one tile of a whole 1-D array:
          // from_numpy) would have it zeroed for nothing.
          auto room = [&] {
            scratch.resize(per_tile * cell_size);
            return scratch.data();
          };
          if (const auto* v = tile_from_rows(t, bytes, cell_size, room)) return {v, per_tile * cell_size};
          return scratch;
        },
        valid, encoder);
  }

  /// Tile t's cells in storage order from the subarray's cells given
  /// row-major (`rows`, cells of `cell_size` bytes): where the tile is
  /// covered whole and its cells lie in `rows` in the same order (1-D
  /// arrays, or tiles as wide as the subarray), their place in `rows`;
  /// otherwise null, the cells copied to `room()` (room for a whole tile,
  /// asked for only then) one run along the cell order's fastest dimension
  /// at a time, the cells outside the subarray zeroed.
  template <class Room>
  const std::byte* tile_from_rows(std::size_t t, std::span<const std::byte> rows, std::size_t cell_size,
                                  Room&& room) const {
    const std::size_t nd = grid_->dim_num();
    const auto w = grid_->covered(t);
    const auto tile_pos = grid_->tile_position(t);
    const auto& ext = grid_->extents();
    const auto widths = grid_->widths();
    const bool row_major = schema().cell_order != format::Layout::COL_MAJOR;
    std::vector<std::size_t> in_stride(nd, 1), tile_stride(nd, 1);
    for (std::size_t d = nd - 1; d-- > 0;) in_stride[d] = in_stride[d + 1] * static_cast<std::size_t>(widths[d + 1]);
    if (row_major)
      for (std::size_t d = nd - 1; d-- > 0;) tile_stride[d] = tile_stride[d + 1] * static_cast<std::size_t>(ext[d + 1]);
    else
      for (std::size_t d = 1; d < nd; ++d) tile_stride[d] = tile_stride[d - 1] * static_cast<std::size_t>(ext[d - 1]);
    bool full = true;
    std::size_t in_at = 0, tile_at = 0;
    for (std::size_t d = 0; d < nd; ++d) {
      full = full && w.width[d] == ext[d];
      const std::uint64_t at = (grid_->first_tile()[d] + tile_pos[d]) * ext[d] + w.start[d] - grid_->ranges()[d].from;
      in_at += static_cast<std::size_t>(at) * in_stride[d];
      tile_at += static_cast<std::size_t>(w.start[d]) * tile_stride[d];
    }
    if (full && in_stride == tile_stride) return rows.data() + in_at * cell_size;
    const std::size_t per_tile = static_cast<std::size_t>(grid_->cells_per_tile());
    std::byte* const to = room();
    if (!full) std::memset(to, 0, per_tile * cell_size);
    const std::size_t fast = row_major ? nd - 1 : 0;
    const std::size_t run = static_cast<std::size_t>(w.width[fast]);
    std::vector<std::uint64_t> q(nd, 0);  // the position in the covered window, `fast` left at 0
    while (true) {
      std::size_t in = in_at, out = tile_at;
      for (std::size_t d = 0; d < nd; ++d) {
        in += static_cast<std::size_t>(q[d]) * in_stride[d];
        out += static_cast<std::size_t>(q[d]) * tile_stride[d];
      }
      if (in_stride[fast] == 1) {  // row-major cells: the run is contiguous on both sides
        std::memcpy(to + out * cell_size, rows.data() + in * cell_size, run * cell_size);
      } else {
        for (std::size_t k = 0; k < run; ++k)
          std::memcpy(to + (out + k) * cell_size, rows.data() + (in + k * in_stride[fast]) * cell_size, cell_size);
      }
      std::size_t d = nd;
      while (d-- > 0) {
        if (d == fast) continue;
        if (++q[d] < w.width[d]) break;
        q[d] = 0;
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
    return nullptr;
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) override {
    const std::size_t i = b_.checks().attribute(name, value_size, offsets.size(), true, validity, cell_num());
    const auto spec = b_.attribute_spec(i);
    b_.checks().check_var_offsets(spec.name, offsets, values.size() / value_size);
    b_.stream_where_possible();
    if (layout_ == cell_layout::storage || rows_in_storage_order())
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

  /// Whether the subarray's cells in row-major order are the tiles' cells
  /// in storage order (a 1-D write of whole tiles, or one tile wide in
  /// every dimension but the first): then cells given row-major need no
  /// reordering.
  bool rows_in_storage_order() const {
    const std::size_t nd = grid_->dim_num();
    const auto& ext = grid_->extents();
    if (nd > 1) {
      if (schema().cell_order == format::Layout::COL_MAJOR) return false;
      const auto widths = grid_->widths();
      for (std::size_t d = 1; d < nd; ++d)
        if (widths[d] != ext[d]) return false;
    }
    for (std::uint64_t t = 0; t < grid_->tile_num(); ++t) {
      const auto w = grid_->covered(t);
      for (std::size_t d = 0; d < nd; ++d)
        if (w.width[d] != ext[d]) return false;
    }
    return true;
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
  /// The footer's non-empty domain when it is not the subarray (a
  /// consolidation writes whole tiles around the cells it replaces).
  std::vector<std::pair<std::int64_t, std::int64_t>> non_empty_domain_;
  cell_layout layout_;
  std::optional<dense_grid> grid_; // the subarray's space tiles
  bool global_order_ = false;      // written as TileDB's global-order writer writes (consolidation)
  std::vector<std::size_t> source_;
};

TILEFMT_FUNC std::unique_ptr<cell_sink> make_dense_writer(const fs::path& root,
                                                        std::vector<std::pair<std::int64_t, std::int64_t>> subarray,
                                                        cell_layout layout, const write_options& opt,
                                                        bool consolidation) {
  return std::make_unique<dense_writer_impl>(root, std::move(subarray), layout, opt, consolidation);
}

} // namespace detail

TILEFMT_FUNC detail::dense_writer_impl& dense_writer::impl() const {
  return static_cast<detail::dense_writer_impl&>(*impl_);
}

TILEFMT_FUNC const format::ArraySchema& dense_writer::schema() const noexcept { return impl().schema(); }
TILEFMT_FUNC const std::string& dense_writer::schema_name() const noexcept { return impl().schema_name(); }
TILEFMT_FUNC std::uint64_t dense_writer::tile_num() const noexcept { return impl().tile_num(); }
TILEFMT_FUNC std::uint64_t dense_writer::cells_per_tile() const noexcept { return impl().cells_per_tile(); }
TILEFMT_FUNC std::uint64_t dense_writer::cell_num() const { return impl().cell_num(); }
TILEFMT_FUNC std::vector<std::int64_t> dense_writer::cell_coordinates(std::uint64_t i) const {
  return impl().cell_coordinates(i);
}
TILEFMT_FUNC dense_writer& dense_writer::stream(const write_options& opt) {
  impl().stream(opt);
  return *this;
}
TILEFMT_FUNC std::string dense_writer::commit(const write_options& opt) { return impl().commit(opt); }

} // namespace tilefmt::array
