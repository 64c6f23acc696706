// tilefmt — the BIT_WIDTH_REDUCTION filter (format_spec/tile.md, "Bit Width
// Reduction Filter"; tiledb/sm/filter/bit_width_reduction_filter.cc): each
// window of values is stored relative to its minimum in 8, 16 or 32 bits
// when that is narrower than the values.
#pragma once

#include <limits>

#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"
#include "tilefmt/filter/detail/parts.hpp"

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
    if (!with_value_type(io.type, io.ctx.version, [&]<class T>() { forward_as<T>(io); })) pass_through(io);
  }
  void reverse(reverse_io& io) const {
    if (!with_value_type(io.type, io.ctx.version, [&]<class T>() { reverse_as<T>(io); })) {
      io.out_metadata = io.metadata;
      io.out_data = io.data;
    }
  }

private:
  // Active for 16- to 64-bit integers, and for dates and times (as int64)
  // from format version 20; every other type passes through untouched.
  template <class F>
  static bool with_value_type(format::Datatype t, std::uint32_t version, F&& f) {
    using D = format::Datatype;
    switch (t) {
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

  static void pass_through(forward_io& io) {
    io.out_metadata.append(io.in_metadata);
    io.out_data.append(io.in_data);
  }

  template <class T>
  void forward_as(forward_io& io) const {
    thread_local format::BitWidthReductionMD<T> md;
    md.windows.value.clear();
    const std::size_t total = io.in_data.total_bytes();
    if (total > 0xffffffffu) throw std::length_error("tilefmt: chunk exceeds uint32");
    md.input_length = static_cast<std::uint32_t>(total);
    auto out = scratch::sized(io.buf.data, total);
    std::size_t at = 0;
    for (std::size_t i = 0; i < io.in_data.size(); ++i) {
      bytes_view part = io.in_data[i];
      auto plan = detail::plan_windows(part.size(), max_window_size, sizeof(T));
      for (std::size_t w = 0; w < plan.count; ++w) {
        const std::size_t begin = w * plan.window_size;
        const std::size_t nbytes = std::min(plan.window_size, part.size() - begin);
        const std::size_t nvalues = nbytes / sizeof(T);
        const std::byte* in = part.data() + begin;
        auto stats = detail::bit_width_window_stats<T>(in, nvalues);
        md.windows.value.push_back({stats.value_offset(), stats.bits, static_cast<std::uint32_t>(nbytes)});
        if (stats.bits >= 8 * sizeof(T) || nbytes % sizeof(T) != 0) {
          std::memcpy(out.data() + at, in, nbytes);
          at += nbytes;
        } else {
          detail::bit_width_encode<T>(in, nvalues, stats.min, stats.bits, out.data() + at);
          at += nvalues * stats.bits / 8;
        }
      }
    }
    io.out_metadata.push_back(write_metadata(io.buf.metadata, md));
    io.out_metadata.append(io.in_metadata);
    io.out_data.push_back(out.first(at));
  }

  template <class T>
  void reverse_as(reverse_io& io) const {
    thread_local format::BitWidthReductionMD<T> md;
    std::size_t used = read_metadata(filter_type, io.metadata, md);
    std::uint64_t sum = 0;
    for (const auto& w : md.windows.value) sum += w.length;
    if (sum != md.input_length)
      corrupt(filter_type, "windows add up to " + std::to_string(sum) + " bytes, the metadata says " +
                               std::to_string(md.input_length));
    auto out = io.output(md.input_length);
    std::size_t in_at = 0, out_at = 0;
    for (std::size_t i = 0; i < md.windows.value.size(); ++i) {
      const auto& w = md.windows.value[i];
      const bool raw = w.bit_width >= 8 * sizeof(T) || w.length % sizeof(T) != 0;
      if (!raw && w.bit_width != 8 && w.bit_width != 16 && w.bit_width != 32)
        corrupt(filter_type, "window " + std::to_string(i) + " has bit width " + std::to_string(w.bit_width));
      const std::size_t nvalues = w.length / sizeof(T);
      const std::size_t stored = raw ? w.length : nvalues * w.bit_width / 8;
      if (stored > io.data.size() - in_at)
        corrupt(filter_type, "window " + std::to_string(i) + " needs " + std::to_string(stored) + " bytes, " +
                                 std::to_string(io.data.size() - in_at) + " left",
                in_at);
      if (raw)
        std::memcpy(out.data() + out_at, io.data.data() + in_at, w.length);
      else
        detail::bit_width_decode<T>(io.data.data() + in_at, nvalues, w.value_offset, w.bit_width, out.data() + out_at);
      in_at += stored;
      out_at += w.length;
    }
    if (in_at != io.data.size())
      corrupt(filter_type, std::to_string(io.data.size() - in_at) + " bytes of data left over", in_at);
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }
};

} // namespace tilefmt::filter
