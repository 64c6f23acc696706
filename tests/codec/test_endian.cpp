// big<T> and little<T> fix the byte order of one field, whatever the struct
// around it does: exact bytes, random round trips, enums and their
// validation, arrays, truncation. ordered<T> takes the byte order an
// earlier byte_order_field (ELF's EI_DATA, pcap's magic) or the context
// gives, for the rest of its struct and the structs inside it.
#include "tilefmt/codec/endian.hpp"

#include <array>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/testing.hpp"

namespace test_endian {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {
enum class Colour : std::uint16_t { grey = 0, rgb = 2, palette = 3 };
constexpr bool codec_enum_valid(Colour c) {
  return c == Colour::grey || c == Colour::rgb || c == Colour::palette;
}
constexpr std::string_view codec_enum_name(Colour c) {
  return c == Colour::grey ? "grey" : c == Colour::rgb ? "rgb" : "palette";
}

struct Mixed {
  codec::big<std::uint32_t> be32;
  std::uint32_t plain32;
  codec::little<std::uint16_t> le16;
  codec::big<std::int16_t> be16;
  codec::big<double> be_double;
  codec::big<float> be_float;
  codec::big<Colour> colour;
  codec::big<std::uint8_t> one_byte;
  friend bool operator==(const Mixed&, const Mixed&) = default;
};
static_assert(codec::fixed_wire_size<Mixed> == 4 + 4 + 2 + 2 + 8 + 4 + 2 + 1);

struct Table {
  codec::counted<std::uint8_t, std::vector<codec::big<std::uint16_t>>> values;
  std::array<codec::big<std::int32_t>, 2> pair;
  friend bool operator==(const Table&, const Table&) = default;
};
} // namespace

TEST_CASE("big<T> writes the most significant byte first, little<T> the least") {
  Mixed m{{0x01020304}, 0x01020304, {0x0a0b}, {-2}, {1.0}, {-2.0f}, {Colour::palette}, {9}};
  auto b = check_round_trip(m);
  CHECK(b == bytes_of({1, 2, 3, 4, 4, 3, 2, 1, 0x0b, 0x0a, 0xff, 0xfe, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
                       0xc0, 0, 0, 0, 0, 3, 9}));
  check_every_prefix_throws<Mixed>(b);
  Mixed back = codec::decode<Mixed>(b);
  CHECK(back.be32 == 0x01020304u);
  CHECK(*back.be16 == -2);
  CHECK(back.colour.value == Colour::palette);
}

TEST_CASE("random values round-trip and agree with a byte reversal of the plain encoding") {
  tilefmt::testing::rng r(17);
  for (int i = 0; i < 200; ++i) {
    const auto u64 = r.next<std::uint64_t>();
    const auto d = r.next<double>();
    codec::big<std::uint64_t> bu{u64};
    codec::big<double> bd{d};
    auto eb = check_round_trip(bu);
    auto le = codec::encode(u64);
    std::vector<std::byte> reversed(le.rbegin(), le.rend());
    CHECK(eb == reversed);
    auto ed = check_round_trip(bd);
    auto led = codec::encode(d);
    CHECK(ed == std::vector<std::byte>(led.rbegin(), led.rend()));
    CHECK(codec::encode(codec::little<double>{d}) == led);
  }
}

TEST_CASE("arrays of big<T> and invalid enum values") {
  Table t{{{{1}, {0x0203}}}, {{{-1}, {0x7f000000}}}};
  auto b = check_round_trip(t);
  CHECK(b == bytes_of({2, 0, 1, 2, 3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0}));
  check_every_prefix_throws<Table>(b);

  Mixed m{};
  auto mb = codec::encode(m);
  mb[25] = std::byte{1}; // colour 0x0001: not a Colour
  CHECK_THROWS_WITH_AS(codec::decode<Mixed>(mb), "Mixed.colour: invalid Colour value 1 at offset 24", format_error);
  mb[24] = std::byte{3}; // 0x0301 big-endian is 769, not 259 or 3
  CHECK_THROWS_WITH_AS(codec::decode<Mixed>(mb), "Mixed.colour: invalid Colour value 769 at offset 24", format_error);
}

TEST_CASE("truncation inside a big<T> names the field") {
  auto b = bytes_of({1, 2, 3});
  CHECK_THROWS_WITH_AS(codec::decode<Mixed>(b), "Mixed.be32: needs 4 bytes at offset 0, 3 left", format_error);
}

TEST_CASE("dumps show the value, with enum names") {
  Mixed m{{7}, 8, {9}, {-1}, {0.5}, {1.5f}, {Colour::rgb}, {1}};
  CHECK(codec::to_text(m) == "Mixed {\n  be32: 7\n  plain32: 8\n  le16: 9\n  be16: -1\n  be_double: 0.5\n"
                             "  be_float: 1.5\n  colour: rgb\n  one_byte: 1\n}");
}

namespace {
struct Inner {
  codec::ordered<std::uint16_t> a;
  codec::ordered<Colour> colour;
  friend bool operator==(const Inner&, const Inner&) = default;
};
// ELF's way: a byte, 1 little-endian, 2 big-endian.
struct Elfish {
  codec::byte_order_field<std::uint8_t, codec::byte_order_if<1, 2>> data;
  codec::ordered<std::uint32_t> word;
  codec::counted<std::uint8_t, std::vector<Inner>> inners;
  codec::ordered<std::int64_t> last;
  friend bool operator==(const Elfish&, const Elfish&) = default;
};
// pcap's way: the magic number, read little-endian, says the order.
struct Pcapish {
  codec::byte_order_field<std::uint32_t, codec::byte_order_if<0xa1b2c3d4u, 0xd4c3b2a1u>> magic;
  codec::ordered<std::uint16_t> major;
  friend bool operator==(const Pcapish&, const Pcapish&) = default;
};
struct Orders {
  codec::counted<std::uint8_t, std::vector<Elfish>> items;
  friend bool operator==(const Orders&, const Orders&) = default;
};
struct Big {
  static constexpr std::endian byte_order = std::endian::big;
};
struct Counted {  // a count in the byte order of the data
  codec::byte_order_field<std::uint8_t, codec::byte_order_if<1, 2>> data;
  codec::count_of<"items", codec::ordered<std::uint16_t>> n;
  std::vector<codec::ordered<std::uint16_t>> items;
  friend bool operator==(const Counted&, const Counted&) = default;
};
} // namespace

TEST_CASE("ordered<T> follows the byte order an earlier field names, in nested structs too") {
  Elfish le{{1}, {0x01020304}, {{Inner{{0x0a0b}, {Colour::palette}}}}, {-2}};
  auto b = check_round_trip(le);
  CHECK(b == bytes_of({1, 4, 3, 2, 1, 1, 0x0b, 0x0a, 3, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  check_every_prefix_throws<Elfish>(b);
  Elfish be = le;
  be.data.value = 2;
  b = check_round_trip(be);
  CHECK(b == bytes_of({2, 1, 2, 3, 4, 1, 0x0a, 0x0b, 0, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));
  check_every_prefix_throws<Elfish>(b);

  auto p = bytes_of({0xa1, 0xb2, 0xc3, 0xd4, 0, 2});  // written by a big-endian host
  CHECK(codec::decode<Pcapish>(p).major.value == 2);
  CHECK(check_round_trip(codec::decode<Pcapish>(p)) == p);
  p = bytes_of({0xd4, 0xc3, 0xb2, 0xa1, 2, 0});
  CHECK(codec::decode<Pcapish>(p).major.value == 2);

  // Each struct's order ends with it: a little-endian record after a big-endian one.
  Orders o{{{be, le}}};
  auto ob = check_round_trip(o);
  CHECK(codec::decode<Orders>(ob).items[1].word.value == 0x01020304u);
}

TEST_CASE("count_of<> takes an ordered<U> count") {
  Counted c{{2}, {}, {{0x0102}, {0x0304}}};
  auto b = check_round_trip(c);
  CHECK(b == bytes_of({2, 0, 2, 1, 2, 3, 4}));
  check_every_prefix_throws<Counted>(b);
  c.data.value = 1;
  CHECK(check_round_trip(c) == bytes_of({1, 2, 0, 2, 1, 4, 3}));
  CHECK_THROWS_AS(codec::decode<Counted>(bytes_of({1, 9, 0, 2, 1})), format_error);
}

TEST_CASE("a value that names no byte order, and ordered<T> without one, are errors") {
  auto e = bytes_of({3, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK_THROWS_WITH_AS(codec::decode<Elfish>(e), "Elfish.data: 3 names no byte order (expected 1 (little-endian) or 2 "
                                                 "(big-endian)) at offset 0",
                       format_error);
  Elfish bad{{0}, {}, {}, {}};
  CHECK_THROWS_AS(codec::encode(bad), std::invalid_argument);

  // A struct of ordered<> fields on its own takes the order from the context.
  auto ib = bytes_of({0x0a, 0x0b, 0, 2});
  CHECK_THROWS_WITH_AS(codec::decode<Inner>(ib),
                       "Inner.a: the byte order is not known (declare a byte_order_field before this field, or pass a "
                       "context with a `byte_order` member) at offset 0",
                       format_error);
  CHECK_THROWS_AS(codec::encode(Inner{}), std::logic_error);
  Inner in = codec::decode<Inner>(ib, Big{});
  CHECK(in.a.value == 0x0a0b);
  CHECK(in.colour.value == Colour::rgb);
  CHECK(codec::encode(in, Big{}) == ib);
  // Enum validation applies in either order.
  CHECK_THROWS_WITH_AS(codec::decode<Inner>(bytes_of({0, 0, 0, 9}), Big{}),
                       "Inner.colour: invalid Colour value 9 at offset 2", format_error);
}

TEST_CASE("dumps show ordered values and the byte order field") {
  Elfish be{{2}, {7}, {}, {-1}};
  CHECK(codec::to_text(be) == "Elfish {\n  data: 2\n  word: 7\n  inners: []\n  last: -1\n}");
}

} // namespace test_endian
