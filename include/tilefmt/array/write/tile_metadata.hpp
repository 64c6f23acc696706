// tilefmt — the tile metadata a writer stores: per tile min, max, sum and
// null count, and their fold into the fragment summary, computed as
// TileDB's TileMetadataGenerator and FragmentMetadata compute them
// (tiledb/sm/tile/tile_metadata_generator.cc,
// tiledb/sm/fragment/fragment_metadata.cc), including the values TileDB's
// dense writer records where its own code goes astray: readers of TileDB's
// arrays see the same metadata in ours.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array::detail {

/// Per-tile metadata of one attribute, as TileDB's TileMetadataGenerator
/// computes it: min and max (one cell each for fixed fields, one string
/// each for var ones), the 8-byte sum and, for nullable attributes, the
/// count of null cells.
struct tile_stats {
  std::vector<std::byte> min, max;
  std::uint64_t sum = 0;
  std::uint64_t null_count = 0;
};

/// Which metadata a fixed-size, non-dimension field gets
/// (tile_metadata_generator.cc has_min_max_metadata / has_sum_metadata).
inline bool has_min_max(format::Datatype t, std::uint32_t cell_val_num) {
  using D = format::Datatype;
  const bool chars = t == D::CHAR || t == D::STRING_ASCII;
  if (cell_val_num != 1 && !chars) return false;
  switch (t) {
  case D::ANY: case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT: case D::STRING_UTF8: case D::STRING_UTF16:
  case D::STRING_UTF32: case D::STRING_UCS2: case D::STRING_UCS4:
    return false;
  default:
    return true;
  }
}
inline bool has_sum(format::Datatype t, std::uint32_t cell_val_num) {
  using D = format::Datatype;
  if (cell_val_num != 1) return false;
  switch (t) {
  case D::ANY: case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT: case D::STRING_UTF8: case D::STRING_UTF16:
  case D::STRING_UTF32: case D::STRING_UCS2: case D::STRING_UCS4: case D::STRING_ASCII:
    return false;
  default:
    return true;
  }
}

enum class sum_kind { int64, uint64, float64 };

/// Calls f.template operator()<T, K>() with T the C++ type TileDB computes a
/// fixed field's metadata in and K its sum kind; false for types without
/// any (BLOB, GEOM, UTF-n strings, ANY).
template <class F>
bool with_metadata_type(format::Datatype type, F&& f) {
  using D = format::Datatype;
  switch (type) {
  case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT: case D::ANY: case D::STRING_UTF8: case D::STRING_UTF16:
  case D::STRING_UTF32: case D::STRING_UCS2: case D::STRING_UCS4:
    return false;
  case D::STRING_ASCII: type = D::CHAR; break;  // compared and summed as characters
  default: break;
  }
  return format::visit_datatype(type, [&]<class T>() {
    using S = format::sum_type_of<T>;
    constexpr sum_kind K = std::is_same_v<S, double>         ? sum_kind::float64
                           : std::is_same_v<S, std::int64_t> ? sum_kind::int64
                                                             : sum_kind::uint64;
    f.template operator()<T, K>();
  });
}

/// Adds `v` to a running sum the way TileDB does: a sum that would overflow
/// saturates and stops (the return value says whether to go on).
inline bool add_sum(std::int64_t& s, std::int64_t v) {
  if (s > 0 && v > 0 && s > std::numeric_limits<std::int64_t>::max() - v) {
    s = std::numeric_limits<std::int64_t>::max();
    return false;
  }
  if (s < 0 && v < 0 && s < std::numeric_limits<std::int64_t>::min() - v) {
    s = std::numeric_limits<std::int64_t>::min();
    return false;
  }
  s += v;
  return true;
}
inline bool add_sum(std::uint64_t& s, std::uint64_t v) {
  if (s > std::numeric_limits<std::uint64_t>::max() - v) {
    s = std::numeric_limits<std::uint64_t>::max();
    return false;
  }
  s += v;
  return true;
}
inline bool add_sum(double& s, double v) {
  if ((s < 0.0) == (v < 0.0) && std::abs(s) > std::numeric_limits<double>::max() - std::abs(v)) {
    s = s < 0.0 ? std::numeric_limits<double>::lowest() : std::numeric_limits<double>::max();
    return false;
  }
  s += v;
  return true;
}

template <sum_kind K>
using sum_type = std::conditional_t<K == sum_kind::int64, std::int64_t,
                                    std::conditional_t<K == sum_kind::uint64, std::uint64_t, double>>;

/// strncmp over `n` bytes, as TileDB compares fixed-size strings (stops at a
/// NUL). Empty strings may have no storage: nothing to compare.
inline int strncmp_bytes(const std::byte* a, const std::byte* b, std::size_t n) {
  if (n == 0) return 0;
  return std::strncmp(reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(b), n);
}

/// Whether TileDB's generator looks at the cells of a fixed-size field of
/// this type at all: only for the types process_cell_slab has a case for,
/// those with metadata plus the byte types.
inline bool generator_reads_fixed(format::Datatype t) {
  using D = format::Datatype;
  return with_metadata_type(t, []<class, sum_kind>() {}) || t == D::BLOB || t == D::GEOM_WKB || t == D::GEOM_WKT;
}

/// Var-size fields have min/max only for CHAR and STRING_ASCII.
inline bool has_var_min_max(format::Datatype t) {
  return t == format::Datatype::CHAR || t == format::Datatype::STRING_ASCII;
}

/// The string `a` is compared to `b` as TileDB compares var strings:
/// strncmp over the shorter length, then the shorter string first.
inline int compare_var(std::span<const std::byte> a, std::span<const std::byte> b) {
  const int cmp = strncmp_bytes(a.data(), b.data(), std::min(a.size(), b.size()));
  if (cmp != 0) return cmp;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

/// One tile's metadata as TileDB's TileMetadataGenerator computes it, fed
/// slab by slab (runs of cells [start, end) of the tile) the way its dense
/// writer feeds it. Reproduced as written, including two effects of the
/// slabs: a nullable fixed field without min/max counts the nulls of the
/// whole tile once per slab, and a nullable var field reads each slab's
/// validity from the start of the tile (tile_metadata_generator.cc,
/// process_cell_range and process_cell_range_var). With one slab per tile
/// both are exact.
class tile_metadata_generator {
public:
  tile_metadata_generator(format::Datatype type, std::uint32_t cell_val_num, bool var, bool nullable)
      : type_(type), nullable_(nullable),
        min_max_(var ? has_var_min_max(type) : has_min_max(type, cell_val_num)),
        sum_(!var && has_sum(type, cell_val_num)) {}

  /// Cells [start, end) of a fixed-size tile of cells of `cell_size` bytes;
  /// `validity` has a byte per cell of the tile for nullable fields.
  void fixed_slab(std::span<const std::byte> tile, std::size_t cell_size, std::span<const std::uint8_t> validity,
                  std::size_t start, std::size_t end) {
    if (!generator_reads_fixed(type_)) return;
    min_size_ = max_size_ = cell_size;
    auto is_null = [&](std::size_t c) { return nullable_ && validity[c] == 0; };
    if (nullable_ && !min_max_)
      for (std::size_t c = 0; c < tile.size() / cell_size; ++c) null_count_ += is_null(c);
    with_metadata_type(type_, [&]<class T, sum_kind K>() {
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>) {
        if (!nullable_ && min_max_ && sum_) return numbers_slab<T, K>(tile, start, end);
      }
      if (min_max_) {
        if constexpr (std::is_same_v<T, char>) {
          // Strings: the first (non-null) cell, then strncmp over the cell.
          for (std::size_t c = start; c < end && !tile.empty(); ++c) {
            if (nullable_) null_count_ += is_null(c);
            if (is_null(c)) continue;
            auto v = tile.subspan(c * cell_size, cell_size);
            if (!min_ || strncmp_bytes(min_->data(), v.data(), cell_size) > 0) min_ = v;
            if (!max_ || strncmp_bytes(max_->data(), v.data(), cell_size) < 0) max_ = v;
          }
        } else {
          // The expressions TileDB uses, NaN behaviour included.
          T mn = min_value_ ? codec::load_le<T>(min_value_->data()) : std::numeric_limits<T>::max();
          T mx = max_value_ ? codec::load_le<T>(max_value_->data()) : std::numeric_limits<T>::lowest();
          for (std::size_t c = start; c < end; ++c) {
            if (nullable_) null_count_ += is_null(c);
            if (is_null(c)) continue;
            T v = codec::load_le<T>(tile.data() + c * sizeof(T));
            mn = mn < v ? mn : v;
            mx = mx > v ? mx : v;
          }
          min_value_.emplace(sizeof(T));
          max_value_.emplace(sizeof(T));
          codec::store_le<T>(min_value_->data(), mn);
          codec::store_le<T>(max_value_->data(), mx);
        }
      }
      if (sum_) {
        // A sum that saturates stops this slab; the next one goes on from it.
        auto s = codec::bit_cast<sum_type<K>>(sum_bits_);
        for (std::size_t c = start; c < end; ++c) {
          if (is_null(c)) continue;
          T v;
          if constexpr (std::is_same_v<T, char>)
            v = static_cast<char>(std::to_integer<unsigned char>(tile[c]));
          else
            v = codec::load_le<T>(tile.data() + c * sizeof(T));
          if (!add_sum(s, static_cast<sum_type<K>>(v))) break;
        }
        sum_bits_ = codec::bit_cast<std::uint64_t>(s);
      }
    });
  }

  /// Cells [start, end) of a var tile: `data` its bytes, `offsets` where
  /// each of its cells starts.
  void var_slab(std::span<const std::byte> data, std::span<const std::uint64_t> offsets,
                std::span<const std::uint8_t> validity, std::size_t start, std::size_t end) {
    if (!min_max_ || offsets.empty()) return;  // TileDB returns before counting nulls too
    auto cell = [&](std::size_t c) { return detail::var_cell(data, offsets, c); };
    for (std::size_t c = start; c < end; ++c) {
      if (nullable_ && validity[c - start] == 0) {  // from the tile's start: see the class comment
        ++null_count_;
        continue;
      }
      const auto v = cell(c);
      if (!min_) {
        min_ = max_ = v;
        continue;
      }
      if (compare_var(*min_, v) > 0) min_ = v;
      if (compare_var(*max_, v) < 0) max_ = v;
    }
    if (min_) min_size_ = min_->size(), max_size_ = max_->size();
  }

  /// The tile's min, max, sum and null count (min and max zero-filled when
  /// nothing set them, as TileDB's buffers are).
  tile_stats result() const {
    tile_stats st;
    auto bytes = [](const std::optional<std::span<const std::byte>>& p, const std::optional<std::vector<std::byte>>& v,
                    std::size_t size) {
      std::vector<std::byte> out(size, std::byte{0});
      if (p) std::copy(p->begin(), p->begin() + static_cast<std::ptrdiff_t>(std::min(size, p->size())), out.begin());
      if (v) std::copy(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(std::min(size, v->size())), out.begin());
      return out;
    };
    st.min = bytes(min_, min_value_, min_size_);
    st.max = bytes(max_, max_value_, max_size_);
    st.sum = sum_bits_;
    st.null_count = null_count_;
    return st;
  }

private:
  // A tile's cells are read here once, usually from memory, and in loops
  // too slow (one floating-point addition after another) for the hardware
  // prefetchers to run ahead: the next cache lines are asked for in
  // advance. 32 tiles of 2^20 doubles took 135 ms without, 57 ms with; of
  // int32, 43 and 25 ms (one core, -O3).
  static constexpr std::size_t cache_line = 64, prefetch_distance = 2048;
  /// Asks for the cache line `offset` bytes after `p`, which may lie past
  /// the tile's end: the address is made as an integer (no pointer past the
  /// end is formed) and a prefetch never faults.
  static void prefetch(const std::byte* p, std::size_t offset) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + offset));
#else
    (void)p, (void)offset;
#endif
  }

  /// fixed_slab for numbers without nulls, with min, max and sum: the same
  /// results in one pass. Integers of up to 32 bits go in blocks whose sum
  /// cannot overflow the 64-bit running sum (checked before each block),
  /// which the compiler vectorises; wider integers and floats keep TileDB's
  /// order of additions and comparisons (the float results, NaN and -0.0
  /// included, depend on it), min, max and sum interleaved.
  template <class T, sum_kind K>
  void numbers_slab(std::span<const std::byte> tile, std::size_t start, std::size_t end) {
    T mn = min_value_ ? codec::load_le<T>(min_value_->data()) : std::numeric_limits<T>::max();
    T mx = max_value_ ? codec::load_le<T>(max_value_->data()) : std::numeric_limits<T>::lowest();
    using S = sum_type<K>;
    S s = codec::bit_cast<S>(sum_bits_);
    bool summing = true;  // a sum that saturates stops this slab; the next one goes on from it
    const std::byte* p = tile.data();
    std::size_t c = start;
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 4) {
      constexpr std::size_t block = 4096;  // |a block's sum| < 2^44
      constexpr S safe = S{1} << 62;
      for (; c + block <= end; c += block) {
        const bool unchecked = std::is_signed_v<S> ? (s < safe && s > -safe) : s < safe;
        if (!unchecked) break;
        T bmn = mn, bmx = mx;
        S bs = 0;
        for (std::size_t k = 0; k < block * sizeof(T); k += cache_line) prefetch(p, (c + block) * sizeof(T) + k);
        for (std::size_t i = c; i < c + block; ++i) {
          const T v = codec::load_le<T>(p + i * sizeof(T));
          bmn = v < bmn ? v : bmn;
          bmx = v > bmx ? v : bmx;
          bs += static_cast<S>(v);
        }
        mn = bmn, mx = bmx, s += bs;
      }
    }
    for (; c < end; ++c) {
      if ((c * sizeof(T)) % cache_line == 0) prefetch(p, c * sizeof(T) + prefetch_distance);
      const T v = codec::load_le<T>(p + c * sizeof(T));
      mn = mn < v ? mn : v;
      mx = mx > v ? mx : v;
      if (summing) summing = add_sum(s, static_cast<S>(v));
    }
    min_value_.emplace(sizeof(T));
    max_value_.emplace(sizeof(T));
    codec::store_le<T>(min_value_->data(), mn);
    codec::store_le<T>(max_value_->data(), mx);
    sum_bits_ = codec::bit_cast<std::uint64_t>(s);
  }

  format::Datatype type_;
  bool nullable_, min_max_, sum_;
  std::optional<std::span<const std::byte>> min_, max_;         // strings: cells of the tile
  std::optional<std::vector<std::byte>> min_value_, max_value_;  // numbers
  std::size_t min_size_ = 0, max_size_ = 0;
  std::uint64_t sum_bits_ = 0, null_count_ = 0;
};

/// The metadata of a fixed-size tile taken in one slab.
inline tile_stats compute_tile_stats(format::Datatype type, std::uint32_t cell_val_num, std::span<const std::byte> tile,
                                     std::size_t cell_size, std::span<const std::uint8_t> validity = {}) {
  tile_metadata_generator g(type, cell_val_num, false, !validity.empty());
  g.fixed_slab(tile, cell_size, validity, 0, cell_size ? tile.size() / cell_size : 0);
  return g.result();
}

/// The metadata of a var-size tile taken in one slab.
inline tile_stats compute_var_tile_stats(format::Datatype type, std::span<const std::byte> data,
                                         std::span<const std::uint64_t> offsets,
                                         std::span<const std::uint8_t> validity = {}) {
  tile_metadata_generator g(type, format::var_num, true, !validity.empty());
  g.var_slab(data, offsets, validity, 0, offsets.size());
  return g.result();
}

/// The fragment summary entry of an attribute: folds its tiles' stored
/// values as FragmentMetadata::compute_fragment_min_max_sum_null_count
/// does, leaving out tiles whose cells are all null. `cells` has the number
/// of cells of each tile.
inline format::FieldMinMaxSumNullCount fold_stats(const format::Attribute& a, const std::vector<tile_stats>& tiles,
                                                  const std::vector<std::uint64_t>& cells) {
  format::FieldMinMaxSumNullCount out{};
  const bool nullable = a.nullable.value;
  auto counted = [&](const tile_stats& t) {
    return !nullable || t.null_count != cells[static_cast<std::size_t>(&t - tiles.data())];
  };
  for (const auto& t : tiles) out.null_count += t.null_count;
  if (a.is_var()) {
    if (!has_var_min_max(a.type)) return out;
    std::optional<std::span<const std::byte>> mn, mx;
    for (const auto& t : tiles) {
      if (!counted(t)) continue;
      if (!mn) {
        mn = t.min;
        mx = t.max;
        continue;
      }
      if (compare_var(*mn, t.min) > 0) mn = t.min;
      if (compare_var(*mx, t.max) < 0) mx = t.max;
    }
    if (mn) out.min.value.assign(mn->begin(), mn->end());
    if (mx) out.max.value.assign(mx->begin(), mx->end());
    return out;
  }
  const std::uint32_t cell_val_num = a.cell_val_num;
  const bool mm = has_min_max(a.type, cell_val_num), sm = has_sum(a.type, cell_val_num);
  with_metadata_type(a.type, [&]<class T, sum_kind K>() {
    if (mm) {
      if constexpr (std::is_same_v<T, char>) {
        // Compared over cell_val_num bytes. TileDB steps through the stored
        // cells only for the tiles it counts, so after an all-null tile it
        // compares the cells of earlier tiles: reproduced as written.
        const std::vector<std::byte>* mn = nullptr;
        const std::vector<std::byte>* mx = nullptr;
        std::size_t k = 0;
        for (const auto& t : tiles) {
          if (!counted(t)) continue;
          const auto& at = tiles[k++];
          if (!mn || strncmp_bytes(mn->data(), at.min.data(), cell_val_num) > 0) mn = &at.min;
          if (!mx || strncmp_bytes(mx->data(), at.max.data(), cell_val_num) < 0) mx = &at.max;
        }
        if (mn) out.min.value.assign(mn->begin(), mn->begin() + cell_val_num);
        if (mx) out.max.value.assign(mx->begin(), mx->begin() + cell_val_num);
      } else {
        T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
        for (const auto& t : tiles) {
          if (!counted(t)) continue;
          T lo = codec::load_le<T>(t.min.data()), hi = codec::load_le<T>(t.max.data());
          mn = mn < lo ? mn : lo;
          mx = mx > hi ? mx : hi;
        }
        out.min.value.resize(sizeof(T));
        out.max.value.resize(sizeof(T));
        codec::store_le<T>(out.min.value.data(), mn);
        codec::store_le<T>(out.max.value.data(), mx);
      }
    }
    // The fragment sum of CHAR and STRING_ASCII stays 0: TileDB's fold for
    // them (compute_fragment_min_max_sum<char>) does min and max only.
    if (sm && !std::is_same_v<T, char>) {
      sum_type<K> s{};
      for (const auto& t : tiles)
        if (counted(t) && !add_sum(s, codec::bit_cast<sum_type<K>>(t.sum))) break;
      out.sum = codec::bit_cast<std::uint64_t>(s);
    }
  });
  return out;
}

/// The fragment sum of a sparse fragment's dimension: its tile sums added
/// as for attributes (dimensions have no min/max and no nulls).
inline std::uint64_t fold_dimension_sum(format::Datatype type, const std::vector<tile_stats>& tiles) {
  std::uint64_t out = 0;
  if (!has_sum(type, 1)) return out;
  with_metadata_type(type, [&]<class T, sum_kind K>() {
    sum_type<K> s{};
    for (const auto& t : tiles)
      if (!add_sum(s, codec::bit_cast<sum_type<K>>(t.sum))) break;
    out = codec::bit_cast<std::uint64_t>(s);
  });
  return out;
}

} // namespace tilefmt::array::detail
