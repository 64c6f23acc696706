// tilefmt._core: the compiled half of the Python package. It keeps to what
// Python cannot do quickly (opening an array, running a query, decoding
// tiles) and hands results over as NumPy arrays of the bytes the readers
// filled; the Python half (src/tilefmt/) turns them into typed arrays,
// parses conditions and mimics TileDB-Py's indexing.
//
// Values cross as raw little-endian bytes plus the TileDB type name, so
// that this file needs no per-type code: the Python side picks the dtype.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/query.hpp"

namespace nb = nanobind;
using namespace nb::literals;
namespace ta = tilefmt::array;
namespace tf = tilefmt::format;

namespace {

nb::bytes to_bytes(std::span<const std::byte> b) { return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size()); }

std::vector<std::byte> from_bytes(const nb::bytes& b) {
  const auto* p = reinterpret_cast<const std::byte*>(b.c_str());
  return {p, p + b.size()};
}

std::string type_name(tf::Datatype t) { return std::string(tf::codec_enum_name(t)); }

std::string layout_name(tf::Layout l) {
  switch (l) {
  case tf::Layout::ROW_MAJOR: return "row-major";
  case tf::Layout::COL_MAJOR: return "col-major";
  case tf::Layout::GLOBAL_ORDER: return "global";
  case tf::Layout::UNORDERED: return "unordered";
  case tf::Layout::HILBERT: return "hilbert";
  }
  return "unknown";
}

/// A vector handed to NumPy without a copy: the array owns it through a capsule.
template <class V>
nb::ndarray<nb::numpy> to_numpy(V&& v, nb::dlpack::dtype dt, std::size_t elem) {
  auto* owner = new std::decay_t<V>(std::forward<V>(v));
  nb::capsule del(owner, [](void* p) noexcept { delete static_cast<std::decay_t<V>*>(p); });
  const std::size_t n = owner->size() * sizeof(typename std::decay_t<V>::value_type) / elem;
  return nb::ndarray<nb::numpy>(owner->data(), {n}, del, {}, dt);
}

/// The dimension ranges from Python: per dimension, a list of (lo, hi)
/// pairs of ints, floats or bytes (strings arrive encoded).
void add_ranges(ta::query& q, const ta::array_reader& arr, const nb::list& ranges) {
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

tf::QueryConditionOp op_of(const std::string& s) {
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
ta::condition condition_of(nb::handle h) {
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
  tf::ConditionNode n;
  n.node_type = tf::ConditionNodeType::VALUE;
  n.value->field_name.value = nb::cast<std::string>(t[1]);
  n.value->op = op_of(nb::cast<std::string>(t[2]));
  const bool label = nb::cast<bool>(t[4]);
  if (kind == "cmp") {
    if (!t[3].is_none()) n.value->value.value = from_bytes(nb::cast<nb::bytes>(t[3]));
  } else if (kind == "set") {
    std::vector<std::uint64_t> offsets;
    for (nb::handle v : nb::cast<nb::list>(t[3])) {
      offsets.push_back(n.value->value.value.size());
      auto b = from_bytes(nb::cast<nb::bytes>(v));
      n.value->value.value.insert(n.value->value.value.end(), b.begin(), b.end());
    }
    n.value->offsets->value.resize(offsets.size() * 8);
    for (std::size_t i = 0; i < offsets.size(); ++i)
      tilefmt::codec::store_le<std::uint64_t>(n.value->offsets->value.data() + 8 * i, offsets[i]);
  } else {
    throw std::invalid_argument("tilefmt: unknown condition node \"" + kind + "\"");
  }
  return ta::condition(std::move(n), label);
}

ta::query_layout layout_of(const std::string& s) {
  if (s == "C") return ta::query_layout::row_major;
  if (s == "F") return ta::query_layout::col_major;
  if (s == "G") return ta::query_layout::global_order;
  if (s == "U") return ta::query_layout::unordered;
  throw std::invalid_argument("tilefmt: order must be \"C\", \"F\", \"G\" or \"U\", not \"" + s + "\"");
}

ta::aggregate_op agg_of(const std::string& s) {
  if (s == "count") return ta::aggregate_op::count;
  if (s == "sum") return ta::aggregate_op::sum;
  if (s == "min") return ta::aggregate_op::min;
  if (s == "max") return ta::aggregate_op::max;
  if (s == "mean") return ta::aggregate_op::mean;
  if (s == "null_count") return ta::aggregate_op::null_count;
  throw std::invalid_argument("tilefmt: unknown aggregate \"" + s + "\"");
}

nb::dict range_dict(const tf::Range1D& r) {
  nb::dict d;
  d["lo"] = to_bytes(r.lo());
  d["hi"] = to_bytes(r.hi());
  return d;
}

class py_array {
public:
  py_array(const std::string& path, const nb::bytes& key, std::uint64_t t0, std::uint64_t t1) {
    ta::open_options opt;
    opt.encryption_key.assign(reinterpret_cast<const std::uint8_t*>(key.c_str()),
                              reinterpret_cast<const std::uint8_t*>(key.c_str()) + key.size());
    opt.timestamp_start = t0;
    opt.timestamp_end = t1;
    nb::gil_scoped_release unlocked;
    arr_ = std::make_unique<ta::array_reader>(path, std::move(opt));
  }

  nb::dict schema() const {
    const auto& s = arr_->schema();
    nb::dict out;
    out["sparse"] = s.is_sparse();
    out["allows_duplicates"] = bool(s.allows_dups.value);
    out["cell_order"] = layout_name(s.cell_order);
    out["tile_order"] = layout_name(s.tile_order);
    out["capacity"] = s.capacity;
    out["version"] = s.version.value;
    nb::list dims;
    for (const auto& d : s.domain.dimensions.value) {
      nb::dict x;
      x["name"] = d.name.value;
      x["type"] = type_name(d.type.value);
      x["var"] = d.is_var();
      x["domain"] = to_bytes(d.domain.value);
      x["tile"] = d.has_tile_extent() ? nb::object(to_bytes(d.tile_extent.value)) : nb::none();
      dims.append(x);
    }
    out["dims"] = dims;
    nb::list attrs;
    for (const auto& a : s.attributes.value) {
      nb::dict x;
      x["name"] = a.name.value;
      x["type"] = type_name(a.type);
      x["cell_val_num"] = a.is_var() ? 0u : a.cell_val_num;
      x["var"] = a.is_var();
      x["nullable"] = bool(a.nullable.value);
      x["fill"] = to_bytes(a.fill());
      x["enumeration"] = a.enumeration_name->value;
      attrs.append(x);
    }
    out["attrs"] = attrs;
    nb::list cd;
    if (!s.current_domain->empty)
      for (const auto& r : s.current_domain->ndrectangle->ranges) cd.append(range_dict(r));
    out["current_domain"] = cd;
    return out;
  }

  nb::list fragments() const {
    nb::list out;
    for (const auto& f : arr_->fragments()) {
      nb::dict x;
      x["uri"] = f.path().string();
      x["name"] = f.name().stem();
      x["timestamp_range"] = nb::make_tuple(f.timestamp_start(), f.timestamp_end());
      x["version"] = f.format_version();
      x["sparse"] = !f.dense();
      x["cell_num"] = f.cell_num();
      nb::list ned;
      for (const auto& r : f.non_empty_domain().ranges) ned.append(range_dict(r));
      x["nonempty_domain"] = ned;
      out.append(x);
    }
    return out;
  }

  nb::dict metadata() const {
    nb::dict out;
    for (const auto& [k, e] : arr_->metadata().entries())
      out[nb::str(k.data(), k.size())] = nb::make_tuple(type_name(e.type()), e.num(), to_bytes(e.bytes()));
    return out;
  }

  /// (type, cell_val_num (0: var), data, offsets) of enumeration `name`.
  nb::tuple enumeration(const std::string& name) const {
    const auto e = arr_->enumeration(name);
    return nb::make_tuple(type_name(e.type), e.is_var() ? 0u : e.cell_val_num, to_bytes(e.data.value), e.offset_values());
  }

  /// Runs a query: a list of (name, var, values uint8, offsets uint64 or
  /// None, validity uint8 or None) and the cell count.
  nb::tuple read(const nb::list& ranges, std::optional<std::vector<std::string>> attrs, const std::string& order,
                 nb::object cond) const {
    auto q = arr_->query();
    add_ranges(q, *arr_, ranges);
    q.layout(layout_of(order));
    if (attrs) q.attributes(*attrs);
    if (!cond.is_none()) q.where(condition_of(cond));
    ta::query_result r;
    {
      nb::gil_scoped_release unlocked;  // tiles decode on the readers' threads meanwhile
      r = q.read();
    }
    const std::uint64_t cells = r.cell_num();
    nb::list fields;
    const auto u8 = nb::dtype<std::uint8_t>();
    for (auto& f : std::move(r).release_fields()) {
      nb::object offsets = nb::none(), validity = nb::none();
      if (f.var) offsets = nb::cast(to_numpy(std::move(f.offsets), nb::dtype<std::uint64_t>(), 8));
      if (f.nullable) validity = nb::cast(to_numpy(std::move(f.validity), u8, 1));
      fields.append(nb::make_tuple(f.name, f.var, to_numpy(std::move(f.values), u8, 1), offsets, validity));
    }
    return nb::make_tuple(fields, cells);
  }

  nb::list aggregate(const nb::list& ranges, nb::object cond, const std::vector<std::pair<std::string, std::string>>& what) const {
    auto q = arr_->query();
    add_ranges(q, *arr_, ranges);
    if (!cond.is_none()) q.where(condition_of(cond));
    std::vector<std::pair<ta::aggregate_op, std::string>> ops;
    for (const auto& [op, field] : what) ops.emplace_back(agg_of(op), field);
    std::vector<ta::aggregate_value> values;
    {
      nb::gil_scoped_release unlocked;
      values = q.aggregate(ops);
    }
    nb::list out;
    for (const auto& v : values) {
      if (std::holds_alternative<std::monostate>(v)) out.append(nb::none());
      else if (const auto* i = std::get_if<std::int64_t>(&v)) out.append(*i);
      else if (const auto* u = std::get_if<std::uint64_t>(&v)) out.append(*u);
      else if (const auto* d = std::get_if<double>(&v)) out.append(*d);
      else out.append(nb::bytes(std::get<std::string>(v).data(), std::get<std::string>(v).size()));
    }
    return out;
  }

private:
  std::unique_ptr<ta::array_reader> arr_;
};

} // namespace

NB_MODULE(_core, m) {
  m.doc() = "tilefmt's compiled reader (use the tilefmt package, not this module)";
  nb::class_<py_array>(m, "Array")
      .def(nb::init<const std::string&, const nb::bytes&, std::uint64_t, std::uint64_t>(), "path"_a, "key"_a,
           "timestamp_start"_a, "timestamp_end"_a)
      .def("schema", &py_array::schema)
      .def("fragments", &py_array::fragments)
      .def("metadata", &py_array::metadata)
      .def("enumeration", &py_array::enumeration)
      .def("read", &py_array::read, "ranges"_a, "attrs"_a.none(), "order"_a, "cond"_a.none())
      .def("aggregate", &py_array::aggregate, "ranges"_a, "cond"_a.none(), "what"_a);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const tilefmt::format_error& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });
}

// nanobind's runtime, compiled here rather than as a second translation
// unit: the extension builds in one compiler run.
#include "nb_combined.cpp"
