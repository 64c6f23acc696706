// Fragment metadata (format_spec/fragment.md, consolidated_fragment_metadata_file.md):
// real TileDB files decode to what TileDB's own tests and the arrays' data
// files say, every footer and section payload re-encodes to the same bytes,
// every generic tile re-encodes to the stored bytes, and every truncation is
// rejected. Synthetic footers cover each format version from 3 to 23.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <zlib.h>

#include <boost/json.hpp>
#include <boost/json/src.hpp>

#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/legacy.hpp"

#include "../support/testing.hpp"

namespace test_fragment_metadata {

using namespace tilefmt;
using format::Datatype;
using format::FragmentContext;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::hex_bytes;

#ifndef TILEFMT_TEST_DATA
#error "TILEFMT_TEST_DATA must name tests/data"
#endif

namespace fs = std::filesystem;

namespace {

const fs::path data_dir = fs::path(TILEFMT_TEST_DATA);

std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), p.string());
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), {});
  return {reinterpret_cast<const std::byte*>(raw.data()), reinterpret_cast<const std::byte*>(raw.data()) + raw.size()};
}

std::vector<std::byte> to_vector(std::span<const std::byte> s) { return {s.begin(), s.end()}; }

/// The one fragment folder of a legacy test array.
fs::path only_fragment(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "__fragment_metadata.tdb")) found.push_back(e.path());
  REQUIRE(found.size() == 1);
  return found[0];
}

/// decode, encode back to the same bytes, encoded_size agrees, and (unless
/// told otherwise) every proper prefix is rejected.
template <class T>
T check_payload(std::span<const std::byte> bytes, const FragmentContext& ctx, bool prefixes = true) {
  T v = codec::decode<T>(bytes, ctx);
  CHECK(codec::encode(v, ctx) == to_vector(bytes));
  CHECK(codec::encoded_size(v, ctx) == bytes.size());
  if (prefixes) check_every_prefix_throws<T>(bytes, ctx);
  return v;
}

/// The owning and the view form of a section decode to the same values.
template <class Owning, class View>
void check_view_agrees(std::span<const std::byte> bytes, const FragmentContext& ctx) {
  View view = codec::decode<View>(bytes, ctx);
  CHECK(codec::encode(view, ctx) == to_vector(bytes));
}

// ---------------------------------------------------------------------------
// A whole __fragment_metadata.tdb: sections found through the footer
// ---------------------------------------------------------------------------

struct StoredTile {
  std::size_t offset;
  filter::generic_tile tile;
  bool referenced = false;
};

struct DecodedFragment {
  format::Footer footer;
  FragmentContext ctx;  // with the footer's flags
  format::FooterLocation location;
  std::vector<StoredTile> tiles;
  format::RTree rtree;
  std::vector<format::TileOffsets> tile_offsets, tile_var_offsets, tile_validity_offsets;
  std::vector<format::TileSizes> tile_var_sizes;
  std::vector<format::TileMinMax> tile_mins, tile_maxes, global_order_mins, global_order_maxes;
  std::vector<format::TileSums> tile_sums;
  std::vector<format::TileNullCounts> tile_null_counts;
  std::optional<format::FragmentMinMaxSumNullCount> summary;
  std::optional<format::ProcessedConditions> processed_conditions;
  std::uint64_t tile_num = 0;
};

struct FragmentCheckOptions {
  bool prefixes = true;                 // truncate every footer and payload (slow on big files)
  bool generic_tiles_readable = true;   // false when they are encrypted
};

DecodedFragment check_fragment_file(std::span<const std::byte> file, const FragmentContext& ctx,
                                    FragmentCheckOptions opt = {}) {
  DecodedFragment d;
  d.location = format::locate_footer(file, ctx);
  d.footer = format::read_footer(file, ctx);
  auto footer_bytes = file.subspan(d.location.offset, d.location.size);
  CHECK(format::write_footer(d.footer, ctx) == to_vector(file.subspan(d.location.offset)));
  CHECK(d.location.has_length == format::footer_has_length(ctx));
  if (auto computed = format::footer_size(ctx)) CHECK(*computed == d.location.size);
  check_payload<format::Footer>(footer_bytes, ctx, opt.prefixes);
  d.ctx = format::with_footer_flags(ctx, d.footer);
  const FragmentContext& fctx = d.ctx;
  const std::size_t n = fctx.num_fields();
  if (!opt.generic_tiles_readable) return d;

  // The generic tiles, back to back up to the footer.
  for (std::size_t off = 0; off < d.location.offset;) {
    CAPTURE(off);
    StoredTile t{off, filter::read_generic_tile(file.subspan(off, d.location.offset - off))};
    REQUIRE(t.tile.stored_size > 0);
    // TileDB's writer: datatype CHAR, cell size 1, GZIP level 1 at the header's version.
    CHECK(filter::write_generic_tile(t.tile.payload, t.tile.header.version.value) ==
          to_vector(file.subspan(off, t.tile.stored_size)));
    off += t.tile.stored_size;
    d.tiles.push_back(std::move(t));
  }

  auto tile_at = [&](std::uint64_t off) -> StoredTile& {
    auto it = std::find_if(d.tiles.begin(), d.tiles.end(), [&](const StoredTile& t) { return t.offset == off; });
    REQUIRE_MESSAGE(it != d.tiles.end(), "no generic tile starts at offset " << off);
    it->referenced = true;
    return *it;
  };
  auto section = [&]<class T>(std::uint64_t off) -> T {
    return check_payload<T>(tile_at(off).tile.payload, fctx, opt.prefixes);
  };

  d.rtree = section.template operator()<format::RTree>(d.footer.rtree_offset);
  check_view_agrees<format::RTree, format::RTreeView>(tile_at(d.footer.rtree_offset).tile.payload, fctx);
  CHECK(d.footer.tile_offsets.size() == (ctx.version < 5 ? ctx.num_attributes + 1 : n));
  for (auto off : d.footer.tile_offsets) {
    d.tile_offsets.push_back(section.template operator()<format::TileOffsets>(off));
    check_view_agrees<format::TileOffsets, format::TileOffsetsView>(tile_at(off).tile.payload, fctx);
  }
  for (auto off : d.footer.tile_var_offsets)
    d.tile_var_offsets.push_back(section.template operator()<format::TileOffsets>(off));
  for (auto off : d.footer.tile_var_sizes) {
    d.tile_var_sizes.push_back(section.template operator()<format::TileSizes>(off));
    check_view_agrees<format::TileSizes, format::TileSizesView>(tile_at(off).tile.payload, fctx);
  }
  for (auto off : d.footer.tile_validity_offsets)
    d.tile_validity_offsets.push_back(section.template operator()<format::TileOffsets>(off));
  for (auto off : d.footer.tile_min_offsets) {
    d.tile_mins.push_back(section.template operator()<format::TileMinMax>(off));
    check_view_agrees<format::TileMinMax, format::TileMinMaxView>(tile_at(off).tile.payload, fctx);
  }
  for (auto off : d.footer.tile_max_offsets) d.tile_maxes.push_back(section.template operator()<format::TileMinMax>(off));
  for (auto off : d.footer.tile_sum_offsets) {
    d.tile_sums.push_back(section.template operator()<format::TileSums>(off));
    check_view_agrees<format::TileSums, format::TileSumsView>(tile_at(off).tile.payload, fctx);
  }
  for (auto off : d.footer.tile_null_count_offsets) {
    d.tile_null_counts.push_back(section.template operator()<format::TileNullCounts>(off));
    check_view_agrees<format::TileNullCounts, format::TileNullCountsView>(tile_at(off).tile.payload, fctx);
  }
  if (fctx.version >= 12)
    d.summary = section.template operator()<format::FragmentMinMaxSumNullCount>(
        d.footer.fragment_min_max_sum_null_count_offset.value);
  if (fctx.version >= 16)
    d.processed_conditions =
        section.template operator()<format::ProcessedConditions>(d.footer.processed_conditions_offset.value);
  if (auto go = format::tile_global_order_offsets(d.footer, fctx)) {
    for (auto off : go->min_offsets.value) d.global_order_mins.push_back(section.template operator()<format::TileMinMax>(off));
    for (auto off : go->max_offsets.value) d.global_order_maxes.push_back(section.template operator()<format::TileMinMax>(off));
  }
  // v15 writes the processed conditions tile but its footer has no slot for it: the last tile.
  if (fctx.version == 15) {
    REQUIRE(!d.tiles.empty());
    d.processed_conditions = section.template operator()<format::ProcessedConditions>(d.tiles.back().offset);
  }
  for (const auto& t : d.tiles) {
    CAPTURE(t.offset);
    CHECK(t.referenced);  // every generic tile is found from the footer
  }

  // Every field has one entry per tile in every offsets section.
  d.tile_num = d.tile_offsets.empty() ? 0 : d.tile_offsets[0].offsets.size();
  for (const auto& s : d.tile_offsets) CHECK(s.offsets.size() == d.tile_num);
  for (const auto& s : d.tile_var_offsets) CHECK(s.offsets.size() == d.tile_num);
  for (const auto& s : d.tile_var_sizes) CHECK(s.sizes.size() == d.tile_num);
  for (const auto& s : d.tile_validity_offsets) CHECK(s.offsets.size() == d.tile_num);
  for (const auto& s : d.tile_sums) CHECK((s.sums.empty() || s.sums.size() == d.tile_num));
  for (const auto& s : d.tile_null_counts) CHECK((s.null_counts.empty() || s.null_counts.size() == d.tile_num));
  for (std::size_t i = 0; i < d.tile_mins.size(); ++i) {
    CHECK(d.tile_mins[i].fixed.size() == d.tile_maxes[i].fixed.size());
    if (d.tile_num) CHECK(d.tile_mins[i].fixed.size() % d.tile_num == 0);
  }
  if (d.summary) {
    REQUIRE(d.summary->fields.size() == n);
    for (std::size_t i = 0; i < n && i < d.tile_null_counts.size(); ++i) {
      std::uint64_t nulls = 0;
      for (auto c : d.tile_null_counts[i].null_counts) nulls += c;
      CHECK(d.summary->fields[i].null_count == nulls);
    }
  }

  // The R-tree: dense fragments have none; sparse ones one leaf per tile,
  // fanout 10, root first, each level ceil(n / fanout) of the one below.
  if (d.footer.dense) {
    CHECK(d.rtree.levels.empty());
  } else {
    CHECK(d.footer.sparse_tile_num == d.tile_num);
    REQUIRE(!d.rtree.levels.empty());
    CHECK(d.rtree.levels.value.back().mbrs.size() == d.footer.sparse_tile_num);
    CHECK(d.rtree.levels.value.front().mbrs.size() == 1);
    for (std::size_t l = 0; l + 1 < d.rtree.levels.size(); ++l) {
      const std::size_t below = d.rtree.levels[l + 1].mbrs.size();
      CHECK(d.rtree.levels[l].mbrs.size() == (below + d.rtree.fanout - 1) / d.rtree.fanout);
    }
    // The root covers the non-empty domain exactly.
    CHECK(d.rtree.levels.value.front().mbrs[0] == d.footer.non_empty_domain);
  }
  return d;
}

/// Each data file's size is recorded in the footer (v9 file names).
void check_file_sizes(const fs::path& dir, const format::Footer& footer, const FragmentContext& fctx) {
  auto size_of = [&](const std::string& name) -> std::uint64_t {
    auto p = dir / name;
    return fs::exists(p) ? fs::file_size(p) : 0;
  };
  for (std::size_t i = 0; i < fctx.num_fields(); ++i) {
    std::string base;
    if (i < fctx.num_attributes)
      base = "a" + std::to_string(i);
    else if (i == fctx.coords_index())
      base = "__coords";
    else if (i <= fctx.num_attributes + fctx.dims.size())
      base = "d" + std::to_string(i - fctx.num_attributes - 1);
    else {
      std::size_t k = i - fctx.num_attributes - 1 - fctx.dims.size();
      if (!fctx.has_timestamps) ++k;
      base = k == 0 ? "t" : k == 1 ? "dt" : "dci";
    }
    CAPTURE(base);
    CHECK(footer.file_sizes[i] == size_of(base + ".tdb"));
    CHECK(footer.file_var_sizes[i] == size_of(base + "_var.tdb"));
    CHECK(footer.file_validity_sizes[i] == size_of(base + "_validity.tdb"));
  }
}

std::vector<std::byte> bytes_of_string(std::string_view s) {
  std::vector<std::byte> out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

std::vector<std::byte> le32(std::int32_t v) {
  std::vector<std::byte> out(4);
  codec::store_le<std::int32_t>(out.data(), v);
  return out;
}

} // namespace

// ---------------------------------------------------------------------------
// Real files
// ---------------------------------------------------------------------------

TEST_CASE("v10 sparse fragment with a var-size dimension (zero_var_chunks_v10)") {
  // test/regression/targets/sc-33480.cc: one STRING_ASCII dimension "d", one
  // int32 attribute "a", one cell at coordinate '' with value 1.
  const fs::path dir = only_fragment(data_dir / "legacy/zero_var_chunks_v10");
  auto file = read_file(dir / "__fragment_metadata.tdb");
  const FragmentContext ctx{10, {{Datatype::STRING_ASCII, true}}, 1};
  REQUIRE(ctx.num_fields() == 3);  // a, __coords, d

  auto d = check_fragment_file(file, ctx);
  const auto& f = d.footer;
  CHECK(d.location.size == 284);  // FORMAT_NOTES section 15
  CHECK(d.location.offset + 284 + 8 == file.size());
  CHECK(f.version == 10);
  CHECK(f.array_schema_name.value.value == "__1693562063520_1693562063520_87f6551825c94139b3000f0d6b7c0ac0");
  CHECK(fs::exists(data_dir / "legacy/zero_var_chunks_v10/__schema" / f.array_schema_name.value.value));
  CHECK_FALSE(f.dense);
  CHECK_FALSE(f.null_non_empty_domain);
  REQUIRE(f.non_empty_domain.ranges.size() == 1);
  CHECK(f.non_empty_domain.ranges[0].as_strings() == std::pair<std::string_view, std::string_view>{"", ""});
  CHECK(f.sparse_tile_num == 1);
  CHECK(f.last_tile_cell_num == 1);
  CHECK(f.file_sizes.value == std::vector<std::uint64_t>{24, 0, 53});
  CHECK(f.file_var_sizes.value == std::vector<std::uint64_t>{0, 0, 8});
  CHECK(f.file_validity_sizes.value == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(f.rtree_offset == 0);
  CHECK(f.tile_offsets.value == std::vector<std::uint64_t>{105, 204, 303});
  CHECK(f.tile_validity_offsets.value == std::vector<std::uint64_t>{996, 1095, 1194});
  CHECK(f.tile_min_offsets.empty());  // v11
  check_file_sizes(dir, f, d.ctx);

  CHECK(d.rtree.fanout == 10);
  REQUIRE(d.rtree.levels.size() == 1);
  REQUIRE(d.rtree.levels[0].mbrs.size() == 1);
  CHECK(d.tiles.size() == 13);  // R-tree + 4 sections x 3 fields
  CHECK(d.tile_num == 1);
  // The empty var tile of d: size 0 at offset 0 of d0_var.tdb.
  CHECK(d.tile_var_sizes[2].sizes.value == std::vector<std::uint64_t>{0});
  CHECK(d.tile_offsets[0].offsets.value == std::vector<std::uint64_t>{0});

  // The footer's trailing length is what the reader starts from.
  auto truncated = file;
  truncated.resize(file.size() - 1);
  CHECK_THROWS_AS(format::read_footer(truncated, ctx), format_error);
}

TEST_CASE("experimental build: version UINT32_MAX with the v14 layout (experimental_array_vUINT32_MAX)") {
  // Written in July 2022 by a build whose format version was 14 with the
  // experimental marker: the footer has has_timestamps but no
  // has_delete_meta, and the fragment summary tile of v12-v14. Dense, one
  // int32 dimension [1, 4], one int32 attribute holding 1, 2, 3, 4.
  const fs::path dir = only_fragment(data_dir / "legacy/experimental_array_vUINT32_MAX/__fragments");
  auto file = read_file(dir / "__fragment_metadata.tdb");
  const FragmentContext ctx{14, {{Datatype::INT32}}, 1};

  auto d = check_fragment_file(file, ctx);
  const auto& f = d.footer;
  CHECK(f.version == 0xFFFFFFFFu);
  CHECK(d.location.size == 381);
  CHECK(f.array_schema_name.value.value == "__1657562300107_1657562300107_634feb310ce6426796198decd5dbddbf");
  CHECK(f.dense);
  CHECK(f.non_empty_domain.ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
  CHECK(f.sparse_tile_num == 0);
  CHECK(f.last_tile_cell_num == 4);
  CHECK_FALSE(f.has_timestamps.value);
  CHECK(f.file_sizes.value == std::vector<std::uint64_t>{36, 0, 0});
  check_file_sizes(dir, f, d.ctx);
  CHECK(d.tiles.size() == 26);
  CHECK(d.rtree.levels.empty());  // dense
  CHECK(d.tile_num == 1);

  // a0.tdb: one uncompressed chunk of 1, 2, 3, 4.
  auto a0 = read_file(dir / "a0.tdb");
  REQUIRE(a0.size() == 36);
  std::vector<std::int32_t> values;
  for (std::size_t i = 20; i < 36; i += 4) values.push_back(codec::load_le<std::int32_t>(a0.data() + i));
  CHECK(values == std::vector<std::int32_t>{1, 2, 3, 4});

  // Tile metadata of a: min 1, max 4, sum 10, no null counts.
  CHECK(d.tile_mins[0].fixed == le32(1));
  CHECK(d.tile_maxes[0].fixed == le32(4));
  CHECK(d.tile_sums[0].sums.value == std::vector<std::uint64_t>{10});
  CHECK(format::sum_as<std::int64_t>(d.tile_sums[0].sums[0]) == 10);
  // __coords: zero-filled min/max of the coordinate size and a zero sum.
  CHECK(d.tile_mins[1].fixed == std::vector<std::byte>(4));
  CHECK(d.tile_sums[1].sums.value == std::vector<std::uint64_t>{0});
  // The dense dimension has none.
  CHECK(d.tile_mins[2].fixed.empty());
  CHECK(d.tile_sums[2].sums.empty());
  for (const auto& nc : d.tile_null_counts) CHECK(nc.null_counts.empty());
  REQUIRE(d.summary);
  const auto& s = d.summary->fields.value;
  CHECK(s[0].min.value == le32(1));
  CHECK(s[0].max.value == le32(4));
  CHECK(s[0].sum == 10);
  CHECK(s[1].min.value == std::vector<std::byte>(4));
  CHECK(s[2].min.empty());

  // Read with the current layout (has_delete_meta, processed conditions) the
  // footer length does not add up.
  CHECK_THROWS_AS(format::read_footer(file, FragmentContext{23, {{Datatype::INT32}}, 1}), format_error);
}

TEST_CASE("v1 fragment of TileDB 1.4 (non_split_coords_v1_4_0)") {
  // test/src/unit-backwards_compat.cc: two int32 dimensions, attribute a;
  // reading [1,4] x [10,10] gives a = 1, 2, 3, 4 (coordinates in one zipped
  // __coords file).
  const fs::path dir = only_fragment(data_dir / "legacy/non_split_coords_v1_4_0");
  auto file = read_file(dir / "__fragment_metadata.tdb");
  auto g = filter::read_generic_tile(file);
  CHECK(g.header.version.value == 1);
  CHECK(g.stored_size == file.size());
  CHECK(filter::write_generic_tile(g.payload, 1) == file);

  const FragmentContext ctx{1, {{Datatype::INT32}, {Datatype::INT32}}, 1};
  auto m = check_payload<format::LegacyFragmentMetadata>(g.payload, ctx);
  CHECK(m.version == 1);
  auto ned = format::legacy_non_empty_domain(m, ctx);
  REQUIRE(ned);
  CHECK(ned->ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
  CHECK(ned->ranges[1].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{10, 10});
  REQUIRE(m.mbrs.size() == 1);
  CHECK(m.mbrs[0] == *ned);
  CHECK(m.bounding_coords_num == 1);
  // First and last cell: (1, 10) and (4, 10).
  std::vector<std::byte> bounds;
  for (std::int32_t v : {1, 10, 4, 10}) {
    auto b = le32(v);
    bounds.insert(bounds.end(), b.begin(), b.end());
  }
  CHECK(m.bounding_coords.value == bounds);
  REQUIRE(m.tile_offsets.size() == 2);  // a, __coords
  CHECK(m.tile_offsets[0].offsets.value == std::vector<std::uint64_t>{0});
  CHECK(m.tile_offsets[1].offsets.value == std::vector<std::uint64_t>{0});
  CHECK(m.tile_var_offsets.size() == 1);
  CHECK(m.last_tile_cell_num == 4);
  CHECK(m.file_sizes.value == std::vector<std::uint64_t>{fs::file_size(dir / "a.tdb"), fs::file_size(dir / "__coords.tdb")});
  CHECK(m.file_var_sizes.value == std::vector<std::uint64_t>{0});

  // a.tdb holds 1, 2, 3, 4 in one unfiltered chunk.
  auto a = read_file(dir / "a.tdb");
  REQUIRE(a.size() == 36);
  for (int i = 0; i < 4; ++i) CHECK(codec::load_le<std::int32_t>(a.data() + 20 + 4 * i) == i + 1);
}

TEST_CASE("TileDB 1.3 fragment: library version instead of a format version (dense_array_v1_3_0)") {
  // TileDB no longer opens this array (unit-backwards_compat.cc expects an
  // error). Its generic tile has the 30-byte header of that release and a
  // chunked zlib stream; the payload is the v1 layout after a version triple.
  const fs::path dir = only_fragment(data_dir / "legacy/dense_array_v1_3_0");
  auto file = read_file(dir / "__fragment_metadata.tdb");
  static_assert(codec::fixed_wire_size<format::LibraryVersionGenericTileHeader> == 30);
  codec::reader header_reader(file);
  const auto header = codec::decode<format::LibraryVersionGenericTileHeader>(header_reader);
  const std::size_t used = header_reader.offset();
  CHECK(used == 30);
  CHECK(header.persisted_size == file.size() - 30);
  CHECK(header.datatype == Datatype::CHAR);
  CHECK(header.cell_size == 1);
  CHECK(header.compressor == 1);  // GZIP
  CHECK(header.compression_level == 1);
  auto body = std::span<const std::byte>(file).subspan(30);
  auto tile = check_payload<format::LibraryVersionTile>(body, FragmentContext{});
  std::vector<std::byte> again = codec::encode(header);
  auto tb = codec::encode(tile);
  again.insert(again.end(), tb.begin(), tb.end());
  CHECK(again == file);
  check_every_prefix_throws<format::LibraryVersionGenericTileHeader>(std::span<const std::byte>(file).first(30));

  REQUIRE(tile.chunks.size() == 1);
  const auto& chunk = tile.chunks[0];
  CHECK(chunk.original_length == header.tile_size);
  std::vector<std::byte> payload(static_cast<std::size_t>(header.tile_size));
  uLongf out_len = static_cast<uLongf>(payload.size());
  REQUIRE(uncompress(reinterpret_cast<Bytef*>(payload.data()), &out_len,
                     reinterpret_cast<const Bytef*>(chunk.data.data()), static_cast<uLong>(chunk.data.size())) == Z_OK);
  REQUIRE(out_len == payload.size());

  // Dense, dimensions "rows" and "cols" (int32), attribute "a".
  const FragmentContext ctx{1, {{Datatype::INT32}, {Datatype::INT32}}, 1};
  auto m = check_payload<format::LibraryVersionFragmentMetadata>(payload, ctx);
  CHECK(m.version == std::array<std::int32_t, 3>{1, 3, 0});
  auto ned = format::legacy_non_empty_domain(m, ctx);
  REQUIRE(ned);
  CHECK(ned->ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
  CHECK(ned->ranges[1].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
  CHECK(m.mbrs.empty());  // dense
  CHECK(m.bounding_coords_num == 0);
  CHECK(m.last_tile_cell_num == 16);
  CHECK(m.file_sizes.value == std::vector<std::uint64_t>{fs::file_size(dir / "a.tdb"), 0});

  // The v1 declaration reads the same bytes differently: its version is the 1.
  CHECK_THROWS_AS(codec::decode<format::LegacyFragmentMetadata>(payload, ctx), format_error);
}

// ---------------------------------------------------------------------------
// Files written by TileDB 2.30.0 (TileDB-Py 0.36.1, format version 22), kept
// here zlib-compressed because no other test input has timestamps, delete
// metadata or processed conditions.
// ---------------------------------------------------------------------------

namespace {

// A sparse array, dimensions x int32 [-100, 100] and s ascii, attributes
// a int32 nullable and v utf8 var, capacity 2. Written at t=1 (21 cells,
// every a with i % 4 == 1 null) and t=2 (2 cells, the second a null), a
// delete of `a < 5` at t=3, then consolidated with timestamps over [1, 3]
// and vacuumed: one fragment __1_2_456525466cff5efe494810c0d1ede066_22
// with t.tdb, dt.tdb and dci.tdb. Its __fragment_metadata.tdb:
// 8381 bytes, zlib-compressed to 1715
const char* const fixture_deletes_zhex =
    "78daed997b4c53571cc7cf2dbd50a094d6da07f828e856cbd396f26855b482567b457b87e286734a11198d13509ce223b3a203d1e966ec"
    "d4e882750e04e7703ad9e62b32316e187cd557b638353250a659a2e2e60bba96fba3a9e46609541b67b87ff4d37b7272bedff3bde7d7df"
    "25081142d711759dc328328108f5e9f8c4906300c31d1f1ddf5ce61fb6930bf798cb58213677433ae7b89c3da68ef3f1cada99578ffe5c"
    "bf90353f6f2179cf3c6d3719995efae0ae2eb6de9cea7f2668c84deb3f6da5579ac8b038c9db3b67991397eccfd2dffe7bd9fac797543e"
    "7357ed1a74b22e6fd4f4f9b379c63e869d012dfd563e65ae29aaaf9933905de67bbbd2b769ed4f4b19632fa75aeed7a1d0456bf6bc793f"
    "ea1aeec33cf555d5881ad9b928521a90165da2bfc35c602ec9adcb18be62d09c3b9adfd763d39f6dae99f294113f909fff2dafbda25d56"
    "d6f8d8bfd1a27d26b4db9f045bca41dd8bc4313fbc4b249d638558a34183c790d5b899b3c28a93877c88bd26eb384bab97accd8798204f"
    "124bc96074ab0c1fe770a077c341048d8308a783efc95c81f91aa7fc98c698ac650d0e24f6165b875a0e84f3c78cf425ce965891681d7e"
    "de6141ee8605368d053658b00422848f47012f779b1564aed05c1658be57639ca465d5710851728b807c126d1666165516d8b779eb16b3"
    "f61549fa75b7c033cf082cbfae318eb55be010678bad0996d8a1fc31d7fc891f928d089b882b3c618153be5d63d4d92db0097db1556489"
    "8db05bf025aed82d3c6c67b678eac8bfbcdf9654b23acccc3159d3c9430262a8c97ad8d29a266bc38802459298b0ffb6fc769979db53bb"
    "f48406e98646248d46a433492d99eb672ef32ed76b5a6692d34a78c757afb4f22dada1b2369cf85a31fa2286fadec01fbd4e59be2e1a89"
    "6e6804d16804818609c5cb4eafd76e8c38c3882be1115e48c042535ea7e0e2dcd0e0d168f09cc14d0d3e9f421660bc0ca4ed3dcdaf4aaf"
    "f893ac9698ab4dd6b596569dac2d889860ef11d1e4b07e84bec8bad4128b5a1bf105bd4fab57e3ffac3111e668baa9e1981fd645a373ac"
    "105366d432ef6a428521cd5e999c102123531ad28c65c687647bdfec1bd26eb32d4f44a12399ef3a0c0c8505b8dd34e098efdfc540e758"
    "21362b43833bee31d71cf3bb29914f9363be33c7091916bbf7f07c64f0d0363c2091e046527c9aa4f8909406ff848cae314a2b0fa2c8db"
    "28d72135c20d29318d94d829d540feb55c66ba67888d9e97d9846d5a24ce72e80d73434f48a32704bd5a4e7b327628327ade966149f7d1"
    "06bd58e7da947a5256e13465150e65a5c1a76baa59dcef9042c22df0dac7e53ef0520472fdbdf621ee2ea4e0c62224c9c12cbd75f58ad5"
    "95da8da4043449099eabab1c69e56279308a7c84f21c62c3dd1013d188899c62b6f348392578e296ace886fee8c43e52f4320bab432e45"
    "086a755524cfb55ff5a42786d1f4c430e72b78b42c2aa03cdd122b310b8bad49e4342ef14063d4c902266f6634d5c9903c0713ba9e1656"
    "370db0684e0bcbe5b4983aee314ff5fdb7dcd088a2d188eaccd174c5167a23d1dcce2e3f96dc328adccadb5d26200a461b3f9245b1cbd7"
    "ed3820357ba3269e4ce5a12ce3ddd8671f9a7df6719e1769f885869c660cf9a990d4b5a1f544494ca32476266acb310594a8b6c6144dcf"
    "ae5423cb62fd49d732ef899e88464fe4a287c21b4cd2941851360795add01f7d99dbabe588771c970757ace14ade1b909288bcdf417c0f"
    "9d8d5e895e89172b31b7f335ae9bff2674ccd7757ded8331bb8441838432253ebe202649f501cb782472cb8ccf0665c5cf98a8d18d4af2"
    "3bf787dab2acf281386399b4f2c737380f1bc8795b9ed86bb82240fae9997193db25d240d4762a94e130f83e088ceb66068ef9c95d0c76"
    "8ed90d669950816c8064fb17dbb76d4b4fdd2391e4b1577937d7177b57959edcd45c515f515c5a2ad45649ebebb39b75d955dad293cdf5"
    "f7b4da2561556af43885d7d1d947c2d233672a12d4714a79bc4aa956a913badcc5c4a90cca4cd56c45a65ca956c7c5cf56ca0d8a38832a"
    "d690a59c354b61ff03e6a1cd6673747526acc7001ae44b96b05dec77104b81af173ba7c155c8787ebc93478007bacc4fc010ed95c640ff"
    "793562e8855c7c58e773a0187497016dc0222f8a38c4b31ae88f53cc03de03a679533c084cf4a1b8038843351981a781237d297e09f4f6"
    "83f581178009fe14b70107c0235a016c02ea02287e03e471287e08fc15382d90e25160289cd855c05bc0541ec5e3403975fed17ea0804f"
    "7131f02a70545f8a7b80fd04144b817e428a7381e7815345902370b098e246202388e27ce025a02a18f201b6030dfd289e000ee94ff117"
    "602a3ce77f016210d557";

// __fragment_meta/__10_20_7427c6e902a46b43d8041d4b7c87a6f4_22.meta of a
// sparse array with dimensions x int64 and s ascii and three attributes:
// fragment __10_10 of 37 cells (capacity 4), fragment __20_20 of 2 cells.
// 607 bytes, zlib-compressed to 598
const char* const sparse_mixed_meta_zhex =
    "78da13636060d0666200830bac109a8591010a84c024230348801124cb08663120d4b303f50a40f98c4862158c6b2f59678838ca1cff68"
    "da7931e3ca0f16d505ad8e860b8c37f7ef9c9821bc21c09b57e9d4c6d76f44e3b4585b9b4db8a2663a6db978c85d318245e7887ba260c0"
    "062f65a5972ca21b3f8b1e712a9cfcbfbc27864bd7e6dbbbcdffffdbe4c9efefd3e8625bfdfecdf2b8eb59ef346272a45d67fe30eafdec"
    "5319bac44eaf34f086cfd153d77a334f76d94f930a9d6f3b698fc1b9c8f4aca79d6d6b53ed7443d37ce3aca6ff0e0af7de5e7eea16af68"
    "f5cd65bfd25f5f8a48f55cf4d8657bf8be0fa75e6e795834f9d8d5ad15c935b3661f796db12e6c83e7518de5de1bb9677bad5ce675c7e8"
    "95ab84eb718bbd3714d7f67f762eeebdc0dfd69a7efb596b5d41cb5fbd3fa97133eebf6397e2bdb6ffe89cdaf90f0dfc8b85d8773cbd7d"
    "636f8499556770c586e85fdf0b3e0bad3cffb8dae6c0e23dfdbbdc9fc51e7d5f31c7ddba93f974ea3ddf376fa656c9d83f7e287aa9bea5"
    "6ce995eb05cfb556ea3fe6917b39f99ff69dbd51afc433ae7bfc65305f37b58a27fef107ab97f70fcefb1ad4ff88ffcffcccbfa776cf71"
    "8c5bfaa7f0ebed2c4381b3fd5f8c673dba767ff3d314fe52039ee29f0b631ee859dd16ebf913fd98e7f2b2c20eeffd82ef7aa3353e5af2"
    "4dba5ef8a7a5fdc45be73b2e71c73ff0be53de5ebe71fa9e7987a647286fbffe51fdd9936f9aef14b64fffc0dd37e1fef11bfe79e71f5a"
    "dff1af53dfd0ff67deb14c19a5fddb3774ff312be432b5dcd774ff8346655d53f4898f2cff98aebdadac0400c605164b";

std::vector<std::byte> inflate_hex(const char* zhex, std::size_t size) {
  auto z = hex_bytes(zhex);
  std::vector<std::byte> out(size);
  uLongf n = static_cast<uLongf>(size);
  REQUIRE(uncompress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(z.data()),
                     static_cast<uLong>(z.size())) == Z_OK);
  REQUIRE(n == size);
  return out;
}

} // namespace

TEST_CASE("v22 fragment with timestamps, delete metadata and processed conditions") {
  auto file = inflate_hex(fixture_deletes_zhex, 8381);
  const FragmentContext ctx{22, {{Datatype::INT32}, {Datatype::STRING_ASCII, true}}, 2};
  auto d = check_fragment_file(file, ctx);
  const auto& f = d.footer;
  CHECK(f.has_timestamps.value);
  CHECK(f.has_delete_meta.value);
  REQUIRE(d.ctx.num_fields() == 8);  // a, v, __coords, x, s, t, dt, dci
  CHECK(f.array_schema_name.value.value == "__1795306839897_1795306839897_258a3b8e1b039956e30a15a84ad3cc17");
  CHECK(f.non_empty_domain.ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{-11, 41});
  CHECK(f.non_empty_domain.ranges[1].as_strings() == std::pair<std::string_view, std::string_view>{"a0", "zz"});
  // 23 cells in tiles of 2.
  CHECK(f.sparse_tile_num == 12);
  CHECK(f.last_tile_cell_num == 1);
  // Sizes of the data files on disk (a0, a0_validity, a1, a1_var, d0, d1, d1_var, t, dt, dci).
  CHECK(f.file_sizes.value == std::vector<std::uint64_t>{332, 724, 0, 632, 724, 724, 700, 692});
  CHECK(f.file_var_sizes.value == std::vector<std::uint64_t>{0, 311, 0, 0, 597, 0, 0, 0});
  CHECK(f.file_validity_sizes.value == std::vector<std::uint64_t>{483, 0, 0, 0, 0, 0, 0, 0});
  // Root, 2 nodes, 12 leaves.
  REQUIRE(d.rtree.levels.size() == 3);
  CHECK(d.rtree.levels[1].mbrs.size() == 2);
  CHECK(d.rtree.levels[2].mbrs[11].ranges[1].as_strings().first == "zy");
  REQUIRE(d.processed_conditions);
  REQUIRE(d.processed_conditions->conditions.size() == 1);
  CHECK(d.processed_conditions->conditions[0].value == "__commits/__3_3_07c10ea3975c51aa82e4cc67b6e2a37c_22.del");

  // Tile metadata: a has null counts (6 nulls) and sums of its valid values.
  std::uint64_t nulls = 0;
  for (auto c : d.tile_null_counts[0].null_counts) nulls += c;
  CHECK(nulls == 6);
  const auto& s = d.summary->fields.value;
  CHECK(s[0].min.value == le32(0));
  CHECK(s[0].max.value == le32(100));
  CHECK(format::sum_as<std::int64_t>(s[0].sum) == 265);
  CHECK(s[0].null_count == 6);
  CHECK(s[1].min.empty());  // utf8: no min/max
  // Timestamps: written at 1 and 2; delete timestamps: 3 where deleted.
  auto u64 = [](const std::vector<std::byte>& b) { return codec::load_le<std::uint64_t>(b.data()); };
  CHECK(u64(s[5].min.value) == 1);
  CHECK(u64(s[5].max.value) == 2);
  CHECK(s[5].sum == 21 * 1 + 2 * 2);
  CHECK(u64(s[6].min.value) == 3);
  CHECK(u64(s[6].max.value) == UINT64_MAX);  // not deleted
  CHECK(s[6].sum == UINT64_MAX);             // saturated
  // Sparse dimensions get coordinate sums, no min/max.
  CHECK(d.tile_sums[3].sums.size() == 12);
  CHECK(d.tile_mins[3].fixed.empty());
  // __coords: zero-filled min/max of dims x coordinate size per tile.
  CHECK(d.tile_mins[2].fixed == std::vector<std::byte>(12 * 2 * 4));
  // Var attribute v: var sizes per tile add up to its _var file's unfiltered bytes.
  CHECK(d.tile_var_sizes[1].sizes.size() == 12);
}

TEST_CASE("consolidated fragment metadata written by TileDB") {
  auto file = inflate_hex(sparse_mixed_meta_zhex, 607);
  auto g = filter::read_generic_tile(file);
  CHECK(filter::write_generic_tile(g.payload, g.header.version.value) == file);
  auto c = check_payload<format::ConsolidatedFragmentMetadata>(g.payload, FragmentContext{}, false);
  REQUIRE(c.fragments.size() == 2);
  CHECK(c.fragments[0].name.value == "__10_10_1b937fbe4de53a60d0b5d3e1bb760307_22");
  CHECK(c.fragments[1].name.value == "__20_20_24ab2997928ecf786d5e0672ae99ade1_22");
  CHECK(c.fragments[0].offset == format::consolidated_list_size(c));
  const FragmentContext ctx{22, {{Datatype::INT64}, {Datatype::STRING_ASCII, true}}, 3};
  auto f0 = check_payload<format::Footer>(format::consolidated_footer(c, 0), ctx);
  auto f1 = check_payload<format::Footer>(format::consolidated_footer(c, 1), ctx);
  CHECK(f0.non_empty_domain.ranges[0].as<std::int64_t>() == std::pair<std::int64_t, std::int64_t>{0, 108});
  CHECK(f0.non_empty_domain.ranges[1].as_strings() == std::pair<std::string_view, std::string_view>{"k000", "k049"});
  CHECK(f0.sparse_tile_num == 10);  // 37 cells, capacity 4
  CHECK(f0.last_tile_cell_num == 1);
  CHECK(f1.non_empty_domain.ranges[0].as<std::int64_t>() == std::pair<std::int64_t, std::int64_t>{500, 501});
  CHECK(f1.non_empty_domain.ranges[1].as_strings() == std::pair<std::string_view, std::string_view>{"", "zz"});
  CHECK(f1.sparse_tile_num == 1);
  CHECK(f1.last_tile_cell_num == 2);
  CHECK(f0.array_schema_name.value == f1.array_schema_name.value);
  // The footers are stored without their lengths, back to back.
  CHECK(c.fragments[1].offset == c.fragments[0].offset + codec::encoded_size(f0, ctx));
  CHECK(c.fragments[1].offset + codec::encoded_size(f1, ctx) == g.payload.size());
}

// ---------------------------------------------------------------------------
// Synthetic footers: every version from 3 to 23
// ---------------------------------------------------------------------------

namespace {

struct FooterShape {
  std::size_t attrs;
  std::vector<format::DimensionShape> dims;
  bool has_timestamps = false;
  bool has_delete_meta = false;
  std::vector<std::uint64_t> optional_ids{};  // v23
};

/// A footer whose arrays have the sizes the format prescribes, counted here
/// independently of the declaration.
format::Footer make_footer(std::uint32_t v, const FooterShape& s, std::uint64_t seed) {
  const std::size_t a = s.attrs, nd = s.dims.size();
  const bool ts = v >= 14 && s.has_timestamps, del = v >= 15 && s.has_delete_meta;
  const std::size_t all = v < 5 ? a + 1 : a + 1 + nd + ts + 2 * del;
  const std::size_t var = v < 5 ? a : all;
  tilefmt::testing::rng g(seed);
  auto values = [&](std::size_t count) {
    std::vector<std::uint64_t> out(count);
    for (auto& x : out) x = g.next<std::uint64_t>();
    return out;
  };
  format::Footer f{};
  f.version = v;
  if (v >= 10) f.array_schema_name.value.value = "__1_2_0123456789abcdef0123456789abcdef";
  f.dense = (seed & 1) != 0;
  for (const auto& d : s.dims) {
    if (d.var_size) {
      f.non_empty_domain.ranges.push_back(format::var_range("ab" + std::to_string(seed), "zzz"));
    } else {
      format::Range1D r{d.coord_size(), std::vector<std::byte>(2 * d.coord_size())};
      for (auto& b : r.bytes) b = g.next<std::byte>();
      f.non_empty_domain.ranges.push_back(r);
    }
  }
  f.sparse_tile_num = g.next<std::uint64_t>();
  f.last_tile_cell_num = g.next<std::uint64_t>();
  f.has_timestamps.value = ts;
  f.has_delete_meta.value = del;
  f.file_sizes.value = values(all);
  f.file_var_sizes.value = values(var);
  f.file_validity_sizes.value = values(v >= 7 ? all : 0);
  f.rtree_offset = g.next<std::uint64_t>();
  f.tile_offsets.value = values(all);
  f.tile_var_offsets.value = values(var);
  f.tile_var_sizes.value = values(var);
  f.tile_validity_offsets.value = values(v >= 7 ? all : 0);
  for (auto* arr : {&f.tile_min_offsets, &f.tile_max_offsets, &f.tile_sum_offsets, &f.tile_null_count_offsets})
    arr->value = values(v >= 11 ? all : 0);
  if (v >= 12) f.fragment_min_max_sum_null_count_offset.value = g.next<std::uint64_t>();
  if (v >= 16) f.processed_conditions_offset.value = g.next<std::uint64_t>();
  for (auto id : s.optional_ids) {
    format::OptionalSection sec{id, {}};
    sec.data.value.resize(id == format::tile_global_order_offsets_section ? 16 * nd : 5);
    for (auto& b : sec.data.value) b = g.next<std::byte>();
    f.optional_sections.value.value.push_back(sec);
  }
  return f;
}

/// The footer's size by the spec's table, field by field.
std::size_t expected_footer_size(std::uint32_t v, const format::Footer& f, const FooterShape& s) {
  const std::size_t a = s.attrs, nd = s.dims.size();
  const std::size_t all = f.file_sizes.size(), var = f.file_var_sizes.size();
  std::size_t n = 4;
  if (v >= 10) n += 8 + f.array_schema_name.value.value.size();
  n += 1 + 1;
  for (std::size_t d = 0; d < nd; ++d)
    n += (s.dims[d].var_size ? 16 : 0) + f.non_empty_domain.ranges[d].bytes.size();
  n += 8 + 8;
  if (v >= 14) n += 1;
  if (v >= 15) n += 1;
  n += 8 * (all + var + (v >= 7 ? all : 0));
  n += 8 + 8 * (all + 2 * var + (v >= 7 ? all : 0) + (v >= 11 ? 4 * all : 0));
  if (v >= 12) n += 8;  // the spec says 11; libtiledb 2.7, which wrote 11, did not (docs/format_notes.md)
  if (v >= 16) n += 8;
  if (v >= 23) {
    n += 4;
    for (const auto& sec : f.optional_sections.value.value) n += 8 + 4 + sec.data.size();
  }
  (void)a;
  return n;
}

} // namespace

TEST_CASE("footers of every version 3..23 round-trip, with the sizes of the spec's table") {
  const std::vector<FooterShape> shapes = {
      {1, {{Datatype::INT32}}},
      {3, {{Datatype::INT64}, {Datatype::INT64}}, true, true},
      {0, {{Datatype::UINT8}, {Datatype::UINT8}, {Datatype::UINT8}}, true, false},
      {2, {{Datatype::FLOAT64}, {Datatype::STRING_ASCII, true}}, false, true, {0, 7}},  // var dims: v5+
      {4, {{Datatype::STRING_ASCII, true}}, true, true, {9}},
  };
  for (std::uint32_t v = 3; v <= 23; ++v) {
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const auto& s = shapes[k];
      bool var_dims = false, mixed_types = false;
      for (const auto& d : s.dims) {
        var_dims = var_dims || d.var_size;
        mixed_types = mixed_types || d.type != s.dims[0].type;
      }
      if (v < 5 && (var_dims || mixed_types)) continue;  // one fixed domain type before v5
      CAPTURE(v);
      CAPTURE(k);
      FooterShape shape = s;
      if (v < 23) shape.optional_ids.clear();
      const FragmentContext ctx{v, shape.dims, shape.attrs, shape.has_timestamps, shape.has_delete_meta};
      format::Footer f = make_footer(v, shape, v * 100 + k);
      auto bytes = tilefmt::testing::check_round_trip(f, ctx);
      CHECK(bytes.size() == expected_footer_size(v, f, shape));
      check_every_prefix_throws<format::Footer>(bytes, ctx);

      // In a file, after some generic tiles.
      std::vector<std::byte> file(37, std::byte{0x5a});
      auto tail = format::write_footer(f, ctx);
      file.insert(file.end(), tail.begin(), tail.end());
      CHECK(tail.size() == bytes.size() + (format::footer_has_length(ctx) ? 8 : 0));
      CHECK(format::footer_has_length(ctx) == (v >= 10 || var_dims));
      if (auto computed = format::footer_size(ctx)) CHECK(*computed == bytes.size());  // v3..v9, fixed dims
      auto loc = format::locate_footer(file, ctx);
      CHECK(loc.offset == 37);
      CHECK(loc.size == bytes.size());
      CHECK(format::read_footer(file, ctx) == f);

      // Sections sized per field use the flags the footer carries.
      CHECK(format::with_footer_flags(ctx, f).num_fields() == f.file_sizes.size());
      if (v >= 23)
        for (auto id : shape.optional_ids)
          if (id == format::tile_global_order_offsets_section) {
            auto go = format::tile_global_order_offsets(f, ctx);
            REQUIRE(go);
            CHECK(go->min_offsets.size() == shape.dims.size());
            CHECK(format::make_optional_section(*go, ctx) == f.optional_sections.value.value[0]);
          }
    }
  }
}

TEST_CASE("null non-empty domain: zero bytes of the domain's size") {
  // FragmentMetadata::write_non_empty_domain: 2 x dims x coord size zeros
  // (fixed dimensions of one type only).
  const FragmentContext ctx{9, {{Datatype::INT64}, {Datatype::INT64}}, 1};
  format::Footer f = make_footer(9, {1, ctx.dims}, 4);
  f.null_non_empty_domain = true;
  f.non_empty_domain = format::MBR{{format::fixed_range<std::int64_t>(0, 0), format::fixed_range<std::int64_t>(0, 0)}};
  auto b = tilefmt::testing::check_round_trip(f, ctx);
  CHECK(b.size() == *format::footer_size(ctx));
  CHECK(std::vector<std::byte>(b.begin() + 6, b.begin() + 6 + 32) == std::vector<std::byte>(32));
}

TEST_CASE("FragmentContext::num_fields by version") {
  FragmentContext ctx{4, {{Datatype::INT32}, {Datatype::INT32}}, 3, true, true};
  CHECK(ctx.num_fields() == 4);   // attributes + __coords before v5
  ctx.version = 5;
  CHECK(ctx.num_fields() == 6);   // + dimensions
  ctx.version = 14;
  CHECK(ctx.num_fields() == 7);   // + timestamps
  ctx.version = 15;
  CHECK(ctx.num_fields() == 9);   // + delete timestamps, delete condition index
  CHECK(ctx.coords_index() == 3);
  CHECK(ctx.dim_index(1) == 5);
}

TEST_CASE("footer errors name the field and the offset") {
  // v22, three attributes, one int64 dimension: five fields.
  const FragmentContext ctx{22, {{Datatype::INT64}}, 3};
  format::Footer f = make_footer(22, {3, {{Datatype::INT64}}}, 7);
  auto bytes = codec::encode(f, ctx);
  // version, schema name, dense, null domain, domain, two u64, two flags, then file_sizes.
  const std::size_t file_sizes_at = 4 + 8 + f.array_schema_name.value.value.size() + 2 + 16 + 16 + 2;
  auto cut = std::span<const std::byte>(bytes).first(file_sizes_at + 3 * 8 + 2);
  try {
    codec::decode<format::Footer>(cut, ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "Footer.file_sizes[3]");
    CHECK(e.offset() == file_sizes_at + 24);
    CHECK(std::string(e.what()).find("Footer.file_sizes[3]: needs 8 bytes") != std::string::npos);
  }
  // In a file, offsets count from the start of the file.
  std::vector<std::byte> file(100);
  auto tail = format::write_footer(f, ctx);
  file.insert(file.end(), tail.begin(), tail.end());
  file[100 + 4 + 8 + 5] = std::byte{0xff};  // inside the schema name: fine
  CHECK_NOTHROW(format::read_footer(file, ctx));
  file[100 + 4 + 8 + f.array_schema_name.value.value.size()] = std::byte{2};  // dense = 2
  try {
    format::read_footer(file, ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "Footer.dense");
    CHECK(e.offset() == 100 + 4 + 8 + f.array_schema_name.value.value.size());
  }
  // A footer length longer than the file.
  auto lying = tail;
  codec::store_le<std::uint64_t>(lying.data() + lying.size() - 8, lying.size());
  CHECK_THROWS_AS(format::read_footer(lying, ctx), format_error);
  std::vector<std::byte> tiny(5);
  CHECK_THROWS_AS(format::locate_footer(tiny, ctx), format_error);
  // Pre-v10 footers whose size the schema implies.
  const FragmentContext v9{9, {{Datatype::INT32}}, 1};
  CHECK(format::footer_size(v9) == std::optional<std::size_t>{4 + 2 + 8 + 16 + 8 * 3 * 3 + 8 + 8 * 4 * 3});
  CHECK_THROWS_AS(format::locate_footer(tiny, v9), format_error);
}

TEST_CASE("MBR: fixed and var ranges, errors inside a range") {
  const FragmentContext ctx{22, {{Datatype::INT16}, {Datatype::STRING_ASCII, true}, {Datatype::FLOAT64}}, 0};
  format::MBR m{{format::fixed_range<std::int16_t>(-3, 9), format::var_range("apple", "kiwi"),
                 format::fixed_range<double>(0.5, 2.0)}};
  auto b = tilefmt::testing::check_round_trip(m, ctx);
  CHECK(b.size() == 4 + (16 + 9) + 16);
  CHECK(std::vector<std::byte>(b.begin(), b.begin() + 4) == hex_bytes("fdff 0900"));
  CHECK(std::vector<std::byte>(b.begin() + 4, b.begin() + 20) == hex_bytes("0900000000000000 0500000000000000"));
  check_every_prefix_throws<format::MBR>(b, ctx);
  auto view = codec::decode<format::MBRView>(b, ctx);
  CHECK(view.ranges[1].as_strings().first == "apple");
  CHECK(view.ranges[1].as_strings().second == "kiwi");
  CHECK(view.ranges[1].lo().data() == b.data() + 20);  // points into the input
  CHECK(view.ranges[2].as<double>() == std::pair<double, double>{0.5, 2.0});
  CHECK(codec::encode(view, ctx) == b);
  CHECK(codec::to_text(m, ctx) == R"([["fdff", "0900"], ["6170706c65", "6b697769"], ["000000000000e03f", "0000000000000040"]])");

  auto bad = b;
  bad[4 + 8] = std::byte{10};  // start_size 10 > size 9
  try {
    codec::decode<format::MBR>(bad, ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field().ends_with("[1].start_size"));
    CHECK(e.offset() == 12);
  }
  bad = b;
  bad[4] = std::byte{0x40};  // size 64: past the end
  try {
    codec::decode<format::MBR>(bad, ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field().ends_with("[1].bytes"));
  }
  try {
    codec::decode<format::MBR>(std::span<const std::byte>(b).first(3), ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field().ends_with("[0].bytes[3]"));  // the first byte that is missing
    CHECK(e.offset() == 3);
  }
  // Inside a footer the path starts at the footer's field.
  const FragmentContext fctx{22, ctx.dims, 0};
  format::Footer f{};
  f.version = 22;
  f.array_schema_name.value.value = "s";
  f.non_empty_domain = m;
  auto fill = [&](auto&... arrays) { (arrays.value.resize(fctx.num_fields()), ...); };
  fill(f.file_sizes, f.file_var_sizes, f.file_validity_sizes, f.tile_offsets, f.tile_var_offsets, f.tile_var_sizes,
       f.tile_validity_offsets, f.tile_min_offsets, f.tile_max_offsets, f.tile_sum_offsets, f.tile_null_count_offsets);
  auto fb = codec::encode(f, fctx);
  try {
    codec::decode<format::Footer>(std::span<const std::byte>(fb).first(4 + 9 + 2 + 4 + 8 + 3), fctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "Footer.non_empty_domain.ranges[1].start_size");
  }
  // Encoding checks the shape against the context.
  format::MBR wrong{{format::fixed_range<std::int32_t>(1, 2)}};
  CHECK_THROWS_AS(codec::encode(wrong, ctx), std::invalid_argument);
  CHECK_THROWS_AS(codec::decode<format::MBR>(b, FragmentContext{22, {}, 0}), format_error);
}

TEST_CASE("R-tree before v5 carries the dimension count and the domain type") {
  FragmentContext ctx{4, {{Datatype::UINT32}, {Datatype::UINT32}}, 1};
  format::RTree t;
  t.dimension_num.value = 2;
  t.fanout = 10;
  t.datatype.value = Datatype::UINT32;
  format::MBR mbr{{format::fixed_range<std::uint32_t>(1, 9), format::fixed_range<std::uint32_t>(5, 6)}};
  format::RTreeLevel root;
  root.mbrs.value.push_back(mbr);
  t.levels.value.push_back(root);
  auto b = tilefmt::testing::check_round_trip(t, ctx);
  CHECK(std::vector<std::byte>(b.begin(), b.begin() + 13) == hex_bytes("02000000 0a000000 09 01000000"));
  CHECK(b.size() == 13 + 8 + 16);
  check_every_prefix_throws<format::RTree>(b, ctx);
  ctx.version = 5;
  t.dimension_num.value = 0;  // not stored from v5 on
  t.datatype.value = Datatype::INT32;
  auto b5 = tilefmt::testing::check_round_trip(t, ctx);
  CHECK(std::vector<std::byte>(b5.begin(), b5.begin() + 8) == hex_bytes("0a000000 01000000"));
  CHECK(b5.size() == b.size() - 5);
  // Dense fragments: no levels.
  format::RTree dense;
  CHECK(codec::encode(dense, ctx) == hex_bytes("0a000000 00000000"));
}

TEST_CASE("section payloads: golden bytes") {
  const FragmentContext ctx{22, {{Datatype::INT32}}, 1};
  auto offsets = hex_bytes("0200000000000000 0000000000000000 3412000000000000");
  auto o = check_payload<format::TileOffsets>(offsets, ctx);
  CHECK(o.offsets.value == std::vector<std::uint64_t>{0, 0x1234});
  auto ov = codec::decode<format::TileOffsetsView>(offsets, ctx);
  CHECK(ov.offsets.value.to_vector() == o.offsets.value);
  CHECK(ov.offsets.value.bytes().data() == offsets.data() + 8);

  // Var field mins: u64 offsets into the var buffer, the var buffer after.
  auto mins = hex_bytes("1000000000000000 0500000000000000  0000000000000000 0200000000000000  6869 616263");
  auto m = check_payload<format::TileMinMax>(mins, ctx);
  CHECK(m.fixed.size() == 16);
  CHECK(m.var == bytes_of_string("hiabc"));
  check_payload<format::TileMinMax>(hex_bytes("0000000000000000 0000000000000000"), ctx);

  auto sums = hex_bytes("0200000000000000 ffffffffffffffff 000000000000f03f");
  auto s = check_payload<format::TileSums>(sums, ctx);
  CHECK(format::sum_as<std::int64_t>(s.sums[0]) == -1);
  CHECK(format::sum_as<std::uint64_t>(s.sums[0]) == UINT64_MAX);
  CHECK(format::sum_as<double>(s.sums[1]) == 1.0);

  auto nc = check_payload<format::TileNullCounts>(hex_bytes("0100000000000000 0300000000000000"), ctx);
  CHECK(nc.null_counts.value == std::vector<std::uint64_t>{3});

  auto pc = check_payload<format::ProcessedConditions>(
      hex_bytes("0200000000000000 0300000000000000 616263 0000000000000000"), ctx);
  REQUIRE(pc.conditions.size() == 2);
  CHECK(pc.conditions[0].value == "abc");
  CHECK(pc.conditions[1].value.empty());

  // Fragment summary: one entry per field (a, __coords, d).
  auto summary = hex_bytes(
      "0400000000000000 01000000 0400000000000000 04000000 0a00000000000000 0000000000000000"
      "0400000000000000 00000000 0400000000000000 00000000 0000000000000000 0000000000000000"
      "0000000000000000 0000000000000000 0000000000000000 0000000000000000");
  auto sm = check_payload<format::FragmentMinMaxSumNullCount>(summary, ctx);
  REQUIRE(sm.fields.size() == 3);
  CHECK(sm.fields[0].min.value == le32(1));
  CHECK(sm.fields[0].sum == 10);
  CHECK(sm.fields[2].max.empty());
  // With timestamps the summary has one more entry.
  CHECK_THROWS_AS(codec::decode<format::FragmentMinMaxSumNullCount>(summary, FragmentContext{22, {{Datatype::INT32}}, 1, true}),
                  format_error);

  // Errors name the section's field.
  try {
    codec::decode<format::TileOffsets>(std::span<const std::byte>(offsets).first(20), ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field().find(".offsets[1]") != std::string::npos);
    CHECK(e.offset() == 16);
  }
  // A count larger than the input is refused before anything is allocated.
  CHECK_THROWS_AS(codec::decode<format::TileOffsets>(hex_bytes("ffffffffffffff7f"), ctx), format_error);
  CHECK_THROWS_AS(codec::decode<format::RTree>(hex_bytes("0a000000 01000000 ffffffffffffff7f"), ctx), format_error);
}

TEST_CASE("tile global order optional section (v23)") {
  const FragmentContext ctx{23, {{Datatype::INT32}, {Datatype::STRING_ASCII, true}}, 1};
  format::TileGlobalOrderOffsets go{{{100, 200}}, {{300, 400}}};
  auto b = tilefmt::testing::check_round_trip(go, ctx);
  CHECK(b.size() == 32);
  check_every_prefix_throws<format::TileGlobalOrderOffsets>(b, ctx);
  // TileDB rejects a data size other than 2 x dims x 8; so does the strict decode.
  b.push_back(std::byte{0});
  CHECK_THROWS_AS(codec::decode<format::TileGlobalOrderOffsets>(b, ctx), format_error);

  format::Footer f = make_footer(23, {1, ctx.dims, false, false, {5, 0}}, 3);
  f.optional_sections.value.value[1] = format::make_optional_section(go, ctx);
  auto found = format::tile_global_order_offsets(f, ctx);
  REQUIRE(found);
  CHECK(*found == go);
  f.optional_sections.value.value.erase(f.optional_sections.value.value.begin() + 1);
  CHECK_FALSE(format::tile_global_order_offsets(f, ctx));  // unknown identifiers are skipped
  auto bytes = tilefmt::testing::check_round_trip(f, ctx);
  // The section list closes the footer: u32 count, u64 id 5, u32 size 5, data.
  CHECK(std::vector<std::byte>(bytes.end() - 21, bytes.end() - 5) == hex_bytes("01000000 0500000000000000 05000000"));
}

TEST_CASE("consolidated fragment metadata payload") {
  const FragmentContext ctx{22, {{Datatype::INT64}}, 2};
  format::Footer f1 = make_footer(22, {2, ctx.dims}, 1), f2 = make_footer(22, {2, ctx.dims}, 2);
  const std::string n1 = "__1_1_0123456789abcdef0123456789abcdef_22", n2 = "__2_2_fedcba9876543210fedcba9876543210_22";
  auto c = format::make_consolidated_fragment_metadata({{n1, codec::encode(f1, ctx)}, {n2, codec::encode(f2, ctx)}});
  REQUIRE(c.fragments.size() == 2);
  const std::size_t list = 4 + 2 * (16 + n1.size());
  CHECK(format::consolidated_list_size(c) == list);
  CHECK(c.fragments[0].offset == list);
  CHECK(c.fragments[1].offset == list + codec::encoded_size(f1, ctx));
  auto b = tilefmt::testing::check_round_trip(c);
  CHECK(std::vector<std::byte>(b.begin(), b.begin() + 12) == hex_bytes("02000000 2900000000000000"));
  auto back = codec::decode<format::ConsolidatedFragmentMetadata>(b);
  CHECK(codec::decode<format::Footer>(format::consolidated_footer(back, 0), ctx) == f1);
  CHECK(codec::decode<format::Footer>(format::consolidated_footer(back, 1), ctx) == f2);
  // The offsets point into the payload as a whole.
  CHECK(to_vector(std::span<const std::byte>(b).subspan(c.fragments[1].offset)) == codec::encode(f2, ctx));

  // Truncation: inside the list the decode fails; inside the footers the
  // last footer no longer decodes (or its offset leaves the payload).
  for (std::size_t n = 0; n < b.size(); ++n) {
    CAPTURE(n);
    auto prefix = std::span<const std::byte>(b).first(n);
    if (n < list) {
      CHECK_THROWS_AS(codec::decode<format::ConsolidatedFragmentMetadata>(prefix), format_error);
    } else {
      auto cut = codec::decode<format::ConsolidatedFragmentMetadata>(prefix);
      CHECK_THROWS_AS(codec::decode<format::Footer>(format::consolidated_footer(cut, 1), ctx), format_error);
    }
  }
  auto bad = back;
  bad.fragments[1].offset = b.size() + 1;
  try {
    (void)format::consolidated_footer(bad, 1);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "ConsolidatedFragmentMetadata.fragments[1].offset");
  }
  CHECK_THROWS_AS((void)format::consolidated_footer(back, 2), std::out_of_range);
}

TEST_CASE("legacy (v1, v2) fragment metadata: synthetic, sparse with var attributes") {
  const FragmentContext ctx{2, {{Datatype::INT64}, {Datatype::INT64}}, 2};
  format::LegacyFragmentMetadata m{};
  m.version = 2;
  format::MBR box{{format::fixed_range<std::int64_t>(1, 5), format::fixed_range<std::int64_t>(-2, 2)}};
  m.non_empty_domain.value = codec::encode(box, ctx);
  m.mbrs.value = {box, box};
  m.bounding_coords_num = 2;
  m.bounding_coords.value.resize(2 * 32);
  m.tile_offsets.value = {{{{0, 100}}}, {{{0, 50}}}, {{{0, 80}}}};
  m.tile_var_offsets.value = {{{{0, 0}}}, {{{0, 7}}}};
  m.tile_var_sizes.value = {{{{0, 0}}}, {{{9, 3}}}};
  m.last_tile_cell_num = 3;
  m.file_sizes.value = {1, 2, 3};
  m.file_var_sizes.value = {0, 12};
  auto b = tilefmt::testing::check_round_trip(m, ctx);
  check_every_prefix_throws<format::LegacyFragmentMetadata>(b, ctx);
  CHECK(format::legacy_non_empty_domain(m, ctx) == box);
  m.non_empty_domain.value.clear();
  CHECK_FALSE(format::legacy_non_empty_domain(m, ctx));
  // A bounding coordinate count no input can hold.
  auto huge = b;
  const std::size_t at = 4 + 8 + 32 + 8 + 2 * 32;
  codec::store_le<std::uint64_t>(huge.data() + at, std::uint64_t{1} << 62);
  try {
    codec::decode<format::LegacyFragmentMetadata>(huge, ctx);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field().find("bounding_coords") != std::string::npos);
  }
}

// ---------------------------------------------------------------------------
// Arrays written by TileDB-Py (tests/data/tiledb, when present)
// ---------------------------------------------------------------------------

namespace {

std::optional<Datatype> datatype_named(std::string_view name) {
  for (std::uint8_t v = 0; v <= 43; ++v)
    if (format::codec_enum_name(static_cast<Datatype>(v)) == name) return static_cast<Datatype>(v);
  return std::nullopt;
}

std::uint32_t version_of_fragment(const std::string& name) {
  auto pos = name.rfind('_');
  return static_cast<std::uint32_t>(std::stoul(name.substr(pos + 1)));
}

/// Compares a fixed or var range with the manifest's JSON bounds.
void check_range(const format::Range1D& r, const format::DimensionShape& dim, const boost::json::value& lo,
                 const boost::json::value& hi) {
  if (dim.var_size) {
    auto [l, h] = r.as_strings();
    CHECK(l == std::string_view(lo.as_string()));
    CHECK(h == std::string_view(hi.as_string()));
    return;
  }
  auto number = [&](std::span<const std::byte> b) -> double {
    switch (dim.type) {
    case Datatype::INT8: return codec::load_le<std::int8_t>(b.data());
    case Datatype::UINT8: return codec::load_le<std::uint8_t>(b.data());
    case Datatype::INT16: return codec::load_le<std::int16_t>(b.data());
    case Datatype::UINT16: return codec::load_le<std::uint16_t>(b.data());
    case Datatype::INT32: return codec::load_le<std::int32_t>(b.data());
    case Datatype::UINT32: return codec::load_le<std::uint32_t>(b.data());
    case Datatype::UINT64: return static_cast<double>(codec::load_le<std::uint64_t>(b.data()));
    case Datatype::FLOAT32: return codec::load_le<float>(b.data());
    case Datatype::FLOAT64: return codec::load_le<double>(b.data());
    default: return static_cast<double>(codec::load_le<std::int64_t>(b.data()));  // INT64, DATETIME, TIME
    }
  };
  if (!lo.is_number() || !hi.is_number()) return;  // e.g. dates spelled as text
  if (dim.type == Datatype::FLOAT32) {  // the manifest may spell a float32 with fewer digits
    CHECK(static_cast<float>(number(r.lo())) == static_cast<float>(lo.to_number<double>()));
    CHECK(static_cast<float>(number(r.hi())) == static_cast<float>(hi.to_number<double>()));
  } else if (dim.type == Datatype::FLOAT64) {  // Boost.JSON 1.81 may round the last bit
    CHECK(number(r.lo()) == doctest::Approx(lo.to_number<double>()).epsilon(1e-15));
    CHECK(number(r.hi()) == doctest::Approx(hi.to_number<double>()).epsilon(1e-15));
  } else {
    CHECK(number(r.lo()) == lo.to_number<double>());
    CHECK(number(r.hi()) == hi.to_number<double>());
  }
}

} // namespace

TEST_CASE("fragment metadata of the TileDB-Py corpus (tests/data/tiledb)") {
  const fs::path root = data_dir / "tiledb";
  const fs::path manifest_path = root / "manifest.json";
  if (!fs::exists(manifest_path)) {
    MESSAGE("no tests/data/tiledb/manifest.json: corpus checks skipped");
    return;
  }
  std::ifstream in(manifest_path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const boost::json::value manifest = boost::json::parse(text);
  std::size_t fragments_checked = 0, consolidated_checked = 0;

  for (const auto& av : manifest.at("arrays").as_array()) {
    const auto& array = av.as_object();
    const std::string array_name(array.at("name").as_string());
    CAPTURE(array_name);
    const fs::path array_dir = root / std::string(array.at("path").as_string());
    const auto& schema = array.at("schema").as_object();
    const bool encrypted = !array.at("encryption").is_null();
    const bool dense = schema.at("array_type").as_string() == "dense";
    std::vector<format::DimensionShape> dims;
    for (const auto& dv : schema.at("dims").as_array()) {
      auto t = datatype_named(std::string_view(dv.at("type").as_string()));
      REQUIRE(t);
      dims.push_back({*t, dv.at("var").as_bool()});
    }
    // Footer bytes (without the length) and context of each fragment.
    std::map<std::string, std::pair<std::vector<std::byte>, FragmentContext>> footers_by_name;

    for (const auto& fv : array.at("fragments").as_array()) {
      const auto& frag = fv.as_object();
      const std::string name(frag.at("name").as_string());
      CAPTURE(name);
      fs::path dir = array_dir / "__fragments" / name;
      if (!fs::exists(dir)) dir = array_dir / name;
      if (!fs::exists(dir / "__fragment_metadata.tdb")) continue;  // vacuumed
      std::size_t attrs = schema.at("attrs").as_array().size();
      if (const auto* fields = frag.if_contains("fields")) {
        attrs = 0;
        for (const auto& [_, facts] : fields->as_object())
          if (facts.at("kind").as_string() == "attribute") ++attrs;
      }
      const std::uint32_t version = version_of_fragment(name);
      CHECK(version == frag.at("format_version").to_number<std::uint32_t>());
      FragmentContext ctx{version, dims, attrs};
      auto file = read_file(dir / "__fragment_metadata.tdb");
      auto d = check_fragment_file(file, ctx, {.prefixes = file.size() < 20000, .generic_tiles_readable = !encrypted});
      const auto& f = d.footer;
      footers_by_name[name] = {to_vector(std::span<const std::byte>(file).subspan(d.location.offset, d.location.size)), ctx};
      ++fragments_checked;

      CHECK(f.version == version);
      CHECK(f.dense == dense);
      if (const auto* sn = frag.if_contains("array_schema_name"); sn && sn->is_string())
        CHECK(f.array_schema_name.value.value == std::string_view(sn->as_string()));
      CHECK(fs::exists(array_dir / "__schema" / f.array_schema_name.value.value));
      check_file_sizes(dir, f, d.ctx);

      // Non-empty domain as TileDB's fragment info reports it.
      const auto& ned = frag.at("non_empty_domain").as_array();
      REQUIRE(ned.size() == dims.size());
      CHECK_FALSE(f.null_non_empty_domain);
      for (std::size_t i = 0; i < dims.size(); ++i)
        check_range(f.non_empty_domain.ranges[i], dims[i], ned[i].as_array()[0], ned[i].as_array()[1]);

      // Cell count: sparse = full tiles x capacity + the last tile; dense =
      // tiles x cells per tile.
      const std::uint64_t cell_num = frag.at("cell_num").to_number<std::uint64_t>();
      if (!dense) {
        const std::uint64_t capacity = schema.at("capacity").to_number<std::uint64_t>();
        CHECK((f.sparse_tile_num - 1) * capacity + f.last_tile_cell_num == cell_num);
      } else if (!encrypted) {
        std::uint64_t per_tile = 1;
        for (const auto& dv : schema.at("dims").as_array()) per_tile *= dv.at("tile_extent").to_number<std::uint64_t>();
        CHECK(d.tile_num * per_tile == cell_num);
        CHECK(f.last_tile_cell_num == per_tile);
      }
    }

    // Consolidated fragment metadata: the footers TileDB gathered are the
    // fragments' own footers, byte for byte.
    const fs::path meta_dir = array_dir / "__fragment_meta";
    if (!encrypted && fs::exists(meta_dir)) {
      for (const auto& e : fs::directory_iterator(meta_dir)) {
        if (e.path().extension() != ".meta") continue;
        CAPTURE(e.path().filename().string());
        auto file = read_file(e.path());
        auto g = filter::read_generic_tile(file);
        CHECK(filter::write_generic_tile(g.payload, g.header.version.value) == file);
        auto c = check_payload<format::ConsolidatedFragmentMetadata>(g.payload, FragmentContext{}, false);
        CHECK(c.fragments.size() >= 2);
        for (std::size_t i = 0; i < c.fragments.size(); ++i) {
          const std::string name = c.fragments[i].name.value;
          CAPTURE(name);
          auto footer = format::consolidated_footer(c, i);
          auto it = footers_by_name.find(name);
          if (it == footers_by_name.end()) continue;  // vacuumed since
          CHECK(to_vector(footer) == it->second.first);
          // Each decodes with its fragment's context.
          auto own = codec::decode<format::Footer>(footer, it->second.second);
          CHECK(codec::encode(own, it->second.second) == to_vector(footer));
          check_every_prefix_throws<format::Footer>(footer, it->second.second);
        }
        ++consolidated_checked;
      }
    }
  }
  MESSAGE(fragments_checked << " fragments and " << consolidated_checked << " consolidated files checked");
  CHECK(fragments_checked > 0);
}

} // namespace test_fragment_metadata
