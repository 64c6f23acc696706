// tilefmt — the BIT_WIDTH_REDUCTION filter (format_spec/tile.md, "Bit Width
// Reduction Filter"; tiledb/sm/filter/bit_width_reduction_filter.cc): each
// window of values is stored relative to its minimum in 8, 16 or 32 bits
// when that is narrower than the values.
#pragma once

#include <limits>

#include "tilefmt/filter/detail/stage_kernels.hpp"
#include "tilefmt/filter/detail/windows.hpp"

namespace tilefmt::filter {

/// `MaxWindow` is the default largest window in bytes (TileDB's is 256).
template <std::uint32_t MaxWindow = 256>
struct bit_width_reduction {
  static constexpr format::FilterType filter_type = format::FilterType::BIT_WIDTH_REDUCTION;
  std::uint32_t max_window_size = MaxWindow;

  format::Filter descriptor(std::uint32_t version) const {
    return format::Filter::make(filter_type, format::WindowOptions{max_window_size}, version);
  }
  static bit_width_reduction from_filter(const format::Filter& f, std::uint32_t version) {
    return bit_width_reduction{f.options_as<format::WindowOptions>(version).max_window_size};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }

  void forward(forward_io& io) const {
    if (!detail::with_window_value_type<2>(io.type, io.ctx.version, [&]<class T>() { forward_as<T>(io); })) {
      io.out_metadata.append(io.in_metadata);
      io.out_data.append(io.in_data);
    }
  }
  void reverse(reverse_io& io) const {
    if (!detail::with_window_value_type<2>(io.type, io.ctx.version, [&]<class T>() { reverse_as<T>(io); })) {
      io.out_metadata = io.metadata;
      io.out_data = io.data;
    }
  }

private:
  template <class T>
  void forward_as(forward_io& io) const {
    // The window table is reused chunk after chunk, one per thread (a stage
    // is shared by every thread decoding with its pipeline, so its methods
    // are const and keep no state of their own): allocating it per chunk cost
    // 2-3% of [bit_width_reduction, lz4] decoding (measured in bench/micro/bench_filters.cpp).
    thread_local format::BitWidthReductionMD<T> md;
    md.windows.value.clear();
    const std::size_t total = io.in_data.total_bytes();
    if (total > 0xffffffffu) throw std::length_error("tilefmt: chunk exceeds uint32");
    md.input_length = static_cast<std::uint32_t>(total);
    auto out = scratch::sized(io.buf.data, total);
    const detail::bit_width_window_kernels<T> kernels;
    std::size_t at = 0;
    detail::for_each_window(io.in_data, max_window_size, sizeof(T), [&](const std::byte* in, std::size_t nbytes) {
      detail::bit_width_stats<T> stats;
      at += kernels.reduce(in, nbytes, out.data() + at, stats);
      md.windows.value.push_back({stats.value_offset(), stats.bits, static_cast<std::uint32_t>(nbytes)});
    });
    io.out_metadata.push_back(write_metadata(io.buf.metadata, md));
    io.out_metadata.append(io.in_metadata);
    io.out_data.push_back(out.first(at));
  }

  template <class T>
  void reverse_as(reverse_io& io) const {
    thread_local format::BitWidthReductionMD<T> md;  // reused, as in forward_as
    std::size_t used = read_metadata(filter_type, io.metadata, md);
    // Stored values are at least 8 bits wide, so no chunk restores to more
    // than sizeof(T) times its data: a larger claim is corrupt, and is
    // caught before it is allocated.
    if (md.input_length / sizeof(T) > io.data.size())
      corrupt(filter_type, "the metadata says " + std::to_string(md.input_length) + " bytes, " +
                               std::to_string(io.data.size()) + " bytes of data cannot hold them");
    auto out = io.output(md.input_length);
    const detail::bit_width_window_kernels<T> kernels;
    std::size_t in_at = 0, out_at = 0;
    // The window lengths are checked against the output as the loop goes
    // (a separate pass over the table cost about 1.5% of the decode).
    const auto wrong_total = [&] {
      detail::check_window_total(filter_type, md.windows.value, md.input_length, "the metadata says");
      corrupt(filter_type, "window lengths do not match the metadata"); // not reached: the check throws
    };
    for (std::size_t i = 0; i < md.windows.value.size(); ++i) {
      const auto& w = md.windows.value[i];
      if (w.length > out.size() - out_at) wrong_total();
      const bool raw = w.bit_width >= 8 * sizeof(T) || w.length % sizeof(T) != 0;
      if (!raw && w.bit_width != 8 && w.bit_width != 16 && w.bit_width != 32)
        corrupt(filter_type, "window " + std::to_string(i) + " has bit width " + std::to_string(w.bit_width));
      const std::size_t stored = detail::bit_width_stored_bytes<T>(w.length, w.bit_width);
      if (stored > io.data.size() - in_at)
        corrupt(filter_type, "window " + std::to_string(i) + " needs " + std::to_string(stored) + " bytes, " +
                                 std::to_string(io.data.size() - in_at) + " left",
                in_at);
      kernels.restore(io.data.data() + in_at, w.length, w.value_offset, w.bit_width, out.data() + out_at);
      in_at += stored;
      out_at += w.length;
    }
    if (out_at != out.size()) wrong_total();
    if (in_at != io.data.size())
      corrupt(filter_type, std::to_string(io.data.size() - in_at) + " bytes of data left over", in_at);
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }
};

} // namespace tilefmt::filter
