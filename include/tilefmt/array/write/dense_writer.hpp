// tilefmt — writing a dense fragment: whole space tiles in storage order, or
// any subarray given row-major (what TileDB-Py writes). Part of the writer
// (array/write.hpp, which describes the files written).
//
// The class is a handle: what it writes with (the fragment builder, the
// filter pipelines, the tile grid) is behind it, in dense_writer-inl.hpp,
// which this header includes unless the program is built in compiled mode
// (codec/compiled.hpp).
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

/// How the cells of a dense fragment are given.
enum class cell_layout {
  /// Tile after tile in the schema's tile order, and inside each tile in its
  /// cell order (dense_writer::cell_coordinates(i) says which cell the
  /// i-th value is). The subarray must consist of whole space tiles.
  storage,
  /// Row-major over the subarray, as a C-ordered array of its shape (what
  /// TileDB-Py writes). Any subarray inside the domain: the parts of its
  /// space tiles outside it are stored as TileDB stores them (zero bytes,
  /// null, one zero value for var-size cells) and read back as fill values.
  row_major,
};

namespace detail {
class dense_writer_impl;
struct rewrite_access;
std::unique_ptr<cell_sink> make_dense_writer(const fs::path& root,
                                             std::vector<std::pair<std::int64_t, std::int64_t>> subarray,
                                             cell_layout layout, const write_options& opt, bool consolidation);
} // namespace detail

/// One dense fragment of an existing array, written over a subarray: [lo,
/// hi] per dimension, inclusive, in the order of the schema's dimensions.
/// Every attribute of the schema must be set before commit().
class dense_writer : public detail::cells_api<dense_writer> {
public:
  /// Writes into the array at `root`, with its latest schema. Throws
  /// io_error when `root` is not an array and std::invalid_argument for a
  /// subarray or schema this writer cannot write.
  dense_writer(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray,
               cell_layout layout = cell_layout::row_major, std::shared_ptr<storage::backend> storage = {})
      : dense_writer(root, std::move(subarray), layout, write_options{.storage = std::move(storage)}) {}
  /// The same with the storage and, for an encrypted array, the encryption
  /// key taken from `opt` (its other fields are for commit()).
  dense_writer(const fs::path& root, std::vector<std::pair<std::int64_t, std::int64_t>> subarray, cell_layout layout,
               const write_options& opt)
      : impl_(detail::make_dense_writer(root, std::move(subarray), layout, opt, false)) {}

  const format::ArraySchema& schema() const noexcept;
  const std::string& schema_name() const noexcept;
  std::uint64_t tile_num() const noexcept;
  std::uint64_t cells_per_tile() const noexcept;
  /// The cells set() takes: those of the subarray.
  std::uint64_t cell_num() const;

  /// The coordinates of the i-th cell as set() takes them (one per dimension).
  std::vector<std::int64_t> cell_coordinates(std::uint64_t i) const;

  /// Names the fragment now (from `opt`, as commit() would) and writes each
  /// attribute's data files while its tiles encode, every tile appended to
  /// its file (storage::backend::open_write) as soon as it is done, instead
  /// of holding the files until commit(): the encoded fragment is never in
  /// memory whole. The files are the same. Call before the first set();
  /// commit() then makes the files appear and keeps this name. Dropped
  /// before commit(), the fragment leaves nothing.
  ///
  /// Where the storage streams_writes() (a local disk), a dense writer
  /// streams without this call: its files are written in a provisional
  /// folder and moved at commit into the folder commit() names. stream()
  /// then only names the fragment early; on an object store it is what
  /// makes the files stream (S3 uploads them in parts as they fill).
  dense_writer& stream(const write_options& opt = {});

  /// Writes the fragment: data files, `__fragment_metadata.tdb`, then the
  /// commit marker. Returns the fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {});

private:
  friend class detail::cells_api<dense_writer>;
  friend struct detail::rewrite_access;

  explicit dense_writer(std::unique_ptr<detail::cell_sink> impl) : impl_(std::move(impl)) {}
  detail::cell_sink& sink() { return *impl_; }
  detail::dense_writer_impl& impl() const;

  std::unique_ptr<detail::cell_sink> impl_;
};

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/write/dense_writer-inl.hpp"
#endif
