// The interop checker: for every array of a corpus manifest written by
// TileDB-Py (tests/interop/generate.py), opens the array with tilefmt and
// compares its schema, metadata, fragment list and every field of every
// fragment with what TileDB-Py read back, byte for byte.
//
//   interop-check MANIFEST [UNSUPPORTED]
//
// Prints one line per array and closes with `N passed, M failed`. An array
// listed in UNSUPPORTED (one id or glob per line, `#` comments) is expected to
// fail: the run fails when it passes, so the list only shrinks.
#include <boost/json/src.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "../support/recorded_queries.hpp"

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace tilefmt;

namespace {

namespace recorded = tilefmt::testing::recorded;
std::size_t queries_checked = 0, query_count = 0;  // arrays with recorded queries, and their queries
// --query-stride N: one recorded query in N, each array starting at another
// offset, so the releases' copies of an array check different queries.
std::size_t query_stride = 1;

struct mismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string str(const json::value& v) { return std::string(v.as_string().c_str()); }

std::vector<std::byte> file_bytes(const fs::path& p) { return tilefmt::storage::local{}.read(p); }

std::string hex(std::span<const std::byte> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto x : b) {
    s += d[std::to_integer<int>(x) >> 4];
    s += d[std::to_integer<int>(x) & 15];
  }
  return s;
}

void expect_equal_bytes(const std::string& what, std::span<const std::byte> got, const fs::path& expected_file) {
  auto want = file_bytes(expected_file);
  if (got.size() != want.size() || !std::equal(got.begin(), got.end(), want.begin())) {
    std::size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    throw mismatch(what + ": " + std::to_string(got.size()) + " bytes, expected " + std::to_string(want.size()) +
                   ", first difference at byte " + std::to_string(i));
  }
}

void check_schema(const format::ArraySchema& s, const json::object& facts) {
  const auto& attrs = facts.at("attrs").as_array();
  if (attrs.size() != s.attributes.size())
    throw mismatch("schema: " + std::to_string(s.attributes.size()) + " attributes, expected " +
                   std::to_string(attrs.size()));
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    const auto& a = attrs[i].as_object();
    const auto& got = s.attributes[i];
    if (got.name.value != str(a.at("name"))) throw mismatch("schema: attribute " + std::to_string(i) + " is " + got.name.value);
    if (std::string(format::codec_enum_name(got.type)) != str(a.at("type")))
      throw mismatch("schema: attribute " + got.name.value + " has type " + std::string(format::codec_enum_name(got.type)));
    if (got.cell_val_num != a.at("cell_val_num").to_number<std::uint64_t>())
      throw mismatch("schema: attribute " + got.name.value + " cell_val_num " + std::to_string(got.cell_val_num));
    if (got.nullable.value != a.at("nullable").as_bool()) throw mismatch("schema: attribute " + got.name.value + " nullable");
    const auto& filters = a.at("filters").as_object().at("filters").as_array();
    if (filters.size() != got.filters.filters.size())
      throw mismatch("schema: attribute " + got.name.value + " has " + std::to_string(got.filters.filters.size()) +
                     " filters, expected " + std::to_string(filters.size()));
    for (std::size_t k = 0; k < filters.size(); ++k) {
      std::string want = str(filters[k].as_object().at("type"));
      std::string have(format::codec_enum_name(got.filters.filters[k].type));
      if (want != have) throw mismatch("schema: attribute " + got.name.value + " filter " + std::to_string(k) + " is " + have + ", expected " + want);
    }
    if (auto it = a.find("fill_value_hex"); it != a.end() && it->value().is_string()) {
      if (hex(got.fill()) != str(it->value()))
        throw mismatch("schema: attribute " + got.name.value + " fill value " + hex(got.fill()));
    }
    if (auto it = a.find("fill_validity"); it != a.end() && it->value().is_number()) {
      if (got.fill_value_validity.value != it->value().to_number<int>())
        throw mismatch("schema: attribute " + got.name.value + " fill validity " +
                       std::to_string(got.fill_value_validity.value));
    }
  }
  const auto& dims = facts.at("dims").as_array();
  if (dims.size() != s.domain.dimensions.size()) throw mismatch("schema: dimension count");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto& d = dims[i].as_object();
    const auto& got = s.domain.dimensions[i];
    if (got.name.value != str(d.at("name"))) throw mismatch("schema: dimension " + std::to_string(i) + " is " + got.name.value);
    if (std::string(format::codec_enum_name(got.type.value)) != str(d.at("type")))
      throw mismatch("schema: dimension " + got.name.value + " type");
  }
  std::string type = s.is_sparse() ? "sparse" : "dense";
  if (type != str(facts.at("array_type"))) throw mismatch("schema: array type " + type);
  if (s.capacity != facts.at("capacity").to_number<std::uint64_t>()) throw mismatch("schema: capacity");
}

void check_metadata(const array::metadata_map& m, const json::value& expected) {
  if (expected.is_null()) {
    if (m.size() != 0) throw mismatch("metadata: " + std::to_string(m.size()) + " keys, expected none");
    return;
  }
  const auto& entries = expected.as_object().at("entries").as_object();
  if (entries.size() != m.size())
    throw mismatch("metadata: " + std::to_string(m.size()) + " keys, expected " + std::to_string(entries.size()));
  for (const auto& kv : entries) {
    std::string key(kv.key());
    if (!m.contains(key)) throw mismatch("metadata: key " + key + " missing");
    const auto& e = m.at(key);
    const auto& want = kv.value().as_object();
    if (std::string(format::codec_enum_name(e.type())) != str(want.at("type")))
      throw mismatch("metadata: key " + key + " has type " + std::string(format::codec_enum_name(e.type())));
    if (hex(e.bytes()) != str(want.at("hex"))) throw mismatch("metadata: key " + key + " value " + hex(e.bytes()));
  }
}

void check_fragment(const array::fragment& frag, const json::object& want, const fs::path& base) {
  const std::string primary = str(want.at("primary"));
  // TileDB reads a fragment with delete metadata without the cells deleted
  // at or before the end of its timestamp range.
  std::vector<bool> keep;
  if (frag.has_delete_meta())
    for (auto t : frag.read_delete_timestamps()) keep.push_back(t > frag.timestamp_end());
  // A fragment consolidated with timestamps keeps every version of a cell,
  // newest first; without duplicates TileDB reads only the first of each.
  if (frag.has_timestamps() && !frag.schema().allows_dups.value) {
    std::vector<std::string> keys(static_cast<std::size_t>(frag.cell_num()));
    for (const auto& d : frag.schema().domain.dimensions) {
      const auto f = frag.field(d.name.value);
      std::size_t cell = 0;
      for (std::size_t t = 0, n = frag.tile_num(); t < n; ++t) {
        const auto tile = frag.read_tile(f, t);
        const std::size_t cells = static_cast<std::size_t>(frag.tile_cells(t));
        const std::size_t width = f.var() ? 0 : tile.values.size() / std::max<std::size_t>(cells, 1);
        for (std::size_t c = 0; c < cells; ++c, ++cell) {
          const std::size_t b = f.var() ? tile.offsets.at(c) : c * width;
          const std::size_t e = f.var() ? (c + 1 < cells ? tile.offsets.at(c + 1) : tile.values.size()) : b + width;
          keys.at(cell) += std::to_string(e - b) + ":";
          for (std::size_t i = b; i < e; ++i) keys.at(cell) += static_cast<char>(tile.values[i]);
        }
      }
    }
    keep.resize(keys.size(), true);
    for (std::size_t c = 1; c < keys.size(); ++c)
      if (keys[c] == keys[c - 1]) keep[c] = false;
  }
  for (const auto& kv : want.at("fields").as_object()) {
    std::string name(kv.key());
    const auto& form = kv.value().as_object().at("expected").as_object().at(primary).as_object();
    auto f = frag.field(name);
    std::vector<std::byte> values, offsets;
    std::vector<std::uint8_t> validity;
    std::size_t cell = 0;
    for (std::size_t t = 0, n = frag.tile_num(); t < n; ++t) {
      auto tile = frag.read_tile(f, t);
      const std::size_t cells = static_cast<std::size_t>(frag.tile_cells(t));
      const std::size_t width = f.var() ? 0 : tile.values.size() / std::max<std::size_t>(cells, 1);
      for (std::size_t c = 0; c < cells; ++c, ++cell) {
        if (!keep.empty() && !keep.at(cell)) continue;
        if (f.var()) {
          const std::uint64_t b = tile.offsets.at(c), e = c + 1 < cells ? tile.offsets.at(c + 1) : tile.values.size();
          std::byte o[8];
          codec::store_le<std::uint64_t>(o, values.size());
          offsets.insert(offsets.end(), o, o + 8);
          values.insert(values.end(), tile.values.begin() + static_cast<std::ptrdiff_t>(b),
                        tile.values.begin() + static_cast<std::ptrdiff_t>(e));
        } else {
          values.insert(values.end(), tile.values.begin() + static_cast<std::ptrdiff_t>(c * width),
                        tile.values.begin() + static_cast<std::ptrdiff_t>((c + 1) * width));
        }
        if (!tile.validity.empty()) validity.push_back(tile.validity.at(c));
      }
    }
    expect_equal_bytes(name + " data", values, base / str(form.at("data").as_object().at("file")));
    if (auto it = form.find("offsets"); it != form.end() && !it->value().is_null())
      expect_equal_bytes(name + " offsets", offsets, base / str(it->value().as_object().at("file")));
    if (auto it = form.find("validity"); it != form.end() && !it->value().is_null())
      expect_equal_bytes(name + " validity", std::as_bytes(std::span(validity)), base / str(it->value().as_object().at("file")));
  }
}

__extension__ typedef __int128 wide_int;  // holds every int64 and uint64 coordinate

json::value json_int(wide_int v) {
  if (v >= 0 && v > std::numeric_limits<std::int64_t>::max()) return json::value(static_cast<std::uint64_t>(v));
  return json::value(static_cast<std::int64_t>(v));
}

bool integer_type(format::Datatype t) {
  using D = format::Datatype;
  switch (t) {
  case D::INT8: case D::UINT8: case D::INT16: case D::UINT16: case D::INT32: case D::UINT32: case D::INT64:
  case D::UINT64: return true;
  default: return false;
  }
}

/// The bounds of a fixed integer range of a non-empty domain.
std::pair<wide_int, wide_int> integer_range(const format::MBR& m, std::size_t d, format::Datatype t) {
  std::pair<wide_int, wide_int> out;
  format::visit_integer_type(t, [&]<class T>() {
    auto [lo, hi] = m.ranges.at(d).template as<T>();
    out = {static_cast<wide_int>(lo), static_cast<wide_int>(hi)};
  });
  return out;
}

/// What TileDB's fragment info says of each fragment: timestamps, format
/// version, dense or sparse, cell count, schema name, non-empty domain.
void check_fragment_info(const array::fragment& frag, const json::object& want) {
  const std::string name = frag.name().stem();
  const auto& tr = want.at("timestamp_range").as_array();
  if (frag.timestamp_start() != tr[0].to_number<std::uint64_t>() || frag.timestamp_end() != tr[1].to_number<std::uint64_t>())
    throw mismatch("fragment " + name + ": timestamp range");
  if (frag.format_version() != want.at("format_version").to_number<std::uint32_t>())
    throw mismatch("fragment " + name + ": format version " + std::to_string(frag.format_version()));
  if (frag.dense() == want.at("sparse").as_bool()) throw mismatch("fragment " + name + ": dense/sparse");
  if (frag.cell_num() != want.at("cell_num").to_number<std::uint64_t>())
    throw mismatch("fragment " + name + ": " + std::to_string(frag.cell_num()) + " cells, TileDB says " +
                   std::to_string(want.at("cell_num").to_number<std::uint64_t>()));
  if (auto it = want.find("array_schema_name"); it != want.end() && it->value().is_string() && frag.format_version() >= 10)
    if (frag.footer().array_schema_name.value.value != str(it->value()))
      throw mismatch("fragment " + name + ": schema name " + frag.footer().array_schema_name.value.value);
  // Non-empty domain, for integer dimensions.
  const auto& dims = frag.schema().domain.dimensions.value;
  const auto& ned = want.at("non_empty_domain").as_array();
  if (ned.size() != dims.size()) throw mismatch("fragment " + name + ": non-empty domain has " + std::to_string(ned.size()) + " ranges");
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (!integer_type(dims[d].type.value) || dims[d].is_var()) continue;
    auto [lo, hi] = integer_range(frag.non_empty_domain(), d, dims[d].type.value);
    json::array got{json_int(lo), json_int(hi)};
    if (got != ned[d].as_array())
      throw mismatch("fragment " + name + ": non-empty domain of " + dims[d].name.value + " is " + json::serialize(got) +
                     ", TileDB says " + json::serialize(ned[d]));
  }
}

/// The array opened at each recorded timestamp range: the schema in force,
/// the union of the selected fragments' non-empty domains, and the cells a
/// read returns (sparse coordinates, filtered by per-cell timestamps where a
/// fragment has them; attribute `a` of a 1D dense array, later fragments
/// over earlier ones), against what TileDB returned opened the same way.
void check_time_travel(const json::object& a, const fs::path& base, const array::open_options& opt) {
  // libtiledb before 2.19 opens an array with its newest schema whatever the
  // open range (tests/interop/README.md); later releases pick the schema in
  // force at the range's end, as tilefmt does.
  bool newest_schema_only = false;
  {
    std::istringstream v(str(a.at("libtiledb_version")));
    int major = 0, minor = 0;
    char dot = 0;
    v >> major >> dot >> minor;
    newest_schema_only = major < 2 || (major == 2 && minor < 19);
  }
  json::array newest_attrs;
  const auto newest = array::open(base / str(a.at("path")), opt);
  for (const auto& at_ : newest.schema().attributes) newest_attrs.emplace_back(at_.name.value);
  for (const auto& rv : a.at("time_travel").as_array()) {
    const auto& rec = rv.as_object();
    const auto& tr = rec.at("timestamp_range").as_array();
    array::open_options o = opt;
    o.timestamp_start = tr[0].to_number<std::uint64_t>();
    o.timestamp_end = tr[1].to_number<std::uint64_t>();
    const std::string at = "opened at [" + std::to_string(o.timestamp_start) + ", " + std::to_string(o.timestamp_end) + "]: ";
    auto arr = array::open(base / str(a.at("path")), o);
    json::array attrs;
    for (const auto& at_ : arr.schema().attributes) attrs.emplace_back(at_.name.value);
    if ((newest_schema_only ? newest_attrs : attrs) != rec.at("schema_attrs").as_array())
      throw mismatch(at + "schema attributes " + json::serialize(attrs) + ", TileDB: " + json::serialize(rec.at("schema_attrs")));
    const auto& want_ned = rec.at("non_empty_domain");
    if (want_ned.is_null()) {
      if (!arr.fragments().empty()) throw mismatch(at + std::to_string(arr.fragments().size()) + " fragments, TileDB sees none");
      continue;
    }
    if (arr.fragments().empty()) throw mismatch(at + "no fragments, TileDB sees some");
    const bool has_coords = rec.contains("coords"), has_a = rec.contains("a");
    if (!has_coords && !has_a) continue;  // not integer dimensions
    const auto& dims = arr.schema().domain.dimensions.value;
    std::vector<std::pair<wide_int, wide_int>> ned(dims.size());
    for (std::size_t i = 0; i < arr.fragments().size(); ++i)
      for (std::size_t d = 0; d < dims.size(); ++d) {
        auto r = integer_range(arr.fragments()[i].non_empty_domain(), d, dims[d].type.value);
        ned[d] = i == 0 ? r : std::pair{std::min(ned[d].first, r.first), std::max(ned[d].second, r.second)};
      }
    json::array got_ned;
    for (auto [lo, hi] : ned) got_ned.push_back(json::array{json_int(lo), json_int(hi)});
    if (got_ned != want_ned.as_array())
      throw mismatch(at + "non-empty domain " + json::serialize(got_ned) + ", TileDB: " + json::serialize(want_ned));

    if (has_coords) {
      // What a read of the whole array returns (the query layer: per-cell
      // timestamps, newest of equal coordinates, delete timestamps and delete
      // commits), as sorted coordinates.
      const auto r = arr.query().layout(array::query_layout::unordered).read();
      std::vector<std::vector<wide_int>> cells(static_cast<std::size_t>(r.cell_num()));
      for (const auto& d : dims)
        format::visit_integer_type(d.type.value, [&]<class T>() {
          const auto col = r.get<T>(d.name.value);
          for (std::size_t c = 0; c < cells.size(); ++c) cells[c].push_back(static_cast<wide_int>(col[c]));
        });
      std::sort(cells.begin(), cells.end());
      json::array got;
      for (const auto& cell : cells) {
        json::array j;
        for (auto v : cell) j.push_back(json_int(v));
        got.push_back(std::move(j));
      }
      const auto& want = rec.at("coords").as_array();
      if (got != want)
        throw mismatch(at + std::to_string(got.size()) + " cells, TileDB reads " + std::to_string(want.size()) +
                       (got.size() == want.size() ? " (different coordinates)" : ""));
    }
    if (has_a) {
      const auto& dim = dims.at(0);
      const auto [L, H] = ned.at(0);
      const auto* attr = arr.schema().attribute("a");
      if (!attr) throw mismatch(at + "no attribute a");
      auto fill = attr->fill();
      std::int32_t fill_value = codec::load_le<std::int32_t>(fill.data());
      std::vector<std::int32_t> merged(static_cast<std::size_t>(H - L + 1), fill_value);
      wide_int dom_lo = 0, ext = 1;
      format::visit_integer_type(dim.type.value, [&]<class T>() {
        dom_lo = static_cast<wide_int>(dim.domain_as<T>().first);
        ext = static_cast<wide_int>(dim.tile_extent_as<T>().value_or(T{1}));
      });
      for (const auto& frag : arr.fragments()) {
        if (!frag.schema().attribute("a")) continue;
        auto values = frag.read<std::int32_t>("a");
        auto [nl, nh] = integer_range(frag.non_empty_domain(), 0, dim.type.value);
        const wide_int first = dom_lo + (nl - dom_lo) / ext * ext;
        for (std::size_t k = 0; k < values.size(); ++k) {
          const wide_int coord = first + static_cast<wide_int>(k);
          if (coord >= nl && coord <= nh && coord >= L && coord <= H) merged[static_cast<std::size_t>(coord - L)] = values[k];
        }
      }
      const auto& want = rec.at("a").as_array();
      if (want.size() != merged.size()) throw mismatch(at + "a: " + std::to_string(merged.size()) + " cells, TileDB reads " + std::to_string(want.size()));
      for (std::size_t k = 0; k < merged.size(); ++k)
        if (want[k].to_number<std::int64_t>() != merged[k])
          throw mismatch(at + "a at " + std::to_string(static_cast<long long>(L) + static_cast<long long>(k)) + " is " +
                         std::to_string(merged[k]) + ", TileDB reads " + json::serialize(want[k]));
    }
  }
}

/// The queries the corpus's release answered (VERSION/queries/recorded.txt,
/// written by record_queries.py --corpus), by array, read once per release.
const std::map<std::string, std::vector<recorded::recorded_query>>& release_queries(const fs::path& dir) {
  static std::map<fs::path, std::map<std::string, std::vector<recorded::recorded_query>>> loaded;
  auto it = loaded.find(dir);
  if (it != loaded.end()) return it->second;
  std::map<std::string, std::vector<recorded::recorded_query>> by_array;
  std::ifstream in(dir / "queries" / "recorded.txt");
  if (in)
    for (auto& q : recorded::parse(in)) by_array[q.array].push_back(std::move(q));
  return loaded.emplace(dir, std::move(by_array)).first->second;
}

/// Runs the queries TileDB-Py answered on this array (if its release
/// recorded any) through tilefmt: the same cells, the same aggregates, the
/// same refusals.
void check_queries(const array::array_reader& arr, const std::string& path, const fs::path& base) {
  const auto slash = path.find('/');
  if (slash == std::string::npos) return;  // a corpus of one release: no queries beside it
  const auto& queries = release_queries(base / path.substr(0, slash));
  const auto it = queries.find(path.substr(slash + 1));
  if (it == queries.end()) return;
  const std::size_t offset = queries_checked % query_stride;
  for (std::size_t i = offset; i < it->second.size(); i += query_stride) {
    const auto& q = it->second[i];
    std::string why;
    try {
      why = recorded::check(arr, q);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!why.empty()) throw mismatch("query " + q.describe() + ": " + why);
  }
  query_count += (it->second.size() + query_stride - 1 - offset) / query_stride;
  ++queries_checked;
}

void check_array(const json::object& a, const fs::path& base) {
  array::open_options opt;
  if (const auto& enc = a.at("encryption"); !enc.is_null()) {
    std::string key = str(enc.as_object().at("key"));
    opt.encryption_key.assign(key.begin(), key.end());
  }
  auto arr = array::open(base / str(a.at("path")), opt);
  check_schema(arr.schema(), a.at("schema").as_object());
  check_metadata(arr.metadata(), a.at("metadata"));
  std::vector<const json::object*> frags;
  for (const auto& f : a.at("fragments").as_array()) {
    const auto& fo = f.as_object();
    auto listed = fo.find("listed_by_tiledb");
    if (listed == fo.end() || listed->value().as_bool()) frags.push_back(&fo);
  }
  if (frags.size() != arr.fragments().size())
    throw mismatch("fragments: " + std::to_string(arr.fragments().size()) + ", expected " + std::to_string(frags.size()));
  for (std::size_t i = 0; i < frags.size(); ++i) {
    const auto& frag = arr.fragments()[i];
    if (frag.name().stem() != str(frags[i]->at("name")))
      throw mismatch("fragment " + std::to_string(i) + " is " + frag.name().stem() + ", expected " + str(frags[i]->at("name")));
    check_fragment_info(frag, *frags[i]);
    check_fragment(frag, *frags[i], base);
  }
  if (a.contains("time_travel")) check_time_travel(a, base, opt);
  check_queries(arr, str(a.at("path")), base);
}

std::vector<std::string> read_patterns(const char* path) {
  std::vector<std::string> out;
  if (!path) return out;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    std::size_t s = 0;
    while (s < line.size() && std::isspace(static_cast<unsigned char>(line[s]))) ++s;
    if (s < line.size()) out.push_back(line.substr(s));
  }
  return out;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--query-stride" && i + 1 < argc) {
      query_stride = std::max(1, std::atoi(argv[++i]));
    } else {
      args.emplace_back(argv[i]);
    }
  }
  if (args.empty()) {
    std::cerr << "usage: interop-check MANIFEST [UNSUPPORTED] [--query-stride N]\n";
    return 2;
  }
  fs::path manifest_path = args[0];
  if (!fs::exists(manifest_path)) {
    std::cout << "interop: no corpus at " << manifest_path.string() << " (run scripts/interop.sh); skipping\n";
    return 77;
  }
  auto text = tilefmt::storage::local{}.read(manifest_path);
  auto manifest = json::parse(std::string_view(reinterpret_cast<const char*>(text.data()), text.size())).as_object();
  auto unsupported = read_patterns(args.size() > 1 ? args[1].c_str() : nullptr);
  fs::path base = manifest_path.parent_path();

  int passed = 0, failed = 0, expected_failures = 0;
  for (const auto& av : manifest.at("arrays").as_array()) {
    const auto& a = av.as_object();
    std::string id = a.contains("id") ? str(a.at("id")) : str(a.at("name"));
    bool listed = false;
    for (const auto& p : unsupported) listed = listed || fnmatch(p.c_str(), id.c_str(), 0) == 0;
    std::string error;
    try {
      check_array(a, base);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error.empty() && !listed) {
      ++passed;
      std::cout << "ok      " << id << "\n";
    } else if (error.empty()) {
      ++failed;
      std::cout << "FAIL    " << id << ": passes but is listed as unsupported; remove it from the list\n";
    } else if (listed) {
      ++expected_failures;
      std::cout << "xfail   " << id << ": " << error << "\n";
    } else {
      ++failed;
      std::cout << "FAIL    " << id << ": " << error << "\n";
    }
  }
  std::cout << "interop: " << expected_failures << " arrays listed as unsupported\n";
  if (query_count)
    std::cout << "interop: " << query_count << " recorded queries on " << queries_checked
              << " arrays answered as TileDB-Py answered them\n";
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}
