// Timestamped names (format_spec/timestamped_name.md, TileDB's
// fragment_identifier.cc and generate_uri.cc): every grammar parses to its
// timestamps, uuid, version and extension, including the names of the test
// arrays; malformed names are rejected naming the name and the position;
// generated names parse back. Also the files named by them in the commit
// folders: vacuum, ignore and consolidated commits files.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "tilefmt/format/commit_files.hpp"
#include "tilefmt/format/names.hpp"

#include "../support/testing.hpp"

namespace test_names {

using namespace tilefmt;
using format::NameGrammar;
using format::parse_timestamped_name;
using tilefmt::testing::hex_bytes;

#ifndef TILEFMT_TEST_DATA
#error "TILEFMT_TEST_DATA must name tests/data"
#endif

namespace {
format_error parse_error(std::string_view name) {
  try {
    (void)parse_timestamped_name(name);
  } catch (const format_error& e) {
    return e;
  }
  CAPTURE(name);
  FAIL("expected format_error");
  return format_error("", 0);
}
} // namespace

TEST_CASE("__t1_t2_uuid_v: fragments and commit files of version 5 and later") {
  auto n = parse_timestamped_name("__1693562063524_1693562063524_0fcdefaa40d34ff2a4b09153472fbdc2_10.ok");
  CHECK(n.grammar == NameGrammar::t1_t2_uuid_version);
  CHECK(n.t1 == 1693562063524);
  CHECK(n.t2 == 1693562063524);
  CHECK(n.uuid == "0fcdefaa40d34ff2a4b09153472fbdc2");
  CHECK(n.version == 10u);
  CHECK(n.implied_format_version() == 10);
  CHECK(n.extension == "ok");
  CHECK(n.stem() == "__1693562063524_1693562063524_0fcdefaa40d34ff2a4b09153472fbdc2_10");
  CHECK(n.str() == "__1693562063524_1693562063524_0fcdefaa40d34ff2a4b09153472fbdc2_10.ok");

  // A path: the last component counts, a trailing slash is ignored.
  auto f = parse_timestamped_name(
      "/arrays/x/__fragments/__1657562300109_1657562300110_8dc3a927a28e445080d5dfd288825e1d_4294967295/");
  CHECK(f.t1 == 1657562300109);
  CHECK(f.t2 == 1657562300110);
  CHECK(f.version == 4294967295u);
  CHECK(f.extension.empty());

  for (const char* ext : {"wrt", "vac", "con", "ign", "del", "upd", "meta"}) {
    auto c = parse_timestamped_name(std::string("__1_2_0123456789abcdef0123456789abcdef_23.") + ext);
    CHECK(c.extension == ext);
    CHECK(c.version == 23u);
  }
}

TEST_CASE("__t1_t2_uuid: versions 3-4, and schema and metadata names") {
  auto n = parse_timestamped_name("__1646080196909_1646080196909_295490b3104f401e943c4a7a58143d3a");
  CHECK(n.grammar == NameGrammar::t1_t2_uuid);
  CHECK(n.t1 == 1646080196909);
  CHECK(n.uuid == "295490b3104f401e943c4a7a58143d3a");
  CHECK_FALSE(n.version.has_value());
  CHECK(n.implied_format_version() == 4);
  CHECK(n.str() == "__1646080196909_1646080196909_295490b3104f401e943c4a7a58143d3a");
  auto tmp = parse_timestamped_name("__10_20_295490B3104F401E943C4A7A58143D3A.tmp");  // metadata being written
  CHECK(tmp.extension == "tmp");
  CHECK(tmp.t1 == 10);
  CHECK(tmp.t2 == 20);
}

TEST_CASE("__uuid_t: versions 1-2, and v1-2 consolidated fragments") {
  auto n = parse_timestamped_name("__b4cae15e1a294904a1296510c34f19ec_1538747712566");
  CHECK(n.grammar == NameGrammar::uuid_timestamp);
  CHECK(n.uuid == "b4cae15e1a294904a1296510c34f19ec");
  CHECK(n.t1 == 1538747712566);
  CHECK(n.t2 == 1538747712566);
  CHECK(n.implied_format_version() == 2);
  CHECK_FALSE(n.consolidation_time.has_value());
  CHECK(n.str() == "__b4cae15e1a294904a1296510c34f19ec_1538747712566");

  // TileDB 1.5 consolidation: `__uuid_<when it ran>_<last fragment's t>`; TileDB uses t.
  auto c = parse_timestamped_name("__5dc2cc9cce204a189f825fd4919d0c55_1541540599999_1541540586869.ok");
  CHECK(c.grammar == NameGrammar::uuid_timestamp);
  CHECK(c.t1 == 1541540586869);
  CHECK(c.t2 == 1541540586869);
  CHECK(c.consolidation_time == 1541540599999u);
  CHECK(c.str() == "__5dc2cc9cce204a189f825fd4919d0c55_1541540599999_1541540586869.ok");

  // Enumeration files have this shape too: `__<label>_0`.
  CHECK(parse_timestamped_name(format::make_enumeration_file_name("0123456789abcdef0123456789abcdef")).t1 == 0);
}

TEST_CASE("the names of the test arrays parse") {
  namespace fs = std::filesystem;
  std::set<NameGrammar> seen;
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(TILEFMT_TEST_DATA))) {
    const std::string name = e.path().filename().string();
    if (name.rfind("__", 0) != 0 || name.find(".tdb") != std::string::npos || name == "__lock.tdb") continue;
    if (name == "__schema" || name == "__fragments" || name == "__commits" || name == "__meta" ||
        name == "__fragment_meta" || name == "__labels" || name == "__enumerations" || name == "__group")
      continue;
    CAPTURE(e.path().string());
    auto parsed = parse_timestamped_name(name);
    CHECK(parsed.str() == name);
    seen.insert(parsed.grammar);
    ++n;
  }
  CHECK(n > 10);
  CHECK(seen.count(NameGrammar::uuid_timestamp) == 1);  // the TileDB 1.3 and 1.4 fragments
  CHECK(seen.count(NameGrammar::t1_t2_uuid) == 1);      // schemas
  CHECK(seen.count(NameGrammar::t1_t2_uuid_version) == 1);
}

TEST_CASE("malformed names are rejected, naming the name and the position") {
  auto e = parse_error("__fragment_metadata.tdb");
  CHECK(e.file() == "__fragment_metadata.tdb");
  CHECK(e.offset() == 2);
  CHECK(std::string(e.what()).find("__fragment_metadata.tdb: not a timestamped name: uuid \"fragment\"") == 0);

  CHECK(parse_error("1_2_0123456789abcdef0123456789abcdef").offset() == 0);            // no leading "__"
  CHECK(parse_error("_1_2_0123456789abcdef0123456789abcdef").offset() == 0);
  CHECK(parse_error("__12x_13_0123456789abcdef0123456789abcdef").offset() == 4);       // not decimal
  CHECK(parse_error("__-1_13_0123456789abcdef0123456789abcdef").offset() == 2);
  CHECK(parse_error("__1_2_0123456789abcdef0123456789abcdeg").offset() == 6);          // 32 chars, not hex
  CHECK(parse_error("__1_2_0123456789abcdef0123456789abcdeg_5").offset() == 6);        // not hex
  CHECK(parse_error("__1_2_0123456789abcdef_5").offset() == 6);                        // too short
  CHECK(parse_error("__2_1_0123456789abcdef0123456789abcdef_5").offset() == 2);        // t1 > t2
  CHECK(parse_error("__1_2_0123456789abcdef0123456789abcdef_").offset() == 39);        // empty version
  CHECK(parse_error("__1_2_0123456789abcdef0123456789abcdef_4294967296").offset() == 39);  // version > u32
  CHECK(parse_error("__1_99999999999999999999_0123456789abcdef0123456789abcdef").offset() == 4);  // > u64
  CHECK(parse_error("__1_2_3_0123456789abcdef0123456789abcdef_5").offset() == 2);      // six underscores
  CHECK(parse_error("__0123456789abcdef0123456789abcdef").offset() == 2);              // no timestamp
  CHECK(parse_error("").offset() == 0);
  CHECK(parse_error("__").offset() == 2);
  CHECK(parse_error("/a/b/").file() == "b");
  CHECK_FALSE(format::is_timestamped_name("__array_schema.tdb"));
  CHECK(format::is_timestamped_name("__1_2_0123456789abcdef0123456789abcdef"));
}

TEST_CASE("generated names parse back") {
  CHECK(format::format_label(0x1234abcd, 0xdeadbeef, 0x0011223344556677ull) == "1234abcddeadbeef0011223344556677");
  CHECK(format::format_label(0, 0, 0) == std::string(32, '0'));

  format::LabelCounter counter;
  CHECK(counter.next(1000, 0xffffffffu) == 0x7fffffffu);  // a new millisecond: 31 random bits
  CHECK(counter.next(1000, 5) == 0x80000000u);            // the same millisecond: +1
  CHECK(counter.next(1000, 5) == 0x80000001u);
  CHECK(counter.next(1001, 0x12345678) == 0x12345678u);

  tilefmt::testing::rng rng;
  std::string previous;
  for (std::uint64_t t = 1700000000000; t < 1700000000004; ++t) {
    for (int i = 0; i < 3; ++i) {
      const std::string label =
          format::format_label(counter.next(t, rng.next<std::uint32_t>()), rng.next<std::uint32_t>(),
                               rng.next<std::uint64_t>());
      auto fragment = format::make_timestamped_name(t, t + 7, label, 23u);
      auto parsed = parse_timestamped_name(fragment + ".wrt");
      CHECK(parsed.grammar == NameGrammar::t1_t2_uuid_version);
      CHECK(parsed.t1 == t);
      CHECK(parsed.t2 == t + 7);
      CHECK(parsed.uuid == label);
      CHECK(parsed.version == 23u);
      CHECK(parsed.extension == "wrt");
      CHECK(parsed.stem() == fragment);
      // Labels of one millisecond sort in creation order.
      if (i > 0) CHECK(previous < label);
      previous = label;

      auto schema = format::make_timestamped_name(t, t, label);
      auto ps = parse_timestamped_name(schema);
      CHECK(ps.grammar == NameGrammar::t1_t2_uuid);
      CHECK(ps.str() == schema);
    }
  }
  CHECK(format::make_timestamped_name(5, 5, "0123456789abcdef0123456789abcdef") ==
        "__5_5_0123456789abcdef0123456789abcdef");
  CHECK_THROWS_AS(format::make_timestamped_name(6, 5, "0123456789abcdef0123456789abcdef"), std::invalid_argument);
  CHECK_THROWS_AS(format::make_timestamped_name(5, 6, "0123"), std::invalid_argument);
  CHECK(format::make_enumeration_file_name("0123456789abcdef0123456789abcdef") ==
        "__0123456789abcdef0123456789abcdef_0");
}

// ---------------------------------------------------------------------------
// Commit folder files
// ---------------------------------------------------------------------------

TEST_CASE("vacuum and ignore files: one path per line") {
  const std::string text =
      "/__fragments/__1_1_0123456789abcdef0123456789abcdef_22\n"
      "/__fragments/__2_2_fedcba9876543210fedcba9876543210_22\n";
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(text.data()),
                               reinterpret_cast<const std::byte*>(text.data()) + text.size());
  auto vac = codec::decode<format::VacuumFile>(bytes);
  CHECK(vac.paths() == std::vector<std::string>{"/__fragments/__1_1_0123456789abcdef0123456789abcdef_22",
                                                "/__fragments/__2_2_fedcba9876543210fedcba9876543210_22"});
  CHECK(codec::encode(vac) == bytes);
  CHECK(format::VacuumFile::of(vac.paths()) == vac);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    CAPTURE(n);
    auto prefix = std::span<const std::byte>(bytes).first(n);
    if (n == 0 || n == 55)
      CHECK(codec::decode<format::VacuumFile>(prefix).lines.size() == n / 55);
    else
      CHECK_THROWS_AS(codec::decode<format::VacuumFile>(prefix), format_error);
  }
  CHECK_THROWS_AS(codec::encode(format::IgnoreFile::of({"a\nb"})), std::invalid_argument);

  // Before version 19 the lines are absolute URIs; TileDB matches from the folder on.
  CHECK(format::vacuum_entry_name("file:///data/arr/__fragments/__1_1_x_18") == "__fragments/__1_1_x_18");
  CHECK(format::vacuum_entry_name("s3://b/arr/__meta/__1_1_x") == "__meta/__1_1_x");
  CHECK(format::vacuum_entry_name("/tmp/arr/__1_1_0123456789abcdef0123456789abcdef_4") ==
        "__1_1_0123456789abcdef0123456789abcdef_4");
  CHECK_THROWS_AS(format::vacuum_entry_name("__1_1_x"), format_error);
}

TEST_CASE("consolidated commits files: a delete commit carries its file") {
  const std::string wrt = "/__commits/__1_1_0123456789abcdef0123456789abcdef_22.wrt";
  const std::string del = "/__commits/__3_3_00112233445566778899aabbccddeeff_22.del";
  const std::string upd = "/__commits/__4_4_00112233445566778899aabbccddeeff_22.upd";
  std::vector<std::byte> bytes;
  auto add = [&](std::string_view s) {
    for (char c : s) bytes.push_back(static_cast<std::byte>(c));
  };
  add(wrt + "\n");
  add(del + "\n");
  auto tail = hex_bytes("0500000000000000 0102030405");  // the .del file's size and bytes
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  add(upd + "\n");  // nothing follows an update commit
  auto con = codec::decode<format::ConsolidatedCommits>(bytes);
  REQUIRE(con.commits.size() == 3);
  CHECK(con.commits[0].uri.text == wrt);
  CHECK(con.commits[0].delete_condition_tile->empty());
  CHECK(con.commits[1].uri.text == del);
  CHECK(con.commits[1].delete_condition_tile->value == hex_bytes("0102030405"));
  CHECK(con.commits[2].uri.text == upd);
  CHECK(codec::encode(con) == bytes);
  CHECK(format::parse_timestamped_name(con.commits[1].uri.text).extension == "del");

  const std::size_t ends[] = {0, wrt.size() + 1, wrt.size() + 1 + del.size() + 1 + 13, bytes.size()};
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    CAPTURE(n);
    auto prefix = std::span<const std::byte>(bytes).first(n);
    const auto* at = std::find(std::begin(ends), std::end(ends), n);
    if (at != std::end(ends))
      CHECK(codec::decode<format::ConsolidatedCommits>(prefix).commits.size() == static_cast<std::size_t>(at - ends));
    else
      CHECK_THROWS_AS(codec::decode<format::ConsolidatedCommits>(prefix), format_error);
  }
  auto bad = bytes;
  bad[wrt.size() + 1 + del.size() + 1] = std::byte{0x40};  // the .del file's size: more than is there
  try {
    (void)codec::decode<format::ConsolidatedCommits>(bad);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field().rfind("ConsolidatedCommits.commits[1].delete_condition_tile", 0) == 0);
  }
  CHECK(codec::to_json(con).find("\"uri\": \"" + wrt + "\"") != std::string::npos);
}

} // namespace test_names
