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

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tilefmt/array/array.hpp"

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace tilefmt;

namespace {

struct mismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string str(const json::value& v) { return std::string(v.as_string().c_str()); }

std::vector<std::byte> file_bytes(const fs::path& p) { return array::read_file(p); }

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
  for (const auto& kv : want.at("fields").as_object()) {
    std::string name(kv.key());
    const auto& form = kv.value().as_object().at("expected").as_object().at(primary).as_object();
    auto f = frag.field(name);
    std::vector<std::byte> values, offsets;
    std::vector<std::uint8_t> validity;
    for (std::size_t t = 0, n = frag.tile_num(); t < n; ++t) {
      auto tile = frag.read_tile(f, t);
      std::uint64_t at = values.size();
      for (auto o : tile.offsets) {
        std::byte b[8];
        codec::store_le<std::uint64_t>(b, at + o);
        offsets.insert(offsets.end(), b, b + 8);
      }
      values.insert(values.end(), tile.values.begin(), tile.values.end());
      validity.insert(validity.end(), tile.validity.begin(), tile.validity.end());
    }
    expect_equal_bytes(name + " data", values, base / str(form.at("data").as_object().at("file")));
    if (auto it = form.find("offsets"); it != form.end() && !it->value().is_null())
      expect_equal_bytes(name + " offsets", offsets, base / str(it->value().as_object().at("file")));
    if (auto it = form.find("validity"); it != form.end() && !it->value().is_null())
      expect_equal_bytes(name + " validity", std::as_bytes(std::span(validity)), base / str(it->value().as_object().at("file")));
  }
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
    check_fragment(frag, *frags[i], base);
  }
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
  if (argc < 2) {
    std::cerr << "usage: interop-check MANIFEST [UNSUPPORTED]\n";
    return 2;
  }
  fs::path manifest_path = argv[1];
  if (!fs::exists(manifest_path)) {
    std::cout << "interop: no corpus at " << manifest_path.string() << " (run scripts/interop.sh); skipping\n";
    return 77;
  }
  auto text = array::read_file(manifest_path);
  auto manifest = json::parse(std::string_view(reinterpret_cast<const char*>(text.data()), text.size())).as_object();
  auto unsupported = read_patterns(argc > 2 ? argv[2] : nullptr);
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
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}
