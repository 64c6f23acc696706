// Opening groups (group/read/group.hpp) built file by file in memory: how
// details files add up (version 2 overlays keyed by name or URI, deletions,
// re-pointed names, a version 1 file as the whole list), the open
// timestamp range and vacuum files, metadata, legacy groups listed from
// their folder, members that may not be followed (leaving the group,
// another storage), damaged files named in the error, and object_type /
// ls / walk as TileDB answers them. Groups TileDB-Py writes are read in
// python/tests/test_group.py.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/group/group.hpp"
#include "tilefmt/storage/memory.hpp"

#include "../support/forwarding_backend.hpp"
#include "../support/testing.hpp"

namespace test_group {

using namespace tilefmt;
namespace fs = std::filesystem;
using format::GroupDetails;
using format::GroupMember;
using format::ObjectType;

format::GroupMember entry(std::string uri, std::optional<std::string> name, ObjectType type, bool relative,
                          bool deleted = false, std::uint32_t version = 2) {
  GroupMember m;
  m.version.value = version;
  m.type = type;
  m.relative = relative;
  m.uri.value = std::move(uri);
  m.name_set = name.has_value();
  if (name) m.name->value = *name;
  m.deleted.value = deleted;
  return m;
}

/// A group in memory, written file by file as TileDB writes them.
struct fixture {
  std::shared_ptr<storage::memory> st = std::make_shared<storage::memory>();
  fs::path root = "/data/g";

  fixture() {
    st->make_folder(root / "__group");
    st->make_folder(root / "__meta");
    st->write(root / "__tiledb_group.tdb", {});
  }
  std::string details(std::uint64_t t, std::vector<GroupMember> members, std::uint32_t version = 2,
                      bool suffix = true) {
    GroupDetails d;
    d.version = version;
    d.members.value = std::move(members);
    const std::string name = "__" + std::to_string(t) + "_" + std::to_string(t) + "_" + std::string(31, '0') +
                             std::to_string(t % 10) + (suffix ? "_" + std::to_string(version) : "");
    st->write(root / "__group" / name, filter::write_generic_tile(codec::encode(d)));
    return name;
  }
  void meta(std::uint64_t t, std::vector<format::MetadataEntry> entries) {
    format::ArrayMetadata m;
    m.entries.value = std::move(entries);
    st->write(root / "__meta" / ("__" + std::to_string(t) + "_" + std::to_string(t) + "_" + std::string(32, 'a')),
              filter::write_generic_tile(codec::encode(m)));
  }
  group::group_reader open(std::uint64_t start = 0, std::uint64_t end = std::numeric_limits<std::uint64_t>::max()) {
    array::open_options opt;
    opt.storage = st;
    opt.timestamp_start = start;
    opt.timestamp_end = end;
    return group::open(root, opt);
  }
};

std::vector<std::string> keys(const group::group_reader& g) {
  std::vector<std::string> out;
  for (const auto& m : g.members()) out.push_back(m.key());
  return out;
}

TEST_CASE("group: version 2 files add, remove and re-point members, oldest first") {
  fixture f;
  f.details(10, {entry("a", "A", ObjectType::ARRAY, true), entry("file:///x/b", std::nullopt, ObjectType::GROUP, false)});
  f.details(20, {entry("c", "C", ObjectType::ARRAY, true), entry("file:///x/b", std::nullopt, ObjectType::GROUP, false, true)});
  f.details(30, {entry("a2", "A", ObjectType::GROUP, true)});  // "A" now names another member
  const auto g = f.open();
  CHECK_FALSE(g.legacy());
  CHECK(g.details_files().size() == 3);
  CHECK(keys(g) == std::vector<std::string>{"A", "C"});
  const auto& a = g.member_named("A");
  CHECK(a.uri == "a2");
  CHECK(a.type == ObjectType::GROUP);
  CHECK(g.path_of(a) == f.root / "a2");
  CHECK(g.contains("C"));
  CHECK_FALSE(g.contains("c"));  // names, not URIs
  CHECK_THROWS_AS(g.member_named("B"), std::out_of_range);

  // As of time 20: the first two files.
  const auto at20 = f.open(0, 20);
  CHECK(keys(at20) == std::vector<std::string>{"A", "C"});
  CHECK(at20.member_named("A").uri == "a");
  // As of time 10 to 10: the first file alone.
  CHECK(keys(f.open(0, 10)) == std::vector<std::string>{"A", "file:///x/b"});
  CHECK(f.open(0, 5).members().empty());
}

TEST_CASE("group: the newest version 1 file is the whole list; older files are not read") {
  fixture f;
  f.details(10, {entry("old", "old", ObjectType::ARRAY, true, false, 1)}, 1, false);  // TileDB 2.8-2.14: no suffix
  // Damaged, but older than the newest version 1 file: never read.
  f.st->write(f.root / "__group" / ("__15_15_" + std::string(32, 'b')), std::vector<std::byte>(7, std::byte{1}));
  f.details(20, {entry("s", "s", ObjectType::GROUP, true, false, 2)}, 1);  // 2.19+: `_1`, members of version 2
  const auto g = f.open();
  CHECK(keys(g) == std::vector<std::string>{"s"});
  CHECK(g.details_files().size() == 1);
  CHECK_THROWS_AS(f.open(0, 15), format_error);  // then the damaged file is the newest
}

TEST_CASE("group: vacuum files hide the details and metadata files they name") {
  fixture f;
  const auto first = f.details(10, {entry("a", "A", ObjectType::ARRAY, true)});
  f.details(20, {entry("b", "B", ObjectType::ARRAY, true)});
  const std::string line = "file://" + (f.root / "__group" / first).string() + "\n";
  f.st->write(f.root / "__group" / ("__10_20_" + std::string(32, 'c') + ".vac"),
              std::as_bytes(std::span(line.data(), line.size())));
  CHECK(keys(f.open()) == std::vector<std::string>{"B"});
}

TEST_CASE("group: metadata as of the open range, later values and deletions winning") {
  fixture f;
  f.meta(10, {format::MetadataEntry::of<std::int32_t>("n", std::vector<std::int32_t>{1, 2}),
              format::MetadataEntry::of<char>("title", std::string_view("first"), format::Datatype::STRING_UTF8)});
  format::MetadataEntry gone;
  gone.key.value = "n";
  gone.deletion = 1;
  f.meta(20, {gone, format::MetadataEntry::of<char>("title", std::string_view("second"), format::Datatype::STRING_UTF8)});
  const auto g = f.open();
  CHECK_FALSE(g.metadata().contains("n"));
  CHECK(g.metadata().get_string("title") == "second");
  const auto at10 = f.open(0, 10);
  CHECK(at10.metadata().get<std::int32_t>("n") == std::vector<std::int32_t>{1, 2});
  CHECK(at10.metadata().get_string("title") == "first");
}

TEST_CASE("group: members that may not be followed are named with their details file") {
  fixture f;
  const auto name = f.details(10, {entry("../outside", "up", ObjectType::ARRAY, true),
                                   entry("a/../../x", "sneaky", ObjectType::ARRAY, true),
                                   entry("/abs", "rooted", ObjectType::ARRAY, true),
                                   entry("s3://bucket/k", "remote", ObjectType::ARRAY, false),
                                   entry("file:///elsewhere/y", "local", ObjectType::ARRAY, false),
                                   entry("sub/./z", "fine", ObjectType::ARRAY, true)});
  const auto g = f.open();
  for (const char* bad : {"up", "sneaky", "rooted", "remote"}) {
    CAPTURE(bad);
    try {
      (void)g.path_of(g.member_named(bad));
      FAIL("followed");
    } catch (const group::member_error& e) {
      CHECK(std::string(e.what()).find(name) != std::string::npos);
      CHECK(std::string(e.what()).find(bad) != std::string::npos);
    }
  }
  CHECK(g.path_of(g.member_named("local")) == fs::path("/elsewhere/y"));
  CHECK(g.path_of(g.member_named("fine")) == f.root / "sub" / "z");
}

TEST_CASE("group: damaged details files are refused with the file named") {
  fixture f;
  const auto name = f.details(10, {entry("a", "A", ObjectType::ARRAY, true)});
  const auto good = f.st->read(f.root / "__group" / name);
  for (std::size_t n : {std::size_t{0}, std::size_t{20}, good.size() - 1}) {
    CAPTURE(n);
    f.st->write(f.root / "__group" / name, std::span(good).first(n));
    try {
      (void)f.open();
      FAIL("opened");
    } catch (const format_error& e) {
      CHECK(e.file().find(name) != std::string::npos);
    }
  }
  // A details version TileDB never wrote.
  GroupDetails d;
  d.version = 3;
  f.st->write(f.root / "__group" / name, filter::write_generic_tile(codec::encode(d)));
  CHECK_THROWS_AS(f.open(), group::member_error);
}

TEST_CASE("group: object types, ls and walk as TileDB answers them") {
  auto st = std::make_shared<storage::memory>();
  const fs::path top = "/t";
  auto array_at = [&](const fs::path& p) { st->make_folder(p / "__schema"); };
  auto group_at = [&](const fs::path& p) {
    st->make_folder(p / "__group");
    st->write(p / "__tiledb_group.tdb", {});
  };
  group_at(top / "exp");
  array_at(top / "exp" / "obs");
  group_at(top / "exp" / "ms");
  array_at(top / "exp" / "ms" / "X");
  st->make_folder(top / "exp" / "plain" / "hidden");
  group_at(top / "exp" / "plain" / "hidden");  // inside a plain folder: not walked into
  st->make_folder(top / "legacy");
  st->write(top / "legacy" / "__tiledb_group.tdb", {});  // TileDB before 2.8: the marker only
  array_at(top / "legacy" / "a");
  st->make_folder(top / "both" / "__schema");
  st->write(top / "both" / "__tiledb_group.tdb", {});
  st->make_folder(top / "legacy_array");
  st->write(top / "legacy_array" / "__array_schema.tdb", {});
  st->make_folder(top / "nothing");

  CHECK(group::object_type(*st, top / "exp") == ObjectType::GROUP);
  CHECK(group::object_type(*st, top / "exp" / "obs") == ObjectType::ARRAY);
  CHECK(group::object_type(*st, top / "legacy") == ObjectType::GROUP);
  CHECK(group::object_type(*st, top / "both") == ObjectType::ARRAY);  // array markers win
  CHECK(group::object_type(*st, top / "legacy_array") == ObjectType::ARRAY);
  CHECK(group::object_type(*st, top / "nothing") == ObjectType::INVALID);
  CHECK(group::object_type(*st, top / "missing") == ObjectType::INVALID);

  std::vector<std::string> seen;
  auto record = [&](const fs::path& p, ObjectType t) {
    seen.push_back(p.string() + " " + std::string(format::codec_enum_name(t)));
    return true;
  };
  for (const auto& [p, t] : group::ls(*st, top / "exp")) record(p, t);
  CHECK(seen == std::vector<std::string>{"/t/exp/ms GROUP", "/t/exp/obs ARRAY"});
  seen.clear();
  group::walk(*st, top, record);
  CHECK(seen == std::vector<std::string>{"/t/both ARRAY", "/t/exp GROUP", "/t/exp/ms GROUP", "/t/exp/ms/X ARRAY",
                                         "/t/exp/obs ARRAY", "/t/legacy GROUP", "/t/legacy/a ARRAY",
                                         "/t/legacy_array ARRAY"});
  seen.clear();
  group::walk(*st, top / "exp", record, group::walk_order::postorder);
  CHECK(seen == std::vector<std::string>{"/t/exp/ms/X ARRAY", "/t/exp/ms GROUP", "/t/exp/obs ARRAY"});
  seen.clear();
  group::walk(*st, top, [&](const fs::path& p, ObjectType t) { return record(p, t) && seen.size() < 3; });
  CHECK(seen.size() == 3);  // stopped

  // A legacy group's members are what its folder holds.
  array::open_options opt;
  opt.storage = st;
  const auto legacy = group::open(top / "legacy", opt);
  CHECK(legacy.legacy());
  REQUIRE(legacy.members().size() == 1);
  CHECK(legacy.members()[0].uri == "a");
  CHECK(legacy.members()[0].type == ObjectType::ARRAY);
  CHECK(legacy.path_of(legacy.members()[0]) == top / "legacy" / "a");
  CHECK(legacy.metadata().size() == 0);
  // A writer gives it a details file, listing only what it adds, as TileDB.
  array::write_options w;
  w.storage = st;
  group::group_writer(top / "legacy", w).add("a", "named", true).commit();
  const auto upgraded = group::open(top / "legacy", opt);
  CHECK_FALSE(upgraded.legacy());
  REQUIRE(upgraded.members().size() == 1);
  CHECK(upgraded.members()[0].name == std::optional<std::string>("named"));
  CHECK_THROWS_AS(group::open(top / "exp" / "obs", opt), storage::io_error);
  CHECK_THROWS_AS(group::open(top / "nothing", opt), storage::io_error);
}

TEST_CASE("group writer: create, add, remove and metadata, read back as TileDB applies them") {
  auto st = std::make_shared<storage::memory>();
  const fs::path root = "/w/g";
  array::write_options w;
  w.storage = st;
  st->make_folder(root / "arr" / "__schema");  // an array member
  group::create(root, w);
  CHECK(group::object_type(*st, root) == ObjectType::GROUP);
  CHECK(st->file_size(root / "__tiledb_group.tdb") == std::optional<std::uint64_t>(0));
  CHECK_THROWS_AS(group::create(root, w), std::invalid_argument);  // already a group

  w.timestamp = 100;
  {
    group::group_writer g(root, w);
    g.add("arr", "arr", true).add("/elsewhere/x", std::nullopt, false, ObjectType::GROUP).add("nothing", "n", true);
    g.put_metadata(format::MetadataEntry::of<std::int64_t>("n", std::vector<std::int64_t>{7}));
    CHECK_THROWS_AS(g.add("arr", "arr", true), std::invalid_argument);           // twice in a session
    CHECK_THROWS_AS(g.add("../up", "up", true), group::member_error);            // would leave the group
    const auto [details, meta] = g.commit();
    CHECK(details.ends_with("_2"));
    CHECK(details.starts_with("__100_100_"));
    CHECK_FALSE(meta.empty());
    CHECK_THROWS_AS(g.commit(), std::logic_error);
  }
  array::open_options r;
  r.storage = st;
  auto g = group::open(root, r);
  REQUIRE(g.members().size() == 3);
  CHECK(g.member_named("arr").type == ObjectType::ARRAY);   // detected
  CHECK(g.member_named("n").type == ObjectType::INVALID);   // nothing there: stored as TileDB stores it
  CHECK(g.members()[1].uri == "file:///elsewhere/x");      // absolute paths as file:// URIs
  CHECK(g.metadata().get<std::int64_t>("n") == std::vector<std::int64_t>{7});

  w.timestamp = 200;
  {
    group::group_writer g2(root, w);
    g2.remove("n").remove("/elsewhere/x").add("arr", "second", true);
    g2.remove_metadata("n");
    CHECK_THROWS_AS(g2.remove("missing"), std::invalid_argument);
    g2.commit();
  }
  g = group::open(root, r);
  CHECK(keys(g) == std::vector<std::string>{"arr", "second"});
  CHECK_FALSE(g.metadata().contains("n"));
  // The second file lists every member alive, then the removed ones, deleted.
  const auto second = g.details_files().back().path;
  const auto d = codec::decode<GroupDetails>(filter::read_generic_tile(st->read(second)).payload);
  REQUIRE(d.members.value.size() == 4);
  CHECK_FALSE(d.members.value[0].is_deleted());
  CHECK(d.members.value[2].is_deleted());
  CHECK(d.members.value[3].is_deleted());
  CHECK(keys(group::open(root, [&] {
          auto o = r;
          o.timestamp_end = 150;
          return o;
        }())) == std::vector<std::string>{"arr", "file:///elsewhere/x", "n"});

  // Nothing changed: nothing written.
  {
    group::group_writer g3(root, w);
    const auto [details, meta] = g3.commit();
    CHECK(details.empty());
    CHECK(meta.empty());
  }
  CHECK(group::open(root, r).details_files().size() == 2);
}

TEST_CASE("group writer: a group of details version 1 gets whole lists of version 1") {
  fixture f;
  f.details(10, {entry("a", "a", ObjectType::ARRAY, true, false, 1), entry("b", "b", ObjectType::ARRAY, true, false, 1)},
            1, false);
  array::write_options w;
  w.storage = f.st;
  w.timestamp = 20;
  group::group_writer g(f.root, w);
  g.remove("a").add("c", "c", true, ObjectType::GROUP);
  const auto details = g.commit().first;
  // Named as TileDB 2.8 to 2.14 named them: `__t_t_uuid`, no version.
  CHECK(std::count(details.begin(), details.end(), '_') == 4);  // __t_t_uuid
  const auto d = codec::decode<GroupDetails>(filter::read_generic_tile(f.st->read(f.root / "__group" / details)).payload);
  CHECK(d.version == 1);
  REQUIRE(d.members.value.size() == 2);  // no deleted members: the list is whole
  CHECK(keys(f.open()) == std::vector<std::string>{"b", "c"});
}

TEST_CASE("group create: at a chosen format version, as that libtiledb made groups") {
  fixture f;
  array::write_options w;
  w.storage = f.st;
  w.timestamp = 10;
  // Before 2.8 (format 12): the marker alone; no members, no metadata.
  w.format_version = 11;
  group::create(f.root / "old", w);
  CHECK(f.st->is_file(f.root / "old" / "__tiledb_group.tdb"));
  CHECK_FALSE(f.st->is_folder(f.root / "old" / "__group"));
  CHECK(group::object_type(*f.st, f.root / "old") == ObjectType::GROUP);
  CHECK_THROWS_AS(group::group_writer(f.root / "old", w), std::invalid_argument);
  // 2.8 to 2.14 (12 to 17): details version 1, tiles of that version.
  w.format_version = 16;
  group::create(f.root / "v1", w);
  group::group_writer g1(f.root / "v1", w);
  g1.add("x", "x", true, ObjectType::ARRAY).put_metadata(format::MetadataEntry::of<std::int32_t>("k", std::vector<std::int32_t>{1}));
  const auto [details, meta] = g1.commit();
  const auto tile = filter::read_generic_tile(f.st->read(f.root / "v1" / "__group" / details));
  CHECK(tile.header.version.value == 16);
  CHECK(codec::decode<GroupDetails>(tile.payload).version == 1);
  CHECK(std::count(details.begin(), details.end(), '_') == 4);  // __t_t_uuid
  // A datatype the version lacks is refused (BOOL: 2.10, format 14).
  w.format_version = 13;
  group::group_writer g2(f.root / "v1", w);
  CHECK_THROWS_AS(g2.put_metadata(format::MetadataEntry::of<std::uint8_t>("b", std::vector<std::uint8_t>{1}, format::Datatype::BOOL)),
                  std::invalid_argument);
  // 2.15 on: version 2.
  w.format_version = 18;
  group::create(f.root / "v2", w);
  group::group_writer g3(f.root / "v2", w);
  CHECK(g3.add("y", std::nullopt, true, ObjectType::ARRAY).commit().first.ends_with("_2"));
  // 2.15 to 2.18 (18 to 20) wrote each session's changes only; 2.19 on, every member.
  for (const std::uint32_t v : {20u, 21u}) {
    w.format_version = v;
    group::group_writer more(f.root / "v2", w);
    const auto name = more.add("z" + std::to_string(v), std::nullopt, true, ObjectType::ARRAY).commit().first;
    const auto d = codec::decode<GroupDetails>(filter::read_generic_tile(f.st->read(f.root / "v2" / "__group" / name)).payload);
    CHECK(d.members.value.size() == (v == 20 ? 1u : 3u));
  }
  CHECK(keys(group::open(f.root / "v2", [&] {
          array::open_options o;
          o.storage = f.st;
          return o;
        }())).size() == 3);
  w.format_version = 0;
  CHECK_THROWS_AS(group::create(f.root / "bad", w), std::invalid_argument);
}

TEST_CASE("group metadata: consolidated into one file, the same read before and after vacuum") {
  fixture f;
  f.meta(10, {format::MetadataEntry::of<std::int32_t>("a", std::vector<std::int32_t>{1})});
  f.meta(20, {format::MetadataEntry::of<std::int32_t>("b", std::vector<std::int32_t>{2})});
  f.meta(30, {format::MetadataEntry::deletion_of("a")});
  array::write_options w;
  w.storage = f.st;
  CHECK(group::consolidate_metadata(f.root, w, 0, 15).name.empty());  // one file: nothing to do
  const auto c = group::consolidate_metadata(f.root, w);
  CHECK(c.name.starts_with("__10_30_"));
  CHECK(c.replaced.size() == 3);
  auto g = f.open();
  CHECK_FALSE(g.metadata().contains("a"));
  CHECK(g.metadata().get<std::int32_t>("b") == std::vector<std::int32_t>{2});
  const auto removed = group::vacuum_metadata(f.root, f.st);
  CHECK(removed.size() == 4);  // three files and the vacuum file
  CHECK(f.st->list(f.root / "__meta").size() == 1);
  g = f.open();
  CHECK(g.metadata().size() == 1);
  CHECK(g.metadata().get<std::int32_t>("b") == std::vector<std::int32_t>{2});
  CHECK_THROWS_AS(group::vacuum_metadata("/nowhere", f.st), storage::io_error);
}

/// Storage in memory that fails every change after `allowed` more: a process
/// stopped at that point.
struct stops_after : testing::forwarding_backend<storage::memory> {
  std::size_t allowed = SIZE_MAX, done = 0;
  void stop_after(std::size_t n) { allowed = done + n; }
  void on_change(change, const fs::path&) override {
    if (done >= allowed) throw std::runtime_error("stopped");
    ++done;
  }
};

std::map<std::string, std::string> metadata_of(const group::group_reader& g) {
  std::map<std::string, std::string> out;
  for (const auto& [k, e] : g.metadata().entries()) out[k] = e.as_string();
  return out;
}

TEST_CASE("group writer, consolidation and vacuum stopped at every step: the group reads as before or after") {
  using strings = std::vector<std::string>;
  using meta = std::map<std::string, std::string>;
  auto text = [](std::string k, std::string_view v) { return format::MetadataEntry::of_string(std::move(k), v); };
  std::size_t stopped = 0, whole = 0;
  for (std::size_t n = 0; n < 16; ++n) {
    CAPTURE(n);
    auto st = std::make_shared<stops_after>();
    const fs::path root = "/data/g";
    array::write_options w;
    w.storage = st;
    w.timestamp = 10;
    group::create(root, w);
    {
      group::group_writer g(root, w);
      g.add("a", "a", true, ObjectType::ARRAY).add("b", "b", true, ObjectType::ARRAY);
      g.put_metadata(text("k1", "one")).put_metadata(text("k2", "two"));
      g.commit();
    }
    array::open_options r;
    r.storage = st;
    const strings members_before{"a", "b"}, members_after{"a", "c"};
    const meta meta_before{{"k1", "one"}, {"k2", "two"}}, meta_after{{"k2", "2"}, {"k3", "three"}};
    st->stop_after(n);
    bool finished = true;
    try {
      w.timestamp = 20;
      group::group_writer g(root, w);
      g.remove("b").add("c", "c", true, ObjectType::ARRAY);
      g.remove_metadata("k1").put_metadata(text("k2", "2")).put_metadata(text("k3", "three"));
      g.commit();
      w.timestamp = 30;
      group::consolidate_metadata(root, w);
      group::vacuum_metadata(root, st);
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "stopped");
      finished = false;
    }
    st->stop_after(SIZE_MAX - st->done);
    const auto g = group::open(root, r);
    const auto k = keys(g);
    CHECK((k == members_before || k == members_after));
    const auto m = metadata_of(g);
    CHECK((m == meta_before || m == meta_after));
    if (finished) {
      CHECK(k == members_after);
      CHECK(m == meta_after);
      ++whole;
    } else {
      ++stopped;
    }
  }
  CHECK(stopped >= 8);  // every change of the commit, the consolidation and the vacuum
  CHECK(whole >= 1);
}

TEST_CASE("group: members that list the group itself or an ancestor: nothing loops") {
  // g holds group s (relative); s lists g (absolute); g lists itself (absolute).
  auto st = std::make_shared<storage::memory>();
  array::write_options w;
  w.storage = st;
  w.timestamp = 10;
  group::create("/data/g", w);
  group::create("/data/g/s", w);
  group::group_writer(std::string("/data/g/s"), w).add("/data/g", "parent", false).commit();
  group::group_writer(std::string("/data/g"), w).add("s", "s", true).add("/data/g", "self", false).commit();
  array::open_options r;
  r.storage = st;
  const auto g = group::open("/data/g", r);
  CHECK(keys(g) == std::vector<std::string>{"s", "self"});
  CHECK(g.path_of(g.member_named("self")) == fs::path("/data/g"));
  const auto s = group::open(g.path_of(g.member_named("s")), r);
  CHECK(s.path_of(s.member_named("parent")) == fs::path("/data/g"));
  CHECK(s.member_named("parent").type == ObjectType::GROUP);
  // walk follows folders, never members: s once, and done.
  std::vector<std::string> seen;
  group::walk(*st, "/data/g", [&](const fs::path& p, ObjectType) { return seen.push_back(p.string()), true; });
  CHECK(seen == std::vector<std::string>{"/data/g/s"});
}

TEST_CASE("group: what a killed writer leaves (temporary files) changes nothing") {
  fixture f;
  f.details(10, {entry("a", "a", ObjectType::ARRAY, true)});
  f.meta(10, {format::MetadataEntry::of_string("k", "v")});
  const std::vector<std::byte> junk(7, std::byte{0xee});
  f.st->write(f.root / "__group" / ("__20_20_" + std::string(32, 'b') + "_2.tmp"), junk);
  f.st->write(f.root / "__meta" / ("__20_20_" + std::string(32, 'b') + ".tmp"), junk);
  const auto g = f.open();
  CHECK(keys(g) == std::vector<std::string>{"a"});
  CHECK(g.metadata().get_string("k") == "v");
  CHECK(g.details_files().size() == 1);
}

} // namespace test_group
