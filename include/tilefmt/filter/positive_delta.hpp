// tilefmt — the POSITIVE_DELTA filter (format_spec/tile.md, "Positive Delta
// Encoding Filter"; tiledb/sm/filter/positive_delta_filter.cc): each window
// stores the differences between consecutive values, which must not
// decrease.
#pragma once

#include "tilefmt/filter/detail/parts.hpp"
#include "tilefmt/filter/detail/positive_delta_kernel.hpp"

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
    if (!with_value_type(io.type, io.ctx.version, [&]<class T>() { forward_as<T>(io); })) {
      io.out_metadata.append(io.in_metadata);
      io.out_data.append(io.in_data);
    }
  }
  void reverse(reverse_io& io) const {
    if (!with_value_type(io.type, io.ctx.version, [&]<class T>() { reverse_as<T>(io); })) {
      io.out_metadata = io.metadata;
      io.out_data = io.data;
    }
  }

private:
  // Integers of every width (BLOB, BOOL and GEOM as uint8), dates and times
  // as int64 from format version 20; other types pass through.
  template <class F>
  static bool with_value_type(format::Datatype t, std::uint32_t version, F&& f) {
    using D = format::Datatype;
    switch (t) {
    case D::INT8: f.template operator()<std::int8_t>(); return true;
    case D::UINT8: case D::BLOB: case D::BOOL: case D::GEOM_WKB: case D::GEOM_WKT:
      f.template operator()<std::uint8_t>(); return true;
    case D::INT16: f.template operator()<std::int16_t>(); return true;
    case D::UINT16: f.template operator()<std::uint16_t>(); return true;
    case D::INT32: f.template operator()<std::int32_t>(); return true;
    case D::UINT32: f.template operator()<std::uint32_t>(); return true;
    case D::INT64: f.template operator()<std::int64_t>(); return true;
    case D::UINT64: f.template operator()<std::uint64_t>(); return true;
    default:
      if ((format::is_datetime(t) || format::is_time(t)) && version >= 20) {
        f.template operator()<std::int64_t>();
        return true;
      }
      return false;
    }
  }

  template <class T>
  void forward_as(forward_io& io) const {
    thread_local format::PositiveDeltaMD<T> md;
    md.windows.value.clear();
    auto out = scratch::sized(io.buf.data, io.in_data.total_bytes());
    std::size_t at = 0;
    for (std::size_t i = 0; i < io.in_data.size(); ++i) {
      bytes_view part = io.in_data[i];
      auto plan = detail::plan_windows(part.size(), max_window_size, sizeof(T));
      for (std::size_t w = 0; w < plan.count; ++w) {
        const std::size_t begin = w * plan.window_size;
        const std::size_t nbytes = std::min(plan.window_size, part.size() - begin);
        const std::byte* in = part.data() + begin;
        // TileDB records the window's first value even for a window shorter
        // than a value (reading past it); record 0 there instead.
        T first = nbytes >= sizeof(T) ? codec::load_le<T>(in) : T{0};
        md.windows.value.push_back({first, static_cast<std::uint32_t>(nbytes)});
        if (nbytes % sizeof(T) != 0) {
          std::memcpy(out.data() + at, in, nbytes);
        } else {
          const std::size_t n = nbytes / sizeof(T);
          std::size_t done = detail::positive_delta_encode<T>(in, n, out.data() + at);
          if (done != n)
            throw std::invalid_argument("tilefmt: positive delta filter: value " + std::to_string(done) +
                                        " of a window is smaller than the one before it (delta is not positive)");
        }
        at += nbytes;
      }
    }
    io.out_metadata.push_back(write_metadata(io.buf.metadata, md));
    io.out_metadata.append(io.in_metadata);
    io.out_data.push_back(out.first(at));
  }

  template <class T>
  void reverse_as(reverse_io& io) const {
    thread_local format::PositiveDeltaMD<T> md;
    std::size_t used = read_metadata(filter_type, io.metadata, md);
    std::uint64_t sum = 0;
    for (const auto& w : md.windows.value) sum += w.length;
    if (sum != io.data.size())
      corrupt(filter_type, "windows add up to " + std::to_string(sum) + " bytes, the data has " +
                               std::to_string(io.data.size()));
    auto out = io.output(io.data.size());
    std::size_t at = 0;
    for (const auto& w : md.windows.value) {
      if (w.length % sizeof(T) != 0)
        std::memcpy(out.data() + at, io.data.data() + at, w.length);
      else
        detail::positive_delta_decode<T>(io.data.data() + at, w.length / sizeof(T), w.delta_offset, out.data() + at);
      at += w.length;
    }
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }
};

} // namespace tilefmt::filter
