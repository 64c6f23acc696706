// tilefmt — a filter pipeline known only at run time, built from a
// FilterPipeline read off disk. It holds the same stage types as pipeline<>
// in a variant and runs them through the same chunk runner: one
// implementation of every filter, two ways of choosing it.
//
//   filter::runtime_pipeline rp(attr.filters, attr.datatype, schema_version);
//   std::vector<std::byte> cells = rp.decode(tile_bytes, {.cell_size = 4});
//
// The members that run the stages are defined in runtime_pipeline-inl.hpp,
// which this header includes at its end unless TILEFMT_DECLARE_ONLY
// (codec/compiled.hpp): programs built against the compiled component do
// not instantiate every filter's kernels in each translation unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/filter/bit_width_reduction.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/bzip2.hpp"
#include "tilefmt/filter/checksum_md5.hpp"
#include "tilefmt/filter/checksum_sha256.hpp"
#include "tilefmt/filter/chunking.hpp"
#include "tilefmt/filter/delta.hpp"
#include "tilefmt/filter/detail/runner.hpp"
#include "tilefmt/filter/detail/var_strings.hpp"
#include "tilefmt/filter/dictionary.hpp"
#include "tilefmt/filter/double_delta.hpp"
#include "tilefmt/filter/encryption_aes256gcm.hpp"
#include "tilefmt/filter/float_scale.hpp"
#include "tilefmt/filter/gzip.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/none.hpp"
#include "tilefmt/filter/positive_delta.hpp"
#include "tilefmt/filter/rle.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/filter/webp.hpp"
#include "tilefmt/filter/xor.hpp"
#include "tilefmt/filter/zstd.hpp"
#include "tilefmt/format/filter_pipeline.hpp"
#include "tilefmt/format/tile.hpp"

namespace tilefmt::filter {

/// Every filter stage a stored pipeline can name.
using any_stage = std::variant<none, gzip<>, zstd<>, lz4<>, bzip2<>, checksum_md5, checksum_sha256, byteshuffle,
                               bitshuffle, bit_width_reduction<>, positive_delta<>, rle<>, double_delta<>, delta<>,
                               dictionary<>, xor_filter, float_scale<>, webp<>, encryption_aes256gcm>;

namespace detail {

template <class Variant, std::size_t I = 0>
any_stage stage_from_filter(const format::Filter& f, std::uint32_t version) {
  if constexpr (I == std::variant_size_v<Variant>) {
    throw unsupported_filter("unsupported filter: " + std::string(format::codec_enum_name(f.type)), 0);
  } else {
    using S = std::variant_alternative_t<I, Variant>;
    if (S::filter_type == f.type) return S::from_filter(f, version);
    return stage_from_filter<Variant, I + 1>(f, version);
  }
}

struct vector_stages {
  const std::vector<any_stage>& stages;
  std::size_t size() const noexcept { return stages.size(); }
  template <class Fn>
  void visit(std::size_t i, Fn&& fn) const {
    std::visit(fn, stages[i]);
  }
};

} // namespace detail

class runtime_pipeline {
public:
  runtime_pipeline() = default;

  /// `type` is the datatype entering the first filter (the field's type;
  /// UINT64 for offsets, UINT8 for validity, CHAR for generic tiles);
  /// `version` the format version of the object that stores the pipeline.
  runtime_pipeline(const format::FilterPipeline& p, format::Datatype type, std::uint32_t version)
      : stages_(make_stages(p, version)), chunking_(p.max_chunk_size != 0), type_(type), version_(version) {}

  /// Appends a stage that is not stored in the schema (TileDB appends the
  /// encryption filter to the pipeline of every tile of an encrypted array).
  void append(any_stage s) { stages_.push_back(std::move(s)); }

  const std::vector<any_stage>& stages() const noexcept { return stages_; }
  bool chunking() const noexcept { return chunking_; }
  format::Datatype datatype() const noexcept { return type_; }
  std::uint32_t version() const noexcept { return version_; }

  /// The pipeline as it would be stored.
  format::FilterPipeline descriptor() const;

  tile_context context(std::size_t cell_size) const {
    tile_context ctx;
    ctx.version = version_;
    ctx.cell_size = cell_size;
    return ctx;
  }

  /// Decodes a parsed tile into `out`, which must be its unfiltered size.
  void decode_into(const format::TileView& tile, std::span<std::byte> out, const tile_context& ctx) const;

  /// Decodes stored chunks one at a time as they come (a tile read a
  /// piece at a time), keeping the filters' scratch buffers from one chunk
  /// to the next. Holds the pipeline and the context by reference.
  class chunk_decoder {
  public:
    chunk_decoder(const runtime_pipeline& p, const tile_context& ctx) : seq_{p.stages_}, run_(seq_), ctx_(ctx) {
      run_.set_input_type(p.type_);
    }
    chunk_decoder(const chunk_decoder&) = delete;
    chunk_decoder& operator=(const chunk_decoder&) = delete;

    /// One chunk's metadata and data into `dest`, exactly its original length.
    void decode(bytes_view metadata, bytes_view data, std::span<std::byte> dest);

    /// Of one chunk of `size` unfiltered bytes, only the bytes `pieces`
    /// name, each to its destination (detail::runner::reverse_chunk_pieces).
    void decode_pieces(bytes_view metadata, bytes_view data, std::size_t size, std::span<const chunk_piece> pieces);

  private:
    detail::vector_stages seq_;
    detail::runner<detail::vector_stages> run_;
    const tile_context& ctx_;
  };

  /// Decodes serialized tile bytes (chunk count and chunks).
  std::vector<std::byte> decode(bytes_view tile_bytes, const tile_context& ctx) const;

  /// Filters one fixed-size tile (also offsets, validity, generic tiles).
  /// Chunked unless chunking is off or the pipeline has WEBP (one image per
  /// tile), as TileDB's writer decides.
  std::vector<std::byte> encode(bytes_view data, const tile_context& ctx) const;
  /// The same into `out`, whose capacity is reused.
  void encode_into(bytes_view data, const tile_context& ctx, std::vector<std::byte>& out) const;

  /// A tile of a pipeline without filters, as encode() stores it, given to
  /// `append(bytes_view)` in pieces: the chunk count and each chunk's
  /// header, then the chunk's own bytes, those of `data` (not copied): a
  /// writer streaming the tile to a file makes no encoded copy of it.
  template <class Append>
  void unfiltered_pieces(bytes_view data, const tile_context& ctx, Append&& append) const {
    if (!stages_.empty()) throw std::logic_error("tilefmt: unfiltered_pieces of a pipeline with filters");
    const auto chunks = fixed_chunks(data.size(), ctx.cell_size, tile_chunking(false));
    std::byte head[8 + 12];
    codec::store_le<std::uint64_t>(head, chunks.size());
    std::size_t at = 8;
    for (const auto& c : chunks) {
      if (c.size > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("tilefmt: filtered chunk exceeds uint32");
      codec::store_le<std::uint32_t>(head + at, static_cast<std::uint32_t>(c.size));      // original length
      codec::store_le<std::uint32_t>(head + at + 4, static_cast<std::uint32_t>(c.size));  // filtered: the same
      codec::store_le<std::uint32_t>(head + at + 8, 0);                                   // no metadata
      append(bytes_view(head, at + 12));
      append(data.subspan(c.offset, c.size));
      at = 0;
    }
    if (chunks.empty()) append(bytes_view(head, 8));
  }

  /// Filters one var-size data tile whose cells start at `offsets` (one per
  /// cell, relative to the tile, no trailing offset). The offsets go to the
  /// stages through ctx.offsets (RLE and DICTIONARY encode them with the
  /// strings), and the tile is chunked as TileDB chunks var tiles: cells
  /// kept whole, and no chunking at all where RLE or DICTIONARY take the
  /// whole string tile (use_tile_chunking, with this pipeline's version).
  std::vector<std::byte> encode_var(bytes_view data, std::span<const std::uint64_t> offsets, const tile_context& ctx) const;

private:
  /// The stages `p` names, each made from its stored options.
  static std::vector<any_stage> make_stages(const format::FilterPipeline& p, std::uint32_t version);
  /// TileDB's use_tile_chunking for this pipeline; it looks only at the
  /// filter types, so the options are not serialized to ask.
  bool tile_chunking(bool is_var) const;
  std::vector<std::byte> encode_chunks(bytes_view data, const tile_context& ctx,
                                       const std::vector<chunk_range>& chunks) const;

  std::vector<any_stage> stages_;
  bool chunking_ = true;
  format::Datatype type_ = format::Datatype::UINT8;
  std::uint32_t version_ = format::written_version;
};

} // namespace tilefmt::filter

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/filter/runtime_pipeline-inl.hpp"
#endif
