// tilefmt — a query's parts named as bindings spell them (the Python
// package, the WebAssembly module): layouts as TileDB-Py's order codes,
// condition operators as written in a condition, aggregates by name, and
// value tests whose values arrive as bytes already in the field's type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/condition.hpp"
#include "tilefmt/array/read/aggregate.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/codec/wire.hpp"

namespace tilefmt::array {

/// "C", "F", "G", "U" (TileDB-Py's order codes) as a layout.
inline query_layout layout_named(std::string_view s) {
  if (s == "C") return query_layout::row_major;
  if (s == "F") return query_layout::col_major;
  if (s == "G") return query_layout::global_order;
  if (s == "U") return query_layout::unordered;
  throw std::invalid_argument("tilefmt: order must be \"C\", \"F\", \"G\" or \"U\", not \"" + std::string(s) + "\"");
}

/// "<", "<=", ">", ">=", "==", "!=", "in", "not in".
inline format::QueryConditionOp condition_op_named(std::string_view s) {
  using O = format::QueryConditionOp;
  if (s == "<") return O::LT;
  if (s == "<=") return O::LE;
  if (s == ">") return O::GT;
  if (s == ">=") return O::GE;
  if (s == "==") return O::EQ;
  if (s == "!=") return O::NE;
  if (s == "in") return O::IN;
  if (s == "not in") return O::NOT_IN;
  throw std::invalid_argument("tilefmt: unknown condition operator \"" + std::string(s) + "\"");
}

/// "count", "sum", "min", "max", "mean", "null_count".
inline aggregate_op aggregate_named(std::string_view s) {
  if (s == "count") return aggregate_op::count;
  if (s == "sum") return aggregate_op::sum;
  if (s == "min") return aggregate_op::min;
  if (s == "max") return aggregate_op::max;
  if (s == "mean") return aggregate_op::mean;
  if (s == "null_count") return aggregate_op::null_count;
  throw std::invalid_argument("tilefmt: unknown aggregate \"" + std::string(s) + "\"");
}

/// `field op value`, the value's bytes in the field's type (nullopt: a null
/// test, with == or !=); with `label`, a string naming an enumeration label.
inline condition compare_bytes(std::string field, std::string_view op, std::optional<std::vector<std::byte>> value,
                               bool label) {
  format::ConditionNode n;  // a value node (the default)
  n.value().field_name.value = std::move(field);
  n.value().op = condition_op_named(op);
  if (value) n.value().value.value = std::move(*value);
  return condition(std::move(n), label);
}

/// `field in values` or `field not in values`, each value's bytes in the
/// field's type.
inline condition in_set_bytes(std::string field, std::string_view op, const std::vector<std::vector<std::byte>>& values,
                              bool label) {
  format::ConditionNode n;
  n.value().field_name.value = std::move(field);
  n.value().op = condition_op_named(op);
  auto& bytes = n.value().value.value;
  auto& offsets = n.value().offsets->value;
  offsets.resize(values.size() * 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    codec::store_le<std::uint64_t>(offsets.data() + 8 * i, bytes.size());
    bytes.insert(bytes.end(), values[i].begin(), values[i].end());
  }
  return condition(std::move(n), label);
}

} // namespace tilefmt::array
