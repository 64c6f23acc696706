// tilefmt — dense_global_order_writer's implementation
// (write/dense_global_order_writer.hpp declares it): submissions cut into
// space tiles written as they fill. Left out of programs built with
// TILEFMT_COMPILED.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/write/dense_global_order_writer.hpp"
#include "tilefmt/array/write/dense_writer-inl.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"
#include "tilefmt/array/write/sparse_input.hpp"
#include "tilefmt/array/write/tile_buffer.hpp"

namespace tilefmt::array {

namespace detail {

class dense_global_order_writer_impl final : public cell_sink {
public:
  void encode_threads(unsigned n) override { b_.set_threads(n); }
  /// Writes into the dense array at `root`, with its latest schema, over
  /// `subarray` ([lo, hi] per dimension, inclusive, whole space tiles: TileDB
  /// refuses others in global order). The fragment is named now, from
  /// `opt` (timestamp and label); its folder is made at the first
  /// submission. Throws io_error when `root` is not an array and
  /// std::invalid_argument for a subarray or schema this writer cannot write.
  dense_global_order_writer_impl(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray,
                                 const write_options& opt)
      : b_(root, "dense_global_order_writer", false, opt.storage, opt.encryption_key),
        subarray_(std::move(subarray)),
        grid_(detail::dense_subarray_grid(b_, subarray_, true,
                                          " (in global order, TileDB takes whole space tiles only)")) {
    auto [t, label] = detail::name_parts(opt);
    name_options_.timestamp = t;
    name_options_.label = std::move(label);
    const std::size_t na = schema().attributes.size();
    in_attrs_.resize(na);
    attr_tile_.resize(na);
    encoders_.resize(na);
  }
  // Dropped unfinished, the writer drops the data files written so far and
  // the fragment's folder with them (fragment_builder::drop_stream).

  const format::ArraySchema& schema() const noexcept { return b_.schema(); }
  /// The cells the subarray holds: finalize() needs every one.
  std::uint64_t cell_num() const { return grid_.cell_num(); }
  /// Cells submitted so far.
  std::uint64_t submitted() const noexcept { return submitted_; }
  /// Space tiles written so far.
  std::size_t tile_num() const noexcept { return b_.tile_num(); }
  /// Bytes of cells held between submissions: the partly filled tile of
  /// each attribute.
  std::uint64_t buffered_bytes() const noexcept {
    std::uint64_t n = 0;
    for (const auto& t : attr_tile_) n += t.byte_size();
    return n;
  }

  /// Takes the cells set since the last submission and writes every space
  /// tile they complete.
  void submit() {
    check_writable("submit");
    struct drop_submission {
      dense_global_order_writer_impl& w;
      ~drop_submission() { w.clear_input(); }
    } drop{*this};
    for (std::size_t i = 0; i < in_attrs_.size(); ++i)
      if (!in_attrs_[i].set)
        throw std::invalid_argument(b_.message("submit: attribute \"" + schema().attributes[i].name.value +
                                               "\" has no cells (TileDB writes every attribute)"));
    const std::uint64_t n = cells_.value_or(0);
    if (n == 0) return;
    if (n > cell_num() - submitted_)
      throw std::invalid_argument(b_.message("submit: " + std::to_string(n) + " cells, but the subarray has " +
                                             std::to_string(cell_num() - submitted_) + " left of its " +
                                             std::to_string(cell_num())));
    if (!b_.streaming()) b_.begin_stream(name_options_, true);
    for (std::size_t i = 0; i < in_attrs_.size(); ++i)
      if (in_attrs_[i].encoder) encoders_[i] = in_attrs_[i].encoder;
    const std::uint64_t per_tile = grid_.cells_per_tile();
    for (std::uint64_t c = 0; c < n;) {
      const std::uint64_t k = std::min(n - c, per_tile - fill_);
      for (std::size_t i = 0; i < in_attrs_.size(); ++i)
        attr_tile_[i].append(in_attrs_[i], b_.attribute_spec(i), static_cast<std::size_t>(c), static_cast<std::size_t>(k));
      fill_ += k;
      c += k;
      if (fill_ == per_tile) write_tile();
    }
    submitted_ += n;
  }

  /// Commits the data files, then writes the fragment metadata and the
  /// commit marker. Returns the fragment's name. Refuses (std::invalid_argument)
  /// a fragment short of the subarray's cells, and cells set but not
  /// submitted.
  std::string finalize() {
    check_writable("finalize");
    for (const auto& in : in_attrs_)
      if (in.set) throw std::logic_error(b_.message("finalize: cells were set but not submitted"));
    if (submitted_ != cell_num())
      throw std::invalid_argument(b_.message("finalize: " + std::to_string(submitted_) +
                                             " cells written, the subarray has " + std::to_string(cell_num()) +
                                             " (TileDB: the number of cells written is different from the number "
                                             "of cells expected for the query subarray)"));
    auto shape = detail::dense_shape(schema(), subarray_, grid_.cells_per_tile());
    shape.global_order = true;
    return b_.commit({}, shape);
  }

private:
  friend class array::dense_global_order_writer;
  friend struct rewrite_access;
  
  void check_writable(const char* who) const {
    if (b_.committed()) throw std::logic_error(b_.message(std::string(who) + ": the fragment is already finalized"));
  }

  void clear_input() {
    for (auto& in : in_attrs_) in = detail::pending_cells{};
    cells_.reset();
  }

  void take_cells(std::uint64_t n, const std::string& who) {
    if (cells_ && *cells_ != n)
      throw std::invalid_argument(b_.message(who + " has " + std::to_string(n) + " cells, earlier calls " +
                                             std::to_string(*cells_)));
    cells_ = n;
  }

  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) override {
    check_writable("set");
    const auto [i, cells] = b_.checks().fixed_attribute(name, value_size, n, validity, cells_);
    take_cells(cells, std::string("set: attribute \"") + std::string(name) + "\"");
    in_attrs_[i] = detail::pending_cells::fixed(bytes, value_size, validity, encoder);
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) override {
    check_writable("set_var");
    const std::size_t i = b_.checks().var_attribute(name, value_size, values, offsets, validity, cells_);
    take_cells(offsets.size(), std::string("set_var: attribute \"") + std::string(name) + "\"");
    in_attrs_[i] = detail::pending_cells::var(values, offsets, value_size, validity);
  }

  /// Encodes the full space tile and appends it to the data files.
  void write_tile() {
    b_.add_tile(fill_);
    detail::stream_attribute_tiles(b_, attr_tile_, encoders_);
    fill_ = 0;
  }

  detail::fragment_builder b_;
  std::vector<std::pair<std::int64_t, std::int64_t>> subarray_;
  dense_grid grid_;
  write_options name_options_;
  std::optional<std::uint64_t> cells_;          // the submission's cell count
  std::vector<detail::pending_cells> in_attrs_; // the submission's cells
  std::vector<detail::tile_buffer> attr_tile_;  // the tile being filled
  std::vector<detail::tile_encoder> encoders_;  // set<P>'s, per attribute
  std::uint64_t fill_ = 0;                      // its cells
  std::uint64_t submitted_ = 0;
};

TILEFMT_FUNC std::unique_ptr<cell_sink> make_dense_global_order_writer(
    const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray, const write_options& opt) {
  return std::make_unique<dense_global_order_writer_impl>(root, std::move(subarray), opt);
}

} // namespace detail

TILEFMT_FUNC detail::dense_global_order_writer_impl& dense_global_order_writer::impl() const {
  return static_cast<detail::dense_global_order_writer_impl&>(*impl_);
}

TILEFMT_FUNC const format::ArraySchema& dense_global_order_writer::schema() const noexcept { return impl().schema(); }
TILEFMT_FUNC std::uint64_t dense_global_order_writer::cell_num() const { return impl().cell_num(); }
TILEFMT_FUNC std::uint64_t dense_global_order_writer::submitted() const noexcept { return impl().submitted(); }
TILEFMT_FUNC std::size_t dense_global_order_writer::tile_num() const noexcept { return impl().tile_num(); }
TILEFMT_FUNC std::uint64_t dense_global_order_writer::buffered_bytes() const noexcept {
  return impl().buffered_bytes();
}
TILEFMT_FUNC void dense_global_order_writer::submit() { impl().submit(); }
TILEFMT_FUNC std::string dense_global_order_writer::finalize() { return impl().finalize(); }

} // namespace tilefmt::array
