// Tagged unions: tagged<Tag, ...> (the tag just before the value) and
// switch_on<"field", ...> (an earlier field's value), alternatives chosen by
// the table on decode and the tag taken from the alternative on encode,
// unknown tags as errors or kept by otherwise<Body> (a TLV stream re-encodes
// byte for byte), dumps and truncation.
#include "tilefmt/codec/switch.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/codec.hpp"

#include "../support/testing.hpp"

namespace test_switch {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {
struct Point {
  std::int16_t x, y;
  friend bool operator==(const Point&, const Point&) = default;
};
struct Text {
  codec::counted<std::uint8_t, std::string> s;
  friend bool operator==(const Text&, const Text&) = default;
};
struct Empty {
  friend bool operator==(const Empty&, const Empty&) = default;
};

struct Shape {
  std::uint8_t lead;
  codec::tagged<std::uint8_t, codec::alt<1, Point>, codec::alt<2, Text>, codec::alt<9, Empty>> body;
  friend bool operator==(const Shape&, const Shape&) = default;
};

enum class Kind : std::uint16_t { point = 0x0102, text = 0x0304 };
struct BigTagged {  // an enum tag stored big-endian
  codec::tagged<codec::big<Kind>, codec::alt<Kind::point, Point>, codec::alt<Kind::text, Text>> v;
  friend bool operator==(const BigTagged&, const BigTagged&) = default;
};

// The tag is an earlier field, with another field between.
struct Linked {
  codec::derived<std::uint8_t> type;
  std::uint16_t id;
  codec::switch_on<"type", codec::alt<1, Point>, codec::alt<2, Text>> body;
  friend bool operator==(const Linked&, const Linked&) = default;
};
// A plain tag field: written as held, and it must agree.
struct Plain {
  std::uint8_t type;
  codec::switch_on<"type", codec::alt<1, Point>, codec::alt<2, Text>> body;
  friend bool operator==(const Plain&, const Plain&) = default;
};

// TLV: type, length, value; unknown types keep their bytes.
struct Tlv {
  codec::derived<std::uint8_t> type;
  codec::framed<std::uint16_t, codec::switch_on<"type", codec::alt<1, Point>, codec::alt<2, Text>,
                                                codec::otherwise<codec::rest<std::vector<std::byte>>>>>
      value;
  friend bool operator==(const Tlv&, const Tlv&) = default;
};
struct Stream {
  codec::rest<std::vector<Tlv>> records;
  friend bool operator==(const Stream&, const Stream&) = default;
};

template <class T>
format_error error_of(const std::vector<std::byte>& b) {
  try {
    (void)codec::decode<T>(b);
  } catch (const format_error& e) {
    return e;
  }
  FAIL("decoded bad bytes");
  return format_error("", 0);
}
} // namespace

TEST_CASE("tagged<>: the tag before the value selects the alternative, and encode writes it from the alternative") {
  Shape p{7, {Point{-2, 3}}};
  auto b = check_round_trip(p);
  CHECK(b == bytes_of({7, 1, 0xfe, 0xff, 3, 0}));
  check_every_prefix_throws<Shape>(b);

  Shape t{7, {Text{{"hi"}}}};
  b = check_round_trip(t);
  CHECK(b == bytes_of({7, 2, 2, 'h', 'i'}));
  check_every_prefix_throws<Shape>(b);
  CHECK(codec::decode<Shape>(b).body->index() == 1);

  Shape e{7, {Empty{}}};
  CHECK(check_round_trip(e) == bytes_of({7, 9}));

  BigTagged k{{Text{{"a"}}}};
  CHECK(check_round_trip(k) == bytes_of({3, 4, 1, 'a'}));
  k.v.value = Point{1, 2};
  CHECK(check_round_trip(k) == bytes_of({1, 2, 1, 0, 2, 0}));
}

TEST_CASE("tagged<>: an unknown tag names the field, the tag, the tags known and the tag's offset") {
  auto e = error_of<Shape>(bytes_of({7, 3, 0, 0}));
  CHECK(std::string(e.what()) == "Shape.body: unknown tag 3 (known: 1, 2, 9) at offset 1");
  e = error_of<BigTagged>(bytes_of({1, 3, 0, 0}));
  CHECK(std::string(e.what()) == "BigTagged.v: unknown tag 259 (known: 258, 772) at offset 0");
  // An error inside the alternative names the path through it.
  e = error_of<Shape>(bytes_of({7, 2, 5, 'a'}));
  CHECK(e.field() == "Shape.body.s[1]");
}

TEST_CASE("switch_on<>: the alternative follows an earlier field; a derived<> tag is written from it") {
  Linked l{{}, 0x0a0b, {Text{{"xyz"}}}};
  auto b = check_round_trip(l);
  CHECK(b == bytes_of({2, 0x0b, 0x0a, 3, 'x', 'y', 'z'}));
  CHECK(codec::decode<Linked>(b).type.value == 2);
  check_every_prefix_throws<Linked>(b);
  l.body.value = Point{5, 6};
  CHECK(check_round_trip(l) == bytes_of({1, 0x0b, 0x0a, 5, 0, 6, 0}));
  // The held value of a derived<> field plays no part in encoding.
  l.type.value = 200;
  CHECK(codec::encode(l) == bytes_of({1, 0x0b, 0x0a, 5, 0, 6, 0}));

  auto e = error_of<Linked>(bytes_of({4, 0, 0, 1, 2}));
  CHECK(std::string(e.what()) == "Linked.body: unknown tag type 4 (known: 1, 2) at offset 0");

  Plain p{2, {Text{{"q"}}}};
  CHECK(check_round_trip(p) == bytes_of({2, 1, 'q'}));
  p.type = 1;
  CHECK_THROWS_AS(codec::encode(p), std::invalid_argument);
}

TEST_CASE("otherwise<Body> keeps records of unknown type, and a TLV stream re-encodes byte for byte") {
  auto b = bytes_of({1, 4, 0, 1, 0, 2, 0,          // Point{1, 2}
                     7, 3, 0, 0xaa, 0xbb, 0xcc,    // type 7: unknown, kept
                     2, 3, 0, 2, 'o', 'k',         // Text "ok"
                     8, 0, 0});                    // type 8, empty
  auto s = codec::decode<Stream>(b);
  REQUIRE(s.records.size() == 4);
  CHECK(std::get<0>(s.records[0].value->value) == Point{1, 2});
  const auto& u = std::get<2>(s.records[1].value->value);
  CHECK(u.tag == 7);
  CHECK(u.value.value == bytes_of({0xaa, 0xbb, 0xcc}));
  CHECK(std::get<1>(s.records[2].value->value).s.value == "ok");
  CHECK(std::get<2>(s.records[3].value->value).tag == 8);
  CHECK(codec::encode(s) == b);
  CHECK(codec::encoded_size(s) == b.size());
  check_round_trip(s);
  // A prefix that ends between records is a shorter stream; any other is cut off.
  for (std::size_t n = 0; n < b.size(); ++n) {
    CAPTURE(n);
    if (n == 0 || n == 7 || n == 13 || n == 19)
      CHECK(codec::decode<Stream>(std::span(b).first(n)).records.size() == (n == 0 ? 0 : n == 7 ? 1 : n == 13 ? 2 : 3));
    else
      CHECK_THROWS_AS(codec::decode<Stream>(std::span(b).first(n)), format_error);
  }

  // A known record whose frame is longer than its value is an error inside the frame.
  auto bad = bytes_of({1, 5, 0, 1, 0, 2, 0, 0});
  auto e = error_of<Stream>(bad);
  CHECK(e.field() == "Stream.records[0].value");
  CHECK(e.offset() == 7);

  // unknown<> holding a tag the table knows cannot be written: decode would
  // read the known alternative.
  Stream w{{{Tlv{{}, {codec::unknown<codec::rest<std::vector<std::byte>>>{1, {}}}}}}};
  CHECK_THROWS_AS(codec::encode(w), std::invalid_argument);
  // A tag too wide for the tag field.
  Stream wide{{{Tlv{{}, {codec::unknown<codec::rest<std::vector<std::byte>>>{300, {}}}}}}};
  CHECK_THROWS_AS(codec::encode(wide), std::length_error);
}

TEST_CASE("dumps show the alternative held, with field names, and derived tags as encode writes them") {
  Linked built{{}, 3, {Text{{"t"}}}};  // type never set: the dump shows the tag of the alternative
  CHECK(codec::to_text(built) == "Linked {\n  type: 2\n  id: 3\n  body: Text {\n    s: \"t\"\n  }\n}");
  Tlv tlv{{}, {{codec::unknown<codec::rest<std::vector<std::byte>>>{77, {}}}}};
  CHECK(codec::to_text(tlv).starts_with("Tlv {\n  type: 77\n"));
  Shape t{7, {Text{{"hi"}}}};
  CHECK(codec::to_text(t) == "Shape {\n  lead: 7\n  body: Text {\n    s: \"hi\"\n  }\n}");
  Linked l{{}, 3, {Point{1, 2}}};
  auto back = codec::decode<Linked>(codec::encode(l));
  CHECK(codec::to_json(back) ==
        "{\n  \"type\": 1,\n  \"id\": 3,\n  \"body\": {\n    \"x\": 1,\n    \"y\": 2\n  }\n}");
}

} // namespace test_switch
