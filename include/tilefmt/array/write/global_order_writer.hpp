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
//
// A handle, as dense_writer is: the implementation is in
// global_order_writer-inl.hpp.
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
#include "tilefmt/array/write/coordinates_api.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array {

namespace fs = std::filesystem;

namespace detail {
class global_order_writer_impl;
std::unique_ptr<coordinate_sink> make_global_order_writer(const fs::path& root, const write_options& opt,
                                                          std::shared_ptr<storage::backend> storage);
} // namespace detail

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
      : impl_(detail::make_global_order_writer(root, opt, std::move(storage))) {}
  // Dropped unfinished, the writer drops the data files written so far
  // (their temporary files removed) and the fragment's folder with them
  // (fragment_builder::drop_stream); no fragment appears.

  const format::ArraySchema& schema() const noexcept;
  /// Cells submitted so far.
  std::uint64_t cell_num() const noexcept;
  /// Data tiles written so far (each of the schema's capacity).
  std::size_t tile_num() const noexcept;
  /// Bytes of cells held between submissions: the partly filled tile of
  /// each field (at most capacity cells each).
  std::uint64_t buffered_bytes() const noexcept;

  // set_coords(): the next submission's coordinates (detail::coordinates_api).

  /// Checks the cells set since the last submission and writes every data
  /// tile they fill (see the class comment for what is refused).
  void submit();

  /// Writes the last, partly filled tile, commits the data files, then
  /// writes the fragment metadata and the commit marker. Returns the
  /// fragment's name. Cells set but not submitted are refused.
  std::string finalize();

private:
  friend class detail::cells_api<global_order_writer>;
  friend class detail::coordinates_api<global_order_writer>;

  detail::coordinate_sink& sink() { return *impl_; }
  detail::global_order_writer_impl& impl() const;

  std::unique_ptr<detail::coordinate_sink> impl_;
};

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/write/global_order_writer-inl.hpp"
#endif
