// tilefmt._core: a query's arguments as Python gives them (ranges per
// dimension, a condition tree, the layout and aggregate names), turned into
// the C++ query's.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/read/query.hpp"

namespace tilefmt_python {

namespace nb = nanobind;
namespace ta = tilefmt::array;
namespace tf = tilefmt::format;

/// Python bytes as a byte vector.
inline std::vector<std::byte> from_bytes(const nb::bytes& b) {
  const auto* p = reinterpret_cast<const std::byte*>(b.c_str());
  return {p, p + b.size()};
}

/// The dimension ranges from Python: per dimension, a list of (lo, hi)
/// pairs of ints, floats or bytes (strings arrive encoded).
inline void add_ranges(ta::query& q, const ta::array_reader& arr, const nb::list& ranges) {
  const auto& dims = arr.schema().domain.dimensions.value;
  if (ranges.size() > dims.size()) throw std::invalid_argument("tilefmt: more ranges than dimensions");
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const tf::Datatype t = dims[d].type.value;
    for (nb::handle r : nb::cast<nb::list>(ranges[d])) {
      auto pair = nb::cast<nb::tuple>(r);
      nb::handle lo = pair[0], hi = pair[1];
      if (nb::isinstance<nb::bytes>(lo)) {
        auto l = nb::cast<nb::bytes>(lo), h = nb::cast<nb::bytes>(hi);
        q.add_range(d, std::string_view(l.c_str(), l.size()), std::string_view(h.c_str(), h.size()));
      } else if (tf::is_float(t)) {
        q.add_range(d, nb::cast<double>(lo), nb::cast<double>(hi));
      } else if (t == tf::Datatype::UINT64) {
        q.add_range(d, nb::cast<std::uint64_t>(lo), nb::cast<std::uint64_t>(hi));
      } else {
        q.add_range(d, nb::cast<std::int64_t>(lo), nb::cast<std::int64_t>(hi));
      }
    }
  }
}

inline tf::QueryConditionOp op_of(const std::string& s) {
  using O = tf::QueryConditionOp;
  if (s == "<") return O::LT;
  if (s == "<=") return O::LE;
  if (s == ">") return O::GT;
  if (s == ">=") return O::GE;
  if (s == "==") return O::EQ;
  if (s == "!=") return O::NE;
  if (s == "in") return O::IN;
  if (s == "not in") return O::NOT_IN;
  throw std::invalid_argument("tilefmt: unknown condition operator \"" + s + "\"");
}

/// A condition from the tree the Python parser builds (tilefmt/_condition.py):
/// ("and"|"or", [children]), ("not", child), ("cmp", field, op, value bytes
/// or None for null tests, label), ("set", field, op, [value bytes], label).
inline ta::condition condition_of(nb::handle h) {
  auto t = nb::cast<nb::tuple>(h);
  const auto kind = nb::cast<std::string>(t[0]);
  if (kind == "and" || kind == "or") {
    auto children = nb::cast<nb::list>(t[1]);
    if (children.size() == 0) throw std::invalid_argument("tilefmt: empty condition");
    ta::condition c = condition_of(children[0]);
    for (std::size_t i = 1; i < children.size(); ++i)
      c = kind == "and" ? std::move(c) && condition_of(children[i]) : std::move(c) || condition_of(children[i]);
    return c;
  }
  if (kind == "not") return !condition_of(t[1]);
  tf::ConditionNode n;  // a value node (the default)
  n.value().field_name.value = nb::cast<std::string>(t[1]);
  n.value().op = op_of(nb::cast<std::string>(t[2]));
  const bool label = nb::cast<bool>(t[4]);
  if (kind == "cmp") {
    if (!t[3].is_none()) n.value().value.value = from_bytes(nb::cast<nb::bytes>(t[3]));
  } else if (kind == "set") {
    std::vector<std::uint64_t> offsets;
    for (nb::handle v : nb::cast<nb::list>(t[3])) {
      offsets.push_back(n.value().value.value.size());
      auto b = from_bytes(nb::cast<nb::bytes>(v));
      n.value().value.value.insert(n.value().value.value.end(), b.begin(), b.end());
    }
    n.value().offsets->value.resize(offsets.size() * 8);
    for (std::size_t i = 0; i < offsets.size(); ++i)
      tilefmt::codec::store_le<std::uint64_t>(n.value().offsets->value.data() + 8 * i, offsets[i]);
  } else {
    throw std::invalid_argument("tilefmt: unknown condition node \"" + kind + "\"");
  }
  return ta::condition(std::move(n), label);
}

inline ta::query_layout layout_of(const std::string& s) {
  if (s == "C") return ta::query_layout::row_major;
  if (s == "F") return ta::query_layout::col_major;
  if (s == "G") return ta::query_layout::global_order;
  if (s == "U") return ta::query_layout::unordered;
  throw std::invalid_argument("tilefmt: order must be \"C\", \"F\", \"G\" or \"U\", not \"" + s + "\"");
}

inline ta::aggregate_op agg_of(const std::string& s) {
  if (s == "count") return ta::aggregate_op::count;
  if (s == "sum") return ta::aggregate_op::sum;
  if (s == "min") return ta::aggregate_op::min;
  if (s == "max") return ta::aggregate_op::max;
  if (s == "mean") return ta::aggregate_op::mean;
  if (s == "null_count") return ta::aggregate_op::null_count;
  throw std::invalid_argument("tilefmt: unknown aggregate \"" + s + "\"");
}

} // namespace tilefmt_python
