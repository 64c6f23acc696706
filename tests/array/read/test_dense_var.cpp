// Dense reads of var-size attributes: a tile the result takes whole and in
// order is decoded straight into its place (fragment::read_var_tile_into,
// its size from the fragment's metadata) once the sizes of the cells
// before it are known; other tiles are read first and their runs copied
// (read/dense/var_pieces.hpp). Checked cell by cell against what was
// written, for reads that take whole tiles, parts of tiles and tiles that
// newer fragments cover in part, with RLE strings (whose tiles only
// decoding sizes), nullable strings, a condition, one and three threads
// (at three, reads of at most three tiles leave no tile for later: every
// tile is read first and copied, reader.hpp's copy_won_cells);
// a damaged offsets file reported by name; values past max_allocation
// refused before the tiles are read.
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/storage/memory.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "../../support/testing.hpp"

namespace test_dense_var {

using namespace tilefmt;

namespace {

struct write_box {
  std::int64_t lo, hi;
  int base;
};

/// Cell x of a write: its string ("" every seventh cell), its RLE string
/// (runs of equal values), whether its nullable string is valid.
std::string text_of(int base, std::int64_t x) { return x % 7 == 0 ? std::string() : std::to_string(base) + "-" + std::to_string(x); }
std::string run_of(int base, std::int64_t x) { return "r" + std::to_string(base + x / 4); }
bool valid_of(std::int64_t x) { return x % 5 != 0; }

/// A 1-D dense array over [0, 99], tiles of 10 cells: a ZSTD string, an
/// RLE string, a nullable string and an int32 (x + base).
std::shared_ptr<storage::memory> make_array(const std::vector<write_box>& writes) {
  using D = format::Datatype;
  auto st = std::make_shared<storage::memory>();
  auto var = [](std::string name, D type, bool nullable, format::FilterPipeline f) {
    return format::make_attribute({.name = std::move(name), .type = type, .cell_val_num = format::var_num,
                                   .nullable = nullable, .filters = std::move(f)});
  };
  array::create("/a",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int64_t>("x", 0, 99, 10)},
                     .attributes = {var("s", D::STRING_ASCII, false, format::compression_pipeline(format::FilterType::ZSTD)),
                                    var("r", D::STRING_ASCII, false, format::compression_pipeline(format::FilterType::RLE)),
                                    var("n", D::STRING_UTF8, true, {}),
                                    format::make_attribute({.name = "v", .type = D::INT32})}}),
                {.storage = st});
  std::uint64_t t = 1;
  for (const auto& w : writes) {
    array::dense_writer f("/a", {{w.lo, w.hi}}, array::cell_layout::row_major, st);
    std::vector<std::string> s, r, n;
    std::vector<std::uint8_t> valid;
    std::vector<std::int32_t> v;
    for (std::int64_t x = w.lo; x <= w.hi; ++x) {
      s.push_back(text_of(w.base, x));
      r.push_back(run_of(w.base, x));
      n.push_back(text_of(w.base, x));
      valid.push_back(valid_of(x));
      v.push_back(static_cast<std::int32_t>(w.base + x));
    }
    f.set_var("s", s).set_var("r", r).set_var("n", n, valid).set("v", v);
    f.commit({.timestamp = t++});
  }
  return st;
}

std::string cell(const array::var_column<char>& c, std::size_t i) {
  const std::size_t end = i + 1 < c.offsets.size() ? c.offsets[i + 1] : c.values.size();
  return std::string(c.values.begin() + static_cast<std::ptrdiff_t>(c.offsets[i]),
                     c.values.begin() + static_cast<std::ptrdiff_t>(end));
}

} // namespace

TEST_CASE("dense var-size reads: whole tiles into place, parts of tiles, newer fragments, conditions") {
  // The first write covers everything; the second half of tile 2 and most
  // of tile 3; the third exactly tile 6; cells 95-99 are never written.
  const std::vector<write_box> writes{{0, 94, 1000}, {25, 38, 2000}, {60, 69, 3000}};
  const auto st = make_array(writes);
  auto winner = [&](std::int64_t x) -> const write_box* {
    const write_box* w = nullptr;
    for (const auto& b : writes)
      if (x >= b.lo && x <= b.hi) w = &b;
    return w;
  };
  const std::string fill(1, '\0');  // TileDB's default string fill
  for (unsigned threads : {1u, 3u}) {
    auto arr = array::open("/a", {.threads = threads, .storage = st});
    for (const auto& range : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 99}, {10, 39}, {5, 93}, {60, 69}, {41, 41}}) {
      const std::int64_t lo = range.first, hi = range.second;
      for (bool cond : {false, true}) {
        CAPTURE(threads);
        CAPTURE(lo);
        CAPTURE(hi);
        CAPTURE(cond);
        auto q = arr.query().subarray({{lo, hi}});
        // Cells that fail read as fill values (TileDB's rule for dense arrays).
        if (cond) q.where(array::field("v") < std::int32_t{2030} || array::field("v") > std::int32_t{3064});
        const auto res = q.read();
        const auto s = res.get_var<char>("s"), r = res.get_var<char>("r"), n = res.get_var<char>("n");
        const auto n_valid = res.validity("n");
        REQUIRE(s.offsets.size() == static_cast<std::size_t>(hi - lo + 1));
        REQUIRE(r.offsets.size() == s.offsets.size());
        REQUIRE(n.offsets.size() == s.offsets.size());
        for (std::int64_t x = lo; x <= hi; ++x) {
          CAPTURE(x);
          const auto i = static_cast<std::size_t>(x - lo);
          const write_box* w = winner(x);
          const bool passes = !cond || (w && (w->base + x < 2030 || w->base + x > 3064));
          if (!w || !passes) {
            CHECK(cell(s, i) == fill);
            CHECK(cell(r, i) == fill);
            CHECK(cell(n, i) == fill);
            CHECK(n_valid[i] == 0);
            continue;
          }
          CHECK(cell(s, i) == text_of(w->base, x));
          CHECK(cell(r, i) == run_of(w->base, x));
          CHECK(n_valid[i] == (valid_of(x) ? 1 : 0));
          if (valid_of(x)) CHECK(cell(n, i) == text_of(w->base, x));
        }
      }
    }
  }
}

TEST_CASE("read_var_tile_into: a var tile straight into buffers, as read_tile_as_stored reads it") {
  const auto st = make_array({{0, 99, 1000}});
  auto arr = array::open("/a", {.storage = st});
  REQUIRE(arr.fragments().size() == 1);
  const auto& frag = arr.fragments()[0];
  const auto s = frag.field("s");
  for (std::size_t t = 0; t < frag.tile_num(); ++t) {
    const auto want = frag.read_tile_as_stored(s, t);
    const auto bytes = frag.var_tile_bytes(s, t);
    REQUIRE(bytes);
    CHECK(*bytes == want.values.size());
    std::vector<std::byte> values(static_cast<std::size_t>(*bytes));
    std::vector<std::uint64_t> offsets(static_cast<std::size_t>(frag.tile_cells(t)));
    frag.read_var_tile_into(s, t, values, offsets);
    CHECK(std::equal(values.begin(), values.end(), want.values.begin(), want.values.end()));
    CHECK(offsets == want.offsets);
    // Buffers of another size are refused before anything is read.
    std::vector<std::byte> short_values(values.size() - 1);
    CHECK_THROWS_AS(frag.read_var_tile_into(s, t, short_values, offsets), std::invalid_argument);
    std::vector<std::uint64_t> more_offsets(offsets.size() + 1);
    CHECK_THROWS_AS(frag.read_var_tile_into(s, t, values, more_offsets), std::invalid_argument);
  }
  // RLE strings keep their offsets in the var tile: no size before decoding.
  CHECK_FALSE(frag.var_tile_bytes(frag.field("r"), 0).has_value());
  std::vector<std::byte> values(8);
  std::vector<std::uint64_t> offsets(10);
  CHECK_THROWS_AS(frag.read_var_tile_into(frag.field("r"), 0, values, offsets), std::invalid_argument);
  CHECK_THROWS_AS(frag.var_tile_bytes(frag.field("v"), 0), std::invalid_argument);
}

TEST_CASE("dense var-size reads: an offset past its var tile names the offsets file") {
  // Offsets stored unfiltered, so that one can be damaged in place: tile
  // 0 of a0.tdb is its chunk count (8 bytes), one chunk header (12) and
  // the tile's ten offsets.
  auto st = std::make_shared<storage::memory>();
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", 0, 99, 10)},
       .attributes = {format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                              .cell_val_num = format::var_num})}});
  schema.offsets_filters = {};
  array::create("/a", schema, {.storage = st});
  {
    array::dense_writer f("/a", {{0, 99}}, array::cell_layout::row_major, st);
    std::vector<std::string> s;
    for (int x = 0; x < 100; ++x) s.push_back(text_of(1000, x));
    f.set_var("s", s);
    f.commit({.timestamp = 1});
  }
  const std::string name = array::open("/a", {.storage = st}).fragments().at(0).name().str();
  const std::string file = "/a/__fragments/" + name + "/a0.tdb";
  auto bytes = st->read(file);
  REQUIRE(bytes.size() >= 20 + 10 * 8);
  bytes[20 + 5 * 8 + 6] = std::byte{0x7f};  // cell 5's offset, far past the tile
  st->write(file, bytes);
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    auto arr = array::open("/a", {.threads = threads, .storage = st});
    try {
      (void)arr.query().subarray({{0, 99}}).read();
      FAIL("the damaged offset was read");
    } catch (const format_error& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(what.find("a0.tdb") != std::string::npos);
      CHECK(what.find("field s") != std::string::npos);
      CHECK(what.find("tile 0") != std::string::npos);
    }
    // Tiles past the damaged one read as written.
    const auto res = arr.query().subarray({{10, 99}}).read();
    const auto s = res.get_var<char>("s");
    REQUIRE(s.offsets.size() == 90);
    for (std::size_t i = 0; i < 90; ++i) CHECK(cell(s, i) == text_of(1000, static_cast<std::int64_t>(i) + 10));
  }
}

TEST_CASE("dense var-size reads: tiles left to decode count against max_allocation before they are read") {
  // Cells of 100 bytes: the values (10,000 bytes) pass what the offsets
  // and views take (check_size) by far.
  auto st = std::make_shared<storage::memory>();
  array::create("/a",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int64_t>("x", 0, 99, 10)},
                     .attributes = {format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                            .cell_val_num = format::var_num})}}),
                {.storage = st});
  {
    array::dense_writer f("/a", {{0, 99}}, array::cell_layout::row_major, st);
    std::vector<std::string> s;
    for (int x = 0; x < 100; ++x) s.push_back(std::string(100, static_cast<char>('a' + x % 26)));
    f.set_var("s", s);
    f.commit({.timestamp = 1});
  }
  // One thread: every whole tile is left for later whatever the machine's
  // cores (with more threads than tiles, all are read first, then refused).
  const auto enough = array::open("/a", {.threads = 1, .max_allocation = 20000, .storage = st});
  CHECK(enough.query().read().get_var<char>("s").values.size() == 10000);
  const auto small = array::open("/a", {.threads = 1, .max_allocation = 6000, .storage = st});
  CHECK_THROWS_AS(small.query().read(), std::invalid_argument);
  // A part of it fits.
  CHECK(small.query().subarray({{0, 39}}).read().get_var<char>("s").values.size() == 4000);
}

} // namespace test_dense_var
