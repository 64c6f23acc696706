// The extension point for encodings that are bitstreams rather than records:
// a traits<> specialisation, used inside ordinary declarations.
#include "tilefmt/codec/codec.hpp"

#include "../support/testing.hpp"

using namespace tilefmt;
using tilefmt::testing::bytes_of;

namespace demo {
/// 4-bit values packed two per byte, low nibble first, after a u16 count.
struct Nibbles {
  std::vector<std::uint8_t> values;
  friend bool operator==(const Nibbles&, const Nibbles&) = default;
};

struct Record {
  std::uint8_t tag;
  Nibbles packed;
  std::uint8_t end;
  friend bool operator==(const Record&, const Record&) = default;
};
} // namespace demo

template <>
struct tilefmt::codec::traits<demo::Nibbles> {
  static constexpr std::size_t min_size = 2;

  template <class S>
  static void decode(reader& r, demo::Nibbles& v, S&) {
    std::size_t n = r.read<std::uint16_t>();
    const std::byte* p = r.take((n + 1) / 2); // bounds-checked before allocating
    v.values.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto byte = std::to_integer<std::uint8_t>(p[i / 2]);
      v.values[i] = (i % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
    }
    if (n % 2 == 1 && (std::to_integer<std::uint8_t>(p[n / 2]) >> 4) != 0)
      throw format_error("padding nibble is not zero", r.offset() - 1);
  }
  template <class S>
  static void encode(writer& w, const demo::Nibbles& v, S&) {
    w.write<std::uint16_t>(static_cast<std::uint16_t>(v.values.size()));
    std::byte* p = w.reserve((v.values.size() + 1) / 2);
    for (std::size_t i = 0; i < v.values.size(); i += 2) {
      unsigned lo = v.values[i] & 0x0f, hi = i + 1 < v.values.size() ? v.values[i + 1] & 0x0f : 0;
      p[i / 2] = static_cast<std::byte>(lo | (hi << 4));
    }
  }
  template <class S>
  static std::size_t size(const demo::Nibbles& v, S&) {
    return 2 + (v.values.size() + 1) / 2;
  }
};

TEST_CASE("a bitstream type inside a declared record") {
  demo::Record r{9, {{1, 2, 3}}, 0xee};
  auto b = tilefmt::testing::check_round_trip(r);
  CHECK(b == bytes_of({9, 3, 0, 0x21, 0x03, 0xee}));
  tilefmt::testing::check_every_prefix_throws<demo::Record>(b);
  auto bad = b;
  bad[4] = std::byte{0x13};
  try {
    codec::decode<demo::Record>(bad);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "Record.packed");
    CHECK(e.offset() == 4);
  }
  tilefmt::testing::rng g;
  for (int i = 0; i < 100; ++i) {
    demo::Record x{g.next<std::uint8_t>(), {}, g.next<std::uint8_t>()};
    for (std::size_t k = g.below(30); k > 0; --k) x.packed.values.push_back(g.next<std::uint8_t>() & 0x0f);
    tilefmt::testing::check_round_trip(x);
  }
}
