// tilefmt — writing one dense fragment as a stream of submissions whose
// cells are in TileDB's global order (TileDB's global-order writer on a
// dense array: a query of layout GLOBAL_ORDER over a subarray of whole space
// tiles, submitted several times, then finalized), so that a fragment
// larger than memory can be written.
//
//   array::dense_global_order_writer w("path/to/dense", {{1, 4}, {1, 6}});
//   w.set("a", a1).set_var("s", s1, offsets1);  // the first cells, in global order
//   w.submit();
//   w.set("a", a2).set_var("s", s2, offsets2);  // they continue the order
//   w.submit();
//   std::string name = w.finalize();
//
// The global order of a dense subarray is space tile after space tile in
// the tile order, and inside each tile its cells in the cell order
// (dense_writer::cell_coordinates with cell_layout::storage says which
// cell the i-th is). Submissions may end anywhere: a tile left partly
// filled by one is filled by the next, and each full tile is encoded and
// appended to its attribute's data files at once
// (storage::backend::open_write). finalize() refuses a fragment that did
// not get every cell of the subarray, as TileDB does. The files are those
// of TileDB's own global-order write: the data files those of
// dense_writer given the same cells with cell_layout::storage, the
// fragment metadata without the var-size min/max quirk of TileDB's other
// dense writer (fragment_builder::var_min_max_slots).
//
// Memory: between set() and submit(), a copy of the submission's cells;
// after submit(), at most one partly filled tile per attribute, the
// fragment metadata and, on backends without streaming writes (memory, S3:
// backend.hpp), the data files themselves.
//
// A handle, as dense_writer is: the implementation is in
// dense_global_order_writer-inl.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/array/write/cells_api.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array {

namespace fs = std::filesystem;

namespace detail {
class dense_global_order_writer_impl;
std::unique_ptr<cell_sink> make_dense_global_order_writer(
    const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray, const write_options& opt);
} // namespace detail

/// A dense fragment over a subarray of whole space tiles, written
/// submission by submission, its cells given in TileDB's global order
/// (above). A submission is every attribute's cells (set, set_var, set<P>),
/// as many for each, then submit(); a submission past the subarray's last
/// cell is refused, with std::invalid_argument, before anything of it is
/// written (the writer stays usable).
class dense_global_order_writer : public detail::cells_api<dense_global_order_writer> {
public:
  /// Writes into the dense array at `root`, with its latest schema, over
  /// `subarray` ([lo, hi] per dimension, inclusive, whole space tiles: TileDB
  /// refuses others in global order). The fragment is named now, from
  /// `opt` (timestamp and label); its folder is made at the first
  /// submission. Throws io_error when `root` is not an array and
  /// std::invalid_argument for a subarray or schema this writer cannot write.
  dense_global_order_writer(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray,
                            const write_options& opt = {})
      : impl_(detail::make_dense_global_order_writer(root, std::move(subarray), opt)) {}
  // Dropped unfinished, the writer drops the data files written so far and
  // the fragment's folder with them (fragment_builder::drop_stream).

  const format::ArraySchema& schema() const noexcept;
  /// The cells the subarray holds: finalize() needs every one.
  std::uint64_t cell_num() const;
  /// Cells submitted so far.
  std::uint64_t submitted() const noexcept;
  /// Space tiles written so far.
  std::size_t tile_num() const noexcept;
  /// Bytes of cells held between submissions: the partly filled tile of
  /// each attribute.
  std::uint64_t buffered_bytes() const noexcept;

  /// Takes the cells set since the last submission and writes every space
  /// tile they complete.
  void submit();

  /// Commits the data files, then writes the fragment metadata and the
  /// commit marker. Returns the fragment's name. Refuses (std::invalid_argument)
  /// a fragment short of the subarray's cells, and cells set but not
  /// submitted.
  std::string finalize();

private:
  friend class detail::cells_api<dense_global_order_writer>;

  detail::cell_sink& sink() { return *impl_; }
  detail::dense_global_order_writer_impl& impl() const;

  std::unique_ptr<detail::cell_sink> impl_;
};

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/write/dense_global_order_writer-inl.hpp"
#endif
