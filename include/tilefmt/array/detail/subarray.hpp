// tilefmt — a query's subarray: the ranges the caller gave, per dimension,
// checked against the schema and turned into order keys (coordinates.hpp),
// so that the readers compare coordinates of every type the same way.
//
// TileDB's rules, kept here: ranges are inclusive; an integer range that
// starts right after the previous one of its dimension joins it (TileDB
// coalesces ranges as they are added); ranges of a dense array must lie in
// the domain, those of a sparse array are cropped to it. The subarray's
// ranges are the combinations of one range per dimension ("ND ranges").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tilefmt/array/detail/coordinates.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// A range bound as the caller gave it.
using range_value = std::variant<std::int64_t, std::uint64_t, double>;

struct user_range {
  range_value lo, hi;
};

/// An inclusive range of order keys.
struct key_range {
  std::uint64_t lo = 0, hi = 0;
  bool contains(std::uint64_t k) const noexcept { return lo <= k && k <= hi; }
  bool overlaps(const key_range& o) const noexcept { return lo <= o.hi && o.lo <= hi; }
};

/// One dimension of a resolved subarray.
struct dimension_ranges {
  std::vector<key_range> ranges;
  key_range domain;       // the dimension's domain, as keys
  bool integral = true;   // integer, date or time coordinates

  bool contains(std::uint64_t k) const noexcept {
    return std::any_of(ranges.begin(), ranges.end(), [&](const key_range& r) { return r.contains(k); });
  }
  bool overlaps(const key_range& k) const noexcept {
    return std::any_of(ranges.begin(), ranges.end(), [&](const key_range& r) { return r.overlaps(k); });
  }
};

/// A subarray checked against a schema: its ranges per dimension, as keys.
class subarray {
public:
  /// `given[d]`: the ranges of dimension d (none: its whole domain).
  /// Dense arrays refuse ranges outside the domain; sparse arrays crop them.
  subarray(const format::ArraySchema& schema, const std::vector<std::vector<user_range>>& given) {
    const auto& dims = schema.domain.dimensions.value;
    if (given.size() > dims.size())
      throw std::invalid_argument("tilefmt: query: ranges for dimension " + std::to_string(given.size() - 1) +
                                  ", the array has " + std::to_string(dims.size()) + " dimensions");
    const bool crop = schema.is_sparse();
    dims_.resize(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& dim = dims[d];
      auto& out = dims_[d];
      const bool fixed = !dim.is_var() && with_coordinate_type(dim.type.value, [&]<class T>() {
        const auto [dlo, dhi] = dim.domain_as<T>();
        out.domain = {order_key(dlo), order_key(dhi)};
        out.integral = std::is_integral_v<T>;
        if (d >= given.size() || given[d].empty()) {
          out.ranges.push_back(out.domain);
          return;
        }
        for (const auto& r : given[d]) {
          const std::string who = "tilefmt: query: range [" + text(r.lo) + ", " + text(r.hi) + "] of dimension \"" +
                                  dim.name.value + "\"";
          T lo = convert<T>(r.lo, who), hi = convert<T>(r.hi, who);
          if (lo > hi) throw std::invalid_argument(who + " is empty (lo > hi)");
          if (lo < dlo || hi > dhi) {
            if (!crop)
              throw std::invalid_argument(who + " is outside the domain [" + std::to_string(dlo) + ", " +
                                          std::to_string(dhi) + "]");
            if (hi < dlo || lo > dhi) continue;  // nothing of it in the domain
            lo = std::max(lo, dlo);
            hi = std::min(hi, dhi);
          }
          add(out, {order_key(lo), order_key(hi)});
        }
      });
      if (!fixed)
        throw std::invalid_argument("tilefmt: query: dimension \"" + dim.name.value + "\" has " +
                                    std::string(format::codec_enum_name(dim.type.value)) +
                                    " coordinates; queries read fixed-size dimensions only so far");
    }
  }

  std::size_t dim_num() const noexcept { return dims_.size(); }
  const dimension_ranges& dim(std::size_t d) const { return dims_[d]; }

  /// Whether some dimension has no range left (all cropped away).
  bool empty() const noexcept {
    return std::any_of(dims_.begin(), dims_.end(), [](const auto& d) { return d.ranges.empty(); });
  }
  /// Combinations of one range per dimension.
  std::uint64_t nd_range_num() const {
    std::uint64_t n = 1;
    for (const auto& d : dims_) n *= d.ranges.size();
    return n;
  }
  /// ND range `r`'s range per dimension: the combinations counted in row
  /// major (the last dimension's ranges fastest) or column major.
  std::vector<key_range> nd_range(std::uint64_t r, bool row_major) const {
    const std::size_t nd = dims_.size();
    std::vector<key_range> out(nd);
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = row_major ? nd - 1 - k : k;
      const std::size_t n = dims_[d].ranges.size();
      out[d] = dims_[d].ranges[static_cast<std::size_t>(r % n)];
      r /= n;
    }
    return out;
  }

  /// The same subarray with each dimension's ranges sorted and overlapping
  /// (or, for integers, adjacent) ones merged, as TileDB's global-order and
  /// unordered readers take it.
  subarray merged() const {
    subarray s = *this;
    for (auto& d : s.dims_) {
      auto& rs = d.ranges;
      std::sort(rs.begin(), rs.end(), [](const key_range& a, const key_range& b) { return a.lo < b.lo; });
      std::vector<key_range> out;
      for (const auto& r : rs) {
        if (!out.empty() && out.back().hi != std::numeric_limits<std::uint64_t>::max() &&
            r.lo <= out.back().hi + (d.integral ? 1 : 0)) {
          out.back().hi = std::max(out.back().hi, r.hi);
          continue;
        }
        out.push_back(r);
      }
      rs = std::move(out);
    }
    return s;
  }

private:
  subarray() = default;

  /// An integer range that starts right after the previous one joins it.
  static void add(dimension_ranges& d, key_range r) {
    if (d.integral && !d.ranges.empty() && d.ranges.back().hi != std::numeric_limits<std::uint64_t>::max() &&
        d.ranges.back().hi + 1 == r.lo) {
      d.ranges.back().hi = r.hi;
      return;
    }
    d.ranges.push_back(r);
  }

  static std::string text(const range_value& v) {
    return std::visit([](auto x) { return std::to_string(x); }, v);
  }

  /// `v` as a coordinate of type T, exactly, or an error.
  template <class T>
  static T convert(const range_value& v, const std::string& who) {
    return std::visit(
        [&](auto x) -> T {
          using X = decltype(x);
          if constexpr (std::is_floating_point_v<T>) {
            if constexpr (std::is_floating_point_v<X>)
              if (std::isnan(x)) throw std::invalid_argument(who + " has a NaN bound");
            return static_cast<T>(x);
          } else if constexpr (std::is_floating_point_v<X>) {
            // [min, 2^digits): both ends exact as doubles.
            const double below = std::ldexp(1.0, std::numeric_limits<T>::digits);
            if (!(x == std::floor(x)) || x < static_cast<double>(std::numeric_limits<T>::min()) || x >= below)
              throw std::invalid_argument(who + ": the dimension's coordinates are integers of " +
                                          std::to_string(8 * sizeof(T)) + " bits");
            return static_cast<T>(x);
          } else {
            if (!std::in_range<T>(x))
              throw std::invalid_argument(who + " does not fit the dimension's " + std::to_string(8 * sizeof(T)) +
                                          "-bit " + (std::is_signed_v<T> ? "signed" : "unsigned") + " integers");
            return static_cast<T>(x);
          }
        },
        v);
  }

  std::vector<dimension_ranges> dims_;
};

} // namespace tilefmt::array::detail
