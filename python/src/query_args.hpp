// tilefmt._core: a query's arguments as Python gives them (ranges per
// dimension, a condition tree, the layout and aggregate names), turned into
// the C++ query's.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/read/query_names.hpp"

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
  auto field = nb::cast<std::string>(t[1]);
  const auto op = nb::cast<std::string>(t[2]);
  const bool label = nb::cast<bool>(t[4]);
  if (kind == "cmp") {
    std::optional<std::vector<std::byte>> value;
    if (!t[3].is_none()) value = from_bytes(nb::cast<nb::bytes>(t[3]));
    return ta::compare_bytes(std::move(field), op, std::move(value), label);
  }
  if (kind == "set") {
    std::vector<std::vector<std::byte>> values;
    for (nb::handle v : nb::cast<nb::list>(t[3])) values.push_back(from_bytes(nb::cast<nb::bytes>(v)));
    return ta::in_set_bytes(std::move(field), op, values, label);
  }
  throw std::invalid_argument("tilefmt: unknown condition node \"" + kind + "\"");
}

} // namespace tilefmt_python
