// tilefmt — the POSITIVE_DELTA filter (format_spec/tile.md, "Positive Delta
// Encoding Filter"; tiledb/sm/filter/positive_delta_filter.cc): each window
// stores the differences between consecutive values, which must not
// decrease.
#pragma once

#include "tilefmt/filter/detail/stage_kernels.hpp"
#include "tilefmt/filter/detail/windows.hpp"

namespace tilefmt::filter {

/// `MaxWindow` is the default largest window in bytes (TileDB's is 1024).
template <std::uint32_t MaxWindow = 1024>
struct positive_delta {
  static constexpr format::FilterType filter_type = format::FilterType::POSITIVE_DELTA;
  std::uint32_t max_window_size = MaxWindow;

  format::Filter descriptor(std::uint32_t version) const {
    return format::Filter::make(filter_type, format::WindowOptions{max_window_size}, version);
  }
  static positive_delta from_filter(const format::Filter& f, std::uint32_t version) {
    return positive_delta{f.options_as<format::WindowOptions>(version).max_window_size};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }

  void forward(forward_io& io) const {
    if (!detail::with_window_value_type<1>(io.type, io.ctx.version, [&]<class T>() { forward_as<T>(io); })) {
      io.out_metadata.append(io.in_metadata);
      io.out_data.append(io.in_data);
    }
  }
  void reverse(reverse_io& io) const {
    if (!detail::with_window_value_type<1>(io.type, io.ctx.version, [&]<class T>() { reverse_as<T>(io); })) {
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
    thread_local format::PositiveDeltaMD<T> md;
    md.windows.value.clear();
    auto out = scratch::sized(io.buf.data, io.in_data.total_bytes());
    const detail::positive_delta_window_kernels<T> kernels;
    std::size_t at = 0;
    detail::for_each_window(io.in_data, max_window_size, sizeof(T), [&](const std::byte* in, std::size_t nbytes) {
      // TileDB records the window's first value even for a window shorter
      // than a value (reading past it); record 0 there instead.
      T first = nbytes >= sizeof(T) ? codec::load_le<T>(in) : T{0};
      md.windows.value.push_back({first, static_cast<std::uint32_t>(nbytes)});
      if (nbytes % sizeof(T) != 0) {
        std::memcpy(out.data() + at, in, nbytes);
      } else {
        const std::size_t n = nbytes / sizeof(T);
        std::size_t done = kernels.encode(in, n, out.data() + at);
        if (done != n)
          throw std::invalid_argument("tilefmt: positive delta filter: value " + std::to_string(done) +
                                      " of a window is smaller than the one before it (delta is not positive)");
      }
      at += nbytes;
    });
    io.out_metadata.push_back(write_metadata(io.buf.metadata, md));
    io.out_metadata.append(io.in_metadata);
    io.out_data.push_back(out.first(at));
  }

  template <class T>
  void reverse_as(reverse_io& io) const {
    thread_local format::PositiveDeltaMD<T> md;  // reused, as in forward_as
    std::size_t used = read_metadata(filter_type, io.metadata, md);
    detail::check_window_total(filter_type, md.windows.value, io.data.size(), "the data has");
    auto out = io.output(io.data.size());
    const detail::positive_delta_window_kernels<T> kernels;
    std::size_t at = 0;
    for (const auto& w : md.windows.value) {
      if (w.length % sizeof(T) != 0)
        std::memcpy(out.data() + at, io.data.data() + at, w.length);
      else
        kernels.decode(io.data.data() + at, w.length / sizeof(T), w.delta_offset, out.data() + at);
      at += w.length;
    }
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }
};

} // namespace tilefmt::filter
