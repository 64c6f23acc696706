// tilefmt — the Hilbert curve TileDB orders the cells of arrays with the
// HILBERT cell order by (tiledb/sm/misc/hilbert.h, John Skilling's
// "Programming the Hilbert curve", 2004), and the mapping of a coordinate
// to the curve's grid (Dimension::map_to_uint64).
//
// With n dimensions the curve has (64 - 1) / n bits a dimension. A number
// coordinate goes to the bucket (v - lo) / (hi - lo) * (2^bits - 1) of its
// dimension's domain [lo, hi], computed in double and truncated, as TileDB
// does; a string coordinate to its first eight bytes, big-endian, shifted
// down to `bits` bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// Bits a dimension of an n-dimensional Hilbert curve has.
constexpr int hilbert_bits(std::size_t dims) noexcept { return dims == 0 ? 0 : static_cast<int>(63 / dims); }

/// The Hilbert value of grid point `x` (one bucket a dimension, each below
/// 2^bits); `x` is used as scratch.
inline std::uint64_t hilbert_value(std::span<std::uint64_t> x, int bits) {
  const std::size_t n = x.size();
  if (n == 0 || bits <= 0) return 0;
  // Skilling's AxesToTranspose: inverse undo, then Gray encode.
  for (std::uint64_t q = std::uint64_t{1} << (bits - 1); q > 1; q >>= 1) {
    const std::uint64_t p = q - 1;
    if (x[0] & q) x[0] ^= p;
    for (std::size_t i = 1; i < n; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const std::uint64_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (std::size_t i = 1; i < n; ++i) x[i] ^= x[i - 1];
  std::uint64_t t = x[n - 1];
  for (int i = 1; i < bits; i <<= 1) x[n - 1] ^= x[n - 1] >> i;
  t ^= x[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) x[i] ^= t;
  // The transpose interleaved into one number, the first dimension's bit
  // highest at each level.
  std::uint64_t out = 0, h = 1;
  for (int j = 0; j < bits; ++j)
    for (std::size_t i = n; i-- > 0; h <<= 1)
      if (x[i] & (std::uint64_t{1} << j)) out |= h;
  return out;
}

/// The bucket of number `v` in a dimension whose domain starts at `start`
/// and spans `range`, both in double as TileDB computes them.
inline std::uint64_t hilbert_bucket_in(double v, double start, double range, int bits) {
  const double max_bucket = static_cast<double>((std::uint64_t{1} << bits) - 1);
  if (!(range > 0)) return 0;  // a domain of one value (TileDB divides by zero)
  const double b = (v - start) / range * max_bucket;
  if (!(b > 0)) return 0;
  if (b >= max_bucket) return static_cast<std::uint64_t>(max_bucket);
  return static_cast<std::uint64_t>(b);
}

/// The bucket of number `v` in a dimension with domain [lo, hi].
/// libtiledb 2.2 (format versions 7 and 8, the first with this order)
/// measured an integer domain as hi - lo + 1 (`wide_integer_range`); 2.3 on
/// as hi - lo (hilbert_curve says who uses which).
template <class T>
std::uint64_t hilbert_bucket(T v, T lo, T hi, int bits, bool wide_integer_range = false) {
  const double start = static_cast<double>(lo);
  const double range =
      static_cast<double>(hi) - start + (wide_integer_range && std::is_integral_v<T> ? 1.0 : 0.0);
  return hilbert_bucket_in(static_cast<double>(v), start, range, bits);
}

/// The bucket of a string coordinate. TileDB widens each byte as a
/// (signed, on x86) char: a byte from 0x80 on sets every higher bit too.
/// Reproduced, so that non-ASCII strings sort as TileDB sorts them.
inline std::uint64_t hilbert_bucket(std::string_view s, int bits) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    v <<= 8;
    if (i < s.size()) v |= static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<signed char>(s[i])));
  }
  return bits <= 0 ? 0 : v >> (64 - bits);
}

/// The curve of an array's dimensions: buckets per dimension, then the
/// curve's value of a cell. Fixed-size coordinates are given in their own
/// type (bucket<T>), string ones as their bytes.
class hilbert_curve {
public:
  /// The curve a writer orders cells by in an array of format `version`:
  /// libtiledb 2.2's wider integer domains at versions 7 and 8 (the first
  /// with this order), so that a fragment appended to such an array is in
  /// the order its libtiledb reads; hi - lo from 2.3 on.
  static hilbert_curve for_writing(const std::vector<format::Dimension>& dims, std::uint32_t version) {
    return hilbert_curve(dims, version <= 8);
  }

  /// The curve a reader merges and returns cells by, whatever wrote the
  /// array: TileDB 2.3 on reads format 7 and 8 arrays with hi - lo too, and
  /// the reader answers as the newest libtiledb does.
  static hilbert_curve for_reading(const std::vector<format::Dimension>& dims) { return hilbert_curve(dims, false); }

  std::size_t dimensions() const noexcept { return start_.size(); }
  int bits() const noexcept { return bits_; }

  /// The bucket of number `v` of dimension `d` (of type T, the dimension's).
  template <class T>
  std::uint64_t bucket(std::size_t d, T v) const {
    return hilbert_bucket_in(static_cast<double>(v), start_[d], range_[d], bits_);
  }

  /// The bucket of a string coordinate.
  std::uint64_t bucket(std::string_view s) const { return hilbert_bucket(s, bits_); }

  /// The curve's value of a cell given its buckets (one a dimension, in
  /// dimension order); `buckets` is used as scratch.
  std::uint64_t value(std::span<std::uint64_t> buckets) const { return hilbert_value(buckets, bits_); }

private:
  hilbert_curve(const std::vector<format::Dimension>& dims, bool wide_integer_range)
      : bits_(hilbert_bits(dims.size())),
        start_(dims.size(), 0.0),
        range_(dims.size(), 0.0) {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_var()) continue;
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        const auto [lo, hi] = dims[d].template domain_as<T>();
        start_[d] = static_cast<double>(lo);
        range_[d] = static_cast<double>(hi) - start_[d] + (wide_integer_range && std::is_integral_v<T> ? 1.0 : 0.0);
      });
    }
  }

  int bits_;
  std::vector<double> start_, range_;  // per fixed-size dimension, in double as TileDB computes
};

} // namespace tilefmt::array::detail
