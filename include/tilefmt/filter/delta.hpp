// tilefmt — the DELTA filter (format_spec/filters/delta.md; tiledb/sm/
// compressors/delta_compressor.cc), a compression filter (compressor byte
// 8) framed like the others (detail/compression.hpp). Each compressed part:
//   u64 n | first value | n - 1 deltas
// each value as wide as the element type (the reinterpret datatype, or the
// input's: detail/delta_common.hpp). TileDB computes a delta as
// int64(x[i]) - int64(x[i-1]) and keeps its low bytes, and reads a value as
// the low bytes of int64(previous) + int64(delta): arithmetic modulo the
// element width, the same for signed and unsigned values. TileDB 2.16
// (format version 19) wrote one delta more, of a value read past the end of
// the input; readers skip it.
#pragma once

#include <cstdint>
#include <string>

#include "tilefmt/filter/detail/compression.hpp"
#include "tilefmt/filter/detail/delta_common.hpp"
#include "tilefmt/filter/detail/widths.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

namespace detail {

/// U: the unsigned integer as wide as the element type.
template <class U>
struct delta_codec {
  std::size_t bound(std::size_t n) const { return 8 + n; }
  std::size_t max_decompressed(std::size_t compressed) const { return compressed; }

  std::size_t compress(bytes_view in, std::span<std::byte> out) const {
    const std::size_t n = delta_value_count(format::FilterType::DELTA, in, sizeof(U));
    codec::store_le<std::uint64_t>(out.data(), n);
    std::byte* o = out.data() + 8;
    U prev = codec::load_le<U>(in.data());
    codec::store_le<U>(o, prev);
    for (std::size_t i = 1; i < n; ++i) {
      U cur = codec::load_le<U>(in.data() + i * sizeof(U));
      codec::store_le<U>(o + i * sizeof(U), static_cast<U>(cur - prev));
      prev = cur;
    }
    return 8 + in.size();
  }

  void decompress(bytes_view in, std::span<std::byte> out) const {
    format::DeltaHeader h;
    std::size_t used = read_metadata(format::FilterType::DELTA, in, h);
    if (out.size() % sizeof(U) != 0 || h.num_values != out.size() / sizeof(U))
      corrupt(format::FilterType::DELTA, "part holds " + std::to_string(h.num_values) + " values, " +
                                             std::to_string(out.size()) + " bytes expected");
    if (h.num_values == 0) corrupt(format::FilterType::DELTA, "part holds no values");
    // TileDB 2.16 (format version 19) wrote one more delta than there are
    // values, from a value read past the input; TileDB reads past it.
    const std::size_t body = in.size() - used;
    if (body != out.size() && !(h.num_values > 1 && body == out.size() + sizeof(U)))
      corrupt(format::FilterType::DELTA, std::to_string(h.num_values) + " values need " + std::to_string(out.size()) +
                                             " bytes, the part has " + std::to_string(body), used);
    const std::byte* p = in.data() + used;
    U prev = 0;
    for (std::size_t i = 0; i < h.num_values; ++i) {
      prev = static_cast<U>(prev + codec::load_le<U>(p + i * sizeof(U)));
      codec::store_le<U>(out.data() + i * sizeof(U), prev);
    }
  }
};

} // namespace detail

/// DELTA. `Reinterpret` (format version 19 on) makes it read the values as
/// another datatype; ANY means the input datatype. TileDB ignores the level.
template <format::Datatype Reinterpret = format::Datatype::ANY, int Level = -1>
struct delta {
  static constexpr format::FilterType filter_type = format::FilterType::DELTA;
  format::Datatype reinterpret_datatype = Reinterpret;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::delta_descriptor<format::DeltaOptions>(filter_type, format::Compressor::DELTA, level,
                                                         reinterpret_datatype, version);
  }
  static delta from_filter(const format::Filter& f, std::uint32_t version) {
    auto o = detail::delta_options<format::DeltaOptions>(f, format::Compressor::DELTA, version);
    return delta{o.reinterpret_datatype.value, o.level};
  }
  format::Datatype output_type(format::Datatype in) const {
    return reinterpret_datatype == format::Datatype::ANY ? in : reinterpret_datatype;
  }

  void forward(forward_io& io) const {
    run<std::invalid_argument>(io.type, [&]<class U>() { detail::compress_forward_with(io, detail::delta_codec<U>{}); });
  }
  void reverse(reverse_io& io) const {
    run<format_error>(io.type, [&]<class U>() { detail::compress_reverse_with(io, filter_type, detail::delta_codec<U>{}); });
  }

private:
  template <class Error, class F>
  void run(format::Datatype input, F&& f) const {
    format::Datatype t = detail::delta_element_datatype<Error>(filter_type, input, reinterpret_datatype);
    detail::with_delta_element_type(t, [&]<class E>() {
      detail::with_unsigned_width(sizeof(E), [&]<class U>() { f.template operator()<U>(); });
    });
  }
};

} // namespace tilefmt::filter
