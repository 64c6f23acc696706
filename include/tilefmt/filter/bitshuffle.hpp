// tilefmt — the BITSHUFFLE filter (format_spec/tile.md, "Bitshuffle
// Filter"): bits transposed within blocks of 8 KiB, each part first split at
// a multiple of 8 bytes as TileDB does (tiledb/sm/filter/bitshuffle_filter.cc).
#pragma once

#include "tilefmt/filter/detail/parts.hpp"
#include "tilefmt/filter/detail/stage_kernels.hpp"

namespace tilefmt::filter {

struct bitshuffle {
  static constexpr format::FilterType filter_type = format::FilterType::BITSHUFFLE;

  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static bitshuffle from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype in) const { return in; }

  void forward(forward_io& io) const {
    const std::size_t s = format::datatype_size(io.type);
    auto out = scratch::sized(io.buf.data, io.in_data.total_bytes());
    io.buf.lengths.clear();
    const detail::shuffle_kernels kernels;
    std::size_t at = 0;
    // Parts that are not whole 8-byte groups of whole values are stored as
    // they are (the kernel copies them).
    auto one = [&](const std::byte* p, std::size_t n) {
      kernels.bitshuffle(p, n, s, out.data() + at);
      io.buf.lengths.push_back(static_cast<std::uint32_t>(n));
      at += n;
    };
    for (std::size_t i = 0; i < io.in_data.size(); ++i) {
      bytes_view part = io.in_data[i];
      if (part.size() > 0xffffffffu) throw std::length_error("tilefmt: part exceeds uint32");
      auto split = detail::bitshuffle_split(part.size());
      one(part.data(), split.head);
      if (split.tail) one(part.data() + split.head, split.tail);
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
    std::size_t at = 0;
    for (std::uint32_t len : io.buf.lengths) {
      kernels.bitunshuffle(io.data.data() + at, len, s, out.data() + at);
      at += len;
    }
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }
};

} // namespace tilefmt::filter
