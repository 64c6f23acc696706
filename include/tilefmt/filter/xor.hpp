// tilefmt — the XOR filter (format_spec/filters/xor.md; tiledb/sm/filter/
// xor_filter.cc): each value is stored XOR the one before it, the first as
// it is. Values are integers as wide as the input datatype (floats are
// taken as their bits); the output datatype is the signed integer of that
// width.
#pragma once

#include <cstdint>
#include <string>

#include "tilefmt/filter/detail/widths.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

namespace detail {

/// Scalar kernels over little-endian values of U, n = bytes / sizeof(U).
template <class U>
void xor_encode(const std::byte* in, std::byte* out, std::size_t n) {
  if (n == 0) return;
  U prev = codec::load_le<U>(in);
  codec::store_le<U>(out, prev);
  for (std::size_t i = 1; i < n; ++i) {
    U cur = codec::load_le<U>(in + i * sizeof(U));
    codec::store_le<U>(out + i * sizeof(U), static_cast<U>(cur ^ prev));
    prev = cur;
  }
}

template <class U>
void xor_decode(const std::byte* in, std::byte* out, std::size_t n) {
  U prev = 0;
  for (std::size_t i = 0; i < n; ++i) {
    prev = static_cast<U>(prev ^ codec::load_le<U>(in + i * sizeof(U)));
    codec::store_le<U>(out + i * sizeof(U), prev);
  }
}

} // namespace detail

/// XOR of consecutive values. Metadata: the length of each input part; the
/// parts are XORed on their own and written back to back as one part.
struct xor_filter {
  static constexpr format::FilterType filter_type = format::FilterType::XOR;

  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static xor_filter from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype in) const {
    return detail::signed_integer_of_width(format::datatype_size(in));
  }

  void forward(forward_io& io) const {
    const std::size_t width = value_width(io.type);
    const part_list& in = io.in_data;
    auto md = scratch::sized(io.buf.metadata, 4 + 4 * in.size());
    codec::store_le<std::uint32_t>(md.data(), static_cast<std::uint32_t>(in.size()));
    auto out = scratch::sized(io.buf.data, in.total_bytes());
    std::size_t at = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      bytes_view part = in[i];
      // TileDB asserts this: a part is always whole values.
      if (part.size() % width != 0)
        throw std::invalid_argument("tilefmt: XOR filter input part of " + std::to_string(part.size()) +
                                    " bytes is not a whole number of " + std::to_string(width) + "-byte values");
      codec::store_le<std::uint32_t>(md.data() + 4 + 4 * i, static_cast<std::uint32_t>(part.size()));
      detail::with_unsigned_width(width, [&]<class U>() { detail::xor_encode<U>(part.data(), out.data() + at, part.size() / width); });
      at += part.size();
    }
    io.out_metadata.push_back(md);
    io.out_metadata.append(io.in_metadata);
    io.out_data.push_back(out);
  }

  void reverse(reverse_io& io) const {
    const std::size_t width = value_width(io.type);
    format::XorMD md;
    std::size_t used = read_metadata(filter_type, io.metadata, md);
    std::size_t total = 0;
    for (std::size_t i = 0; i < md.part_lengths.size(); ++i) {
      std::uint32_t len = md.part_lengths[i];
      if (len % width != 0)
        corrupt(filter_type, "part " + std::to_string(i) + " of " + std::to_string(len) +
                                 " bytes is not a whole number of " + std::to_string(width) + "-byte values");
      total += len;
    }
    if (total != io.data.size())
      corrupt(filter_type, "parts hold " + std::to_string(total) + " bytes, the chunk has " + std::to_string(io.data.size()));
    auto out = io.output(total);
    std::size_t at = 0;
    for (std::uint32_t len : md.part_lengths) {
      detail::with_unsigned_width(width, [&]<class U>() { detail::xor_decode<U>(io.data.data() + at, out.data() + at, len / width); });
      at += len;
    }
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }

private:
  static std::size_t value_width(format::Datatype type) {
    std::size_t w = format::datatype_size(type);
    if (w != 1 && w != 2 && w != 4 && w != 8)
      throw std::invalid_argument("tilefmt: XOR filter does not accept datatype " +
                                  std::string(format::codec_enum_name(type)));
    return w;
  }
};

} // namespace tilefmt::filter
