// tilefmt — a query's subarray: the ranges the caller gave, per dimension,
// checked against the schema and turned into order keys (coordinates.hpp),
// so that the readers compare coordinates of every type the same way.
//
// TileDB's rules, kept here: ranges are inclusive; an integer range that
// starts right after the previous one of its dimension joins it (TileDB
// coalesces ranges as they are added); ranges of a dense array must lie in
// the domain, those of a sparse array are cropped to it. The subarray's
// ranges are the combinations of one range per dimension ("ND ranges").
//
// String dimensions have no order keys before their cells are read: their
// ranges are kept as strings (dimension_ranges::text), compared bytewise as
// TileDB does, with a placeholder key range each so that counting and
// combining ranges works the same for every dimension.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// A range bound as the caller gave it.
using range_value = std::variant<std::int64_t, std::uint64_t, double>;

/// A range as the caller gave it: numbers, or (`text`) strings. (The
/// strings are not a variant alternative: g++ 12 at -O2 warns that a moved
/// std::variant holding a std::string may be uninitialised.)
struct user_range {
  range_value lo, hi;
  bool text = false;
  std::string text_lo{}, text_hi{};

  std::string describe() const {
    return "[" + (text ? codec::json_string(text_lo) : number(lo)) + ", " + (text ? codec::json_string(text_hi) : number(hi)) +
           "]";
  }
  static std::string number(const range_value& v) {
    return std::visit([](auto x) { return std::to_string(x); }, v);
  }
};

/// An inclusive range of order keys.
struct key_range {
  std::uint64_t lo = 0, hi = 0;
  bool contains(std::uint64_t k) const noexcept { return lo <= k && k <= hi; }
  bool overlaps(const key_range& o) const noexcept { return lo <= o.hi && o.lo <= hi; }
};

/// An inclusive range of a string dimension (bytewise order); `all`: the
/// whole dimension (string dimensions have no domain).
struct text_range {
  std::string lo, hi;
  bool all = false;
  bool contains(std::string_view s) const noexcept { return all || (lo <= s && s <= hi); }
  bool overlaps(std::string_view l, std::string_view h) const noexcept { return all || (lo <= h && l <= hi); }
};

/// One dimension of a resolved subarray.
struct dimension_ranges {
  std::vector<key_range> ranges;  // string dimensions: placeholders, as many as `text`
  key_range domain;       // the dimension's domain, as keys
  bool integral = true;   // integer, date or time coordinates
  bool string = false;    // a string dimension: its ranges are `text`
  std::vector<text_range> text;

  // Whether a coordinate (or an MBR's [lo, hi]) meets some range: a binary
  // search in the ranges' union once index() has run (a query of thousands
  // of ranges tests every cell of the tiles it reads), else a scan.

  bool contains_text(std::string_view s) const noexcept {
    if (!indexed_) return std::any_of(text.begin(), text.end(), [&](const text_range& r) { return r.contains(s); });
    if (text_all_) return true;
    auto it = std::upper_bound(text_cover_.begin(), text_cover_.end(), s,
                               [](std::string_view v, const text_range& r) { return v < r.lo; });
    return it != text_cover_.begin() && std::prev(it)->hi >= s;
  }
  bool overlaps_text(std::string_view lo, std::string_view hi) const noexcept {
    if (!indexed_) return std::any_of(text.begin(), text.end(), [&](const text_range& r) { return r.overlaps(lo, hi); });
    if (text_all_) return true;
    auto it = std::lower_bound(text_cover_.begin(), text_cover_.end(), lo,
                               [](const text_range& r, std::string_view v) { return r.hi < v; });
    return it != text_cover_.end() && it->lo <= hi;
  }

  bool contains(std::uint64_t k) const noexcept {
    if (!indexed_) return std::any_of(ranges.begin(), ranges.end(), [&](const key_range& r) { return r.contains(k); });
    if (!bits_.empty()) return in_bits(k);
    auto it = std::upper_bound(cover_.begin(), cover_.end(), k, [](std::uint64_t v, const key_range& r) { return v < r.lo; });
    return it != cover_.begin() && std::prev(it)->hi >= k;
  }
  bool overlaps(const key_range& k) const noexcept {
    if (!indexed_) return std::any_of(ranges.begin(), ranges.end(), [&](const key_range& r) { return r.overlaps(k); });
    auto it = std::lower_bound(cover_.begin(), cover_.end(), k.lo, [](const key_range& r, std::uint64_t v) { return r.hi < v; });
    return it != cover_.end() && it->lo <= k.hi;
  }

  /// Whether every key of `k` is in one range (an MBR wholly inside the
  /// subarray: its cells need no test).
  bool covers(const key_range& k) const noexcept {
    if (!indexed_)
      return std::any_of(ranges.begin(), ranges.end(), [&](const key_range& r) { return r.lo <= k.lo && k.hi <= r.hi; });
    auto it = std::upper_bound(cover_.begin(), cover_.end(), k.lo, [](std::uint64_t v, const key_range& r) { return v < r.lo; });
    return it != cover_.begin() && std::prev(it)->hi >= k.hi;
  }
  bool covers_text(std::string_view lo, std::string_view hi) const noexcept {
    if (!indexed_)
      return std::any_of(text.begin(), text.end(), [&](const text_range& r) { return r.contains(lo) && r.contains(hi); });
    if (text_all_) return true;
    auto it = std::upper_bound(text_cover_.begin(), text_cover_.end(), lo,
                               [](std::string_view v, const text_range& r) { return v < r.lo; });
    return it != text_cover_.begin() && std::prev(it)->hi >= hi;
  }

  /// For `n` keys that never decrease (`key(i)`: a tile's first dimension
  /// in row-major order, a SOMA matrix's rows, the cells of a 1-D string
  /// dimension; an order key, or a string_view on a string dimension):
  /// clears `in[i]` for each key outside every range, with two binary
  /// searches a range of the union that meets the keys rather than a test a
  /// key (a list of thousands of joinids, or of string points, costs what
  /// its ranges do). Only once index() has run.
  template <class Key>
  void clear_outside_sorted(Key key, std::size_t n, std::uint8_t* in) const {
    if constexpr (std::is_convertible_v<std::invoke_result_t<Key&, std::size_t>, std::string_view>) {
      if (!text_all_) clear_outside(text_cover_, key, n, in);
    } else {
      clear_outside(cover_, key, n, in);
    }
  }
  bool indexed() const noexcept { return indexed_; }

  /// Whether the ranges' union is also a bitmap of the keys from its
  /// least to its greatest (index() makes one for three ranges or more
  /// within 2^20 keys: a list of genes or joinids, where a binary search
  /// a cell was 40% of a read of 50 columns of a matrix).
  bool has_bitmap() const noexcept { return !bits_.empty(); }
  /// Clears `in[i]` for each of the `n` keys `key(i)` outside every range,
  /// by the bitmap, without a branch a key. Only where has_bitmap().
  template <class Key>
  void clear_outside_bitmap(Key key, std::size_t n, std::uint8_t* in) const {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t x = key(i) - bits_base_;
      const bool inside = x < bits_span_;
      const std::uint64_t word = bits_[inside ? x >> 6 : 0];
      in[i] &= static_cast<std::uint8_t>(inside & ((word >> (x & 63)) & 1));
    }
  }
  /// Whether a range of this string dimension holds every key.
  bool covers_all_text() const noexcept { return indexed_ && text_all_; }

  /// contains() / contains_text() for keys that mostly come in increasing
  /// order (a tile's coordinates): the range of the last key is tried, and
  /// the one after it, before a binary search. One per thread.
  class cursor {
  public:
    explicit cursor(const dimension_ranges& r) : r_(r) {}
    bool contains(std::uint64_t k) {
      const auto& c = r_.cover_;
      if (!r_.indexed_ || !r_.bits_.empty()) return r_.contains(k);
      if (at_ < c.size() && c[at_].lo <= k) {
        if (k <= c[at_].hi) return true;
        if (at_ + 1 == c.size() || k < c[at_ + 1].lo) return false;
        if (k <= c[at_ + 1].hi) return (void)++at_, true;
      }
      auto it = std::upper_bound(c.begin(), c.end(), k, [](std::uint64_t v, const key_range& r) { return v < r.lo; });
      if (it == c.begin()) return false;
      at_ = static_cast<std::size_t>(it - c.begin()) - 1;
      return c[at_].hi >= k;
    }
    bool contains_text(std::string_view s) {
      const auto& c = r_.text_cover_;
      if (!r_.indexed_ || r_.text_all_) return r_.contains_text(s);
      if (at_ < c.size() && c[at_].lo <= s) {
        if (s <= c[at_].hi) return true;
        if (at_ + 1 == c.size() || s < c[at_ + 1].lo) return false;
        if (s <= c[at_ + 1].hi) return (void)++at_, true;
      }
      auto it = std::upper_bound(c.begin(), c.end(), s, [](std::string_view v, const text_range& r) { return v < r.lo; });
      if (it == c.begin()) return false;
      at_ = static_cast<std::size_t>(it - c.begin()) - 1;
      return c[at_].hi >= s;
    }

  private:
    const dimension_ranges& r_;
    std::size_t at_ = 0;
  };

  /// Appends to `out` the indices of the ranges holding key `k` (of
  /// `text_k` on a string dimension), in increasing order.
  void ranges_holding(std::uint64_t k, std::string_view text_k, std::vector<std::size_t>& out) const {
    const std::size_t first = out.size();
    if (!indexed_) {
      for (std::size_t r = 0; r < ranges.size(); ++r)
        if (string ? text[r].contains(text_k) : ranges[r].contains(k)) out.push_back(r);
      return;
    }
    if (string) {
      // Few string ranges hold a key; all-ranges sort first.
      auto it = std::upper_bound(text_by_lo_.begin(), text_by_lo_.end(), text_k,
                                 [&](std::string_view v, std::size_t r) { return !text[r].all && v < text[r].lo; });
      for (auto j = text_by_lo_.begin(); j != it; ++j)
        if (text[*j].contains(text_k)) out.push_back(*j);
    } else {
      // Ranges by lo, each position with the furthest hi up to it: walk back
      // from the last range starting at or before k while one could reach k.
      auto it = std::upper_bound(by_lo_.begin(), by_lo_.end(), k, [&](std::uint64_t v, std::size_t r) { return v < ranges[r].lo; });
      for (std::size_t j = static_cast<std::size_t>(it - by_lo_.begin()); j-- > 0 && reach_[j] >= k;)
        if (ranges[by_lo_[j]].hi >= k) out.push_back(by_lo_[j]);
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  }

  /// Builds what the tests above search; called whenever the ranges change.
  void index() {
    indexed_ = true;
    if (string) {
      text_all_ = std::any_of(text.begin(), text.end(), [](const text_range& r) { return r.all; });
      text_by_lo_.resize(text.size());
      std::iota(text_by_lo_.begin(), text_by_lo_.end(), std::size_t{0});
      std::stable_sort(text_by_lo_.begin(), text_by_lo_.end(), [&](std::size_t a, std::size_t b) {
        return text[a].all != text[b].all ? text[a].all : text[a].lo < text[b].lo;
      });
      text_cover_.clear();
      for (std::size_t r : text_by_lo_) {
        if (text[r].all) continue;
        if (!text_cover_.empty() && text[r].lo <= text_cover_.back().hi)
          text_cover_.back().hi = std::max(text_cover_.back().hi, text[r].hi);
        else
          text_cover_.push_back(text[r]);
      }
      return;
    }
    by_lo_.resize(ranges.size());
    std::iota(by_lo_.begin(), by_lo_.end(), std::size_t{0});
    std::stable_sort(by_lo_.begin(), by_lo_.end(), [&](std::size_t a, std::size_t b) { return ranges[a].lo < ranges[b].lo; });
    reach_.resize(ranges.size());
    cover_.clear();
    for (std::size_t j = 0; j < by_lo_.size(); ++j) {
      const key_range& r = ranges[by_lo_[j]];
      reach_[j] = j ? std::max(reach_[j - 1], r.hi) : r.hi;
      if (!cover_.empty() && r.lo <= cover_.back().hi)
        cover_.back().hi = std::max(cover_.back().hi, r.hi);
      else
        cover_.push_back(r);
    }
    make_bitmap();
  }

private:
  static constexpr std::uint64_t bitmap_keys = std::uint64_t{1} << 20;  // 128 KiB of bits, within a core's L2

  bool in_bits(std::uint64_t k) const noexcept {
    const std::uint64_t x = k - bits_base_;
    return x < bits_span_ && ((bits_[x >> 6] >> (x & 63)) & 1) != 0;
  }
  void make_bitmap() {
    bits_.clear();
    bits_base_ = bits_span_ = 0;
    if (cover_.size() < 3 || cover_.back().hi - cover_.front().lo >= bitmap_keys) return;
    bits_base_ = cover_.front().lo;
    bits_span_ = cover_.back().hi - bits_base_ + 1;
    bits_.assign(static_cast<std::size_t>((bits_span_ + 63) / 64), 0);
    for (const auto& r : cover_) {
      // Whole words at once, the bits of the first and last one by one.
      std::uint64_t x = r.lo - bits_base_;
      const std::uint64_t end = r.hi - bits_base_ + 1;
      for (; x < end && (x & 63) != 0; ++x) bits_[x >> 6] |= std::uint64_t{1} << (x & 63);
      for (; x + 64 <= end; x += 64) bits_[x >> 6] = ~std::uint64_t{0};
      for (; x < end; ++x) bits_[x >> 6] |= std::uint64_t{1} << (x & 63);
    }
  }

  template <class Cover, class Key>
  static void clear_outside(const Cover& cover, Key& key, std::size_t n, std::uint8_t* in) {
    if (n == 0) return;
    // The first position in [from, n) whose key is not `below`.
    auto first_not = [&](std::size_t from, auto below) {
      std::size_t lo = from, hi = n;
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (below(key(mid))) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const auto last = key(n - 1);
    auto r = std::lower_bound(cover.begin(), cover.end(), key(0), [](const auto& c, const auto& v) { return c.hi < v; });
    std::size_t done = 0;  // cells before `done` are decided
    for (; r != cover.end() && r->lo <= last && done < n; ++r) {
      const std::size_t begin = first_not(done, [&](const auto& k) { return k < r->lo; });
      std::fill(in + done, in + begin, std::uint8_t{0});
      done = first_not(begin, [&](const auto& k) { return !(r->hi < k); });
    }
    std::fill(in + done, in + n, std::uint8_t{0});
  }

  bool indexed_ = false;
  std::vector<key_range> cover_;         // the ranges' union: sorted, disjoint
  std::vector<std::size_t> by_lo_;       // range indices by lo
  std::vector<std::uint64_t> reach_;     // [j]: the greatest hi of by_lo_[0..j]
  std::vector<std::uint64_t> bits_;      // the keys of cover_ from bits_base_ on, a bit each (make_bitmap)
  std::uint64_t bits_base_ = 0, bits_span_ = 0;
  bool text_all_ = false;                // a string range covers everything
  std::vector<text_range> text_cover_;   // string ranges' union, sorted, disjoint
  std::vector<std::size_t> text_by_lo_;  // string range indices, all-ranges first, then by lo
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
    const std::vector<user_range> none;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& dim = dims[d];
      const auto& ranges = d < given.size() ? given[d] : none;
      auto& out = dims_[d];
      if (dim.is_var() && dim.type.value == format::Datatype::STRING_ASCII) {
        string_dimension(dim, ranges, out);
        continue;
      }
      if (dim.is_var() || !numeric_dimension(schema, d, ranges, crop, out))
        throw std::invalid_argument("tilefmt: query: dimension \"" + dim.name.value + "\" has " +
                                    std::string(format::codec_enum_name(dim.type.value)) +
                                    " coordinates; queries read fixed-size and ASCII string dimensions");
    }
    for (auto& d : dims_) d.index();
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
  /// The same subarray with dimension `d`'s ranges replaced by `ranges`,
  /// taken as they are (parts of this subarray's: query batches).
  subarray with_ranges(std::size_t d, std::vector<key_range> ranges) const {
    subarray s = *this;
    s.dims_[d].ranges = std::move(ranges);
    s.dims_[d].index();
    return s;
  }

  /// The same subarray with each dimension's ranges sorted and overlapping
  /// (or, for integers, adjacent) ones merged, as TileDB's global-order and
  /// unordered readers take it.
  subarray merged() const {
    subarray s = *this;
    for (auto& d : s.dims_) {
      if (d.string) {
        merge_text(d);
        d.index();
        continue;
      }
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
      d.index();
    }
    return s;
  }

private:
  subarray() = default;

  /// What the range checks need of a coordinate type: chosen once per
  /// dimension, so that the checks are compiled once rather than once per
  /// type (they compare keys through `less`, which is the type's own order:
  /// the keys' order differs from it for -0.0 and 0.0).
  struct bound_ops {
    std::uint64_t (*key)(const range_value&, const std::string& who);
    bool (*less)(std::uint64_t, std::uint64_t);
    std::string (*text)(std::uint64_t);

    template <class T>
    static bound_ops of() {
      return {[](const range_value& v, const std::string& who) { return order_key(convert<T>(v, who)); },
              [](std::uint64_t a, std::uint64_t b) { return from_order_key<T>(a) < from_order_key<T>(b); },
              [](std::uint64_t k) { return std::to_string(from_order_key<T>(k)); }};
    }
  };

  /// A fixed-size dimension's ranges, as keys; false when its coordinates
  /// are not of a type queries read. A current domain (format 22) bounds
  /// what may be read: TileDB refuses ranges outside it (Query::process), and
  /// sparse reads without ranges stay inside it (the same cells where every
  /// write did, as TileDB's writers see to).
  static bool numeric_dimension(const format::ArraySchema& schema, std::size_t d, const std::vector<user_range>& given,
                                bool crop, dimension_ranges& out) {
    const auto& dim = schema.domain.dimensions.value[d];
    const auto& cd = schema.current_domain.value;
    const bool has_current = !cd.empty && d < cd.ndrectangle.value.ranges.size();
    key_range current{};
    bound_ops ops{};
    if (!format::visit_coordinate_type(dim.type.value, [&]<class T>() {
          const auto [dlo, dhi] = dim.domain_as<T>();
          out.domain = {order_key(dlo), order_key(dhi)};
          out.integral = std::is_integral_v<T>;
          if (has_current) {
            const auto [clo, chi] = cd.ndrectangle.value.ranges[d].template as<T>();
            current = {order_key(clo), order_key(chi)};
          }
          ops = bound_ops::of<T>();
        }))
      return false;
    if (given.empty()) {
      out.ranges.push_back(has_current && crop ? current : out.domain);
      return true;
    }
    const key_range dom = out.domain;
    for (const auto& r : given) {
      const std::string who = "tilefmt: query: range " + r.describe() + " of dimension \"" + dim.name.value + "\"";
      if (r.text) throw std::invalid_argument(who + ": the dimension's coordinates are numbers, not strings");
      std::uint64_t lo = ops.key(r.lo, who), hi = ops.key(r.hi, who);
      if (ops.less(hi, lo)) throw std::invalid_argument(who + " is empty (lo > hi)");
      if (ops.less(lo, dom.lo) || ops.less(dom.hi, hi)) {
        if (!crop)
          throw std::invalid_argument(who + " is outside the domain [" + ops.text(dom.lo) + ", " + ops.text(dom.hi) +
                                      "]");
        if (ops.less(hi, dom.lo) || ops.less(dom.hi, lo)) continue;  // nothing of it in the domain
        if (ops.less(lo, dom.lo)) lo = dom.lo;
        if (ops.less(dom.hi, hi)) hi = dom.hi;
      }
      if (has_current && (ops.less(lo, current.lo) || ops.less(current.hi, hi)))
        throw std::invalid_argument(who + " is outside the current domain [" + ops.text(current.lo) + ", " +
                                    ops.text(current.hi) + "] (TileDB refuses it too)");
      add(out, {lo, hi});
    }
    return true;
  }

  /// A string dimension's ranges: strings only, lo <= hi; none given: all.
  static void string_dimension(const format::Dimension& dim, const std::vector<user_range>& given,
                               dimension_ranges& out) {
    out.string = true;
    out.integral = false;
    if (given.empty()) out.text.push_back({{}, {}, true});
    for (const auto& r : given) {
      const std::string who = "tilefmt: query: range " + r.describe() + " of dimension \"" + dim.name.value + "\"";
      if (!r.text) throw std::invalid_argument(who + ": the dimension's coordinates are strings");
      if (r.text_lo > r.text_hi) throw std::invalid_argument(who + " is empty (lo > hi)");
      out.text.push_back({r.text_lo, r.text_hi, false});
    }
    out.ranges.assign(out.text.size(), key_range{});
  }

  /// Sorts a string dimension's ranges (by lo, then hi) and merges those
  /// that overlap as TileDB does: the merged range ends where the later one
  /// ends, even when the earlier one reaches further (so ["a", "z"] and
  /// ["b", "c"] read as ["a", "c"]; TileDB's MergeStrategy for strings).
  static void merge_text(dimension_ranges& d) {
    auto& rs = d.text;
    std::sort(rs.begin(), rs.end(), [](const text_range& a, const text_range& b) {
      return a.all != b.all ? a.all : a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
    });
    std::vector<text_range> out;
    for (const auto& r : rs) {
      if (!out.empty() && (out.back().all || r.lo <= out.back().hi)) {
        if (!out.back().all) out.back().hi = r.hi;
        continue;
      }
      out.push_back(r);
    }
    rs = std::move(out);
    d.ranges.assign(rs.size(), key_range{});
  }

  /// An integer range that starts right after the previous one joins it.
  static void add(dimension_ranges& d, key_range r) {
    if (d.integral && !d.ranges.empty() && d.ranges.back().hi != std::numeric_limits<std::uint64_t>::max() &&
        d.ranges.back().hi + 1 == r.lo) {
      d.ranges.back().hi = r.hi;
      return;
    }
    d.ranges.push_back(r);
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
