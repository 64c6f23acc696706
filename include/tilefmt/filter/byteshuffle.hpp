// tilefmt — the BYTESHUFFLE filter (format_spec/tile.md, "Byteshuffle
// Filter"): each part's bytes regrouped by position within a value, so that
// the compressor after it sees long runs of similar bytes.
#pragma once

#include "tilefmt/filter/detail/parts.hpp"
#include "tilefmt/filter/detail/stage_kernels.hpp"

namespace tilefmt::filter {

struct byteshuffle {
  static constexpr format::FilterType filter_type = format::FilterType::BYTESHUFFLE;

  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static byteshuffle from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype in) const { return in; }

  void forward(forward_io& io) const {
    const std::size_t s = format::datatype_size(io.type);
    auto out = scratch::sized(io.buf.data, io.in_data.total_bytes());
    io.buf.lengths.clear();
    const detail::shuffle_kernels kernels;
    std::size_t at = 0;
    for (std::size_t i = 0; i < io.in_data.size(); ++i) {
      bytes_view part = io.in_data[i];
      if (part.size() > 0xffffffffu) throw std::length_error("tilefmt: part exceeds uint32");
      kernels.byteshuffle(part.data(), part.size(), s, out.data() + at);
      io.buf.lengths.push_back(static_cast<std::uint32_t>(part.size()));
      at += part.size();
    }
    io.out_metadata.push_back(detail::write_part_lengths(io.buf, io.buf.lengths));
    io.out_metadata.append(io.in_metadata);
    io.out_data.push_back(out);
  }

  void reverse(reverse_io& io) const {
    const std::size_t s = format::datatype_size(io.type);
    std::size_t used = detail::read_part_lengths(filter_type, io.metadata, io.data.size(), io.buf.lengths);
    auto out = io.output(io.data.size());
    const detail::shuffle_kernels kernels;
    const bool stream = io.ctx.stream_destination && out.data() == io.destination.data();
    std::size_t at = 0;
    for (std::uint32_t len : io.buf.lengths) {
      if (stream) kernels.byteunshuffle_stream(io.data.data() + at, len, s, out.data() + at);
      else kernels.byteunshuffle(io.data.data() + at, len, s, out.data() + at);
      at += len;
    }
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }

  /// The elements `pieces` name, each unshuffled straight to its place:
  /// where a reader needs part of a chunk, neither the rest of it nor a
  /// buffer for it. Only for a chunk stored as one part of `chunk_size`
  /// bytes of whole elements (what this filter writes as the first of a
  /// pipeline) with pieces of whole elements; false otherwise, and nothing
  /// written.
  bool reverse_pieces(reverse_io& io, std::span<const chunk_piece> pieces, std::size_t chunk_size) const {
    const std::size_t s = format::datatype_size(io.type);
    const std::size_t used = detail::read_part_lengths(filter_type, io.metadata, io.data.size(), io.buf.lengths);
    if (s == 0 || io.buf.lengths.size() != 1 || io.data.size() != chunk_size || chunk_size % s != 0) return false;
    for (const auto& p : pieces)
      if (p.begin % s != 0 || p.size % s != 0 || p.begin > chunk_size || p.size > chunk_size - p.begin) return false;
    const detail::shuffle_kernels kernels;
    for (const auto& p : pieces) kernels.byteunshuffle_elements(io.data.data(), chunk_size, s, p.begin / s, p.size / s, p.dest);
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = {};
    return true;
  }
};

} // namespace tilefmt::filter
