// Recorded queries: what TileDB-Py returned for a query, as
// tests/interop/record_queries.py writes it, and the same query run
// through tilefmt and compared. Shared by tests/array/read/test_query.cpp (the
// committed records) and the interop checker (every release's records), so
// it reports a mismatch as a message, not through a test framework.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <istream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tilefmt/array/read/query.hpp"

namespace tilefmt::testing::recorded {

inline std::vector<std::byte> unhex(const std::string& s) {
  std::vector<std::byte> out;
  if (s == "-") return out;
  if (s.size() % 2 != 0) throw std::invalid_argument("recorded queries: odd hex \"" + s + "\"");
  for (std::size_t i = 0; i < s.size(); i += 2)
    out.push_back(static_cast<std::byte>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return out;
}

inline std::vector<std::uint64_t> numbers(const std::string& s) {
  std::vector<std::uint64_t> out;
  if (s == "-") return out;
  std::istringstream in(s);
  for (std::string n; std::getline(in, n, ',');) out.push_back(std::stoull(n));
  return out;
}

struct expected_field {
  std::string name;
  bool dimension = false;
  std::uint64_t cells = 0;
  std::vector<std::byte> values;
  std::optional<std::vector<std::uint64_t>> offsets;
  std::optional<std::vector<std::byte>> validity;

  /// Cell c's bytes.
  std::vector<std::byte> cell(std::size_t c) const {
    if (!offsets) {
      const std::size_t size = values.size() / cells;
      return {values.begin() + static_cast<std::ptrdiff_t>(c * size),
              values.begin() + static_cast<std::ptrdiff_t>((c + 1) * size)};
    }
    const std::size_t end = c + 1 < offsets->size() ? (*offsets)[c + 1] : values.size();
    return {values.begin() + static_cast<std::ptrdiff_t>((*offsets)[c]), values.begin() + static_cast<std::ptrdiff_t>(end)};
  }
};

/// A range bound as recorded: an integer, a float ("f" + hex float) or a
/// string ("s" + its bytes in hex).
using bound = std::variant<std::int64_t, double, std::string>;

inline bound parse_bound(const std::string& s) {
  if (!s.empty() && s[0] == 'f') return std::strtod(s.c_str() + 1, nullptr);
  if (!s.empty() && s[0] == 's') {
    std::string out;
    for (auto b : unhex(s.substr(1))) out.push_back(static_cast<char>(b));
    return out;
  }
  return std::stoll(s);
}

inline std::string bound_text(const bound& b) {
  return std::visit(
      [](const auto& x) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>)
          return '"' + x + '"';
        else
          return std::to_string(x);
      },
      b);
}

struct recorded_query {
  std::string array;
  char order = 'C';
  std::vector<std::vector<std::pair<bound, bound>>> ranges;  // per dimension
  bool error = false;  // TileDB refused it
  std::vector<format::ConditionNode> where;  // joined by and
  std::vector<bool> labels;                  // per `where`: its value is an enumeration label
  std::vector<expected_field> fields;
  std::vector<std::tuple<std::string, std::string, std::string>> aggregates;  // order A: field, op, value

  /// The array, layout and ranges, for messages.
  std::string describe() const {
    std::string out = array + " " + order + " ";
    for (std::size_t d = 0; d < ranges.size(); ++d) {
      if (d) out += ",";
      for (std::size_t r = 0; r < ranges[d].size(); ++r)
        out += (r ? "|" : "") + bound_text(ranges[d][r].first) + ":" + bound_text(ranges[d][r].second);
    }
    if (!where.empty()) out += " (" + std::to_string(where.size()) + " conditions)";
    return out;
  }
};

inline format::ConditionNode leaf(const std::string& field, const std::string& op, std::vector<std::byte> value) {
  using O = format::QueryConditionOp;
  format::ConditionNode n;
  n.node.value = format::ConditionValue{};
  n.value().op = op == "<" ? O::LT : op == "<=" ? O::LE : op == ">" ? O::GT : op == ">=" ? O::GE : op == "==" ? O::EQ : O::NE;
  n.value().field_name.value = field;
  n.value().value.value = std::move(value);
  return n;
}

/// The records of `in`, as tests/interop/record_queries.py describes them.
inline std::vector<recorded_query> parse(std::istream& in) {
  std::vector<recorded_query> out;
  auto last = [&](const std::string& kind) -> recorded_query& {
    if (out.empty()) throw std::invalid_argument("recorded queries: \"" + kind + "\" before any query");
    return out.back();
  };
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "query") {
      recorded_query q;
      std::string ranges;
      words >> q.array >> q.order >> ranges;
      std::istringstream dims(ranges);
      for (std::string dim; std::getline(dims, dim, ',');) {
        auto& rs = q.ranges.emplace_back();
        std::istringstream each(dim);
        for (std::string r; std::getline(each, r, '|');) {
          const auto colon = r.find(':');
          rs.emplace_back(parse_bound(r.substr(0, colon)), parse_bound(r.substr(colon + 1)));
        }
      }
      out.push_back(std::move(q));
    } else if (kind == "agg") {
      std::string field, op, value;
      words >> field >> op >> value;
      last(kind).aggregates.emplace_back(field, op, value);
    } else if (kind == "where" || kind == "label") {
      std::string field, op, value;
      words >> field >> op >> value;
      last(kind).where.push_back(leaf(field, op, unhex(value)));
      last(kind).labels.push_back(kind == "label");
    } else if (kind == "error") {
      last(kind).error = true;
    } else if (kind == "attr" || kind == "dim") {
      expected_field a;
      a.dimension = kind == "dim";
      std::string values, offsets;
      words >> a.name >> a.cells >> values >> offsets;
      a.values = unhex(values);
      if (!offsets.empty()) a.offsets = numbers(offsets);
      last(kind).fields.push_back(std::move(a));
    } else if (kind == "validity") {
      std::string name, v;
      words >> name >> v;
      auto& q = last(kind);
      if (q.fields.empty() || q.fields.back().name != name)
        throw std::invalid_argument("recorded queries: validity of \"" + name + "\" after another field");
      q.fields.back().validity = unhex(v);
    }
  }
  return out;
}

inline array::query_layout layout_of(char c) {
  switch (c) {
  case 'C': return array::query_layout::row_major;
  case 'F': return array::query_layout::col_major;
  case 'G': return array::query_layout::global_order;
  default: return array::query_layout::unordered;
  }
}

/// The recorded query `q` on `arr`: its layout, ranges, condition and
/// attributes.
inline array::query query_of(const array::array_reader& arr, const recorded_query& q) {
  auto query = arr.query();
  if (q.order != 'A') query.layout(layout_of(q.order));
  for (std::size_t d = 0; d < q.ranges.size(); ++d)
    for (const auto& r : q.ranges[d])
      std::visit(
          [&, d](const auto& l) {
            const auto& h = std::get<std::decay_t<decltype(l)>>(r.second);
            if constexpr (std::is_same_v<std::decay_t<decltype(l)>, std::string>)
              query.add_range(d, std::string_view(l), std::string_view(h));
            else
              query.add_range(d, l, h);
          },
          r.first);
  if (!q.where.empty()) {
    array::condition c(q.where.front(), q.labels.front());
    for (std::size_t i = 1; i < q.where.size(); ++i) c = c && array::condition(q.where[i], q.labels[i]);
    query.where(c);
  }
  if (q.order != 'A') {
    std::vector<std::string> attrs;
    for (const auto& f : q.fields)
      if (!f.dimension) attrs.push_back(f.name);
    query.attributes(attrs);
  }
  return query;
}

/// The recorded field as tilefmt returned it.
inline expected_field returned(const array::query_result& r, const expected_field& e) {
  expected_field g;
  g.name = e.name;
  g.cells = r.cell_num();
  g.values.assign(r.bytes(e.name).begin(), r.bytes(e.name).end());
  if (e.offsets) g.offsets.emplace(r.byte_offsets(e.name).begin(), r.byte_offsets(e.name).end());
  if (e.validity) {
    const auto& v = r.validity(e.name);
    g.validity = std::vector<std::byte>(reinterpret_cast<const std::byte*>(v.data()),
                                        reinterpret_cast<const std::byte*>(v.data()) + v.size());
  }
  return g;
}

/// Each cell as one row of bytes: its coordinates, then each attribute's
/// value and validity.
using row = std::vector<std::vector<std::byte>>;
inline std::vector<row> rows(const std::vector<expected_field>& fields, std::uint64_t cells) {
  std::vector<row> out(cells);
  for (std::size_t c = 0; c < cells; ++c)
    for (const auto& f : fields) {
      out[c].push_back(f.cell(c));
      if (f.validity) out[c].push_back({(*f.validity)[c]});
    }
  return out;
}

/// How tilefmt's result differs from TileDB-Py's ("" when it does not): in
/// order for ordered layouts (cells that share coordinates, in arrays with
/// duplicates, in any order among themselves: TileDB's sorts are not
/// stable), as multisets for unordered ones.
inline std::string compare_cells(const recorded_query& q, const array::query_result& r) {
  std::vector<expected_field> got;
  std::uint64_t cells = 0;
  std::size_t dims = 0;
  for (const auto& e : q.fields) {
    got.push_back(returned(r, e));
    if (got.back().cells != e.cells)
      return e.name + ": " + std::to_string(got.back().cells) + " cells, TileDB returned " + std::to_string(e.cells);
    cells = e.cells;
    if (e.dimension) ++dims;
  }
  auto want_rows = rows(q.fields, cells), got_rows = rows(got, cells);
  auto coords = [&](const row& x) { return row(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(dims)); };
  if (q.order == 'U') {
    std::sort(want_rows.begin(), want_rows.end());
    std::sort(got_rows.begin(), got_rows.end());
  } else if (dims > 0) {
    for (std::size_t c = 0; c < cells; ++c)
      if (coords(got_rows[c]) != coords(want_rows[c])) return "cell " + std::to_string(c) + ": other coordinates";
    for (std::size_t b = 0; b < cells;) {
      std::size_t e = b + 1;
      while (e < cells && coords(want_rows[e]) == coords(want_rows[b])) ++e;
      std::sort(want_rows.begin() + static_cast<std::ptrdiff_t>(b), want_rows.begin() + static_cast<std::ptrdiff_t>(e));
      std::sort(got_rows.begin() + static_cast<std::ptrdiff_t>(b), got_rows.begin() + static_cast<std::ptrdiff_t>(e));
      b = e;
    }
  }
  std::size_t differ = 0, first = cells;
  for (std::size_t c = 0; c < cells; ++c)
    if (got_rows[c] != want_rows[c]) ++differ, first = std::min(first, c);
  if (differ) return std::to_string(differ) + " of " + std::to_string(cells) + " cells differ, first cell " +
                     std::to_string(first);
  return {};
}

/// How tilefmt's aggregates differ from those TileDB-Py printed ("" when
/// they do not): integers exactly; floating-point minima and maxima
/// exactly, sums and means to 1e-12 (the cells are added in another order).
/// TileDB-Py prints a null aggregate of a floating-point field (no cell
/// to aggregate) as nan: "nan" is also null.
inline std::string compare_aggregates(const recorded_query& q, const array::query& query) {
  using array::aggregate_op;
  const std::map<std::string, aggregate_op> ops{{"count", aggregate_op::count}, {"sum", aggregate_op::sum},
                                                {"min", aggregate_op::min},     {"max", aggregate_op::max},
                                                {"mean", aggregate_op::mean},   {"null_count", aggregate_op::null_count}};
  std::vector<std::pair<aggregate_op, std::string>> what;
  for (const auto& [field, op, value] : q.aggregates) {
    const auto it = ops.find(op);
    if (it == ops.end()) return "unknown aggregate " + op;
    what.emplace_back(it->second, field);
  }
  const auto got = query.aggregate(what);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto& [field, op, value] = q.aggregates[i];
    const std::string which = op + " of " + field + ": ";
    bool same = false;
    std::string text;
    if (value == "null" || (value == "nan" && std::holds_alternative<std::monostate>(got[i]))) {
      same = std::holds_alternative<std::monostate>(got[i]);
      text = "not null";
    } else if (const auto* d = std::get_if<double>(&got[i])) {
      const double want = std::strtod(value.c_str(), nullptr);
      if (value == "nan")
        same = std::isnan(*d);
      else if (op == "sum" || op == "mean")
        same = std::abs(*d - want) <= 1e-12 * std::max(1.0, std::abs(want));
      else
        same = *d == want;
      std::ostringstream t;
      t.precision(17);
      t << *d;
      text = t.str();
    } else if (const auto* x = std::get_if<std::int64_t>(&got[i])) {
      text = std::to_string(*x);
      same = text == value;
    } else if (const auto* u = std::get_if<std::uint64_t>(&got[i])) {
      text = std::to_string(*u);
      same = text == value;
    } else {
      text = std::holds_alternative<std::monostate>(got[i]) ? "null" : "a string";
    }
    if (!same) return which + text + ", TileDB-Py " + value;
  }
  return {};
}

/// Runs recorded query `q` on `arr` and says how tilefmt's answer differs
/// from TileDB-Py's ("" when it does not). A query TileDB refused must be
/// refused with std::invalid_argument.
inline std::string check(const array::array_reader& arr, const recorded_query& q) {
  const auto query = query_of(arr, q);
  if (q.error) {
    try {
      (void)query.read();
    } catch (const std::invalid_argument&) {
      return {};
    }
    return "TileDB refused the query, tilefmt read it";
  }
  if (q.order == 'A') return compare_aggregates(q, query);
  return compare_cells(q, query.read());
}

} // namespace tilefmt::testing::recorded
