// tilefmt — aggregates over the cells a query selects (query::aggregate),
// with TileDB's rules (tiledb/sm/query/readers/aggregators/):
//
// - COUNT counts the result's cells; NULL_COUNT its null cells (nullable
//   attributes only).
// - In dense arrays every aggregate but COUNT leaves out the cells no
//   fragment wrote and those that failed the query's condition (both read
//   as fill values), and whole space tiles one fragment wrote are taken
//   from the metadata stored with them (read/dense/aggregate.hpp).
// - SUM, MIN, MAX and MEAN skip null cells. Sums of
//   signed integers are int64, of unsigned ones uint64, of floats double,
//   and overflow is an error (std::overflow_error, as in TileDB); MIN and
//   MAX of strings compare bytes. With no cell to aggregate, a non-nullable
//   field's SUM is 0 (in dense arrays its MIN and MAX too) and its MEAN NaN;
//   everything else is null.
// - MEAN is the sum as a double over the cells summed.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "tilefmt/array/read/fragment.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::array {

enum class aggregate_op { count, sum, min, max, mean, null_count };

/// An aggregate's value: null (std::monostate: nothing to aggregate), an
/// integer, a floating-point number, or a string (MIN and MAX of strings).
using aggregate_value = std::variant<std::monostate, std::int64_t, std::uint64_t, double, std::string>;

namespace detail {

/// What an aggregate is over: a result field's name and kind (nothing for
/// COUNT).
struct aggregate_field {
  std::string name;
  format::Datatype type = format::Datatype::INT32;
  bool var = false, nullable = false;
  std::uint32_t cell_val_num = 1;
};

inline std::string_view op_name(aggregate_op op) {
  constexpr std::string_view names[] = {"COUNT", "SUM", "MIN", "MAX", "MEAN", "NULL_COUNT"};
  return names[static_cast<int>(op)];
}

/// Sums without wrapping around, as TileDB does.
template <class S>
void safe_add(S& sum, S v) {
  bool over = false;
  if constexpr (std::is_floating_point_v<S>)
    over = (sum < 0) == (v < 0) && std::abs(sum) > std::numeric_limits<S>::max() - std::abs(v);
  else
    over = __builtin_add_overflow(sum, v, &sum);
  if (over) throw std::overflow_error("tilefmt: aggregate: overflow on sum");
  if constexpr (std::is_floating_point_v<S>) sum += v;
}

/// One aggregate, fed in parts: the cells of reads (add_cells) and the
/// metadata of whole tiles (add_tile), in any order; value() at the end.
/// The field's kind is checked at construction, before anything is read.
class aggregator {
public:
  aggregator(aggregate_op op, aggregate_field f, bool dense) : op_(op), f_(std::move(f)), dense_(dense) {
    if (op_ == aggregate_op::count) return;
    const std::string who = "tilefmt: aggregate: " + std::string(op_name(op_)) + " of \"" + f_.name + "\"";
    if (op_ == aggregate_op::null_count) {
      if (!f_.nullable) throw std::invalid_argument(who + ": the field is not nullable");
      return;
    }
    string_ = f_.var || f_.type == format::Datatype::CHAR || format::is_string(f_.type);
    if (string_) {
      if (op_ != aggregate_op::min && op_ != aggregate_op::max)
        throw std::invalid_argument(who + ": the field holds strings");
      return;
    }
    if (f_.cell_val_num != 1) throw std::invalid_argument(who + ": the field holds several values per cell");
    const bool typed = format::visit_datatype(f_.type, [&]<class T>() {
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
        kind_ = std::is_floating_point_v<T> ? 2 : std::is_signed_v<T> ? 0 : 1;
    });
    if (!typed || kind_ < 0) throw std::invalid_argument(who + ": the field's values do not aggregate");
  }

  aggregate_op op() const noexcept { return op_; }
  const std::string& field_name() const noexcept { return f_.name; }

  /// `cells` cells of a read; `f` holds them (COUNT: null). Cells marked in
  /// `failed` or `unwritten` (dense reads: cells that failed the condition,
  /// cells no fragment wrote) are left out of all but COUNT.
  void add_cells(const result_field* f, std::uint64_t cells, const std::vector<std::uint8_t>* failed = nullptr,
                 const std::vector<std::uint8_t>* unwritten = nullptr) {
    if (op_ == aggregate_op::count) {
      count_ += cells;
      return;
    }
    auto skipped = [&](std::size_t c) {
      return (failed && !failed->empty() && (*failed)[c] != 0) ||
             (unwritten && !unwritten->empty() && (*unwritten)[c] != 0);
    };
    if (op_ == aggregate_op::null_count) {
      for (std::size_t c = 0; c < cells; ++c) count_ += f->validity[c] == 0 && !skipped(c);
      return;
    }
    auto counted = [&](std::size_t c) { return (!f->nullable || f->validity[c] != 0) && !skipped(c); };
    if (string_) {
      const std::size_t size = f->var ? 0 : format::datatype_size(f->type) * f_.cell_val_num;
      for (std::size_t c = 0; c < cells; ++c) {
        if (!counted(c)) continue;
        if (f->var) {
          const std::size_t end = c + 1 < f->offsets.size() ? f->offsets[c + 1] : f->values.size();
          add_string({reinterpret_cast<const char*>(f->values.data()) + f->offsets[c], static_cast<std::size_t>(end - f->offsets[c])});
        } else {
          add_string({reinterpret_cast<const char*>(f->values.data()) + c * size, size});
        }
      }
      return;
    }
    // Without nulls or a condition, the cells left out are whole runs (tiles
    // no fragment wrote, or read elsewhere): the runs between are taken in
    // blocks.
    const bool per_cell = f->nullable || (failed && !failed->empty());
    const bool runs = unwritten && !unwritten->empty();
    format::visit_datatype(f_.type, [&]<class T>() {
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        const std::byte* values = f->values.data();
        if (per_cell) {
          for (std::size_t c = 0; c < cells; ++c)
            if (counted(c)) add_value(static_cast<wide_t<T>>(codec::load_le<T>(values + c * sizeof(T))), 1);
          return;
        }
        for (std::size_t c = 0; c < cells;) {
          std::size_t e = std::min<std::size_t>(cells, c + block_cells);
          if (runs) {
            const auto* u = unwritten->data();
            if (u[c] != 0) {  // to the next cell taken
              c = static_cast<std::size_t>(std::find(u + c, u + cells, std::uint8_t{0}) - u);
              continue;
            }
            e = static_cast<std::size_t>(std::find(u + c, u + e, std::uint8_t{1}) - u);
          }
          add_block<T>(values, c, e);
          c = e;
        }
      }
    });
  }

  /// `n` cells of a fixed-size field, back to back at `values`, none left
  /// out but the nulls (`validity`: a byte per cell, or null).
  void add_fixed(const std::byte* values, const std::uint8_t* validity, std::size_t n) {
    if (op_ == aggregate_op::count) {
      count_ += n;
      return;
    }
    if (op_ == aggregate_op::null_count) {
      for (std::size_t c = 0; c < n; ++c) count_ += validity && validity[c] == 0;
      return;
    }
    if (string_) {
      const std::size_t size = format::datatype_size(f_.type) * f_.cell_val_num;
      for (std::size_t c = 0; c < n; ++c)
        if (!validity || validity[c] != 0) add_string({reinterpret_cast<const char*>(values) + c * size, size});
      return;
    }
    format::visit_datatype(f_.type, [&]<class T>() {
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        if (validity) {
          for (std::size_t c = 0; c < n; ++c)
            if (validity[c] != 0) add_value(static_cast<wide_t<T>>(codec::load_le<T>(values + c * sizeof(T))), 1);
          return;
        }
        for (std::size_t b = 0; b < n; b += block_cells) add_block<T>(values, b, std::min(n, b + block_cells));
      }
    });
  }

  /// The same aggregate over nothing yet, to fill on another thread and merge.
  aggregator empty_copy() const { return aggregator(op_, f_, dense_); }

  /// Adds what `o` (an empty_copy of this one) aggregated.
  void merge(const aggregator& o) {
    if (op_ == aggregate_op::count || op_ == aggregate_op::null_count) {
      count_ += o.count_;
      return;
    }
    if (string_) {
      if (o.best_) add_string(*o.best_);
      return;
    }
    if (o.count_ == 0) return;
    std::visit(
        [&](const auto& v) {
          if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>) add_value(v, o.count_);
        },
        o.acc_);
  }

  /// A whole tile, from its stored metadata (TileDB's
  /// aggregate_tile_with_frag_md): COUNT adds its cells, NULL_COUNT its
  /// nulls; SUM and MEAN add its sum over its cells less nulls; MIN and MAX
  /// take its min or max when it has a cell that is not null.
  void add_tile(const tile_summary& t) {
    switch (op_) {
    case aggregate_op::count: count_ += t.cell_num; return;
    case aggregate_op::null_count: count_ += t.null_count; return;
    default: break;
    }
    const std::uint64_t n = t.cell_num - std::min(t.cell_num, t.null_count);
    if (string_) {
      if (n > 0) add_string({reinterpret_cast<const char*>(t.min.data()), t.min.size()},
                            {reinterpret_cast<const char*>(t.max.data()), t.max.size()});
      return;
    }
    format::visit_datatype(f_.type, [&]<class T>() {
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        using W = wide_t<T>;
        if (op_ == aggregate_op::sum || op_ == aggregate_op::mean)
          add_value(codec::bit_cast<W>(t.sum.value_or(0)), n);
        else if (n > 0)
          add_value(static_cast<W>(codec::load_le<T>((op_ == aggregate_op::min ? t.min : t.max).data())), n);
      }
    });
  }

  /// Whether add_tile can answer for a tile with this metadata: the
  /// field's min and max (or sum) were stored.
  bool tile_answers(const tile_summary& t) const {
    switch (op_) {
    case aggregate_op::count: case aggregate_op::null_count: return true;
    case aggregate_op::sum: case aggregate_op::mean: return !string_ && t.sum.has_value();
    default:
      return string_ ? !t.min.empty() || f_.var
                     : t.min.size() == format::datatype_size(f_.type) && t.max.size() == t.min.size();
    }
  }

  aggregate_value value() const {
    if (op_ == aggregate_op::count || op_ == aggregate_op::null_count) return count_;
    if (string_) return best_ ? aggregate_value{*best_} : aggregate_value{};
    if (count_ == 0) {
      // TileDB: of a non-nullable field, the SUM of no cells is 0 (and in
      // dense arrays so are MIN and MAX), their MEAN NaN; anything else null.
      if (op_ == aggregate_op::mean)
        return f_.nullable ? aggregate_value{} : std::numeric_limits<double>::quiet_NaN();
      if (f_.nullable || (op_ != aggregate_op::sum && !dense_)) return std::monostate{};
      if (kind_ == 0) return std::int64_t{0};
      if (kind_ == 1) return std::uint64_t{0};
      return 0.0;
    }
    if (op_ == aggregate_op::mean)
      return std::visit(
          [&](const auto& a) -> aggregate_value {
            if constexpr (std::is_arithmetic_v<std::decay_t<decltype(a)>>)
              return static_cast<double>(a) / static_cast<double>(count_);
            else
              return std::monostate{};
          },
          acc_);
    return acc_;
  }

private:
  /// Sums and extremes in the widest type of T's kind: the type TileDB
  /// sums T in (format::sum_type_of, as tile metadata does).
  template <class T>
  using wide_t = format::sum_type_of<T>;

  /// Cells summed or compared in one go: 2^16 values narrower than 64 bits
  /// cannot overflow an int64 or uint64 sum.
  static constexpr std::size_t block_cells = std::size_t{1} << 16;

  /// Cells [b, e) of `values`, none of them left out: summed or compared
  /// in a plain loop, then added as one value. Where that could differ from
  /// cell by cell (64-bit sums, which can overflow inside the block; a float
  /// sum that is not finite; a NaN extreme), cell by cell.
  template <class T>
  void add_block(const std::byte* values, std::size_t b, std::size_t e) {
    using W = wide_t<T>;
    auto at = [&](std::size_t c) { return codec::load_le<T>(values + c * sizeof(T)); };
    auto one_by_one = [&] {
      for (std::size_t c = b; c < e; ++c) add_value(static_cast<W>(at(c)), 1);
    };
    if (op_ == aggregate_op::sum || op_ == aggregate_op::mean) {
      if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
        one_by_one();
      } else {
        W s{};
        for (std::size_t c = b; c < e; ++c) s += static_cast<W>(at(c));
        if constexpr (std::is_floating_point_v<T>) {
          if (!std::isfinite(s)) return one_by_one();
        }
        add_value(s, e - b);
      }
      return;
    }
    T m = at(b);
    if (op_ == aggregate_op::min)
      for (std::size_t c = b + 1; c < e; ++c) m = at(c) < m ? at(c) : m;
    else
      for (std::size_t c = b + 1; c < e; ++c) m = at(c) > m ? at(c) : m;
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(m)) return one_by_one();
    }
    add_value(static_cast<W>(m), e - b);
  }

  /// `n` cells: for SUM and MEAN, `v` is their sum; else one value of them.
  template <class W>
  void add_value(W v, std::uint64_t n) {
    if (!std::holds_alternative<W>(acc_)) acc_ = W{};
    W& acc = std::get<W>(acc_);
    if (op_ == aggregate_op::sum || op_ == aggregate_op::mean)
      safe_add(acc, v);
    else if (count_ == 0 || (op_ == aggregate_op::min ? v < acc : v > acc))
      acc = v;
    count_ += n;
  }
  void add_string(std::string_view lo, std::string_view hi) {
    const std::string_view s = op_ == aggregate_op::min ? lo : hi;
    if (!best_ || (op_ == aggregate_op::min ? s < *best_ : s > *best_)) best_ = std::string(s);
  }
  void add_string(std::string_view s) { add_string(s, s); }

  aggregate_op op_;
  aggregate_field f_;
  bool dense_;
  bool string_ = false;
  int kind_ = -1;  // 0 signed, 1 unsigned, 2 floating point
  std::uint64_t count_ = 0;
  aggregate_value acc_;
  std::optional<std::string> best_;
};

} // namespace detail

} // namespace tilefmt::array
