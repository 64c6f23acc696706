// tilefmt — the RLE filter (tiledb/sm/compressors/rle_compressor.cc), a
// compression filter (compressor byte 4) with two encodings:
//
// Fixed values, framed like the other compressors (detail/compression.hpp):
// the value width W is the tile's cell size (tile_context::cell_size: 12
// bytes for 3 x int32 cells, 1 for var data, 8 for offsets), not the
// datatype's. Each run is written as
//   W value bytes | u8 length >> 8 | u8 length & 255
// (the length big-endian, 1 to 65535; longer runs are split).
//
// Var-size STRING_ASCII / STRING_UTF8 data tiles (detail/var_strings.hpp):
// the cells and their offsets together, behind format::StringRLEMD. Each
// run of equal strings is
//   run length (big-endian, run_length_width bytes) | string length
//   (big-endian, string_length_width bytes) | string bytes
// with both widths the smallest of 1, 2, 4, 8 bytes that hold the longest
// run and the longest string. As TileDB measures it, the longest string is
// taken over the first string and the string of every run but the last.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "tilefmt/filter/detail/compression.hpp"
#include "tilefmt/filter/detail/var_strings.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

namespace detail {

struct rle_codec {
  std::size_t width; // the value width W

  std::size_t bound(std::size_t n) const { return n + n / width * 2; }
  std::size_t max_decompressed(std::size_t compressed) const { return compressed / (width + 2) * 65535 * width; }

  std::size_t compress(bytes_view in, std::span<std::byte> out) const {
    if (in.size() < width) {
      // TileDB writes nothing for a part shorter than one value, with no
      // error, and cannot get it back.
      if (in.empty()) return 0;
      throw std::invalid_argument("tilefmt: RLE cannot compress a part of " + std::to_string(in.size()) +
                                  " bytes, shorter than its " + std::to_string(width) + "-byte values");
    }
    if (in.size() % width != 0)
      throw std::invalid_argument("tilefmt: RLE input of " + std::to_string(in.size()) +
                                  " bytes is not a whole number of " + std::to_string(width) + "-byte values");
    const std::size_t n = in.size() / width;
    std::byte* o = out.data();
    const std::byte* prev = in.data();
    std::size_t run = 1;
    auto emit = [&]() {
      std::memcpy(o, prev, width);
      o[width] = static_cast<std::byte>(run >> 8);
      o[width + 1] = static_cast<std::byte>(run & 0xff);
      o += width + 2;
    };
    for (std::size_t i = 1; i < n; ++i) {
      const std::byte* cur = in.data() + i * width;
      if (run < 65535 && std::memcmp(cur, prev, width) == 0) {
        ++run;
      } else {
        emit();
        run = 1;
      }
      prev = cur;
    }
    emit();
    return static_cast<std::size_t>(o - out.data());
  }

  void decompress(bytes_view in, std::span<std::byte> out) const {
    const std::size_t run_size = width + 2;
    if (in.size() % run_size != 0)
      corrupt(format::FilterType::RLE, "part of " + std::to_string(in.size()) + " bytes is not a whole number of " +
                                           std::to_string(run_size) + "-byte runs");
    std::size_t at = 0;
    for (std::size_t r = 0; r < in.size(); r += run_size) {
      const std::byte* value = in.data() + r;
      std::size_t run = (std::to_integer<std::size_t>(value[width]) << 8) | std::to_integer<std::size_t>(value[width + 1]);
      if (run > (out.size() - at) / width)
        corrupt(format::FilterType::RLE, "runs decode past the part's " + std::to_string(out.size()) + " bytes", r);
      if (run == 0) continue; // TileDB accepts empty runs (and never writes them)
      if (width == 1) {
        std::memset(out.data() + at, std::to_integer<int>(value[0]), run);
        at += run;
      } else {
        for (std::size_t j = 0; j < run; ++j, at += width) std::memcpy(out.data() + at, value, width);
      }
    }
    if (at != out.size())
      corrupt(format::FilterType::RLE, "runs decode to " + std::to_string(at) + " bytes, " +
                                           std::to_string(out.size()) + " expected");
  }
};

inline void rle_strings_forward(forward_io& io) {
  constexpr auto type = format::FilterType::RLE;
  const string_cells cells = var_string_input(io, type);
  const std::size_t n = cells.size();

  // TileDB's calculate_compression_params, measure for measure.
  std::uint64_t longest_run = 1, run = 1, string_bytes = 0, runs = 1;
  std::uint64_t longest_string = cells[0].size();
  bytes_view prev = cells[0];
  for (std::size_t i = 1; i < n; ++i) {
    bytes_view cur = cells[i];
    if (string_cells::equal(cur, prev)) {
      ++run;
    } else {
      longest_run = std::max(longest_run, run);
      longest_string = std::max<std::uint64_t>(longest_string, prev.size());
      string_bytes += prev.size();
      ++runs;
      run = 1;
      prev = cur;
    }
  }
  string_bytes += prev.size();
  longest_run = std::max(longest_run, run);
  const std::uint8_t run_width = byte_width_for(longest_run);
  const std::uint8_t length_width = byte_width_for(longest_string);
  // The last run's string is not measured: when it is longer than the
  // width allows, TileDB stores a truncated length and cannot read the
  // tile back. Refuse instead.
  if (byte_width_for(prev.size()) > length_width)
    throw std::invalid_argument("tilefmt: RLE on var strings: the last run's string (" + std::to_string(prev.size()) +
                                " bytes) does not fit the string length width TileDB computes (" +
                                std::to_string(length_width) + " bytes)");

  const std::size_t out_len = static_cast<std::size_t>(runs * (run_width + length_width) + string_bytes);
  if (out_len > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("tilefmt: RLE output exceeds uint32");
  auto out = scratch::sized(io.buf.data, out_len);
  std::byte* o = out.data();
  auto emit = [&](bytes_view s, std::uint64_t count) {
    store_be(o, count, run_width);
    store_be(o + run_width, s.size(), length_width);
    o += run_width + length_width;
    if (!s.empty()) std::memcpy(o, s.data(), s.size());
    o += s.size();
  };
  prev = cells[0];
  run = 1;
  for (std::size_t i = 1; i < n; ++i) {
    bytes_view cur = cells[i];
    if (string_cells::equal(cur, prev)) {
      ++run;
    } else {
      emit(prev, run);
      prev = cur;
      run = 1;
    }
  }
  emit(prev, run);

  format::StringRLEMD md{var_string_header(cells, out_len), run_width, length_width};
  io.out_metadata.push_back(write_metadata(io.buf.metadata, md));
  io.out_data.push_back(out);
}

inline void rle_strings_reverse(reverse_io& io) {
  constexpr auto type = format::FilterType::RLE;
  format::StringRLEMD md;
  const std::size_t used = read_metadata(type, io.metadata, md);
  if (!valid_byte_width(md.run_length_width) || !valid_byte_width(md.string_length_width))
    corrupt(type, "run and string length widths " + std::to_string(md.run_length_width) + ", " +
                      std::to_string(md.string_length_width) + " are not 1, 2, 4 or 8 bytes");
  string_output dest = var_string_output(io, type, md.strings);
  const std::size_t head = md.run_length_width + md.string_length_width;
  const bytes_view in = io.data;
  std::size_t at = 0, out_at = 0;
  while (at < in.size()) {
    if (in.size() - at < head) corrupt(type, "truncated run header", at);
    const std::uint64_t run = load_be(in.data() + at, md.run_length_width);
    const std::uint64_t len = load_be(in.data() + at + md.run_length_width, md.string_length_width);
    at += head;
    if (len > in.size() - at) corrupt(type, "string of " + std::to_string(len) + " bytes runs past the data", at);
    if (run > dest.cells - dest.offsets.size())
      corrupt(type, "runs hold more than the " + std::to_string(dest.cells) + " cells declared", at);
    if (len != 0 && run > (dest.data.size() - out_at) / len)
      corrupt(type, "strings decode past the " + std::to_string(dest.data.size()) + " bytes declared", at);
    for (std::uint64_t j = 0; j < run; ++j) {
      dest.offsets.push_back(out_at);
      if (len != 0) std::memcpy(dest.data.data() + out_at, in.data() + at, static_cast<std::size_t>(len));
      out_at += static_cast<std::size_t>(len);
    }
    at += static_cast<std::size_t>(len);
  }
  if (dest.offsets.size() != dest.cells || out_at != dest.data.size())
    corrupt(type, "strings decode to " + std::to_string(dest.offsets.size()) + " cells of " + std::to_string(out_at) +
                      " bytes, the header declares " + std::to_string(dest.cells) + " of " +
                      std::to_string(dest.data.size()));
  io.out_metadata = io.metadata.subspan(used);
  io.out_data = dest.data;
}

} // namespace detail

/// RLE; TileDB stores a level but ignores it.
template <int Level = -1>
struct rle {
  static constexpr format::FilterType filter_type = format::FilterType::RLE;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::compression_descriptor(filter_type, format::Compressor::RLE, level, version);
  }
  static rle from_filter(const format::Filter& f, std::uint32_t version) {
    return rle{detail::compression_level(f, format::Compressor::RLE, version)};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }

  void forward(forward_io& io) const {
    if (detail::var_strings_forward(io, filter_type)) return detail::rle_strings_forward(io);
    detail::compress_forward_with(io, detail::rle_codec{value_width(io.ctx)});
  }
  void reverse(reverse_io& io) const {
    if (detail::var_strings_reverse(io)) return detail::rle_strings_reverse(io);
    detail::compress_reverse_with(io, filter_type, detail::rle_codec{value_width(io.ctx)});
  }

private:
  static std::size_t value_width(const tile_context& ctx) {
    if (ctx.cell_size == 0) throw std::invalid_argument("tilefmt: RLE needs a cell size");
    return ctx.cell_size;
  }
};

} // namespace tilefmt::filter
