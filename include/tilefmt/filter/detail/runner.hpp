// tilefmt — runs one chunk forward or backward through a sequence of stages.
// Shared by the compile-time pipeline<> (stages in a tuple) and the runtime
// pipeline (stages in a vector of variants): one implementation, two ways of
// holding the stages.
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/filter/chunking.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/tile.hpp"

namespace tilefmt::filter::detail {

/// `Stages` provides size(), visit(i, f) calling f(stage i), and
/// filter_type(i).
template <class Stages>
class runner {
public:
  explicit runner(const Stages& stages) : stages_(stages), scratch_(stages.size()), md_(stages.size() + 1), data_(stages.size() + 1) {}

  /// The datatype entering each stage, from the field's datatype.
  void set_input_type(format::Datatype t) {
    types_.assign(stages_.size() + 1, t);
    for (std::size_t i = 0; i < stages_.size(); ++i)
      stages_.visit(i, [&](const auto& s) { types_[i + 1] = s.output_type(types_[i]); });
  }

  /// Filters `chunk` and appends the serialized chunk (header, metadata,
  /// data) to `out`.
  void forward_chunk(const tile_context& ctx, bytes_view chunk, std::vector<std::byte>& out) {
    const std::size_t n = stages_.size();
    md_[0].clear();
    data_[0].clear();
    data_[0].push_back(chunk);
    for (std::size_t i = 0; i < n; ++i) {
      md_[i + 1].clear();
      data_[i + 1].clear();
      forward_io io{ctx, types_[i], md_[i], data_[i], md_[i + 1], data_[i + 1], scratch_[i]};
      stages_.visit(i, [&](const auto& s) { s.forward(io); });
    }
    const part_list& md = md_[n];
    const part_list& data = data_[n];
    const std::size_t md_len = md.total_bytes(), data_len = data.total_bytes();
    if (md_len > max32 || data_len > max32 || chunk.size() > max32)
      throw std::length_error("tilefmt: filtered chunk exceeds uint32");
    std::size_t at = out.size();
    out.resize(at + 12 + md_len + data_len);
    std::byte* p = out.data() + at;
    codec::store_le<std::uint32_t>(p, static_cast<std::uint32_t>(chunk.size()));
    codec::store_le<std::uint32_t>(p + 4, static_cast<std::uint32_t>(data_len));
    codec::store_le<std::uint32_t>(p + 8, static_cast<std::uint32_t>(md_len));
    p += 12;
    for (std::size_t k = 0; k < md.size(); ++k) p = copy(p, md[k]);
    for (std::size_t k = 0; k < data.size(); ++k) p = copy(p, data[k]);
  }

  /// Reverses one stored chunk into `dest` (exactly its original length).
  void reverse_chunk(const tile_context& ctx, bytes_view metadata, bytes_view data, std::span<std::byte> dest) {
    if (stages_.size() == 0) {
      unfiltered(metadata, data, dest.size());
      copy(dest.data(), data);
      return;
    }
    reverse_after_first(ctx, metadata, data);
    reverse_first(ctx, metadata, data, dest);
  }

  /// Reverses one stored chunk of `size` unfiltered bytes, writing only
  /// the bytes `pieces` name (each within the chunk) to their destinations:
  /// the first filter writes them there itself where it can (a byte
  /// shuffle); otherwise the chunk is reversed whole into a buffer kept
  /// from chunk to chunk and they are copied from it.
  void reverse_chunk_pieces(const tile_context& ctx, bytes_view metadata, bytes_view data, std::size_t size,
                            std::span<const chunk_piece> pieces) {
    for (const auto& p : pieces)
      if (p.begin > size || p.size > size - p.begin) throw std::out_of_range("tilefmt: a piece lies outside its chunk");
    if (stages_.size() == 0) {
      unfiltered(metadata, data, size);
    } else {
      reverse_after_first(ctx, metadata, data);
      bool done = false;
      reverse_io io{ctx, types_[0], metadata, data, {}, {}, scratch_[0], {}};
      stages_.visit(0, [&](const auto& s) {
        if constexpr (requires { s.reverse_pieces(io, pieces, size); }) done = s.reverse_pieces(io, pieces, size);
      });
      if (done) {
        left_over(io.out_metadata);
        return;
      }
      whole_.resize(size);
      reverse_first(ctx, metadata, data, whole_);
      data = whole_;
    }
    for (const auto& p : pieces) copy(p.dest, data.subspan(p.begin, p.size));
  }

private:
  // An unfiltered chunk (a pipeline without filters) of `size` bytes.
  static void unfiltered(bytes_view metadata, bytes_view data, std::size_t size) {
    if (!metadata.empty()) throw format_error("chunk has metadata but the pipeline has no filters", 0);
    if (data.size() != size)
      throw format_error("chunk holds " + std::to_string(data.size()) + " bytes, its header says " + std::to_string(size),
                         0);
  }

  // Every stage but the first, last to second; `metadata` and `data` become
  // what the first one reverses.
  void reverse_after_first(const tile_context& ctx, bytes_view& metadata, bytes_view& data) {
    for (std::size_t i = stages_.size(); i-- > 1;) {
      reverse_io io{ctx, types_[i], metadata, data, {}, {}, scratch_[i], {}};
      stages_.visit(i, [&](const auto& s) { s.reverse(io); });
      metadata = io.out_metadata;
      data = io.out_data;
    }
  }

  // The first stage, into `dest` (exactly the chunk's original length).
  void reverse_first(const tile_context& ctx, bytes_view metadata, bytes_view data, std::span<std::byte> dest) {
    reverse_io io{ctx, types_[0], metadata, data, {}, {}, scratch_[0], dest};
    stages_.visit(0, [&](const auto& s) { s.reverse(io); });
    left_over(io.out_metadata);
    if (io.out_data.size() != dest.size())
      throw format_error("chunk decodes to " + std::to_string(io.out_data.size()) + " bytes, its header says " +
                             std::to_string(dest.size()),
                         0);
    if (io.out_data.data() != dest.data()) copy(dest.data(), io.out_data);
  }

  static void left_over(bytes_view metadata) {
    if (!metadata.empty())
      throw format_error(std::to_string(metadata.size()) + " bytes of chunk metadata left over after the first filter", 0);
  }

  static constexpr std::size_t max32 = std::numeric_limits<std::uint32_t>::max();
  static std::byte* copy(std::byte* p, bytes_view v) {
    if (!v.empty()) std::memcpy(p, v.data(), v.size());
    return p + v.size();
  }

  const Stages& stages_;
  std::vector<scratch> scratch_;
  std::vector<part_list> md_, data_;
  std::vector<format::Datatype> types_;
  std::vector<std::byte> whole_;  // reverse_chunk_pieces' chunk, where the first filter cannot write pieces
};

/// Serializes a whole tile into `out` (its contents replaced, its capacity
/// kept: a writer encoding tile after tile reuses one buffer instead of
/// allocating and first touching a fresh one per tile): chunk count, then
/// each chunk filtered.
template <class Stages>
void encode_tile_into(runner<Stages>& run, const tile_context& ctx, bytes_view tile,
                      const std::vector<chunk_range>& chunks, std::vector<std::byte>& out) {
  out.resize(8);
  out.reserve(tile.size() + 64 + chunks.size() * 64);
  codec::store_le<std::uint64_t>(out.data(), chunks.size());
  for (const auto& c : chunks) run.forward_chunk(ctx, tile.subspan(c.offset, c.size), out);
}

/// The same into a new buffer.
template <class Stages>
std::vector<std::byte> encode_tile(runner<Stages>& run, const tile_context& ctx, bytes_view tile,
                                   const std::vector<chunk_range>& chunks) {
  std::vector<std::byte> out;
  encode_tile_into(run, ctx, tile, chunks, out);
  return out;
}

/// Decodes a serialized tile into `dest`, whose size must equal the sum of
/// the chunks' original lengths. Errors name the chunk.
template <class Stages>
void decode_tile(runner<Stages>& run, const tile_context& ctx, const format::TileView& tile, std::span<std::byte> dest) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < tile.chunks.size(); ++i) {
    const auto& c = tile.chunks[i];
    if (c.original_length > dest.size() - at)
      throw format_error("chunk " + std::to_string(i) + " decodes past the tile's size (" +
                             std::to_string(dest.size()) + " bytes)",
                         0);
    try {
      run.reverse_chunk(ctx, c.metadata.bytes(), c.data.bytes(), dest.subspan(at, c.original_length));
    } catch (format_error& e) {
      e.prepend_field("chunk " + std::to_string(i));
      throw;
    }
    at += c.original_length;
  }
  if (at != dest.size())
    throw format_error("chunks hold " + std::to_string(at) + " bytes, the tile " + std::to_string(dest.size()), 0);
}

/// The unfiltered size of a serialized tile: the sum of its chunks'
/// original lengths.
inline std::size_t unfiltered_size(const format::TileView& tile) {
  std::size_t total = 0;
  for (const auto& c : tile.chunks) total += c.original_length;
  return total;
}

} // namespace tilefmt::filter::detail
