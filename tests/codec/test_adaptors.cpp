// Round trips of every field adaptor, alone and combined, on randomized
// values; exact bytes for small hand-worked cases; every prefix of every
// encoding rejected.
#include "tilefmt/codec/adaptors.hpp"

#include <array>
#include <string>
#include <vector>

#include "../support/testing.hpp"

namespace test_adaptors {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {

struct Counted {
  codec::counted<std::uint8_t, std::string> name;
  codec::counted<std::uint16_t, std::vector<std::int32_t>> values;
  codec::counted<std::uint64_t, std::vector<std::byte>> blob;
  friend bool operator==(const Counted&, const Counted&) = default;
};

struct Linked {
  codec::count_of<"first", std::uint32_t> n_first;
  codec::count_of<"second", std::uint8_t> n_second;
  std::uint16_t between;
  std::vector<std::uint64_t> first;
  std::vector<Counted> second;
  friend bool operator==(const Linked& a, const Linked& b) {
    return a.between == b.between && a.first == b.first && a.second == b.second;
  }
};

// Counts first, arrays later (the layout of CompressionMD), and the same
// format with fields inserted among them: the names keep each count on its
// container.
struct CountsFirst {
  codec::count_of<"metadata_parts", std::uint32_t> num_metadata_parts;
  codec::count_of<"data_parts", std::uint32_t> num_data_parts;
  std::vector<std::uint16_t> metadata_parts;
  std::vector<std::uint16_t> data_parts;
  friend bool operator==(const CountsFirst&, const CountsFirst&) = default;
};
struct CountsFirstInserted {
  codec::count_of<"metadata_parts", std::uint32_t> num_metadata_parts;
  std::uint8_t inserted;
  codec::count_of<"data_parts", std::uint32_t> num_data_parts;
  std::vector<std::uint16_t> metadata_parts;
  std::uint8_t also_inserted;
  std::vector<std::uint16_t> data_parts;
  friend bool operator==(const CountsFirstInserted&, const CountsFirstInserted&) = default;
};

struct Versioned {
  codec::version_field<std::uint32_t> version;
  std::int8_t always;
  codec::since<3, std::uint16_t> from3;
  codec::until<5, std::uint8_t> before5;
  codec::since<7, codec::counted<std::uint32_t, std::string>> from7;
  friend bool operator==(const Versioned& a, const Versioned& b) = default;
};

// Gates whose version comes from the caller.
struct Gated {
  std::uint8_t a;
  codec::since<6, std::uint32_t> b;
  friend bool operator==(const Gated&, const Gated&) = default;
};
struct VersionCtx {
  std::uint32_t version;
};

struct Entry { // TileDB array metadata entry shape
  codec::counted<std::uint32_t, std::string> key;
  std::uint8_t del;
  codec::when<codec::field_equals<"del", 0>, std::uint8_t> type;
  codec::when<codec::field_equals<"del", 0>, codec::counted<std::uint32_t, std::vector<std::byte>>> value;
  friend bool operator==(const Entry&, const Entry&) = default;
};

struct EntryInserted { // Entry with a field between the flag and what it gates
  codec::counted<std::uint32_t, std::string> key;
  std::uint8_t del;
  std::uint16_t inserted;
  codec::when<codec::field_equals<"del", 0>, std::uint8_t> type;
  friend bool operator==(const EntryInserted&, const EntryInserted&) = default;
};

struct IsPositive {
  bool operator()(const auto& parent) const { return parent.sign > 0; }
};
struct WithPredicate {
  std::int8_t sign;
  codec::when<IsPositive, double> magnitude;
  friend bool operator==(const WithPredicate&, const WithPredicate&) = default;
};

enum class Width : std::uint8_t { one = 1, two = 2, four = 4 };
struct ExtentBytes { // length from an earlier field
  std::size_t operator()(const auto& parent) const { return static_cast<std::size_t>(parent.width); }
};
struct FromContext { // length from the caller's context
  std::size_t operator()(const auto&, const auto& ctx) const { return ctx.num_fields; }
};
struct Sized {
  Width width;
  codec::sized<ExtentBytes, std::vector<std::byte>> extent;
  codec::sized<FromContext, std::vector<std::uint64_t>> per_field;
  friend bool operator==(const Sized&, const Sized&) = default;
};
struct FieldCtx {
  std::size_t num_fields;
};

struct Inner {
  std::uint16_t a;
  std::array<std::uint8_t, 3> b;
  friend bool operator==(const Inner&, const Inner&) = default;
};
struct Framed {
  codec::framed<std::uint32_t, Counted> body;
  codec::framed<std::uint8_t, Inner> fixed;
  friend bool operator==(const Framed&, const Framed&) = default;
};

struct Rest {
  std::uint32_t header;
  codec::rest<std::vector<std::uint16_t>> tail;
  friend bool operator==(const Rest&, const Rest&) = default;
};
struct RestRecords {
  std::uint8_t header;
  codec::rest<std::vector<Counted>> tail;
  friend bool operator==(const RestRecords&, const RestRecords&) = default;
};

// Everything at once, nested.
struct Combined {
  codec::version_field<std::uint16_t> version;
  codec::counted<std::uint32_t, std::vector<Versioned>> inner_versions; // each sets its own version
  codec::since<2, Linked> linked;
  codec::counted<std::uint8_t, std::vector<Entry>> entries;
  codec::since<3, codec::counted<std::uint16_t, std::vector<std::array<Inner, 2>>>> arrays;
  friend bool operator==(const Combined&, const Combined&) = default;
};

Counted random_counted(tilefmt::testing::rng& r) {
  Counted c;
  c.name.value = r.text(40);
  c.values.value = r.values<std::int32_t>(r.below(20));
  c.blob.value = r.values<std::byte>(r.below(33));
  return c;
}

} // namespace

TEST_CASE("counted: exact bytes") {
  Counted c{{"ab"}, {{-1, 2}}, {{std::byte{9}}}};
  auto b = check_round_trip(c);
  CHECK(b == bytes_of({2, 'a', 'b', 2, 0, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9}));
  check_every_prefix_throws<Counted>(b);
}

TEST_CASE("counted: randomized round trips") {
  tilefmt::testing::rng r;
  for (int i = 0; i < 200; ++i) check_round_trip(random_counted(r));
}

TEST_CASE("counted: a count that does not fit its width is an encode error") {
  Counted c;
  c.name.value = std::string(256, 'x');
  CHECK_THROWS_AS(codec::encode(c), std::length_error);
}

TEST_CASE("count_of: counts stored apart are derived on encode") {
  Linked l;
  l.between = 0xabcd;
  l.first = {1, 2, 3};
  l.second = {Counted{{"z"}, {}, {}}};
  l.n_first.value = 99; // ignored: the container decides
  auto b = check_round_trip(l);
  CHECK(b.size() == 4 + 1 + 2 + 24 + (1 + 1 + 2 + 8));
  CHECK(b[0] == std::byte{3});
  CHECK(b[4] == std::byte{1});
  auto back = codec::decode<Linked>(b);
  CHECK(back.n_first.value == 3);
  CHECK(back.n_second.value == 1);
  check_every_prefix_throws<Linked>(b);

  tilefmt::testing::rng r;
  for (int i = 0; i < 100; ++i) {
    Linked x;
    x.between = r.next<std::uint16_t>();
    x.first = r.values<std::uint64_t>(r.below(50));
    for (std::size_t k = r.below(5); k > 0; --k) x.second.push_back(random_counted(r));
    check_round_trip(x);
  }
}

TEST_CASE("count_of: names link counts to containers after them, wherever fields are inserted") {
  CountsFirst c{{}, {}, {1, 2}, {3}};
  auto b = check_round_trip(c);
  CHECK(b == bytes_of({2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 3, 0}));
  auto back = codec::decode<CountsFirst>(b);
  CHECK(back.num_metadata_parts.value == 2);
  CHECK(back.num_data_parts.value == 1);
  check_every_prefix_throws<CountsFirst>(b);

  CountsFirstInserted i{{}, 0xaa, {}, {1, 2}, 0xbb, {3}};
  auto bi = check_round_trip(i);
  CHECK(bi == bytes_of({2, 0, 0, 0, 0xaa, 1, 0, 0, 0, 1, 0, 2, 0, 0xbb, 3, 0}));
  auto back_i = codec::decode<CountsFirstInserted>(bi);
  CHECK(back_i.num_metadata_parts.value == 2);
  CHECK(back_i.num_data_parts.value == 1);
  check_every_prefix_throws<CountsFirstInserted>(bi);

  // The dump shows each count as its container's size.
  CHECK(codec::to_text(i) == "CountsFirstInserted {\n  num_metadata_parts: 2\n  inserted: 170\n  num_data_parts: 1\n"
                             "  metadata_parts: [1, 2]\n  also_inserted: 187\n  data_parts: [3]\n}");
}

TEST_CASE("version gates: from a version_field") {
  for (std::uint32_t v : {1u, 3u, 4u, 5u, 6u, 7u, 23u}) {
    CAPTURE(v);
    Versioned x{{v}, -3, {0x1234}, {7}, {{"seven"}}};
    if (v < 3) x.from3.value = 0;
    if (v >= 5) x.before5.value = 0;
    if (v < 7) x.from7.value.value.clear();
    auto b = check_round_trip(x);
    std::size_t expect = 4 + 1 + (v >= 3 ? 2 : 0) + (v < 5 ? 1 : 0) + (v >= 7 ? 4 + 5 : 0);
    CHECK(b.size() == expect);
    check_every_prefix_throws<Versioned>(b);
  }
}

TEST_CASE("version gates: from the caller's context") {
  Gated g{5, {77}};
  auto b6 = check_round_trip(g, VersionCtx{6});
  CHECK(b6 == bytes_of({5, 77, 0, 0, 0}));
  auto b5 = codec::encode(g, VersionCtx{5});
  CHECK(b5 == bytes_of({5}));
  CHECK(codec::decode<Gated>(b5, VersionCtx{5}).b.value == 0);
  // Bytes that carry the gated field but decoded as version 5: trailing bytes.
  CHECK_THROWS_AS(codec::decode<Gated>(b6, VersionCtx{5}), format_error);
}

TEST_CASE("when: fields present only for a given value of an earlier field") {
  Entry live{{"scale"}, 0, {3}, {{bytes_of({0, 0, 0, 0, 0, 0, 0xf0, 0x3f})}}};
  auto b = check_round_trip(live);
  CHECK(b.size() == 4 + 5 + 1 + 1 + 4 + 8);
  check_every_prefix_throws<Entry>(b);

  Entry deleted{{"gone"}, 1, {}, {}};
  auto d = check_round_trip(deleted);
  CHECK(d == bytes_of({4, 0, 0, 0, 'g', 'o', 'n', 'e', 1}));

  EntryInserted li{{"k"}, 0, 0x0102, {7}}, di{{"k"}, 1, 0x0102, {}};
  CHECK(check_round_trip(li) == bytes_of({1, 0, 0, 0, 'k', 0, 2, 1, 7}));
  CHECK(check_round_trip(di) == bytes_of({1, 0, 0, 0, 'k', 1, 2, 1}));

  WithPredicate p{1, {2.5}}, n{-1, {}};
  CHECK(check_round_trip(p).size() == 9);
  CHECK(check_round_trip(n).size() == 1);
}

TEST_CASE("sized: lengths from earlier fields and from the context") {
  Sized s{Width::four, {bytes_of({1, 2, 3, 4})}, {{10, 20, 30}}};
  auto b = check_round_trip(s, FieldCtx{3});
  CHECK(b.size() == 1 + 4 + 24);
  check_every_prefix_throws<Sized>(b, FieldCtx{3});
  // A container that disagrees with its length function cannot be encoded.
  Sized bad{Width::two, {bytes_of({1, 2, 3})}, {{1, 2, 3}}};
  CHECK_THROWS_AS(codec::encode(bad, FieldCtx{3}), std::length_error);
}

TEST_CASE("framed: a length-prefixed record must use exactly its bytes") {
  Framed f{{Counted{{"abc"}, {{1}}, {}}}, {Inner{7, {1, 2, 3}}}};
  auto b = check_round_trip(f);
  CHECK(b.size() == 4 + (1 + 3 + 2 + 4 + 8) + 1 + 5);
  CHECK(b[0] == std::byte{18});
  check_every_prefix_throws<Framed>(b);
  auto longer = b;
  longer[0] = std::byte{19}; // frame claims one byte more than the record uses
  longer.insert(longer.begin() + 4 + 18, std::byte{0});
  CHECK_THROWS_AS(codec::decode<Framed>(longer), format_error);
}

TEST_CASE("rest: the remainder of the buffer") {
  Rest x{42, {{1, 2, 3}}};
  auto b = check_round_trip(x);
  CHECK(b.size() == 10);
  auto odd = b;
  odd.push_back(std::byte{0}); // not a whole uint16
  CHECK_THROWS_AS(codec::decode<Rest>(odd), format_error);
  check_round_trip(Rest{1, {}});

  tilefmt::testing::rng r;
  RestRecords rr{5, {}};
  for (int i = 0; i < 4; ++i) rr.tail.value.push_back(random_counted(r));
  check_round_trip(rr);
}

TEST_CASE("combined: nested, vectors of structs, versioned, conditional") {
  tilefmt::testing::rng r;
  for (int i = 0; i < 50; ++i) {
    Combined c;
    c.version.value = static_cast<std::uint16_t>(1 + r.below(4));
    for (std::size_t k = r.below(4); k > 0; --k) {
      std::uint32_t v = static_cast<std::uint32_t>(1 + r.below(10));
      Versioned x{{v}, r.next<std::int8_t>(), {}, {}, {}};
      if (v >= 3) x.from3.value = r.next<std::uint16_t>();
      if (v < 5) x.before5.value = r.next<std::uint8_t>();
      if (v >= 7) x.from7.value.value = r.text(10);
      c.inner_versions.value.push_back(x);
    }
    if (c.version.value >= 2) {
      c.linked.value.between = r.next<std::uint16_t>();
      c.linked.value.first = r.values<std::uint64_t>(r.below(9));
    }
    for (std::size_t k = r.below(5); k > 0; --k) {
      Entry e;
      e.key.value = r.text(8);
      e.del = r.below(2) ? 1 : 0;
      if (e.del == 0) {
        e.type.value = r.next<std::uint8_t>();
        e.value.value.value = r.values<std::byte>(r.below(17));
      }
      c.entries.value.push_back(e);
    }
    if (c.version.value >= 3)
      for (std::size_t k = r.below(3); k > 0; --k)
        c.arrays.value.value.push_back({Inner{r.next<std::uint16_t>(), {1, 2, 3}}, Inner{}});
    auto b = check_round_trip(c);
    if (i < 10) check_every_prefix_throws<Combined>(b);
  }
}

TEST_CASE("decode_into from a reader: containers keep their capacity, closed gates keep their value") {
  static_assert(!codec::has_gated_fields<Counted>);
  static_assert(!codec::has_gated_fields<Linked>);
  static_assert(codec::has_gated_fields<Gated>);
  static_assert(codec::has_gated_fields<Entry>);
  static_assert(codec::has_gated_fields<Combined>);
  static_assert(codec::has_gated_fields<codec::counted<std::uint8_t, std::vector<Entry>>>); // through elements
  static_assert(!codec::has_gated_fields<Sized>);
  static_assert(!codec::has_gated_fields<Framed>);

  // Chunk after chunk into one object: the second decode (smaller) reuses
  // the first one's buffer.
  Counted big{{std::string(200, 'x')}, {}, {}};
  big.values.value.assign(300, 7);
  Counted small{{"ab"}, {}, {}};
  small.values.value.assign(3, 9);
  Counted reused{};
  {
    auto bytes = codec::encode(big);
    codec::reader r(bytes);
    codec::decode_into(r, reused);
    CHECK(r.at_end());
    CHECK(reused == big);
  }
  const auto* before = reused.values.value.data();
  {
    auto bytes = codec::encode(small);
    codec::reader r(bytes);
    codec::decode_into(r, reused);
    CHECK(r.at_end());
    CHECK(reused == small);
  }
  CHECK(reused.values.value.data() == before);

  // A gate that is closed leaves the field alone: that is what lets a
  // decoder preset it; the caller who reuses starts from T{}.
  Gated g{5, {77}};
  Gated kept{};
  codec::decode_into(codec::encode(g, VersionCtx{6}), kept, VersionCtx{6});
  CHECK(kept.b.value == 77);
  codec::decode_into(codec::encode(g, VersionCtx{5}), kept, VersionCtx{5});
  CHECK(kept.b.value == 77);
  kept = Gated{};
  codec::decode_into(codec::encode(g, VersionCtx{5}), kept, VersionCtx{5});
  CHECK(kept.b.value == 0);
}

} // namespace test_adaptors
