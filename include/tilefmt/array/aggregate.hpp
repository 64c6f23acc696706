// tilefmt — aggregates over the cells a query selects (query::aggregate),
// with TileDB's rules (tiledb/sm/query/readers/aggregators/):
//
// - COUNT counts the result's cells; NULL_COUNT its null cells (nullable
//   attributes only).
// - SUM, MIN, MAX and MEAN skip null cells and, in dense arrays, the cells
//   that failed the query's condition (they read as fill values). Sums of
//   signed integers are int64, of unsigned ones uint64, of floats double,
//   and overflow is an error (std::overflow_error, as in TileDB); MIN and
//   MAX of strings compare bytes. With no cell to aggregate, a non-nullable
//   field's SUM is 0 (in dense arrays its MIN and MAX too) and its MEAN NaN;
//   everything else is null.
// - MEAN is the sum as a double over the cells summed.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "tilefmt/array/query_result.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::array {

enum class aggregate_op { count, sum, min, max, mean, null_count };

/// An aggregate's value: null (std::monostate: nothing to aggregate), an
/// integer, a floating-point number, or a string (MIN and MAX of strings).
using aggregate_value = std::variant<std::monostate, std::int64_t, std::uint64_t, double, std::string>;

namespace detail {

struct aggregate_input {
  const result_field* field = nullptr;  // null for COUNT
  std::uint64_t cells = 0;
  const std::vector<std::uint8_t>* failed = nullptr;  // dense reads with a condition
  bool dense = false;
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

inline aggregate_value compute_aggregate(aggregate_op op, const aggregate_input& in) {
  if (op == aggregate_op::count) return in.cells;
  const result_field& f = *in.field;
  const std::string who = "tilefmt: aggregate: " + std::string(op_name(op)) + " of \"" + f.name + "\"";
  if (op == aggregate_op::null_count) {
    if (!f.nullable) throw std::invalid_argument(who + ": the field is not nullable");
    std::uint64_t n = 0;
    for (auto v : f.validity) n += v == 0;
    return n;
  }
  // The cells aggregated: not null, not failing the condition.
  auto counted = [&](std::size_t c) {
    return (!f.nullable || f.validity[c] != 0) && (!in.failed || in.failed->empty() || (*in.failed)[c] == 0);
  };
  const bool string = f.var || f.type == format::Datatype::CHAR || format::is_string(f.type);
  if (string) {
    if (op != aggregate_op::min && op != aggregate_op::max) throw std::invalid_argument(who + ": the field holds strings");
    std::optional<std::string_view> best;
    const std::size_t size = f.var ? 0 : format::datatype_size(f.type);
    for (std::size_t c = 0; c < in.cells; ++c) {
      if (!counted(c)) continue;
      std::string_view s;
      if (f.var) {
        const std::size_t end = c + 1 < f.offsets.size() ? f.offsets[c + 1] : f.values.size();
        s = {reinterpret_cast<const char*>(f.values.data()) + f.offsets[c], end - f.offsets[c]};
      } else {
        s = {reinterpret_cast<const char*>(f.values.data()) + c * size, size};
      }
      if (!best || (op == aggregate_op::min ? s < *best : s > *best)) best = s;
    }
    if (!best) return std::monostate{};
    return std::string(*best);
  }
  if (f.values.size() != in.cells * format::datatype_size(f.type))
    throw std::invalid_argument(who + ": the field holds several values per cell");
  aggregate_value out;
  const bool typed = format::visit_datatype(f.type, [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      // Sums and extremes in the widest type of T's kind.
      using W = std::conditional_t<std::is_floating_point_v<T>, double,
                                   std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;
      W acc{};
      std::uint64_t n = 0;
      for (std::size_t c = 0; c < in.cells; ++c) {
        if (!counted(c)) continue;
        const W v = static_cast<W>(codec::load_le<T>(f.values.data() + c * sizeof(T)));
        if (op == aggregate_op::sum || op == aggregate_op::mean)
          safe_add(acc, v);
        else if (n == 0 || (op == aggregate_op::min ? v < acc : v > acc))
          acc = v;
        ++n;
      }
      if (n == 0) {
        // TileDB: of a non-nullable field, the SUM of no cells is 0 (and in
        // dense arrays so are MIN and MAX), their MEAN NaN; anything else null.
        if (op == aggregate_op::mean)
          out = f.nullable ? aggregate_value{} : std::numeric_limits<double>::quiet_NaN();
        else if (f.nullable || (op != aggregate_op::sum && !in.dense))
          out = std::monostate{};
        else
          out = acc;
      } else if (op == aggregate_op::mean) {
        out = static_cast<double>(acc) / static_cast<double>(n);
      } else {
        out = acc;
      }
    } else {
      throw std::invalid_argument(who + ": the field's values do not aggregate");
    }
  });
  if (!typed) throw std::invalid_argument(who + ": the field's values do not aggregate");
  return out;
}

} // namespace detail

} // namespace tilefmt::array
