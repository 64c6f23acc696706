// Offsets: at<"field", T> decodes T at the position an earlier field holds
// (from the start of the buffer), keeps the bytes it jumps over, and on
// encode a derived<U> offset field is written as where T lands, with
// padding, counted containers and other fields between; positions out of
// range name both fields; decode_at follows an offset on demand.
#include "tilefmt/codec/offset.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/codec.hpp"

#include "../support/testing.hpp"

namespace test_offset {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {
struct Table {
  std::uint16_t a, b;
  friend bool operator==(const Table&, const Table&) = default;
};

struct Header {
  codec::derived<std::uint32_t> table_offset;
  codec::counted<std::uint8_t, std::string> name;
  codec::align<4> to4{};
  std::uint8_t n;
  codec::at<"table_offset", Table> table;
  friend bool operator==(const Header&, const Header&) = default;
};

struct Plain {  // the offset is a plain field: it must say where the table lands
  std::uint8_t table_offset;
  codec::at<"table_offset", Table> table;
  friend bool operator==(const Plain&, const Plain&) = default;
};

struct Count {
  std::uint64_t operator()(const auto& parent) const { return parent.n; }
};
struct Many {  // several records at an offset, as many as a field says
  std::uint8_t n;
  codec::derived<std::uint16_t> at_;
  codec::at<"at_", codec::sized<Count, std::vector<Table>>> tables;
  codec::rest<std::vector<std::byte>> trailing;
  friend bool operator==(const Many&, const Many&) = default;
};

struct Outer {  // offsets count from the start of the buffer, wherever the struct starts
  std::uint8_t lead;
  Header header;
  friend bool operator==(const Outer&, const Outer&) = default;
};
} // namespace

TEST_CASE("at<>: the offset is computed on encode, the bytes jumped over are kept") {
  Header h{{}, {"abc"}, {}, 9, {{std::byte{0xee}, std::byte{0xff}}, Table{0x0102, 0x0304}}};
  auto b = check_round_trip(h);
  // offset (4) | "abc" with its length (4), aligned already | n | skipped (2) | table
  CHECK(b == bytes_of({11, 0, 0, 0, 3, 'a', 'b', 'c', 9, 0xee, 0xff, 2, 1, 4, 3}));
  check_every_prefix_throws<Header>(b);
  auto back = codec::decode<Header>(b);
  CHECK(back.table_offset.value == 11);
  CHECK(back.table.skipped == bytes_of({0xee, 0xff}));

  // The name grows: the padding and the offset follow.
  h.name.value = "abcde";
  b = check_round_trip(h);
  CHECK(b.size() == 4 + 6 + 2 + 1 + 2 + 4);
  CHECK(codec::decode<Header>(b).table_offset.value == 15);
  h.table.skipped.clear();
  b = check_round_trip(h);
  CHECK(b[0] == std::byte{13});

  // Inside another struct the offset counts from the buffer's start.
  Outer o{7, h};
  auto ob = check_round_trip(o);
  CHECK(ob[1] == std::byte{14});
  CHECK(codec::decode<Outer>(ob).header.table->b == 0x0304);
}

TEST_CASE("at<>: a plain offset field must hold where the value lands") {
  Plain p{3, {{std::byte{9}, std::byte{8}}, Table{1, 2}}};
  CHECK(check_round_trip(p) == bytes_of({3, 9, 8, 1, 0, 2, 0}));
  p.table_offset = 4;
  CHECK_THROWS_AS(codec::encode(p), std::invalid_argument);
}

TEST_CASE("at<>: sized<> values take their length from the struct") {
  Many m{2, {}, {{std::byte{0}}, {{{Table{1, 2}, Table{3, 4}}}}}, {{std::byte{0x77}}}};
  auto b = check_round_trip(m);
  CHECK(b == bytes_of({2, 4, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 0x77}));
  m.n = 3;
  CHECK_THROWS_AS(codec::encode(m), std::length_error);
}

TEST_CASE("at<>: offsets out of range name the fields") {
  // past the end
  auto b = bytes_of({40, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0});
  CHECK_THROWS_WITH_AS(codec::decode<Header>(b),
                       "Header.table: offset 40 (field table_offset) is past the end of the input (12 bytes) at offset 0",
                       format_error);
  // before the field
  b = bytes_of({2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0});
  CHECK_THROWS_WITH_AS(codec::decode<Header>(b),
                       "Header.table: offset 2 (field table_offset) points before this field (at 9); decode what it "
                       "points to with decode_at at offset 0",
                       format_error);
  // a count larger than the bytes at the offset
  auto m = bytes_of({200, 3, 0, 1, 0, 2, 0});
  auto e = [&] {
    try {
      (void)codec::decode<Many>(m);
    } catch (const format_error& err) {
      return std::string(err.field());
    }
    return std::string("decoded");
  }();
  CHECK(e == "Many.tables[1]");
}

TEST_CASE("decode_at follows an offset to a structure anywhere in the buffer") {
  auto b = bytes_of({0xaa, 0xbb, 5, 0, 6, 0, 0xcc});
  CHECK(codec::decode_at<Table>(b, 2) == Table{5, 6});
  CHECK_THROWS_WITH_AS(codec::decode_at<Table>(b, 8), "Table: offset 8 is past the end of the input (7 bytes) at offset 0",
                       format_error);
  CHECK_THROWS_WITH_AS(codec::decode_at<Table>(b, 5), "Table.b: needs 2 bytes at offset 7, 0 left", format_error);
}

TEST_CASE("dumps show the value at the offset") {
  Plain p{1, {{}, Table{1, 2}}};
  CHECK(codec::to_text(codec::decode<Plain>(codec::encode(p))) ==
        "Plain {\n  table_offset: 1\n  table: Table {\n    a: 1\n    b: 2\n  }\n}");
}

} // namespace test_offset
