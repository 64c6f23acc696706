// tilefmt — writing a sparse fragment: cells in any order, sorted into
// TileDB's global order, cut into data tiles of the schema's capacity, with
// their R-tree. Part of the writer (array/write.hpp, which describes the
// files written). A handle, as dense_writer is: the implementation is in
// sparse_writer-inl.hpp.
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
class sparse_writer_impl;
struct rewrite_access;
std::unique_ptr<coordinate_sink> make_sparse_writer(const fs::path& root, const write_options& opt);
} // namespace detail

/// One sparse fragment of an existing array: cells with their coordinates,
/// in any order.
///
/// Every dimension's coordinates (set_coords) and every attribute's values
/// (set, set_var, one per cell, in the same order) must be given before
/// commit(), which sorts the cells into TileDB's global order (tile order
/// over the space tiles, then cell order; in the Hilbert cell order, the
/// Hilbert curve, then row-major coordinates; ties keep the order given), cuts
/// them into data tiles of the schema's capacity and writes the fragment
/// with its R-tree. Coordinates outside the domain, NaN coordinates and,
/// unless the schema allows duplicates, cells with equal coordinates are
/// refused as TileDB refuses them. (Where duplicates are allowed, TileDB
/// orders equal coordinates by an unstable sort whose result depends on its
/// thread count; byte-identical files are then not to be expected.)
class sparse_writer : public detail::coordinates_api<sparse_writer> {
public:
  /// Writes into the array at `root`, with its latest schema. Throws
  /// io_error when `root` is not an array and std::invalid_argument for a
  /// schema this writer cannot write.
  explicit sparse_writer(const fs::path& root, std::shared_ptr<storage::backend> storage = {})
      : sparse_writer(root, write_options{.storage = std::move(storage)}) {}
  /// The same with the storage and, for an encrypted array, the encryption
  /// key taken from `opt` (its other fields are for commit()).
  sparse_writer(const fs::path& root, const write_options& opt) : impl_(detail::make_sparse_writer(root, opt)) {}

  const format::ArraySchema& schema() const noexcept;
  const std::string& schema_name() const noexcept;
  /// Cells given so far (by the first set or set_coords call).
  std::uint64_t cell_num() const noexcept;

  /// Sorts the cells, writes the fragment: data files,
  /// `__fragment_metadata.tdb`, then the commit marker. Returns the
  /// fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {});

private:
  friend class detail::cells_api<sparse_writer>;
  friend class detail::coordinates_api<sparse_writer>;
  friend struct detail::rewrite_access;

  detail::coordinate_sink& sink() { return *impl_; }
  detail::sparse_writer_impl& impl() const;

  std::unique_ptr<detail::coordinate_sink> impl_;
};

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/write/sparse_writer-inl.hpp"
#endif
