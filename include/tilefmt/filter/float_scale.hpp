// tilefmt — the SCALE_FLOAT filter (format_spec/filters/float_scale.md;
// tiledb/sm/filter/float_scaling_filter.cc): a lossy filter storing each
// float x as the integer round((x - offset) / scale), `byte_width` bytes
// wide, and reading it back as scale * stored + offset.
//
// Exactly as TileDB computes it:
// - the quotient is computed in the input's precision (float for 4-byte
//   input, with offset and scale first rounded to float), rounded half away
//   from zero, then converted to the integer;
// - on read the integer is first converted to the input's type, then
//   (type)(scale * (double)that + offset), without a fused multiply-add;
// - TileDB accepts any input datatype of 4 or 8 bytes and takes its bits as
//   a float or a double;
// - a value out of the integer's range (NaN, infinities, huge values) is
//   undefined behaviour in C++; TileDB gets what x86-64's conversion
//   instructions give, which is what is written here: the integer's lowest
//   value for 4- and 8-byte integers, and for 1- and 2-byte integers the low
//   bytes of the 4-byte result (the 32-bit conversion's lowest value when
//   out of its range);
// - each input part becomes an output part, and since TileDB prepends each
//   new part, the parts are stored last first while the metadata lists
//   their lengths in input order. Reading takes the stored bytes in the
//   metadata's order and prepends again, which restores parts of equal
//   length (there is one part in practice).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tilefmt/filter/detail/widths.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

namespace detail {

/// x86-64 cvttss2si / cvttsd2si: truncation toward zero, the lowest value
/// of the result when out of range or NaN. `r` is already integral.
template <class W, class T>
W float_to_int_like_x86(T r) {
  if constexpr (sizeof(W) == 8) {
    if (!(r >= T(-9223372036854775808.0) && r < T(9223372036854775808.0))) return std::numeric_limits<W>::min();
    return static_cast<W>(static_cast<std::int64_t>(r));
  } else {
    std::int32_t i = std::numeric_limits<std::int32_t>::min();
    if (r >= T(-2147483648.0) && r < T(2147483648.0)) i = static_cast<std::int32_t>(r);
    return static_cast<W>(i); // wraps: the low bytes
  }
}

/// Keeps a product from being fused with the following addition.
inline double unfused(double v) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
  __asm__("" : "+x"(v));
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(v));
#else
  volatile double kept = v;
  v = kept;
#endif
  return v;
}

template <class T, class W>
void float_scale_encode(const std::byte* in, std::byte* out, std::size_t n, double scale, double offset) {
  const T s = static_cast<T>(scale), o = static_cast<T>(offset);
  for (std::size_t i = 0; i < n; ++i) {
    T x = codec::load_le<T>(in + i * sizeof(T));
    T r = std::round((x - o) / s);
    codec::store_le<W>(out + i * sizeof(W), float_to_int_like_x86<W>(r));
  }
}

template <class T, class W>
void float_scale_decode(const std::byte* in, std::byte* out, std::size_t n, double scale, double offset) {
  for (std::size_t i = 0; i < n; ++i) {
    T w = static_cast<T>(codec::load_le<W>(in + i * sizeof(W)));
    double product = unfused(scale * static_cast<double>(w));
    codec::store_le<T>(out + i * sizeof(T), static_cast<T>(product + offset));
  }
}

/// Calls f.template operator()<T, W>() for the float type of `input_size`
/// bytes and the signed integer of `byte_width` bytes.
template <class F>
void with_float_scale_types(std::size_t input_size, std::uint64_t byte_width, F&& f) {
  auto by_width = [&]<class T>() {
    switch (byte_width) {
    case 1: f.template operator()<T, std::int8_t>(); return;
    case 2: f.template operator()<T, std::int16_t>(); return;
    case 4: f.template operator()<T, std::int32_t>(); return;
    case 8: f.template operator()<T, std::int64_t>(); return;
    default: throw std::invalid_argument("tilefmt: SCALE_FLOAT byte width " + std::to_string(byte_width) + " is not 1, 2, 4 or 8");
    }
  };
  if (input_size == 4) by_width.template operator()<float>();
  else if (input_size == 8) by_width.template operator()<double>();
  else throw std::invalid_argument("tilefmt: SCALE_FLOAT needs 4- or 8-byte (float or double) input");
}

} // namespace detail

/// Defaults of a float_scale stage (TileDB's: scale 1, offset 0, 8 bytes).
/// To fix other values at compile time, pass a struct with the same three
/// static members: `struct cents { static constexpr double scale = 0.01, offset = 0; static constexpr std::uint64_t byte_width = 4; };`
struct float_scale_defaults {
  static constexpr double scale = 1.0;
  static constexpr double offset = 0.0;
  static constexpr std::uint64_t byte_width = 8;
};

template <class Params = float_scale_defaults>
struct float_scale {
  static constexpr format::FilterType filter_type = format::FilterType::SCALE_FLOAT;
  double scale = Params::scale;
  double offset = Params::offset;
  std::uint64_t byte_width = Params::byte_width;

  format::Filter descriptor(std::uint32_t version) const {
    return format::Filter::make(filter_type, format::FloatScaleOptions{scale, offset, byte_width}, version);
  }
  static float_scale from_filter(const format::Filter& f, std::uint32_t version) {
    auto o = f.options_as<format::FloatScaleOptions>(version);
    if (o.byte_width != 1 && o.byte_width != 2 && o.byte_width != 4 && o.byte_width != 8)
      throw format_error("SCALE_FLOAT byte width " + std::to_string(o.byte_width) + " is not 1, 2, 4 or 8", 0);
    return float_scale{o.scale, o.offset, o.byte_width};
  }
  format::Datatype output_type(format::Datatype) const { return detail::signed_integer_of_width(byte_width); }

  void forward(forward_io& io) const {
    detail::with_float_scale_types(format::datatype_size(io.type), byte_width, [&]<class T, class W>() {
      const part_list& in = io.in_data;
      auto md = scratch::sized(io.buf.metadata, 4 + 4 * in.size());
      codec::store_le<std::uint32_t>(md.data(), static_cast<std::uint32_t>(in.size()));
      std::size_t total = 0;
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i].size() % sizeof(T) != 0) // TileDB asserts this
          throw std::invalid_argument("tilefmt: SCALE_FLOAT input part of " + std::to_string(in[i].size()) +
                                      " bytes is not a whole number of values");
        total += in[i].size() / sizeof(T) * sizeof(W);
      }
      auto out = scratch::sized(io.buf.data, total);
      // Part i goes after the parts that follow it: TileDB prepends each one.
      std::size_t end = total;
      for (std::size_t i = 0; i < in.size(); ++i) {
        std::size_t n = in[i].size() / sizeof(T);
        codec::store_le<std::uint32_t>(md.data() + 4 + 4 * i, static_cast<std::uint32_t>(n * sizeof(W)));
        end -= n * sizeof(W);
        detail::float_scale_encode<T, W>(in[i].data(), out.data() + end, n, scale, offset);
      }
      io.out_metadata.push_back(md);
      io.out_metadata.append(io.in_metadata);
      std::size_t at = 0;
      for (std::size_t i = in.size(); i-- > 0;) {
        std::size_t len = in[i].size() / sizeof(T) * sizeof(W);
        io.out_data.push_back(out.subspan(at, len));
        at += len;
      }
    });
  }

  void reverse(reverse_io& io) const {
    detail::with_float_scale_types(format::datatype_size(io.type), byte_width, [&]<class T, class W>() {
      format::FloatScaleMD md;
      std::size_t used = read_metadata(filter_type, io.metadata, md);
      std::size_t stored = 0;
      for (std::size_t i = 0; i < md.part_lengths.size(); ++i) {
        if (md.part_lengths[i] % sizeof(W) != 0)
          corrupt(filter_type, "part " + std::to_string(i) + " of " + std::to_string(md.part_lengths[i]) +
                                   " bytes is not a whole number of " + std::to_string(sizeof(W)) + "-byte integers");
        stored += md.part_lengths[i];
      }
      if (stored != io.data.size())
        corrupt(filter_type, "parts hold " + std::to_string(stored) + " bytes, the chunk has " + std::to_string(io.data.size()));
      const std::size_t total = stored / sizeof(W) * sizeof(T);
      auto out = io.output(total);
      // Each decoded part is prepended, as TileDB does.
      std::size_t in_at = 0, end = total;
      for (std::uint32_t len : md.part_lengths) {
        std::size_t n = len / sizeof(W);
        end -= n * sizeof(T);
        detail::float_scale_decode<T, W>(io.data.data() + in_at, out.data() + end, n, scale, offset);
        in_at += len;
      }
      io.out_metadata = io.metadata.subspan(used);
      io.out_data = out;
    });
  }
};

} // namespace tilefmt::filter
