// tilefmt — ranges of coordinates, one per dimension: the 1DRange, MBR and
// NDRectangle of format_spec/fragment.md ("MBR") and array_schema.md
// ("NDRectangle"). Fragment metadata (MBRs, non-empty domains) and array
// schemas (current domains) share these types and their codec.
//
// The layout of a range depends on its dimension, which the bytes do not
// say: fixed-size dimensions store `lo‖hi` (two coordinates), var-size ones
// `u64 size | u64 start_size | lo‖hi`. The dimensions come from the
// context: its `dims` (FragmentContext, NDRectangleContext) or its
// `dimension_shapes()` (an ArraySchema decoding its own current domain).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::format {

/// What a range needs to know of its dimension.
struct DimensionShape {
  Datatype type = Datatype::INT32;
  bool var_size = false;  // string dimensions (cell_val_num = var)

  /// Bytes of one coordinate (of one character for var-size dimensions).
  constexpr std::size_t coord_size() const noexcept { return datatype_size(type); }
  friend bool operator==(const DimensionShape&, const DimensionShape&) = default;
};

/// A context for decoding or encoding ranges on their own.
struct NDRectangleContext {
  std::vector<DimensionShape> dims;
};

/// One dimension's range: fixed-size dimensions store `lo‖hi` (two
/// coordinates); var-size ones `u64 size | u64 start_size | lo‖hi`.
/// `Bytes` is std::vector<std::byte> to own them, or
/// codec::le_span<std::byte> to point into the decoded buffer.
template <class Bytes>
struct BasicRange1D {
  std::uint64_t start_size = 0;  // bytes of lo (a coordinate's size for fixed dimensions)
  Bytes bytes{};                 // lo then hi

  std::span<const std::byte> data() const noexcept {
    if constexpr (requires { bytes.bytes(); })
      return bytes.bytes();
    else
      return {bytes.data(), bytes.size()};
  }
  std::span<const std::byte> lo() const noexcept { return data().first(split()); }
  std::span<const std::byte> hi() const noexcept { return data().subspan(split()); }

  /// A fixed-size dimension's bounds as values of T.
  template <class T>
  std::pair<T, T> as() const {
    if (data().size() != 2 * sizeof(T) || start_size != sizeof(T))
      throw std::invalid_argument("tilefmt: Range1D::as<T>(): the range does not hold two values of this type");
    return {codec::load_le<T>(data().data()), codec::load_le<T>(data().data() + sizeof(T))};
  }
  /// A var-size (string) dimension's bounds.
  std::pair<std::string_view, std::string_view> as_strings() const noexcept {
    auto l = lo(), h = hi();
    return {{reinterpret_cast<const char*>(l.data()), l.size()}, {reinterpret_cast<const char*>(h.data()), h.size()}};
  }

  friend bool operator==(const BasicRange1D&, const BasicRange1D&) = default;

private:
  std::size_t split() const noexcept {
    return start_size < data().size() ? static_cast<std::size_t>(start_size) : data().size();
  }
};

/// A minimum bounding rectangle (fragment.md, "MBR"; array_schema.md,
/// "NDRectangle"): one range per dimension, whose types come from the
/// context. Also a fragment's non-empty domain and a schema's current
/// domain.
template <class Bytes>
struct BasicMBR {
  using bytes_type = Bytes;
  std::vector<BasicRange1D<Bytes>> ranges;

  friend bool operator==(const BasicMBR&, const BasicMBR&) = default;
};

using Range1D = BasicRange1D<std::vector<std::byte>>;
using Range1DView = BasicRange1D<codec::le_span<std::byte>>;
using MBR = BasicMBR<std::vector<std::byte>>;
using MBRView = BasicMBR<codec::le_span<std::byte>>;

/// A fixed-size dimension's range [lo, hi].
template <class T>
Range1D fixed_range(T lo, T hi) {
  static_assert(std::is_arithmetic_v<T>, "tilefmt::format::fixed_range: T must be an arithmetic type");
  Range1D r{sizeof(T), std::vector<std::byte>(2 * sizeof(T))};
  codec::store_le<T>(r.bytes.data(), lo);
  codec::store_le<T>(r.bytes.data() + sizeof(T), hi);
  return r;
}

/// A var-size (string) dimension's range [lo, hi].
inline Range1D var_range(std::string_view lo, std::string_view hi) {
  Range1D r{lo.size(), {}};
  r.bytes.resize(lo.size() + hi.size());
  for (std::size_t i = 0; i < lo.size(); ++i) r.bytes[i] = static_cast<std::byte>(lo[i]);
  for (std::size_t i = 0; i < hi.size(); ++i) r.bytes[lo.size() + i] = static_cast<std::byte>(hi[i]);
  return r;
}

/// Dumps (codec::to_text / to_json) show an MBR as `[[lo, hi], ...]` in hex.
template <class Bytes>
std::ostream& operator<<(std::ostream& os, const BasicMBR<Bytes>& m) {
  auto hex = [&](std::span<const std::byte> b) { os << '"' << codec::hex_string(b) << '"'; };
  os << '[';
  for (std::size_t d = 0; d < m.ranges.size(); ++d) {
    os << (d ? ", [" : "[");
    hex(m.ranges[d].lo());
    os << ", ";
    hex(m.ranges[d].hi());
    os << ']';
  }
  return os << ']';
}

/// array_schema.md's name for an MBR: the current domain's ranges.
using NDRectangle = MBR;

namespace detail {

template <class Ctx>
concept has_dimension_list = requires(const Ctx& c) {
  { c.dims.size() } -> std::convertible_to<std::size_t>;
  { c.dims[0].var_size } -> std::convertible_to<bool>;
  { c.dims[0].coord_size() } -> std::convertible_to<std::size_t>;
};
template <class Ctx>
concept has_dimension_shapes = requires(const Ctx& c) {
  { c.dimension_shapes() } -> std::convertible_to<std::vector<DimensionShape>>;
};

/// The codec of an MBR (and NDRectangle): the layout of each range depends
/// on its dimension's type, which only the context knows.
template <class M>
struct range_codec {
  using Bytes = typename M::bytes_type;
  using ops = codec::detail::container_ops<Bytes>;
  static constexpr std::size_t min_size = 2;  // one range of a 1-byte type

  /// The dimensions: a context's `dims` (FragmentContext, NDRectangleContext)
  /// as they are, or its `dimension_shapes()` (an ArraySchema being decoded).
  template <class S>
  static decltype(auto) dims(const S& st) {
    using Ctx = std::remove_cvref_t<decltype(st.ctx)>;
    if constexpr (has_dimension_list<Ctx>) {
      return (st.ctx.dims);
    } else {
      static_assert(has_dimension_shapes<Ctx>,
                    "tilefmt::format::MBR / NDRectangle: decode and encode it inside an ArraySchema, or with a "
                    "context that has `dims` (FragmentContext, NDRectangleContext) or `dimension_shapes()`");
      return st.ctx.dimension_shapes();
    }
  }

  template <class D>
  static std::size_t fixed_bytes(const D& d) {
    std::size_t cs = d.coord_size();
    if (cs == 0) throw std::invalid_argument("tilefmt::format::MBR: dimension datatype has no size");
    return 2 * cs;
  }

  template <class S>
  static void decode(codec::reader& r, M& v, S& st) {
    const auto& ds = dims(st);
    if (ds.empty()) r.fail("the context has no dimensions");
    v.ranges.resize(ds.size());
    for (std::size_t d = 0; d < ds.size(); ++d) {
      try {
        decode_range(r, v.ranges[d], ds[d], st);
      } catch (format_error& e) {
        e.prepend_index(d);
        e.prepend_field("ranges");
        throw;
      }
    }
  }

  template <class D, class S>
  static void decode_range(codec::reader& r, BasicRange1D<Bytes>& rg, const D& dim, S& st) {
    std::uint64_t size = 0;
    if (!dim.var_size) {
      size = fixed_bytes(dim);
      rg.start_size = size / 2;
    } else {
      try {
        size = r.read<std::uint64_t>();
      } catch (format_error& e) {
        e.prepend_field("size");
        throw;
      }
      try {
        rg.start_size = r.read<std::uint64_t>();
      } catch (format_error& e) {
        e.prepend_field("start_size");
        throw;
      }
      if (rg.start_size > size) {
        format_error e("start_size " + std::to_string(rg.start_size) + " exceeds the range's " +
                           std::to_string(size) + " bytes",
                       r.offset() - 8);
        e.prepend_field("start_size");
        throw e;
      }
      if (size > r.remaining()) {
        format_error e("needs " + std::to_string(size) + " bytes", r.offset(),
                       ", " + std::to_string(r.remaining()) + " left");
        e.prepend_field("bytes");
        throw e;
      }
    }
    try {
      ops::decode(r, rg.bytes, static_cast<std::size_t>(size), st);
    } catch (format_error& e) {
      e.prepend_field("bytes");
      throw;
    }
  }

  template <class S>
  static void encode(codec::writer& w, const M& v, S& st) {
    const auto& ds = dims(st);
    check_shape(v, ds);
    for (std::size_t d = 0; d < ds.size(); ++d) {
      const auto& rg = v.ranges[d];
      if (ds[d].var_size) {
        w.write<std::uint64_t>(rg.data().size());
        w.write<std::uint64_t>(rg.start_size);
      }
      ops::encode(w, rg.bytes, st);
    }
  }

  template <class S>
  static std::size_t size(const M& v, S& st) {
    const auto& ds = dims(st);
    check_shape(v, ds);
    std::size_t n = 0;
    for (std::size_t d = 0; d < ds.size(); ++d) n += (ds[d].var_size ? 16 : 0) + v.ranges[d].data().size();
    return n;
  }

  template <class Dims>
  static void check_shape(const M& v, const Dims& ds) {
    if (v.ranges.size() != ds.size())
      throw std::invalid_argument("tilefmt::format::MBR holds " + std::to_string(v.ranges.size()) +
                              " ranges, the context has " + std::to_string(ds.size()) + " dimensions");
    for (std::size_t d = 0; d < ds.size(); ++d) {
      const auto& rg = v.ranges[d];
      if (!ds[d].var_size && rg.data().size() != fixed_bytes(ds[d]))
        throw std::invalid_argument("tilefmt::format::MBR: range " + std::to_string(d) + " holds " +
                                std::to_string(rg.data().size()) + " bytes, its dimension needs " +
                                std::to_string(fixed_bytes(ds[d])));
      if (ds[d].var_size && rg.start_size > rg.data().size())
        throw std::invalid_argument("tilefmt::format::MBR: range " + std::to_string(d) + " has start_size " +
                                std::to_string(rg.start_size) + " past its " + std::to_string(rg.data().size()) +
                                " bytes");
    }
  }
};

} // namespace detail
} // namespace tilefmt::format

template <>
struct tilefmt::codec::traits<tilefmt::format::MBR> : tilefmt::format::detail::range_codec<tilefmt::format::MBR> {};
template <>
struct tilefmt::codec::traits<tilefmt::format::MBRView>
    : tilefmt::format::detail::range_codec<tilefmt::format::MBRView> {};
