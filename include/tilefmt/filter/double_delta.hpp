// tilefmt — the DOUBLE_DELTA filter (format_spec/filters/double_delta.md;
// tiledb/sm/compressors/dd_compressor.cc), a compression filter
// (compressor byte 6) framed like the others (detail/compression.hpp).
// Each compressed part:
//   u8 bitsize | u64 n | x0 | x1 | bit stream
// (x1 only when n >= 2, the stream only when n >= 3). For i >= 2 the stream
// holds the double delta dd = (x[i] - x[i-1]) - (x[i-1] - x[i-2]) as one
// sign bit (1 = negative) and `bitsize` bits of |dd|, most significant bit
// first, packed from the top bit of 64-bit words that are stored
// little-endian; the last word is zero-padded. `bitsize` is the bit length
// of the largest of |x1 - x0| and every |dd| (at least 1; 0 when n <= 2).
// When bitsize >= 8 x element size - 1 the values follow raw instead.
// Deltas and double deltas are exact int64 values: a value whose delta or
// double delta does not fit refuses to compress, as in TileDB.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "tilefmt/filter/detail/compression.hpp"
#include "tilefmt/filter/detail/delta_common.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

namespace detail {

/// a - b as an int64 when it is one (TileDB's checked_arithmetic: for
/// uint64 values, -2^63 counts as representable).
template <class T>
std::optional<std::int64_t> exact_difference(T a, T b) {
  if constexpr (std::is_unsigned_v<T>) {
    const std::uint64_t ua = a, ub = b;
    constexpr std::uint64_t max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (ua >= ub) {
      if (ua - ub > max) return std::nullopt;
      return static_cast<std::int64_t>(ua - ub);
    }
    const std::uint64_t d = ub - ua;
    if (d <= max) return -static_cast<std::int64_t>(d);
    if (d == max + 1) return std::numeric_limits<std::int64_t>::min();
    return std::nullopt;
  } else {
    const std::int64_t ia = a, ib = b;
    if ((ib > 0 && ia < std::numeric_limits<std::int64_t>::min() + ib) ||
        (ib < 0 && ia > std::numeric_limits<std::int64_t>::max() + ib))
      return std::nullopt;
    return ia - ib;
  }
}

inline std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

/// The value as TileDB's int64_t(x), as a 64-bit pattern.
template <class T>
std::uint64_t widened(T x) {
  if constexpr (std::is_signed_v<T>)
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  else
    return static_cast<std::uint64_t>(x);
}

template <class T>
std::uint32_t double_delta_bitsize(const std::byte* in, std::size_t n) {
  if (n <= 2) return 0;
  std::uint64_t max = 0;
  std::int64_t prev_delta = 0;
  for (std::size_t i = 1; i < n; ++i) {
    auto d = exact_difference<T>(codec::load_le<T>(in + i * sizeof(T)), codec::load_le<T>(in + (i - 1) * sizeof(T)));
    if (!d)
      throw std::invalid_argument("tilefmt: DOUBLE_DELTA cannot compress: a delta exceeds the range of int64");
    if (i == 1) {
      max = magnitude(*d);
    } else {
      auto dd = exact_difference<std::int64_t>(*d, prev_delta);
      if (!dd)
        throw std::invalid_argument("tilefmt: DOUBLE_DELTA cannot compress: a double delta exceeds the range of int64");
      max = std::max(max, magnitude(*dd));
    }
    prev_delta = *d;
  }
  std::uint32_t bits = 0;
  do {
    ++bits;
    max >>= 1;
  } while (max);
  return bits;
}

/// Writes bits most significant first into 64-bit words.
class msb_bit_writer {
public:
  explicit msb_bit_writer(std::byte* out) : out_(out) {}
  /// The low `count` bits of `v` (0 < count <= 64; higher bits are zero).
  void put(std::uint64_t v, unsigned count) {
    while (count > 0) {
      unsigned take = count < free_ ? count : free_;
      std::uint64_t bits = take == 64 ? v : (v >> (count - take)) & ((std::uint64_t{1} << take) - 1);
      word_ |= bits << (free_ - take);
      free_ -= take;
      count -= take;
      if (free_ == 0) flush();
    }
  }
  /// Writes a partly filled last word; returns the bytes written.
  std::size_t finish() {
    if (free_ < 64) flush();
    return written_;
  }

private:
  void flush() {
    codec::store_le<std::uint64_t>(out_ + written_, word_);
    written_ += 8;
    word_ = 0;
    free_ = 64;
  }
  std::byte* out_;
  std::size_t written_ = 0;
  std::uint64_t word_ = 0;
  unsigned free_ = 64;
};

/// Reads what msb_bit_writer wrote; the caller checked the length.
class msb_bit_reader {
public:
  explicit msb_bit_reader(const std::byte* in) : in_(in) {}
  std::uint64_t get(unsigned count) {
    std::uint64_t v = 0;
    while (count > 0) {
      if (left_ == 0) {
        word_ = codec::load_le<std::uint64_t>(in_);
        in_ += 8;
        left_ = 64;
      }
      unsigned take = count < left_ ? count : left_;
      std::uint64_t bits = take == 64 ? word_ : (word_ >> (left_ - take)) & ((std::uint64_t{1} << take) - 1);
      v = take == 64 ? bits : (v << take) | bits;
      left_ -= take;
      count -= take;
    }
    return v;
  }

private:
  const std::byte* in_;
  std::uint64_t word_ = 0;
  unsigned left_ = 0;
};

/// T: the element type (detail/delta_common.hpp).
template <class T>
struct double_delta_codec {
  static constexpr std::uint32_t raw_bitsize = 8 * sizeof(T) - 1;

  std::size_t bound(std::size_t n) const { return n + 17; }
  std::size_t max_decompressed(std::size_t compressed) const {
    // At least one bit per value after the first two.
    return (compressed * 8 + 2) * sizeof(T);
  }

  std::size_t compress(bytes_view in, std::span<std::byte> out) const {
    const std::size_t n = delta_value_count(format::FilterType::DOUBLE_DELTA, in, sizeof(T));
    const std::uint32_t bitsize = double_delta_bitsize<T>(in.data(), n);
    std::byte* o = out.data();
    o[0] = static_cast<std::byte>(bitsize);
    codec::store_le<std::uint64_t>(o + 1, n);
    if (bitsize >= raw_bitsize) {
      std::memcpy(o + 9, in.data(), in.size());
      return 9 + in.size();
    }
    const std::size_t head = (n < 2 ? n : 2) * sizeof(T);
    std::memcpy(o + 9, in.data(), head);
    if (n <= 2) return 9 + head;
    msb_bit_writer bits(o + 9 + head);
    auto at = [&](std::size_t i) { return widened(codec::load_le<T>(in.data() + i * sizeof(T))); };
    std::uint64_t prev_delta = at(1) - at(0);
    for (std::size_t i = 2; i < n; ++i) {
      std::uint64_t delta = at(i) - at(i - 1);
      auto dd = static_cast<std::int64_t>(delta - prev_delta);
      bits.put(dd < 0 ? 1 : 0, 1);
      bits.put(magnitude(dd), bitsize);
      prev_delta = delta;
    }
    return 9 + head + bits.finish();
  }

  void decompress(bytes_view in, std::span<std::byte> out) const {
    constexpr auto type = format::FilterType::DOUBLE_DELTA;
    format::DoubleDeltaHeader h;
    const std::size_t used = read_metadata(type, in, h);
    if (out.size() % sizeof(T) != 0 || h.num_values != out.size() / sizeof(T))
      corrupt(type, "part holds " + std::to_string(h.num_values) + " values, " + std::to_string(out.size()) +
                        " bytes expected");
    if (h.num_values == 0) corrupt(type, "part holds no values");
    const std::size_t n = static_cast<std::size_t>(h.num_values);
    const bytes_view body = in.subspan(used);
    if (h.bitsize >= raw_bitsize) {
      if (body.size() != out.size())
        corrupt(type, "raw part has " + std::to_string(body.size()) + " bytes, " + std::to_string(out.size()) +
                          " expected", used);
      std::memcpy(out.data(), body.data(), out.size());
      return;
    }
    const std::size_t head = (n < 2 ? n : 2) * sizeof(T);
    const std::uint64_t stream_bits = n > 2 ? static_cast<std::uint64_t>(n - 2) * (1u + h.bitsize) : 0;
    const std::uint64_t expected = head + (stream_bits + 63) / 64 * 8;
    if (body.size() != expected)
      corrupt(type, std::to_string(n) + " values of " + std::to_string(h.bitsize) + " bits need " +
                        std::to_string(expected) + " bytes, the part has " + std::to_string(body.size()),
              used);
    std::memcpy(out.data(), body.data(), head);
    if (n <= 2) return;
    msb_bit_reader bits(body.data() + head);
    auto at = [&](std::size_t i) { return widened(codec::load_le<T>(out.data() + i * sizeof(T))); };
    for (std::size_t i = 2; i < n; ++i) {
      bool negative = bits.get(1) != 0;
      std::uint64_t m = h.bitsize ? bits.get(h.bitsize) : 0;
      std::uint64_t dd = negative ? std::uint64_t{0} - m : m;
      std::uint64_t v = dd + 2 * at(i - 1) - at(i - 2);
      codec::store_le<T>(out.data() + i * sizeof(T), static_cast<T>(v));
    }
  }
};

} // namespace detail

/// DOUBLE_DELTA. `Reinterpret` (format version 20 on) makes it read the
/// values as another datatype; ANY means the input datatype. TileDB ignores
/// the level.
template <format::Datatype Reinterpret = format::Datatype::ANY, int Level = -1>
struct double_delta {
  static constexpr format::FilterType filter_type = format::FilterType::DOUBLE_DELTA;
  format::Datatype reinterpret_datatype = Reinterpret;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::delta_descriptor<format::DoubleDeltaOptions>(filter_type, format::Compressor::DOUBLE_DELTA, level,
                                                               reinterpret_datatype, version);
  }
  static double_delta from_filter(const format::Filter& f, std::uint32_t version) {
    auto o = detail::delta_options<format::DoubleDeltaOptions>(f, format::Compressor::DOUBLE_DELTA, version);
    return double_delta{o.reinterpret_datatype.value, o.level};
  }
  format::Datatype output_type(format::Datatype in) const {
    return reinterpret_datatype == format::Datatype::ANY ? in : reinterpret_datatype;
  }

  void forward(forward_io& io) const {
    run<std::invalid_argument>(io.type, [&]<class T>() { detail::compress_forward_with(io, detail::double_delta_codec<T>{}); });
  }
  void reverse(reverse_io& io) const {
    run<format_error>(io.type, [&]<class T>() {
      detail::compress_reverse_with(io, filter_type, detail::double_delta_codec<T>{});
    });
  }

private:
  template <class Error, class F>
  void run(format::Datatype input, F&& f) const {
    format::Datatype t = detail::delta_element_datatype<Error>(filter_type, input, reinterpret_datatype);
    detail::with_delta_element_type(t, f);
  }
};

} // namespace tilefmt::filter
