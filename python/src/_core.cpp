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
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/storage/s3.hpp"

#include "arrow.hpp"
#include "filters.hpp"
#include "groups.hpp"
#include "maintain.hpp"
#include "storage.hpp"
#include "query_args.hpp"
#include "schema_args.hpp"
#include "strings.hpp"

namespace nb = nanobind;
using namespace nb::literals;
namespace ta = tilefmt::array;
namespace tf = tilefmt::format;

namespace {

using namespace tilefmt_python;

nb::bytes to_bytes(std::span<const std::byte> b) { return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size()); }

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

nb::dict range_dict(const tf::Range1D& r) {
  nb::dict d;
  d["lo"] = to_bytes(r.lo());
  d["hi"] = to_bytes(r.hi());
  return d;
}

/// A schema as the Python layer takes it (tilefmt._array._schema_of).
nb::dict schema_dict(const tilefmt::format::ArraySchema& s) {
  nb::dict out;
  out["sparse"] = s.is_sparse();
  out["allows_duplicates"] = bool(s.allows_dups.value);
  out["cell_order"] = layout_name(s.cell_order);
  out["tile_order"] = layout_name(s.tile_order);
  out["capacity"] = s.capacity;
  out["version"] = s.version.value;
  out["coords_filters"] = tilefmt_python::filters_list(s.coords_filters, s.version.value);
  out["offsets_filters"] = tilefmt_python::filters_list(s.offsets_filters, s.version.value);
  out["validity_filters"] = tilefmt_python::filters_list(s.validity_filters.value, s.version.value);
  nb::list dims;
  for (std::size_t i = 0; i < s.domain.dimensions.size(); ++i) {
    const auto& d = s.domain.dimensions.value[i];
    nb::dict x;
    x["name"] = d.name.value;
    x["type"] = type_name(d.type.value);
    x["var"] = d.is_var();
    x["domain"] = to_bytes(d.domain.value);
    x["tile"] = d.has_tile_extent() ? nb::object(to_bytes(d.tile_extent.value)) : nb::none();
    // The filters that apply, as TileDB shows them: the coordinates' when the dimension has none of its own.
    x["filters"] = tilefmt_python::filters_list(s.dimension_filters(i), s.version.value);
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
    x["filters"] = tilefmt_python::filters_list(a.filters, s.version.value);
    attrs.append(x);
  }
  out["attrs"] = attrs;
  nb::list cd;
  if (!s.current_domain->empty)
    for (const auto& r : s.current_domain->ndrectangle->ranges) cd.append(range_dict(r));
  out["current_domain"] = cd;
  nb::list labels;
  for (const auto& l : s.dimension_labels.value.value) {
    nb::dict x;
    x["name"] = l.name.value;
    x["dim_index"] = l.dimension_index;
    x["uri"] = l.uri.value;
    x["relative_uri"] = l.relative_uri;
    x["label_attr_name"] = l.label_attr_name.value;
    x["order"] = std::string(tilefmt::format::codec_enum_name(l.label_order));
    x["type"] = type_name(l.label_type);
    x["cell_val_num"] = l.label_cell_val_num == tilefmt::format::var_num ? 0u : l.label_cell_val_num;
    labels.append(x);
  }
  out["dim_labels"] = labels;
  return out;
}

/// Metadata as the Python layer takes it: key -> (type name, count, bytes).
nb::dict metadata_dict(const ta::metadata_map& m) {
  nb::dict out;
  for (const auto& [k, e] : m.entries())
    out[nb::str(k.data(), k.size())] = nb::make_tuple(type_name(e.type()), e.num(), to_bytes(e.bytes()));
  return out;
}

class py_array {
public:
  py_array(const std::string& path, const nb::bytes& key, std::uint64_t t0, std::uint64_t t1, const config_map& config) {
    ta::open_options opt;
    opt.storage = storage_for(path, config);
    opt.encryption_key.assign(reinterpret_cast<const std::uint8_t*>(key.c_str()),
                              reinterpret_cast<const std::uint8_t*>(key.c_str()) + key.size());
    opt.timestamp_start = t0;
    opt.timestamp_end = t1;
    if (const auto it = config.find("threads"); it != config.end()) opt.threads = static_cast<unsigned>(std::stoul(it->second));
    if (const auto it = config.find("io_concurrency"); it != config.end())
      opt.io_concurrency = static_cast<unsigned>(std::stoul(it->second));
    nb::gil_scoped_release unlocked;
    arr_ = std::make_shared<ta::array_reader>(path, std::move(opt));
  }

  nb::dict schema() const { return schema_dict(arr_->schema()); }

  nb::list fragments() const {
    nb::list out;
    const auto consolidated = arr_->consolidated_fragment_names();
    for (const auto& f : arr_->fragments()) {
      nb::dict x;
      x["has_consolidated_metadata"] = consolidated.count(f.name().str()) != 0;
      // Before format 10 a footer names no schema: TileDB reports the legacy file's name.
      const auto& schema_name = f.footer().array_schema_name.value.value;
      x["array_schema_name"] = schema_name.empty() ? std::string("__array_schema.tdb") : schema_name;
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

  /// The fragments a vacuum would remove (replaced by a consolidation), oldest first.
  std::vector<std::string> to_vacuum() const {
    std::vector<std::string> out;
    for (const auto& f : arr_->files().to_vacuum) out.push_back(f.path.string());
    return out;
  }

  nb::dict metadata() const { return metadata_dict(arr_->metadata()); }

  /// (type, cell_val_num (0: var), data, offsets) of enumeration `name`.
  nb::tuple enumeration(const std::string& name) const {
    const auto e = arr_->enumeration(name);
    return nb::make_tuple(type_name(e.type), e.is_var() ? 0u : e.cell_val_num, to_bytes(e.data.value), e.offset_values(),
                          e.ordered);
  }

  /// The first-dimension bounds of each data tile of sparse fragment `i`
  /// (its R-tree's leaves) with the tile's cell count: (lo bytes, hi bytes,
  /// cells) per tile; empty when the fragment has no R-tree to read.
  nb::list tile_bounds(std::size_t i) const {
    const auto& frags = arr_->fragments();
    if (i >= frags.size()) throw std::out_of_range("tilefmt: no fragment " + std::to_string(i));
    const auto& f = frags[i];
    std::vector<tf::MBR> mbrs;
    {
      nb::gil_scoped_release unlocked;
      mbrs = f.mbrs();
    }
    nb::list out;
    for (std::size_t t = 0; t < mbrs.size(); ++t)
      out.append(nb::make_tuple(to_bytes(mbrs[t].ranges.at(0).lo()), to_bytes(mbrs[t].ranges.at(0).hi()), f.tile_cells(t)));
    return out;
  }

  /// A query read in batches of about `batch_bytes` as an Arrow C stream
  /// in a PyCapsule (arrow.hpp); the stream holds the array.
  /// `coords`: a dense array's coordinates too (sparse results have them).
  nb::object arrow_stream(const nb::list& ranges, std::optional<std::vector<std::string>> attrs,
                          const std::string& order, nb::object cond, std::uint64_t batch_bytes, bool coords) const {
    auto q = make_query(ranges, attrs, order, cond);
    q.coordinates(coords);
    return tilefmt_python::arrow_stream_capsule(q, batch_bytes, arr_);
  }

  /// At least the cells a read of `ranges` returns (query::max_cells): no tile is read.
  std::uint64_t max_cells(const nb::list& ranges) const {
    auto q = arr_->query();
    add_ranges(q, *arr_, ranges);
    nb::gil_scoped_release unlocked;
    return q.max_cells();
  }

  /// Runs a query: a list of (name, var, values uint8, offsets uint64 or
  /// None, validity uint8 or None) and the cell count. `coords`: a dense
  /// array's coordinates too (sparse results have them).
  nb::tuple read(const nb::list& ranges, std::optional<std::vector<std::string>> attrs, const std::string& order,
                 nb::object cond, bool coords) const {
    auto q = make_query(ranges, attrs, order, cond);
    q.coordinates(coords);
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
    for (const auto& [op, field] : what) ops.emplace_back(ta::aggregate_named(op), field);
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
  ta::query make_query(const nb::list& ranges, const std::optional<std::vector<std::string>>& attrs,
                       const std::string& order, const nb::object& cond) const {
    auto q = arr_->query();
    add_ranges(q, *arr_, ranges);
    q.layout(ta::layout_named(order));
    if (attrs) q.attributes(*attrs);
    if (!cond.is_none()) q.where(condition_of(cond));
    return q;
  }

  std::shared_ptr<ta::array_reader> arr_;  // shared with the Arrow streams made of it
};

// ---------------------------------------------------------------------------
// Writing. Cells arrive as NumPy buffers of little-endian bytes with the
// size of one value; the writers check them against the schema.
// ---------------------------------------------------------------------------

/// The schema a write to the array at `path` uses (its latest), read with
/// the write's key as the writers read it: without opening the array's
/// fragments.
nb::dict read_schema(const std::string& path, const nb::bytes& key, const config_map& config) {
  const ta::write_options opt = writing(path, key, config);
  tilefmt::format::ArraySchema s;
  {
    nb::gil_scoped_release unlocked;
    const auto st = ta::detail::or_local(opt.storage);
    const auto l = ta::list_array(*st, path);
    if (l.latest_schema.empty()) throw ta::io_error(path, "has no schema file");
    s = ta::detail::read_schema_for_writing(*st, l.latest_schema, opt.encryption_key);
  }
  return schema_dict(s);
}

std::string create_array(const std::string& path, const nb::dict& schema, const nb::bytes& key,
                         const config_map& config) {
  auto opt = writing(path, key, config);
  opt.enumerations = enumerations_of(schema);
  opt.dimension_labels = dimension_labels_of(schema);
  return ta::create(path, schema_of(schema), opt);
}

template <class F>
void with_unsigned(std::size_t size, F&& f) {
  switch (size) {
  case 1: f.template operator()<std::uint8_t>(); break;
  case 2: f.template operator()<std::uint16_t>(); break;
  case 4: f.template operator()<std::uint32_t>(); break;
  case 8: f.template operator()<std::uint64_t>(); break;
  default: throw std::invalid_argument("tilefmt: values of " + std::to_string(size) + " bytes");
  }
}

using u8_array = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig>;
using u64_array = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig>;

/// One attribute's cells: (values as bytes, bytes per value, offsets in
/// values (var-size) or None, validity or None).
template <class Fragment>
void set_attribute(Fragment& frag, const std::string& name, nb::handle h) {
  auto t = nb::cast<nb::tuple>(h);
  auto values = nb::cast<u8_array>(t[0]);
  const auto size = nb::cast<std::size_t>(t[1]);
  std::span<const std::uint8_t> validity;
  std::optional<u8_array> valid_array;
  if (!t[3].is_none()) {
    valid_array = nb::cast<u8_array>(t[3]);
    validity = {valid_array->data(), valid_array->shape(0)};
  }
  with_unsigned(size, [&]<class T>() {
    std::span<const T> cells(reinterpret_cast<const T*>(values.data()), values.shape(0) / sizeof(T));
    if (t[2].is_none()) {
      frag.template set<T>(name, cells, validity);
    } else {
      auto offsets = nb::cast<u64_array>(t[2]);
      frag.template set_var<T>(name, cells, std::span<const std::uint64_t>(offsets.data(), offsets.shape(0)), validity);
    }
  });
}

std::string write_dense(const std::string& path, const std::vector<std::pair<std::int64_t, std::int64_t>>& subarray,
                        const nb::dict& attrs, std::optional<std::uint64_t> timestamp, const nb::bytes& key,
                        const config_map& config) {
  ta::write_options opt = writing(path, key, config);
  opt.timestamp = timestamp;
  // On a local disk each tile goes to its data file as soon as it is
  // encoded (dense_writer::stream); object stores upload a fragment's files
  // in parallel at commit.
  ta::dense_writer frag(path, subarray, ta::cell_layout::row_major, opt);
  for (auto [k, v] : attrs) set_attribute(frag, nb::cast<std::string>(k), v);
  nb::gil_scoped_release unlocked;  // tiles encode meanwhile
  return frag.commit(opt);
}

/// coords: dimension name to (values as bytes, bytes per value, is float)
/// or a list of bytes (string dimensions).
std::string write_sparse(const std::string& path, const nb::dict& coords, const nb::dict& attrs,
                         std::optional<std::uint64_t> timestamp, const nb::bytes& key, const config_map& config) {
  ta::write_options opt = writing(path, key, config);
  ta::sparse_writer frag(path, opt);
  for (auto [k, v] : coords) {
    const auto name = nb::cast<std::string>(k);
    if (nb::isinstance<nb::list>(v)) {
      std::vector<std::string> strings;
      for (nb::handle s : nb::cast<nb::list>(v)) {
        auto b = nb::cast<nb::bytes>(s);
        strings.emplace_back(b.c_str(), b.size());
      }
      frag.set_coords(name, strings);
      continue;
    }
    auto t = nb::cast<nb::tuple>(v);
    auto values = nb::cast<u8_array>(t[0]);
    const auto size = nb::cast<std::size_t>(t[1]);
    const bool is_float = nb::cast<bool>(t[2]);
    auto set = [&]<class T>() {
      frag.template set_coords<T>(name, std::span<const T>(reinterpret_cast<const T*>(values.data()), values.shape(0) / sizeof(T)));
    };
    if (is_float && size == 4) set.template operator()<float>();
    else if (is_float) set.template operator()<double>();
    else with_unsigned(size, set);
  }
  for (auto [k, v] : attrs) set_attribute(frag, nb::cast<std::string>(k), v);
  opt.timestamp = timestamp;
  nb::gil_scoped_release unlocked;
  return frag.commit(opt);
}

/// Metadata entries from Python: key to (type name, value count, bytes), or
/// None to delete the key.
std::vector<tf::MetadataEntry> metadata_entries(const nb::dict& entries) {
  std::vector<tf::MetadataEntry> out;
  for (auto [k, v] : entries) {
    const auto key = nb::cast<std::string>(k);
    if (v.is_none()) {
      out.push_back(tf::MetadataEntry::deletion_of(key));
      continue;
    }
    auto t = nb::cast<nb::tuple>(v);
    tf::MetadataEntry e;
    e.key.value = key;
    e.value->type = datatype_of_name(nb::cast<std::string>(t[0]));
    e.value->num = nb::cast<std::uint32_t>(t[1]);
    e.value->bytes.value = from_bytes(nb::cast<nb::bytes>(t[2]));
    out.push_back(std::move(e));
  }
  return out;
}

std::string write_metadata(const std::string& path, const nb::dict& entries, std::optional<std::uint64_t> timestamp,
                           const nb::bytes& key, const config_map& config) {
  ta::write_options opt = writing(path, key, config);
  ta::metadata_writer w(path, opt);
  for (auto& e : metadata_entries(entries)) w.put(std::move(e));
  opt.timestamp = timestamp;
  return w.commit(opt);
}

/// One session of changes to the group at `path`: members added ((uri,
/// name or None, relative, type name or None) each), members removed (names
/// or URIs), metadata as write_metadata takes it. Returns the names of the
/// details and metadata files written ("" for none).
std::pair<std::string, std::string> write_group(const std::string& path, const nb::list& added,
                                                const std::vector<std::string>& removed, const nb::dict& meta,
                                                std::optional<std::uint64_t> timestamp, const nb::bytes& key,
                                                const config_map& config) {
  ta::write_options opt = writing(path, key, config);
  opt.timestamp = timestamp;
  tilefmt::group::group_writer w(path, opt);
  for (auto item : added) {
    auto t = nb::cast<nb::tuple>(item);
    std::optional<std::string> name;
    if (!t[1].is_none()) name = nb::cast<std::string>(t[1]);
    std::optional<tf::ObjectType> type;
    if (!t[3].is_none()) type = nb::cast<std::string>(t[3]) == "GROUP" ? tf::ObjectType::GROUP : tf::ObjectType::ARRAY;
    w.add(nb::cast<std::string>(t[0]), std::move(name), nb::cast<bool>(t[2]), type);
  }
  for (const auto& r : removed) w.remove(r);
  for (auto& e : metadata_entries(meta)) w.put_metadata(std::move(e));
  nb::gil_scoped_release unlocked;
  return w.commit();
}

} // namespace

NB_MODULE(_core, m) {
  m.doc() = "tilefmt's compiled reader (use the tilefmt package, not this module)";
  tilefmt_python::import_numpy();
  m.def("unpack_strings", &tilefmt_python::unpack_strings, "values"_a, "offsets"_a, "kind"_a);
  m.def("pack_strings", &tilefmt_python::pack_strings, "cells"_a);
  nb::class_<py_array>(m, "Array")
      .def(nb::init<const std::string&, const nb::bytes&, std::uint64_t, std::uint64_t, const config_map&>(), "path"_a,
           "key"_a, "timestamp_start"_a, "timestamp_end"_a, "config"_a)
      .def("schema", &py_array::schema)
      .def("fragments", &py_array::fragments)
      .def("to_vacuum", &py_array::to_vacuum)
      .def("metadata", &py_array::metadata)
      .def("enumeration", &py_array::enumeration)
      .def("tile_bounds", &py_array::tile_bounds, "fragment"_a)
      .def("read", &py_array::read, "ranges"_a, "attrs"_a.none(), "order"_a, "cond"_a.none(), "coords"_a = false)
      .def("arrow_stream", &py_array::arrow_stream, "ranges"_a, "attrs"_a.none(), "order"_a, "cond"_a.none(),
           "batch_bytes"_a, "coords"_a = false)
      .def("max_cells", &py_array::max_cells, "ranges"_a)
      .def("aggregate", &py_array::aggregate, "ranges"_a, "cond"_a.none(), "what"_a);
  nb::class_<py_group>(m, "Group")
      .def("__init__",
           [](py_group* g, const std::string& path, const nb::bytes& key, std::uint64_t t0, std::uint64_t t1,
              const config_map& config) { new (g) py_group(path, key, t0, t1, storage_for(path, config)); },
           "path"_a, "key"_a, "timestamp_start"_a, "timestamp_end"_a, "config"_a)
      .def("members", &py_group::members)
      .def("metadata", [](const py_group& g) { return metadata_dict(g.reader().metadata()); })
      .def("legacy", &py_group::legacy);
  m.def(
      "object_type",
      [](const std::string& path, const config_map& config) {
        const auto st = ta::detail::or_local(storage_for(path, config));
        return object_type_name(tilefmt::group::object_type(*st, path));
      },
      "path"_a, "config"_a);
  m.def(
      "ls",
      [](const std::string& path, const config_map& config) {
        return objects_under(*ta::detail::or_local(storage_for(path, config)), path, false, false);
      },
      "path"_a, "config"_a);
  m.def(
      "walk",
      [](const std::string& path, bool postorder, const config_map& config) {
        return objects_under(*ta::detail::or_local(storage_for(path, config)), path, true, postorder);
      },
      "path"_a, "postorder"_a, "config"_a);
  m.def("create", &create_array, "path"_a, "schema"_a, "key"_a, "config"_a);
  m.def("read_schema", &read_schema, "path"_a, "key"_a, "config"_a);
  m.def("write_dense", &write_dense, "path"_a, "subarray"_a, "attrs"_a, "timestamp"_a.none(), "key"_a, "config"_a);
  m.def("write_sparse", &write_sparse, "path"_a, "coords"_a, "attrs"_a, "timestamp"_a.none(), "key"_a, "config"_a);
  m.def("write_group", &write_group, "path"_a, "added"_a, "removed"_a, "meta"_a, "timestamp"_a.none(), "key"_a,
        "config"_a);
  m.def(
      "create_group",
      [](const std::string& path, const config_map& config) {
        ta::write_options opt;
        opt.storage = storage_for(path, config);
        tilefmt::group::create(path, opt);
      },
      "path"_a, "config"_a);
  m.def(
      "consolidate_group_metadata",
      [](const std::string& path, const config_map& config) {
        ta::write_options opt;
        opt.storage = storage_for(path, config);
        return tilefmt::group::consolidate_metadata(path, opt).name;
      },
      "path"_a, "config"_a);
  m.def(
      "vacuum_group_metadata",
      [](const std::string& path, const config_map& config) {
        return tilefmt::group::vacuum_metadata(path, storage_for(path, config)).size();
      },
      "path"_a, "config"_a);
  m.def("write_metadata", &write_metadata, "path"_a, "entries"_a, "timestamp"_a.none(), "key"_a, "config"_a);
  def_maintenance(m);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const tilefmt::format_error& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const tilefmt::storage::io_error& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const tilefmt::group::member_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

// nanobind's runtime, compiled here rather than as a second translation
// unit: the extension builds in one compiler run.
#include "nb_combined.cpp"
