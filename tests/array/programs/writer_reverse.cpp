// Writes arrays with tilefmt's writer, and next to them what they hold, as a
// manifest tests/interop/reverse_check.py reads (tests/interop/README.md):
// TileDB then opens each array and must read the same cells. The `_encrypted`
// arrays are written with an AES-256-GCM key (the manifest's `encryption`),
// with metadata, a schema evolution, a delete commit and a consolidation;
// their `reads` list the sorted values TileDB must read from the whole array.
//
//   writer-reverse OUTDIR      -> OUTDIR/manifest.json, OUTDIR/arrays/..., OUTDIR/expected/...
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/maintain/consolidate.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/global_order_writer.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/zstd.hpp"

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

using IntP = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
using FloatP = filter::pipeline<filter::bitshuffle, filter::lz4<>>;

const char* int_filters =
    R"({"max_chunk_size": 65536, "filters": [{"type": "BYTESHUFFLE", "options": {}}, {"type": "ZSTD", "options": {"level": 1}}]})";
const char* float_filters =
    R"({"max_chunk_size": 65536, "filters": [{"type": "BITSHUFFLE", "options": {}}, {"type": "LZ4", "options": {"level": -1}}]})";

// The key of the encrypted arrays: 32 bytes, as TileDB's sm.encryption_key takes them.
const std::string key_text = "tilefmt writer reverse key 32 b!";
const std::vector<std::uint8_t> key(key_text.begin(), key_text.end());

/// Options with a timestamp and, when `encrypted`, the key.
array::write_options at(std::uint64_t t, bool encrypted) {
  array::write_options o;
  o.timestamp = t;
  if (encrypted) o.encryption_key = key;
  return o;
}

std::string encryption_entry(bool encrypted) {
  return encrypted ? "{\"type\": \"AES_256_GCM\", \"key\": \"" + key_text + "\"}" : "null";
}

std::string hex(std::span<const std::byte> b) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::byte x : b) {
    out += digits[static_cast<unsigned>(x) >> 4];
    out += digits[static_cast<unsigned>(x) & 15];
  }
  return out;
}

/// A manifest `reads` item: the values of `attr` TileDB must read from the
/// whole array, sorted.
template <class T>
std::string read_entry(const std::string& attr, std::vector<T> values) {
  std::sort(values.begin(), values.end());
  std::ostringstream e;
  e << "{\"attr\": \"" << attr << "\", \"sorted_values\": [";
  for (std::size_t i = 0; i < values.size(); ++i) e << (i ? ", " : "") << values[i];
  e << "]}";
  return e.str();
}

template <class T>
std::string save(const fs::path& out, const std::string& rel, const std::vector<T>& v) {
  fs::create_directories((out / rel).parent_path());
  std::ofstream f(out / rel, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return "{\"file\": \"" + rel + "\", \"bytes\": " + std::to_string(v.size() * sizeof(T)) + "}";
}

struct case_spec {
  std::string name;
  format::Layout tile_order, cell_order;
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> writes;  // one fragment each
  /// Encrypted, and the fragments' metadata consolidated (an encrypted
  /// `__fragment_meta/*.meta` TileDB opens the array through).
  bool encrypted_fragment_meta = false;
};

std::string layout_name(format::Layout l) { return l == format::Layout::COL_MAJOR ? "col-major" : "row-major"; }

std::string write_case(const fs::path& out, const case_spec& c) {
  const std::string rel = "arrays/" + c.name;
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("row", 1, 16, 8),
                      format::make_dimension<std::int32_t>("col", 1, 12, 4)},
       .attributes = {
           format::make_attribute({.name = "count", .type = format::Datatype::INT32, .filters = IntP::descriptor()}),
           format::make_attribute(
               {.name = "reading", .type = format::Datatype::FLOAT64, .filters = FloatP::descriptor()})}});
  schema.tile_order = c.tile_order;
  schema.cell_order = c.cell_order;
  const bool encrypted = c.encrypted_fragment_meta;
  array::create(out / rel, schema, at(1700000000000, encrypted));

  std::ostringstream frags;
  for (std::size_t w = 0; w < c.writes.size(); ++w) {
    array::dense_writer frag(out / rel, c.writes[w], array::cell_layout::storage, at(0, encrypted));
    std::vector<std::int32_t> count;
    std::vector<double> reading;
    for (std::uint64_t i = 0; i < frag.cell_num(); ++i) {
      auto rc = frag.cell_coordinates(i);
      count.push_back(static_cast<std::int32_t>(rc[0] * 100 + rc[1] + 1000 * static_cast<std::int64_t>(w)));
      reading.push_back(0.5 * static_cast<double>(rc[0]) - 0.25 * static_cast<double>(rc[1]) + static_cast<double>(w));
    }
    frag.set<IntP>("count", count).set("reading", reading);
    std::string name = frag.commit(at(1700000000100 + w, encrypted));
    const std::string exp = "expected/" + c.name + "/" + name + "/tiles/";
    const std::string cells = std::to_string(frag.cell_num());
    frags << (w ? ", " : "") << "{\"name\": \"" << name << "\", \"format_version\": 22, \"sparse\": false, "
          << "\"non_empty_domain\": [[" << c.writes[w][0].first << ", " << c.writes[w][0].second << "], ["
          << c.writes[w][1].first << ", " << c.writes[w][1].second << "]], \"fields\": {"
          << "\"count\": {\"kind\": \"attribute\", \"datatype\": \"INT32\", \"cell_val_num\": 1, \"var\": false, "
             "\"nullable\": false, \"expected\": {\"tiles\": {\"cells\": "
          << cells << ", \"data\": " << save(out, exp + "count.data", count) << "}}}, "
          << "\"reading\": {\"kind\": \"attribute\", \"datatype\": \"FLOAT64\", \"cell_val_num\": 1, \"var\": false, "
             "\"nullable\": false, \"expected\": {\"tiles\": {\"cells\": "
          << cells << ", \"data\": " << save(out, exp + "reading.data", reading) << "}}}}}";
  }
  if (c.encrypted_fragment_meta) {
    array::consolidation_options o;
    o.encryption_key = key;
    array::consolidate_fragment_metadata(out / rel, o);
  }
  std::ostringstream e;
  e << "{\"name\": \"" << c.name << "\", \"path\": \"" << rel << "\", \"array_type\": \"dense\", \"encryption\": "
    << encryption_entry(encrypted) << ", "
    << "\"schema\": {\"array_type\": \"dense\", \"cell_order\": \"" << layout_name(c.cell_order)
    << "\", \"tile_order\": \"" << layout_name(c.tile_order) << "\", "
    << "\"dims\": [{\"name\": \"row\", \"type\": \"INT32\", \"var\": false, \"domain\": [1, 16], \"tile_extent\": 8}, "
    << "{\"name\": \"col\", \"type\": \"INT32\", \"var\": false, \"domain\": [1, 12], \"tile_extent\": 4}], "
    << "\"attrs\": [{\"name\": \"count\", \"type\": \"INT32\", \"cell_val_num\": 1, \"var\": false, \"nullable\": false, "
       "\"filters\": "
    << int_filters << ", \"fill_value_hex\": \"00000080\"}, "
    << "{\"name\": \"reading\", \"type\": \"FLOAT64\", \"cell_val_num\": 1, \"var\": false, \"nullable\": false, "
       "\"filters\": "
    << float_filters << ", \"fill_value_hex\": \"000000000000f87f\"}], "
    << "\"offsets_filters\": {\"max_chunk_size\": 65536, \"filters\": [{\"type\": \"ZSTD\", \"options\": {\"level\": -1}}]}, "
    << "\"validity_filters\": {\"max_chunk_size\": 65536, \"filters\": [{\"type\": \"RLE\", \"options\": {\"level\": -1}}]}}, "
    << "\"fragments\": [" << frags.str() << "]}";
  return e.str();
}

/// The manifest entry of one field's expected cells, in storage order:
/// values, byte offsets of var cells into them, validity bytes.
std::string field_entry(const fs::path& out, const std::string& dir, const std::string& name, const char* type,
                        std::uint64_t cells, const std::vector<char>& data, const std::vector<std::uint64_t>* offsets,
                        const std::vector<std::uint8_t>* validity, const char* form = "tiles") {
  std::ostringstream e;
  e << "\"" << name << "\": {\"kind\": \"attribute\", \"datatype\": \"" << type << "\", \"var\": "
    << (offsets ? "true" : "false") << ", \"nullable\": " << (validity ? "true" : "false")
    << ", \"expected\": {\"" << form << "\": {\"cells\": " << cells << ", \"data\": " << save(out, dir + name + ".data", data);
  if (offsets) e << ", \"offsets\": " << save(out, dir + name + ".offsets", *offsets);
  if (validity) e << ", \"validity\": " << save(out, dir + name + ".validity", *validity);
  e << "}}}";
  return e.str();
}

/// Var-size and nullable attributes: strings under ZSTD, RLE (offsets
/// carried in the var tile) and DICTIONARY, a nullable INT32.
std::string write_var_case(const fs::path& out, bool encrypted = false) {
  const std::string name = std::string("tilefmt_dense_var_nullable") + (encrypted ? "_encrypted" : ""), rel = "arrays/" + name;
  using D = format::Datatype;
  using FT = format::FilterType;
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("row", 1, 16, 8),
                      format::make_dimension<std::int32_t>("col", 1, 12, 4)},
       .attributes = {
           format::make_attribute({.name = "name",
                                   .type = D::STRING_ASCII,
                                   .cell_val_num = format::var_num,
                                   .filters = format::compression_pipeline(FT::ZSTD, 3)}),
           format::make_attribute(
               {.name = "score", .type = D::INT32, .nullable = true, .filters = format::compression_pipeline(FT::LZ4)}),
           format::make_attribute({.name = "tag",
                                   .type = D::STRING_UTF8,
                                   .cell_val_num = format::var_num,
                                   .nullable = true,
                                   .filters = format::compression_pipeline(FT::RLE)}),
           format::make_attribute({.name = "kind",
                                   .type = D::STRING_ASCII,
                                   .cell_val_num = format::var_num,
                                   .filters = format::compression_pipeline(FT::DICTIONARY)})}});
  array::create(out / rel, schema, at(1700000000000, encrypted));
  array::dense_writer frag(out / rel, {{1, 16}, {5, 12}}, array::cell_layout::storage, at(0, encrypted));
  std::vector<std::string> names, tags, kinds;
  std::vector<std::int32_t> score;
  std::vector<std::uint8_t> score_valid, tag_valid;
  for (std::uint64_t i = 0; i < frag.cell_num(); ++i) {
    auto rc = frag.cell_coordinates(i);
    const std::int64_t r = rc[0], c = rc[1];
    names.push_back(std::string("n") + std::to_string(r) + "_" + std::string(static_cast<std::size_t>((r * c) % 4), 'x'));
    score.push_back(static_cast<std::int32_t>(r * c - 40));
    score_valid.push_back((r + c) % 5 != 0);
    tags.push_back(c < 9 ? "\xc3\xa9t\xc3\xa9" : "hiver");
    tag_valid.push_back(r % 4 != 1);
    kinds.push_back(std::vector<std::string>{"alpha", "beta", ""}[static_cast<std::size_t>((r + c) % 3)]);
  }
  frag.set_var("name", names).set("score", score, score_valid).set_var("tag", tags, tag_valid).set_var("kind", kinds);
  const std::string frag_name = frag.commit(at(1700000000100, encrypted));
  std::string metadata = "null";
  if (encrypted) {
    auto scale = format::MetadataEntry::of<double>("scale", std::vector<double>{0.5, -2});
    auto unit = format::MetadataEntry::of_string("unit", "m\xc2\xb2");
    array::metadata_writer(out / rel, at(0, true)).put(scale).put(unit).commit(at(1700000000200, true));
    metadata = "{\"entries\": {\"scale\": {\"type\": \"FLOAT64\", \"hex\": \"" + hex(scale.bytes()) +
               "\"}, \"unit\": {\"type\": \"STRING_UTF8\", \"hex\": \"" + hex(unit.bytes()) + "\"}}, \"deleted_keys\": []}";
  }

  auto flat = [](const std::vector<std::string>& cells, std::vector<std::uint64_t>& offsets) {
    std::vector<char> data;
    for (const auto& c : cells) {
      offsets.push_back(data.size());
      data.insert(data.end(), c.begin(), c.end());
    }
    return data;
  };
  std::vector<std::uint64_t> name_off, tag_off, kind_off;
  const auto name_data = flat(names, name_off), tag_data = flat(tags, tag_off), kind_data = flat(kinds, kind_off);
  std::vector<char> score_data(score.size() * 4);
  codec::store_le_array(reinterpret_cast<std::byte*>(score_data.data()), score.data(), score.size());
  const std::string dir = "expected/" + name + "/" + frag_name + "/tiles/";
  const std::uint64_t cells = frag.cell_num();
  std::ostringstream e;
  e << "{\"name\": \"" << name << "\", \"path\": \"" << rel << "\", \"array_type\": \"dense\", \"encryption\": "
    << encryption_entry(encrypted) << ", \"metadata\": " << metadata
    << ", \"schema\": {\"array_type\": \"dense\"}, \"fragments\": [{\"name\": \"" << frag_name
    << "\", \"format_version\": 22, \"sparse\": false, \"non_empty_domain\": [[1, 16], [5, 12]], \"fields\": {"
    << field_entry(out, dir, "name", "STRING_ASCII", cells, name_data, &name_off, nullptr) << ", "
    << field_entry(out, dir, "score", "INT32", cells, score_data, nullptr, &score_valid) << ", "
    << field_entry(out, dir, "tag", "STRING_UTF8", cells, tag_data, &tag_off, &tag_valid) << ", "
    << field_entry(out, dir, "kind", "STRING_ASCII", cells, kind_data, &kind_off, nullptr) << "}}]}";
  return e.str();
}

/// A sparse array in column-major orders with a float and an int16
/// dimension, duplicates allowed (and present), capacity 7: 300 cells make
/// 43 data tiles and an R-tree of three levels.
std::string write_sparse_case(const fs::path& out, bool encrypted = false) {
  const std::string name = std::string("tilefmt_sparse_colmajor_dups") + (encrypted ? "_encrypted" : ""),
                    rel = "arrays/" + name;
  using D = format::Datatype;
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<double>("t", 0.0, 1000.0, 100.0),
                      format::make_dimension<std::int16_t>("k", -100, 100, 50)},
       .attributes = {
           format::make_attribute(
               {.name = "v", .type = D::INT64, .filters = format::compression_pipeline(format::FilterType::ZSTD, 2)}),
           format::make_attribute(
               {.name = "name", .type = D::STRING_ASCII, .cell_val_num = format::var_num, .nullable = true})}});
  schema.tile_order = format::Layout::COL_MAJOR;
  schema.cell_order = format::Layout::COL_MAJOR;
  schema.capacity = 7;
  schema.allows_dups.value = true;
  array::create(out / rel, schema, at(1700000000000, encrypted));

  struct cell {
    double t;
    std::int16_t k;
    std::int64_t v;
    std::string name;
    std::uint8_t valid;
  };
  std::vector<cell> cells;
  for (int i = 0; i < 300; ++i) {
    const int j = i % 250;  // cells 250-299 repeat the coordinates of 0-49
    cells.push_back({static_cast<double>((j * 7919) % 1000) + 0.25 * (j % 4), static_cast<std::int16_t>((j * 31) % 201 - 100),
                     static_cast<std::int64_t>(i) * 1000003 - 7, std::string(static_cast<std::size_t>(i % 6), 'a' + i % 26),
                     static_cast<std::uint8_t>(i % 9 != 4)});
  }
  array::sparse_writer frag(out / rel, at(0, encrypted));
  std::vector<double> t;
  std::vector<std::int16_t> k;
  std::vector<std::int64_t> v;
  std::vector<std::string> names;
  std::vector<std::uint8_t> valid;
  for (const auto& c : cells) {
    t.push_back(c.t);
    k.push_back(c.k);
    v.push_back(c.v);
    names.push_back(c.name);
    valid.push_back(c.valid);
  }
  frag.set_coords("t", t).set_coords("k", k).set("v", v).set_var("name", names, valid);
  const std::string frag_name = frag.commit(at(1700000000100, encrypted));
  // Encrypted: metadata, a delete commit (v < 40000000: the first 40
  // cells written), then a schema evolution adding an attribute, an
  // enumeration and an attribute using it; then the commits consolidated
  // (a .con naming the write and the delete).
  std::string extra;
  if (encrypted) {
    auto n = format::MetadataEntry::of<std::int64_t>("cells", std::vector<std::int64_t>{300});
    array::metadata_writer(out / rel, at(0, true)).put(n).commit(at(1700000000200, true));
    array::delete_cells(out / rel, array::field("v") < std::int64_t{40000000}, at(1700000000300, true));
    auto level = format::make_attribute({.name = "level", .type = D::UINT8});
    level.enumeration_name.value.value = "levels";
    array::schema_evolution()
        .add_attribute(format::make_attribute({.name = "extra", .type = D::UINT8}))
        .add_enumeration(format::make_enumeration("levels", {"low", "mid", "high"}))
        .add_attribute(level)
        .evolve(out / rel, at(1700000000400, true));
    array::consolidation_options c;
    c.encryption_key = key;
    array::consolidate_commits(out / rel, c);
    std::vector<std::int64_t> kept;
    for (const auto& c : cells)
      if (c.v >= 40000000) kept.push_back(c.v);
    extra = ", \"metadata\": {\"entries\": {\"cells\": {\"type\": \"INT64\", \"hex\": \"" + hex(n.bytes()) +
            "\"}}, \"deleted_keys\": []}, \"reads\": [" + read_entry("v", kept) +
            "], \"enumerations\": {\"levels\": [\"low\", \"mid\", \"high\"]}";
  }

  // TileDB's global order, written out independently: column-major space
  // tiles (k's tile, then t's), then column-major cells (k, then t); equal
  // coordinates keep the order written.
  std::stable_sort(cells.begin(), cells.end(), [](const cell& a, const cell& b) {
    auto key = [](const cell& c) {
      return std::make_tuple((c.k + 100) / 50, static_cast<std::int64_t>(c.t / 100.0), c.k, c.t);
    };
    return key(a) < key(b);
  });
  std::vector<char> t_data(cells.size() * 8), k_data(cells.size() * 2), v_data(cells.size() * 8), name_data;
  std::vector<std::uint64_t> name_off;
  std::vector<std::uint8_t> name_valid;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    codec::store_le<double>(reinterpret_cast<std::byte*>(t_data.data() + 8 * i), cells[i].t);
    codec::store_le<std::int16_t>(reinterpret_cast<std::byte*>(k_data.data() + 2 * i), cells[i].k);
    codec::store_le<std::int64_t>(reinterpret_cast<std::byte*>(v_data.data() + 8 * i), cells[i].v);
    name_off.push_back(name_data.size());
    name_data.insert(name_data.end(), cells[i].name.begin(), cells[i].name.end());
    name_valid.push_back(cells[i].valid);
  }
  const std::string dir = "expected/" + name + "/" + frag_name + "/global/";
  auto dim = [](std::string e) { return e.replace(e.find("\"attribute\""), 11, "\"dimension\""); };
  std::ostringstream e;
  e << "{\"name\": \"" << name << "\", \"path\": \"" << rel << "\", \"array_type\": \"sparse\", \"encryption\": "
    << encryption_entry(encrypted) << extra
    << ", \"schema\": {\"array_type\": \"sparse\", \"cell_order\": \"col-major\", \"tile_order\": \"col-major\", "
    << "\"capacity\": 7, \"allows_duplicates\": true"
    << (encrypted ? ", \"attrs\": [{\"name\": \"v\"}, {\"name\": \"name\"}, {\"name\": \"extra\"}, "
                    "{\"name\": \"level\", \"enumeration\": \"levels\"}]"
                  : "")
    << "}, \"fragments\": [{\"name\": \"" << frag_name
    << "\", \"format_version\": 22, \"sparse\": true, \"fields\": {"
    << dim(field_entry(out, dir, "t", "FLOAT64", cells.size(), t_data, nullptr, nullptr, "global")) << ", "
    << dim(field_entry(out, dir, "k", "INT16", cells.size(), k_data, nullptr, nullptr, "global")) << ", "
    << field_entry(out, dir, "v", "INT64", cells.size(), v_data, nullptr, nullptr, "global") << ", "
    << field_entry(out, dir, "name", "STRING_ASCII", cells.size(), name_data, &name_off, &name_valid, "global")
    << "}}]}";
  return e.str();
}

/// An encrypted dense array written twice (columns 1-8, then 5-12: the
/// newer write wins where they meet) and in two metadata files, both
/// consolidated and vacuumed: TileDB reads the one fragment and file left.
std::string write_consolidated_case(const fs::path& out) {
  const std::string name = "tilefmt_dense_consolidated_encrypted", rel = "arrays/" + name;
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("row", 1, 16, 8),
                      format::make_dimension<std::int32_t>("col", 1, 12, 4)},
       .attributes = {
           format::make_attribute({.name = "count", .type = format::Datatype::INT32, .filters = IntP::descriptor()}),
           format::make_attribute(
               {.name = "reading", .type = format::Datatype::FLOAT64, .filters = FloatP::descriptor()})}});
  array::create(out / rel, schema, at(1700000000000, true));
  for (std::int64_t w = 0; w < 2; ++w) {
    array::dense_writer frag(out / rel, {{1, 16}, {1 + 4 * w, 8 + 4 * w}}, array::cell_layout::storage, at(0, true));
    std::vector<std::int32_t> count;
    std::vector<double> reading;
    for (std::uint64_t i = 0; i < frag.cell_num(); ++i) {
      auto rc = frag.cell_coordinates(i);
      count.push_back(static_cast<std::int32_t>(rc[0] * 100 + rc[1] + 1000 * w));
      reading.push_back(static_cast<double>(rc[0]) / 4.0 + static_cast<double>(w));
    }
    frag.set<IntP>("count", count).set("reading", reading);
    frag.commit(at(1700000000100 + static_cast<std::uint64_t>(w), true));
  }
  auto a = format::MetadataEntry::of<std::int32_t>("a", std::vector<std::int32_t>{1, 2, 3});
  auto b = format::MetadataEntry::of_string("b", "second");
  array::metadata_writer(out / rel, at(0, true)).put(a).put_string("gone", "x").commit(at(1700000000200, true));
  array::metadata_writer(out / rel, at(0, true)).put(b).remove("gone").commit(at(1700000000201, true));
  array::consolidation_options c;
  c.encryption_key = key;
  const std::string frag_name = array::consolidate_fragments(out / rel, c).name;
  array::consolidate_metadata(out / rel, c);
  array::vacuum_fragments(out / rel);
  array::vacuum_metadata(out / rel);

  // The consolidated fragment's cells by space tiles (8 x 4, row-major
  // tiles and cells), and all of its counts for the whole-array read.
  std::vector<std::int32_t> count, tiled_count;
  std::vector<double> tiled_reading;
  for (std::int32_t r = 1; r <= 16; ++r)
    for (std::int32_t col = 1; col <= 12; ++col) count.push_back(r * 100 + col + (col >= 5 ? 1000 : 0));
  for (std::int32_t tr = 0; tr < 2; ++tr)
    for (std::int32_t tc = 0; tc < 3; ++tc)
      for (std::int32_t r = 1 + 8 * tr; r <= 8 + 8 * tr; ++r)
        for (std::int32_t col = 1 + 4 * tc; col <= 4 + 4 * tc; ++col) {
          tiled_count.push_back(r * 100 + col + (col >= 5 ? 1000 : 0));
          tiled_reading.push_back(static_cast<double>(r) / 4.0 + (col >= 5 ? 1.0 : 0.0));
        }
  const std::string dir = "expected/" + name + "/" + frag_name + "/tiles/";
  auto bytes = [](const auto& v) {
    std::vector<char> out(v.size() * sizeof(v[0]));
    codec::store_le_array(reinterpret_cast<std::byte*>(out.data()), v.data(), v.size());
    return out;
  };
  std::ostringstream e;
  e << "{\"name\": \"" << name << "\", \"path\": \"" << rel << "\", \"array_type\": \"dense\", \"encryption\": "
    << encryption_entry(true) << ", \"schema\": {\"array_type\": \"dense\"}, "
    << "\"metadata\": {\"entries\": {\"a\": {\"type\": \"INT32\", \"hex\": \"" << hex(a.bytes())
    << "\"}, \"b\": {\"type\": \"STRING_UTF8\", \"hex\": \"" << hex(b.bytes()) << "\"}}, \"deleted_keys\": [\"gone\"]}, "
    << "\"reads\": [" << read_entry("count", count) << "], "
    << "\"fragments\": [{\"name\": \"" << frag_name
    << "\", \"format_version\": 22, \"sparse\": false, \"non_empty_domain\": [[1, 16], [1, 12]], \"fields\": {"
    << field_entry(out, dir, "count", "INT32", 192, bytes(tiled_count), nullptr, nullptr) << ", "
    << field_entry(out, dir, "reading", "FLOAT64", 192, bytes(tiled_reading), nullptr, nullptr) << "}}]}";
  return e.str();
}

/// A sparse array written by array::global_order_writer in submissions of
/// uneven sizes (boundaries inside data tiles of 16): 2D int64 and int32
/// dimensions of extent 10 and 8, row-major tiles, column-major cells; an
/// INT64 under ZSTD and a nullable var string. The cells are made in the
/// global order directly: space tiles row by row, then the cells of each
/// tile column by column, some left out.
std::string write_global_order_case(const fs::path& out) {
  const std::string name = "tilefmt_sparse_global_order_submissions", rel = "arrays/" + name;
  using D = format::Datatype;
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("r", 0, 59, 10),
                      format::make_dimension<std::int32_t>("c", -20, 19, 8)},
       .attributes = {
           format::make_attribute(
               {.name = "v", .type = D::INT64, .filters = format::compression_pipeline(format::FilterType::ZSTD, 3)}),
           format::make_attribute(
               {.name = "label", .type = D::STRING_ASCII, .cell_val_num = format::var_num, .nullable = true})}});
  schema.tile_order = format::Layout::ROW_MAJOR;
  schema.cell_order = format::Layout::COL_MAJOR;
  schema.capacity = 16;
  array::create(out / rel, schema, {.timestamp = 1700000000000});

  std::vector<std::int64_t> r, v;
  std::vector<std::int32_t> c;
  std::vector<std::string> label;
  std::vector<std::uint8_t> valid;
  for (std::int64_t tr = 0; tr < 6; ++tr)
    for (std::int32_t tc = 0; tc < 5; ++tc)
      for (std::int32_t cc = -20 + 8 * tc; cc < -12 + 8 * tc; ++cc)  // column-major cells: c slowest
        for (std::int64_t rr = 10 * tr; rr < 10 * tr + 10; ++rr) {
          const std::uint64_t h = static_cast<std::uint64_t>(rr * 131 + (cc + 20) * 71) * 2654435761u;
          if ((h >> 7) % 3 == 0) continue;
          r.push_back(rr);
          c.push_back(cc);
          v.push_back(rr * 1000 - cc * 7 + static_cast<std::int64_t>(r.size()));
          label.push_back(std::string(static_cast<std::size_t>(r.size() % 5), static_cast<char>('a' + r.size() % 26)));
          valid.push_back(static_cast<std::uint8_t>(r.size() % 7 != 3));
        }
  array::global_order_writer w(out / rel, {.timestamp = 1700000000100});
  std::size_t at = 0;
  for (std::size_t n = 5; at < r.size(); n = n * 7 % 97 + 3) {
    const std::size_t e = std::min(r.size(), at + n);
    auto part = [&](const auto& col) {
      using T = typename std::decay_t<decltype(col)>::value_type;
      return std::vector<T>(col.begin() + static_cast<std::ptrdiff_t>(at), col.begin() + static_cast<std::ptrdiff_t>(e));
    };
    const auto valid_part = part(valid);
    w.set_coords("r", part(r)).set_coords("c", part(c)).set("v", part(v)).set_var("label", part(label), valid_part);
    w.submit();
    at = e;
  }
  const std::string frag_name = w.finalize();

  std::vector<char> r_data(r.size() * 8), c_data(c.size() * 4), v_data(v.size() * 8), label_data;
  std::vector<std::uint64_t> label_off;
  for (std::size_t i = 0; i < r.size(); ++i) {
    codec::store_le<std::int64_t>(reinterpret_cast<std::byte*>(r_data.data() + 8 * i), r[i]);
    codec::store_le<std::int32_t>(reinterpret_cast<std::byte*>(c_data.data() + 4 * i), c[i]);
    codec::store_le<std::int64_t>(reinterpret_cast<std::byte*>(v_data.data() + 8 * i), v[i]);
    label_off.push_back(label_data.size());
    label_data.insert(label_data.end(), label[i].begin(), label[i].end());
  }
  const std::string dir = "expected/" + name + "/" + frag_name + "/global/";
  auto dim = [](std::string e) { return e.replace(e.find("\"attribute\""), 11, "\"dimension\""); };
  std::ostringstream e;
  e << "{\"name\": \"" << name << "\", \"path\": \"" << rel << "\", \"array_type\": \"sparse\", \"encryption\": null, "
    << "\"schema\": {\"array_type\": \"sparse\", \"cell_order\": \"col-major\", \"tile_order\": \"row-major\", "
    << "\"capacity\": 16, \"allows_duplicates\": false}, \"fragments\": [{\"name\": \"" << frag_name
    << "\", \"format_version\": 22, \"sparse\": true, \"fields\": {"
    << dim(field_entry(out, dir, "r", "INT64", r.size(), r_data, nullptr, nullptr, "global")) << ", "
    << dim(field_entry(out, dir, "c", "INT32", r.size(), c_data, nullptr, nullptr, "global")) << ", "
    << field_entry(out, dir, "v", "INT64", r.size(), v_data, nullptr, nullptr, "global") << ", "
    << field_entry(out, dir, "label", "STRING_ASCII", r.size(), label_data, &label_off, &valid, "global") << "}}]}";
  return e.str();
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: writer-reverse OUTDIR\n";
    return 2;
  }
  try {
    const fs::path out = argv[1];
    fs::remove_all(out);
    fs::create_directories(out);
    using L = format::Layout;
    std::vector<case_spec> cases{
        {"tilefmt_dense_row", L::ROW_MAJOR, L::ROW_MAJOR, {{{1, 8}, {1, 12}}}},
        {"tilefmt_dense_col_two_writes", L::COL_MAJOR, L::COL_MAJOR, {{{1, 16}, {1, 4}}, {{9, 16}, {5, 12}}}},
        {"tilefmt_dense_rowtile_colcell", L::ROW_MAJOR, L::COL_MAJOR, {{{9, 16}, {1, 12}}}},
        {"tilefmt_dense_fragment_meta_encrypted", L::ROW_MAJOR, L::ROW_MAJOR, {{{1, 8}, {1, 12}}, {{9, 16}, {1, 8}}},
         true},
    };
    std::ofstream m(out / "manifest.json");
    m << "{\"manifest_version\": 1, \"arrays\": [";
    for (std::size_t i = 0; i < cases.size(); ++i) m << (i ? ",\n" : "\n") << write_case(out, cases[i]);
    m << ",\n" << write_var_case(out);
    m << ",\n" << write_sparse_case(out);
    m << ",\n" << write_global_order_case(out);
    m << ",\n" << write_var_case(out, true);
    m << ",\n" << write_sparse_case(out, true);
    m << ",\n" << write_consolidated_case(out);
    m << "\n]}\n";
    std::cout << "writer-reverse: " << cases.size() + 6 << " arrays and manifest.json in " << out.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "writer-reverse: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
