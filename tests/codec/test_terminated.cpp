// null_terminated<> strings and repeat_until<> sequences: exact bytes,
// random round trips, missing terminators, encodes that decode could not
// read back, sequences that run to the end of a frame (rest<>), dumps.
#include "tilefmt/codec/terminated.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/endian.hpp"

#include "../support/testing.hpp"

namespace test_terminated {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;
using tilefmt::testing::text_bytes;

namespace {
struct Names {
  codec::cstring first;
  std::uint8_t between;
  codec::null_terminated<std::string> second;
  friend bool operator==(const Names&, const Names&) = default;
};

struct Words { // a list ended by the value 0, which is kept
  codec::repeat_until<codec::element_equals<0>, std::vector<codec::big<std::uint16_t>>> words;
  std::uint8_t after;
  friend bool operator==(const Words&, const Words&) = default;
};

struct Record {
  std::array<char, 4> type;
  codec::counted<std::uint8_t, std::string> body;
  friend bool operator==(const Record&, const Record&) = default;
};
struct IsEnd {
  bool operator()(const Record& r) const { return r.type == std::array<char, 4>{'I', 'E', 'N', 'D'}; }
};
struct Records { // a list ended by an end record (the shape of PNG's chunks)
  codec::repeat_until<IsEnd, std::vector<Record>> records;
  friend bool operator==(const Records&, const Records&) = default;
};

// Records up to the end of an enclosing frame, then something after it.
struct FrameBody {
  std::uint8_t kind;
  codec::rest<std::vector<Record>> records;
  friend bool operator==(const FrameBody&, const FrameBody&) = default;
};
struct Framed {
  codec::framed<std::uint16_t, FrameBody> body;
  codec::cstring trailer;
  friend bool operator==(const Framed&, const Framed&) = default;
};

Record end_record() { return {{'I', 'E', 'N', 'D'}, {""}}; }
} // namespace

TEST_CASE("null_terminated strings: bytes, round trips, missing NUL, NUL inside") {
  Names n{{"abc"}, 7, {""}};
  auto b = check_round_trip(n);
  CHECK(b == bytes_of({'a', 'b', 'c', 0, 7, 0}));
  check_every_prefix_throws<Names>(b);
  CHECK(codec::decode<Names>(b).first.value == "abc");

  tilefmt::testing::rng r(5);
  for (int i = 0; i < 100; ++i) {
    Names x{{r.text(40)}, r.next<std::uint8_t>(), {r.text(3)}};
    auto xb = check_round_trip(x);
    CHECK(xb.size() == x.first->size() + x.second->size() + 3);
  }

  CHECK_THROWS_WITH_AS(codec::decode<Names>(text_bytes("abc")), "Names.first: no NUL terminator in the 3 bytes left at offset 0",
                       format_error);
  auto missing_second = bytes_of({'a', 0, 7, 'x', 'y'});
  CHECK_THROWS_WITH_AS(codec::decode<Names>(missing_second),
                       "Names.second: no NUL terminator in the 2 bytes left at offset 3", format_error);
  Names bad{{std::string("a\0b", 3)}, 0, {""}};
  CHECK_THROWS_AS(codec::encode(bad), std::invalid_argument);
}

TEST_CASE("repeat_until keeps the terminating element and stops there") {
  Words w{{{{1}, {0x0203}, {0}}}, 9};
  auto b = check_round_trip(w);
  CHECK(b == bytes_of({0, 1, 2, 3, 0, 0, 9}));
  check_every_prefix_throws<Words>(b);
  CHECK(codec::decode<Words>(b).words.size() == 3);

  // No terminator before the input ends.
  CHECK_THROWS_WITH_AS(codec::decode<Words>(bytes_of({0, 1, 0, 2})),
                       "Words.words: the input ends before the element that ends the sequence "
                       "(element_equals<0>) at offset 4 (2 elements read)",
                       format_error);
  // Half an element.
  CHECK_THROWS_WITH_AS(codec::decode<Words>(bytes_of({0, 1, 0})), "Words.words[1]: needs 2 bytes at offset 2, 1 left",
                       format_error);
  // Encodes that decode would not read back.
  Words early{{{{0}, {1}, {0}}}, 0};
  CHECK_THROWS_AS(codec::encode(early), std::invalid_argument);
  Words unended{{{{1}}}, 0};
  CHECK_THROWS_AS(codec::encode(unended), std::invalid_argument);
  Words empty{};
  CHECK_THROWS_AS(codec::encode(empty), std::invalid_argument);
}

TEST_CASE("repeat_until over records, randomized") {
  tilefmt::testing::rng r(11);
  for (int i = 0; i < 50; ++i) {
    Records rs;
    const std::size_t n = r.below(6);
    for (std::size_t k = 0; k < n; ++k) rs.records.value.push_back({{'d', 'a', 't', 'a'}, {r.text(10)}});
    rs.records.value.push_back(end_record());
    auto b = check_round_trip(rs);
    check_every_prefix_throws<Records>(b);
    // Bytes after the end record are not part of the sequence.
    b.push_back(std::byte{0});
    CHECK_THROWS_WITH_AS(codec::decode<Records>(b),
                         ("Records: 1 trailing bytes after the end of the structure at offset " +
                          std::to_string(b.size() - 1))
                             .c_str(),
                         format_error);
  }
}

TEST_CASE("rest<> inside framed<> reads up to the end of the frame, not of the buffer") {
  Framed f{{{2, {{Record{{'a', 'b', 'c', 'd'}, {"xy"}}, end_record()}}}}, {"tail"}};
  auto b = check_round_trip(f);
  CHECK(b.size() == 2 + 1 + 7 + 5 + 5);
  check_every_prefix_throws<Framed>(b);
  auto back = codec::decode<Framed>(b);
  CHECK(back.body->records.size() == 2);
  CHECK(back.trailer.value == "tail");
  // A frame one byte shorter cuts the last record: the error is inside the frame.
  auto shorter = b;
  shorter[0] = std::byte{static_cast<unsigned char>(std::to_integer<unsigned>(b[0]) - 1)};
  CHECK_THROWS_AS(codec::decode<Framed>(shorter), format_error);
}

TEST_CASE("dumps show the strings and the elements") {
  Words w{{{{5}, {0}}}, 1};
  CHECK(codec::to_text(w) == "Words {\n  words: [5, 0]\n  after: 1\n}");
  Names n{{"a"}, 2, {"b"}};
  CHECK(codec::to_json(n) == "{\n  \"first\": \"a\",\n  \"between\": 2,\n  \"second\": \"b\"\n}");
}

} // namespace test_terminated
