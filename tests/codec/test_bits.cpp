// Bit fields: runs of bits<N> (most significant bit first) and bits_le<N>
// (least significant first) packed into whole bytes; checked against the
// integer the run spells (big-endian for bits<>, little-endian for
// bits_le<>), DOS dates, an IPv4 header's first bytes, bool and enum
// fields, values too wide, truncation and dumps.
#include "tilefmt/codec/bits.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/codec.hpp"

#include "../support/testing.hpp"

namespace test_bits {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {
__extension__ typedef unsigned __int128 u128;

// ZIP's time and date: two little-endian u16, bit 0 first.
struct DosDateTime {
  codec::bits_le<5> second_half;
  codec::bits_le<6> minute;
  codec::bits_le<5> hour;
  codec::bits_le<5> day;
  codec::bits_le<4> month;
  codec::bits_le<7> year_from_1980;
  friend bool operator==(const DosDateTime&, const DosDateTime&) = default;
};

enum class Ecn : std::uint8_t { not_ect = 0, ect1 = 1, ect0 = 2, ce = 3 };

// An IPv4 header's first eight bytes: bit fields most significant first,
// and 16-bit fields that are big-endian integers.
struct Ipv4Start {
  codec::bits<4> version;
  codec::bits<4> ihl;
  codec::bits<6> dscp;
  codec::bits<2, Ecn> ecn;
  codec::bits<16> total_length;
  codec::bits<16> identification;
  codec::bits<1, bool> reserved;
  codec::bits<1, bool> dont_fragment;
  codec::bits<1, bool> more_fragments;
  codec::bits<13> fragment_offset;
  friend bool operator==(const Ipv4Start&, const Ipv4Start&) = default;
};

// Odd widths across byte boundaries, a 64-bit field, two runs split by a byte.
template <template <std::size_t, class> class B>
struct Wide {
  B<3, std::uint8_t> a;
  B<64, std::uint64_t> b;
  B<13, std::uint16_t> c;
  std::uint8_t between;
  B<7, std::uint8_t> d;
  B<1, bool> e;
  friend bool operator==(const Wide&, const Wide&) = default;
};
template <std::size_t N, class T>
using msb = codec::bits<N, T>;
template <std::size_t N, class T>
using lsb = codec::bits_le<N, T>;
} // namespace

// A struct's fewest bytes count each run once (what bounds allocations).
static_assert(codec::traits<DosDateTime>::min_size == 4);
static_assert(codec::traits<Ipv4Start>::min_size == 8);
static_assert(codec::traits<Wide<msb>>::min_size == 12);

TEST_CASE("bits_le<> packs from bit 0 up: DOS dates as ZIP stores them") {
  // 2024-05-17 13:45:30: time 13 << 11 | 45 << 5 | 15, date 44 << 9 | 5 << 5 | 17.
  DosDateTime t{{15}, {45}, {13}, {17}, {5}, {44}};
  auto b = check_round_trip(t);
  const std::uint16_t time = 13 << 11 | 45 << 5 | 15, date = 44 << 9 | 5 << 5 | 17;
  CHECK(b == bytes_of({time & 0xff, time >> 8, date & 0xff, date >> 8}));
  check_every_prefix_throws<DosDateTime>(b);
  auto back = codec::decode<DosDateTime>(bytes_of({0x00, 0x00, 0x21, 0x00}));  // 1980-01-01 00:00:00
  CHECK(back.day.value == 1);
  CHECK(back.month.value == 1);
  CHECK(back.year_from_1980.value == 0);
}

TEST_CASE("bits<> packs from the top bit down: an IPv4 header's first bytes") {
  auto b = bytes_of({0x45, 0x02, 0x00, 0x54, 0x1c, 0x46, 0x40, 0x00});
  auto h = codec::decode<Ipv4Start>(b);
  CHECK(h.version.value == 4);
  CHECK(h.ihl.value == 5);
  CHECK(h.dscp.value == 0);
  CHECK(h.ecn.value == Ecn::ect0);
  CHECK(h.total_length.value == 0x54);
  CHECK(h.identification.value == 0x1c46);
  CHECK(!h.reserved.value);
  CHECK(h.dont_fragment.value);
  CHECK(!h.more_fragments.value);
  CHECK(h.fragment_offset.value == 0);
  CHECK(check_round_trip(h) == b);
  h.fragment_offset.value = 0x1abc;
  h.more_fragments.value = true;
  CHECK(check_round_trip(h) == bytes_of({0x45, 0x02, 0x00, 0x54, 0x1c, 0x46, 0x20 | 0x40 | 0x1a, 0xbc}));
  check_every_prefix_throws<Ipv4Start>(b);
}

TEST_CASE("a run spells one integer: big-endian for bits<>, little-endian for bits_le<>") {
  tilefmt::testing::rng g;
  for (int i = 0; i < 200; ++i) {
    const std::uint8_t a = g.next<std::uint8_t>() & 7, d = g.next<std::uint8_t>() & 0x7f;
    const std::uint64_t bv = g.next<std::uint64_t>();
    const std::uint16_t c = g.next<std::uint16_t>() & 0x1fff;
    const bool e = g.next<bool>();
    Wide<msb> m{{a}, {bv}, {c}, 0x5a, {d}, {e}};
    auto mb = check_round_trip(m);
    REQUIRE(mb.size() == 12);
    u128 spelled = 0;  // the first run's 80 bits, big-endian
    for (int k = 0; k < 10; ++k) spelled = spelled << 8 | std::to_integer<unsigned>(mb[k]);
    CHECK(spelled == ((u128(a) << 77) | (u128(bv) << 13) | c));
    CHECK(mb[10] == std::byte{0x5a});
    CHECK(std::to_integer<unsigned>(mb[11]) == (unsigned(d) << 1 | unsigned(e)));

    Wide<lsb> l{{a}, {bv}, {c}, 0x5a, {d}, {e}};
    auto lb = check_round_trip(l);
    spelled = 0;  // little-endian
    for (int k = 9; k >= 0; --k) spelled = spelled << 8 | std::to_integer<unsigned>(lb[k]);
    CHECK(spelled == (u128(a) | (u128(bv) << 3) | (u128(c) << 67)));
    CHECK(std::to_integer<unsigned>(lb[11]) == (unsigned(d) | unsigned(e) << 7));
  }
  check_every_prefix_throws<Wide<msb>>(codec::encode(Wide<msb>{}));
}

TEST_CASE("a value wider than its field cannot be encoded") {
  DosDateTime t{{32}, {64}, {23}, {31}, {12}, {127}};
  CHECK_THROWS_WITH_AS(codec::encode(t), "tilefmt::codec: bit field second_half holds 32, which does not fit in 5 bits",
                       std::invalid_argument);
  t.second_half.value = 29;
  CHECK_THROWS_WITH_AS(codec::encode(t), "tilefmt::codec: bit field minute holds 64, which does not fit in 6 bits",
                       std::invalid_argument);
  t.minute.value = 59;
  CHECK(codec::decode<DosDateTime>(codec::encode(t)) == t);
}

namespace {
enum class Mode : std::uint8_t { a = 0, b = 1, c = 2 };
constexpr bool codec_enum_valid(Mode m) { return m <= Mode::c; }
struct WithMode {
  std::uint8_t lead;
  codec::bits<2, Mode> mode;
  codec::bits<6> rest;
};
} // namespace

TEST_CASE("bit fields inside a struct: errors name the field and the byte") {
  CHECK_THROWS_WITH_AS(codec::decode<WithMode>(bytes_of({1, 0xc0})), "WithMode.mode: invalid Mode value 3 at offset 1",
                       format_error);
  CHECK_THROWS_WITH_AS(codec::decode<WithMode>(bytes_of({1})), "WithMode.mode: needs 1 bytes at offset 1, 0 left",
                       format_error);
  auto w = codec::decode<WithMode>(bytes_of({1, 0x8f}));
  CHECK(w.mode.value == Mode::c);
  CHECK(w.rest.value == 0x0f);
}

TEST_CASE("dumps name bit fields and show their values") {
  auto h = codec::decode<Ipv4Start>(bytes_of({0x45, 0x00, 0x00, 0x54, 0x1c, 0x46, 0x40, 0x00}));
  CHECK(codec::to_text(h) ==
        "Ipv4Start {\n  version: 4\n  ihl: 5\n  dscp: 0\n  ecn: 0\n  total_length: 84\n  identification: 7238\n"
        "  reserved: false\n  dont_fragment: true\n  more_fragments: false\n  fragment_offset: 0\n}");
}

} // namespace test_bits
