// tilefmt — the filter model every filter stage implements.
//
// TileDB runs each chunk of a tile through the pipeline. A filter receives a
// list of metadata parts and a list of data parts and produces new lists
// (format_spec/tile.md). Filters that do not filter metadata put their own
// header first and pass the earlier metadata on unchanged; compression and
// encryption consume the earlier metadata into their data. Reverse runs the
// filters backwards: each reads its own header from the front of the
// metadata and hands the rest on.
//
// A stage is a small value type (its options) with:
//
//   static constexpr format::FilterType filter_type;
//   format::Filter descriptor(std::uint32_t version) const;    // what a schema stores
//   static Stage from_filter(const format::Filter&, std::uint32_t version);
//   format::Datatype output_type(format::Datatype input) const;  // the datatype chain
//   void forward(forward_io&) const;
//   void reverse(reverse_io&) const;
//
// and, optionally, for a reader that needs some of a chunk's bytes:
//
//   bool reverse_pieces(reverse_io&, std::span<const chunk_piece>, std::size_t chunk_size) const;
//
// which, as the pipeline's first filter, writes just those bytes where they
// go, or returns false having written nothing (detail::runner then reverses
// the whole chunk into a buffer and copies them).
//
// Stages never allocate per chunk on the hot path: each owns a `scratch`
// that the pipeline keeps across chunks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/filter_pipeline.hpp"
#include "tilefmt/format/version.hpp"

namespace tilefmt::filter {

using bytes_view = std::span<const std::byte>;


/// A stored digest did not match the data: the tile is corrupt.
class checksum_error : public format_error {
public:
  using format_error::format_error;
};

/// Facts about the tile being filtered that some stages need.
struct tile_context {
  /// Format version of the tile (the enclosing schema's or generic tile's).
  std::uint32_t version = format::written_version;
  /// Bytes per cell: RLE's value width; chunks never split a cell.
  std::size_t cell_size = 1;
  /// Checksum stages verify on reverse unless this is false.
  bool verify_checksums = true;
  /// AES-256-GCM key for encrypted tiles (32 bytes), or empty.
  std::span<const std::uint8_t> encryption_key{};

  // RLE and DICTIONARY on var-size STRING_ASCII / STRING_UTF8 data tiles
  // encode the cells and their offsets together (format_spec/filters/
  // dictionary_encoding.md). Whether a tile is stored that way follows the
  // v12/v13/v17 rule (`skip_offsets_filtering`, from rle.hpp or
  // dictionary.hpp): from format version 12 for ASCII with RLE, 13 for
  // ASCII with DICTIONARY, 17 for UTF8 with either. Such a var tile is one
  // chunk (`use_tile_chunking`), and its offsets tile is stored as 8 zero
  // bytes (no chunks): the reader gets the offsets back from the var tile.

  /// Writing a var-size data tile: its cell offsets (one per cell, relative
  /// to the tile, no trailing offset). Empty for every other tile.
  std::span<const std::uint64_t> offsets{};
  /// Reading a var-size data tile whose offsets tile was stored empty: the
  /// RLE or DICTIONARY stage replaces the vector's contents with the cell
  /// offsets it rebuilds. When the vector is not empty on entry, its size is
  /// the number of cells the tile must hold (from the fragment metadata),
  /// which bounds what a corrupt tile can make it allocate. Null for every
  /// other tile.
  std::vector<std::uint64_t>* rebuilt_offsets = nullptr;

  /// Reading: the most bytes a compression filter that is not the
  /// pipeline's first may decompress one chunk's parts to (the first one's
  /// output is the chunk, whose size is known). The parts' declared lengths
  /// are checked against it before anything is allocated. The array reader
  /// passes open_options::max_allocation, read_generic_tile max_tile_size.
  std::uint64_t max_part_size = std::uint64_t{4} << 30;

  /// Reading: the tile decodes straight into a result larger than a core's
  /// caches, which the caller hands back without reading it again: the
  /// filter that writes the final bytes may write them around the caches
  /// (non-temporal stores), saving the read of each line before its write.
  bool stream_destination = false;
};

/// A filter the stored pipeline names that this build cannot run.
class unsupported_filter : public format_error {
public:
  using format_error::format_error;
};

/// Per-stage storage reused from chunk to chunk.
struct scratch {
  std::vector<std::byte> data;
  std::vector<std::byte> metadata;
  std::vector<std::uint32_t> lengths; // part lengths, window tables, ...

  /// Resize `v` to exactly n bytes (growth only reallocates when needed).
  static std::span<std::byte> sized(std::vector<std::byte>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
    return {v.data(), n};
  }
};

/// A list of parts with a fixed small inline capacity (the common case has
/// one or two), spilling to the heap for more.
class part_list {
public:
  void clear() noexcept { n_ = 0; spill_.clear(); }
  void push_back(bytes_view p) {
    if (n_ < inline_.size()) {
      inline_[n_++] = p;
    } else {
      if (spill_.empty()) spill_.assign(inline_.begin(), inline_.end());
      spill_.push_back(p);
      ++n_;
    }
  }
  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  bytes_view operator[](std::size_t i) const noexcept { return n_ <= inline_.size() ? inline_[i] : spill_[i]; }
  std::size_t total_bytes() const noexcept {
    std::size_t t = 0;
    for (std::size_t i = 0; i < n_; ++i) t += (*this)[i].size();
    return t;
  }
  void append(const part_list& other) {
    for (std::size_t i = 0; i < other.size(); ++i) push_back(other[i]);
  }

private:
  std::array<bytes_view, 4> inline_{};
  std::vector<bytes_view> spill_;
  std::size_t n_ = 0;
};

/// What a stage sees when filtering forward (writing).
struct forward_io {
  const tile_context& ctx;
  format::Datatype type;   // this stage's input datatype
  const part_list& in_metadata;
  const part_list& in_data;
  part_list& out_metadata;
  part_list& out_data;
  scratch& buf;
};

/// What a stage sees when reversing (reading). `metadata` starts with this
/// stage's own header; `data` is its filtered output. The stage sets
/// `out_metadata` (usually what follows its header) and `out_data`, which it
/// writes into `output(n)`: the caller's destination when this is the first
/// filter of the pipeline and n is the chunk's size, else the stage's scratch.
struct reverse_io {
  const tile_context& ctx;
  format::Datatype type;
  bytes_view metadata;
  bytes_view data;
  bytes_view out_metadata;
  bytes_view out_data;
  scratch& buf;
  std::span<std::byte> destination; // empty unless this stage may write the final bytes

  std::span<std::byte> output(std::size_t n) {
    if (!destination.empty() && n == destination.size()) return destination;
    return scratch::sized(buf.data, n);
  }
  std::span<std::byte> metadata_output(std::size_t n) { return scratch::sized(buf.metadata, n); }
};

/// Bytes [begin, begin + size) of a chunk's unfiltered bytes, to be written
/// to `dest`.
struct chunk_piece {
  std::size_t begin = 0;
  std::size_t size = 0;
  std::byte* dest = nullptr;
};

/// Throws a format_error naming the filter; offsets are relative to the
/// chunk's metadata or data region.
[[noreturn]] inline void corrupt(format::FilterType f, const std::string& what, std::size_t offset = 0) {
  throw format_error(std::string(format::codec_enum_name(f)) + " filter: " + what, offset);
}

/// Decodes a declared metadata struct from the front of `md`; returns the
/// bytes it used.
template <class MD, class Ctx = codec::no_context>
std::size_t read_metadata(format::FilterType f, bytes_view md, MD& out, const Ctx& ctx = {}) {
  codec::reader r(md);
  try {
    // Stages keep `out` thread_local so that per-chunk window tables reuse
    // their capacity; gated fields would keep stale values, so such structs
    // start afresh.
    if constexpr (codec::has_gated_fields<MD>) out = MD{};
    codec::decode_into(r, out, ctx);
  } catch (format_error& e) {
    e.prepend_field(std::string(format::codec_enum_name(f)) + " filter metadata");
    throw;
  }
  return r.offset();
}

/// Encodes a declared metadata struct into `buf` and returns a view of it.
template <class MD, class Ctx = codec::no_context>
bytes_view write_metadata(std::vector<std::byte>& buf, const MD& md, const Ctx& ctx = {}) {
  auto out = scratch::sized(buf, codec::encoded_size(md, ctx));
  codec::encode_into(md, out, ctx);
  return out;
}

} // namespace tilefmt::filter
