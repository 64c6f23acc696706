// magic<"..."> checks fixed bytes on decode and writes them on encode; a
// plain std::array<char, N> stays an ordinary value.
#include "tilefmt/codec/magic.hpp"

#include <array>
#include <string>

#include "../support/testing.hpp"

namespace test_magic {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;
using tilefmt::testing::text_bytes;

namespace {
struct Header {
  codec::magic<"RIFF"> riff{};
  std::uint32_t size;
  codec::magic<"WAVE"> wave{};
  friend bool operator==(const Header&, const Header&) = default;
};
static_assert(codec::fixed_wire_size<Header> == 12);
static_assert(codec::fixed_wire_size<codec::magic<"\x89PNG\r\n\x1a\n">> == 8);

struct Signature { // escapes and a NUL inside the bytes
  codec::magic<"\x89P\0G"> signature{};
  std::uint8_t after;
  friend bool operator==(const Signature&, const Signature&) = default;
};
static_assert(codec::fixed_wire_size<Signature> == 5);

struct Tagged { // a tag that varies: an ordinary value
  std::array<char, 4> id;
  std::uint16_t n;
  friend bool operator==(const Tagged&, const Tagged&) = default;
};

struct Nested {
  std::uint8_t lead;
  codec::counted<std::uint8_t, std::vector<Header>> headers;
  friend bool operator==(const Nested&, const Nested&) = default;
};
} // namespace

TEST_CASE("magic bytes are written on encode and checked on decode") {
  Header h{.size = 0x01020304};
  auto b = check_round_trip(h);
  CHECK(b == bytes_of({'R', 'I', 'F', 'F', 4, 3, 2, 1, 'W', 'A', 'V', 'E'}));
  CHECK(codec::decode<Header>(b).size == 0x01020304);
  check_every_prefix_throws<Header>(b);

  Signature s{.after = 7};
  auto sb = check_round_trip(s);
  CHECK(sb == bytes_of({0x89, 'P', 0, 'G', 7}));
}

TEST_CASE("a wrong magic names the field, the expected and found bytes, and the offset") {
  auto b = bytes_of({'R', 'I', 'F', 'F', 4, 3, 2, 1, 'W', 'A', 'V', 'X'});
  try {
    (void)codec::decode<Header>(b);
    FAIL("decoded a wrong magic");
  } catch (const format_error& e) {
    CHECK(e.field() == "Header.wave");
    CHECK(e.offset() == 8);
    CHECK(std::string(e.what()) ==
          "Header.wave: expected magic \"WAVE\" (57415645), found \"WAVX\" (57415658) at offset 8");
  }
  // Each byte of each magic is checked, and the path goes through arrays.
  Nested n{.lead = 1, .headers = {{Header{.size = 5}, Header{.size = 6}}}};
  auto nb = check_round_trip(n);
  REQUIRE(nb.size() == 26);
  for (std::size_t i = 2; i < nb.size(); ++i) {
    if ((i - 2) % 12 >= 4 && (i - 2) % 12 < 8) continue; // the size field takes any bytes
    CAPTURE(i);
    auto bad = nb;
    bad[i] ^= std::byte{0x20};
    try {
      (void)codec::decode<Nested>(bad);
      FAIL("decoded a wrong magic");
    } catch (const format_error& e) {
      std::size_t element = (i - 2) / 12, at = (i - 2) % 12;
      CHECK(e.field() == "Nested.headers[" + std::to_string(element) + "]." + (at < 4 ? "riff" : "wave"));
      CHECK(e.offset() == 2 + element * 12 + (at < 4 ? 0 : 8));
    }
  }
  // Non-printable bytes are escaped.
  auto sb = bytes_of({0x88, 'P', 0, 'G', 7});
  CHECK_THROWS_WITH_AS(codec::decode<Signature>(sb),
                       "Signature.signature: expected magic \"\\u0089P\\u0000G\" (89500047), found "
                       "\"\\u0088P\\u0000G\" (88500047) at offset 0",
                       format_error);
}

TEST_CASE("a truncated magic says what was expected") {
  auto b = text_bytes("RI");
  CHECK_THROWS_WITH_AS(codec::decode<Header>(b), "Header.riff: needs 4 bytes (magic \"RIFF\" (52494646)) at offset 0, 2 left",
                       format_error);
}

TEST_CASE("std::array<char, N> keeps its behaviour: any bytes, written as held") {
  Tagged t{{'f', 'm', 't', ' '}, 16};
  auto b = check_round_trip(t);
  CHECK(b == bytes_of({'f', 'm', 't', ' ', 16, 0}));
  auto other = bytes_of({'d', 'a', 't', 'a', 1, 0});
  CHECK(codec::decode<Tagged>(other).id == std::array<char, 4>{'d', 'a', 't', 'a'});
  CHECK(codec::to_text(t) == "Tagged {\n  id: \"fmt \"\n  n: 16\n}");
  static_assert(codec::fixed_wire_size<Tagged> == 6);
}

TEST_CASE("dumps name magic fields and show their bytes") {
  Header h{.size = 12};
  CHECK(codec::to_text(h) == "Header {\n  riff: \"RIFF\"\n  size: 12\n  wave: \"WAVE\"\n}");
  CHECK(codec::to_json(h) == "{\n  \"riff\": \"RIFF\",\n  \"size\": 12,\n  \"wave\": \"WAVE\"\n}");
}

} // namespace test_magic
