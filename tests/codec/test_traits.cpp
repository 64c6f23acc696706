// The codec for plain fields: every scalar width, bool, enums, std::array,
// nested records; fixed sizes; rejection of bad values.
#include "tilefmt/codec/traits.hpp"

#include <limits>

#include "../support/testing.hpp"

namespace test_traits {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {

struct AllScalars {
  std::int8_t i8;
  std::uint8_t u8;
  std::int16_t i16;
  std::uint16_t u16;
  std::int32_t i32;
  std::uint32_t u32;
  std::int64_t i64;
  std::uint64_t u64;
  float f32;
  double f64;
  bool flag;
  char c;
  std::byte b;
  friend bool operator==(const AllScalars&, const AllScalars&) = default;
};

enum class Color : std::uint16_t { red = 1, green = 2 };
constexpr bool codec_enum_valid(Color c) { return c == Color::red || c == Color::green; }
enum class Raw : std::int8_t { a = -1 }; // no validation hook: any value passes

struct WithEnums {
  Color color;
  Raw raw;
  std::array<Color, 2> pair;
  friend bool operator==(const WithEnums&, const WithEnums&) = default;
};

struct Inner {
  std::uint8_t tag;
  std::array<std::int16_t, 3> xyz;
  friend bool operator==(const Inner&, const Inner&) = default;
};
struct Outer {
  Inner first;
  std::uint32_t middle;
  std::array<Inner, 2> more;
  friend bool operator==(const Outer&, const Outer&) = default;
};

struct Empty {
  friend bool operator==(const Empty&, const Empty&) = default;
};

} // namespace

static_assert(codec::fixed_wire_size<AllScalars> == 1 + 1 + 2 + 2 + 4 + 4 + 8 + 8 + 4 + 8 + 1 + 1 + 1);
static_assert(codec::fixed_wire_size<Inner> == 7);
static_assert(codec::fixed_wire_size<Outer> == 7 + 4 + 14);
static_assert(codec::fixed_wire_size<WithEnums> == 2 + 1 + 4);
static_assert(codec::fixed_wire_size<std::array<double, 4>> == 32);
static_assert(codec::fixed_wire_size<Empty> == 0);
static_assert(codec::traits<Outer>::min_size == 25);

TEST_CASE("scalars: exact little-endian bytes") {
  AllScalars s{-2, 0xfe, -3, 0xfffd, -4, 0xfffffffc, -5, 0xfffffffffffffffbull, 1.5f, -0.25, true, 'x', std::byte{0x5a}};
  auto b = check_round_trip(s);
  CHECK(b == bytes_of({0xfe, 0xfe, 0xfd, 0xff, 0xfd, 0xff, 0xfc, 0xff, 0xff, 0xff, 0xfc, 0xff, 0xff, 0xff,
                       0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                       0x00, 0x00, 0xc0, 0x3f, 0, 0, 0, 0, 0, 0, 0xd0, 0xbf, 1, 'x', 0x5a}));
  check_every_prefix_throws<AllScalars>(b);
}

TEST_CASE("scalars: extremes and randomized values") {
  using L8 = std::numeric_limits<std::int64_t>;
  check_round_trip(AllScalars{-128, 255, -32768, 65535, std::numeric_limits<std::int32_t>::min(), 0xffffffffu,
                              L8::min(), ~0ull, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<double>::infinity(), false, '\0', std::byte{0}});
  tilefmt::testing::rng r;
  for (int i = 0; i < 500; ++i) {
    AllScalars s{r.next<std::int8_t>(), r.next<std::uint8_t>(), r.next<std::int16_t>(), r.next<std::uint16_t>(),
                 r.next<std::int32_t>(), r.next<std::uint32_t>(), r.next<std::int64_t>(), r.next<std::uint64_t>(),
                 r.next<float>(), r.next<double>(), r.next<bool>(), static_cast<char>(r.next<std::int8_t>()),
                 r.next<std::byte>()};
    check_round_trip(s);
  }
}

TEST_CASE("bool accepts only 0 and 1") {
  struct B {
    std::uint8_t a;
    bool b;
  };
  CHECK(codec::decode<B>(bytes_of({3, 1})).b);
  try {
    codec::decode<B>(bytes_of({3, 2}));
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "B.b");
    CHECK(e.offset() == 1);
  }
}

TEST_CASE("enums: underlying bytes, validation hook") {
  WithEnums w{Color::green, Raw{42}, {Color::red, Color::green}};
  auto b = check_round_trip(w);
  CHECK(b == bytes_of({2, 0, 42, 1, 0, 2, 0}));
  auto bad = b;
  bad[5] = std::byte{9};
  try {
    codec::decode<WithEnums>(bad);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "WithEnums.pair[1]");
    CHECK(e.offset() == 5);
    CHECK(e.reason() == "invalid Color value 9");
  }
}

TEST_CASE("nested records and std::array") {
  Outer o{{1, {-1, 2, -3}}, 0xdeadbeef, {Inner{2, {4, 5, 6}}, Inner{3, {7, 8, 9}}}};
  auto b = check_round_trip(o);
  CHECK(b.size() == 25);
  CHECK(b[0] == std::byte{1});
  CHECK(b[1] == std::byte{0xff});
  CHECK(b[7] == std::byte{0xef});
  check_every_prefix_throws<Outer>(b);
  try {
    codec::decode<Outer>(std::span(b).first(20));
    FAIL("expected format_error");
  } catch (const format_error& e) {
    // The last complete field is more[0]; more[1] is cut off.
    CHECK(e.field().starts_with("Outer.more[1]"));
  }
}

TEST_CASE("empty record") {
  CHECK(codec::encode(Empty{}).empty());
  CHECK(codec::decode<Empty>(std::span<const std::byte>{}) == Empty{});
}

TEST_CASE("arrays of fixed records: truncation names the element") {
  struct Part {
    std::uint32_t original_length;
    std::uint32_t compressed_length;
  };
  struct Parts {
    codec::counted<std::uint32_t, std::vector<Part>> parts;
  };
  auto b = bytes_of({3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0});
  try {
    codec::decode<Parts>(b);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()) == "Parts.parts[2]: needs 8 bytes at offset 20, 2 left (3 elements declared)");
  }
}

} // namespace test_traits
