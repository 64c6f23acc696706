// valid<T, Pred> and checksums: accepted and rejected values, CRC-32 against
// its published check value, checksums verified on decode and computed on
// encode wherever the struct sits, corrupt bytes and truncation.
#include "tilefmt/codec/checked.hpp"
#include "tilefmt/codec/crc32.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/codec/endian.hpp"
#include "tilefmt/codec/magic.hpp"

#include "../support/testing.hpp"

namespace test_checked {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;
using tilefmt::testing::text_bytes;

namespace {
struct BitDepth {
  static constexpr std::string_view description = "a PNG bit depth (1, 2, 4, 8 or 16)";
  bool operator()(std::uint8_t d) const { return d == 1 || d == 2 || d == 4 || d == 8 || d == 16; }
};
struct NonZero {
  bool operator()(std::uint32_t v) const { return v != 0; }
};
struct NotEmpty {
  bool operator()(const auto& s) const { return !s.empty(); }
};
struct Image {
  codec::valid<codec::big<std::uint32_t>, NonZero> width;
  codec::valid<std::uint8_t, BitDepth> bit_depth;
  friend bool operator==(const Image&, const Image&) = default;
};
static_assert(codec::fixed_wire_size<Image> == 5);
struct Named {
  codec::valid<codec::counted<std::uint8_t, std::string>, NotEmpty> name;
  friend bool operator==(const Named&, const Named&) = default;
};

// PNG's chunk shape: the CRC covers type and data, not the length.
struct Chunk {
  codec::count_of<"data", std::uint32_t> length;
  std::array<char, 4> type;
  std::vector<std::byte> data;
  codec::crc32_of<"type", "data", std::endian::big> crc;
  friend bool operator==(const Chunk&, const Chunk&) = default;
};
struct Chunks {
  std::uint8_t lead;
  codec::counted<std::uint8_t, std::vector<Chunk>> chunks;
  friend bool operator==(const Chunks&, const Chunks&) = default;
};
struct Whole { // a checksum of one field, little-endian
  std::array<char, 9> text;
  codec::crc32_of<"text", "text"> crc;
  friend bool operator==(const Whole&, const Whole&) = default;
};

// A second algorithm through the same policy: a byte sum.
struct ByteSum {
  using value_type = std::uint8_t;
  static constexpr std::string_view name = "byte sum";
  static std::uint8_t compute(std::span<const std::byte> b) {
    unsigned s = 0;
    for (std::byte x : b) s += std::to_integer<unsigned>(x);
    return static_cast<std::uint8_t>(s);
  }
};
struct Summed {
  std::uint8_t a;
  std::uint16_t b;
  codec::checksum<ByteSum, "a", "b"> sum;
  friend bool operator==(const Summed&, const Summed&) = default;
};

std::uint32_t load_be32(const std::vector<std::byte>& b, std::size_t at) {
  return codec::load_be<std::uint32_t>(b.data() + at);
}
} // namespace

TEST_CASE("valid<T, Pred> rejects values its predicate refuses, naming the field") {
  Image ok{{{640}}, {8}};
  auto b = check_round_trip(ok);
  CHECK(b == bytes_of({0, 0, 2, 0x80, 8}));
  check_every_prefix_throws<Image>(b);
  for (int d = 0; d < 256; ++d) {
    CAPTURE(d);
    auto bad = b;
    bad[4] = static_cast<std::byte>(d);
    if (BitDepth{}(static_cast<std::uint8_t>(d)))
      CHECK(codec::decode<Image>(bad).bit_depth.value == d);
    else
      CHECK_THROWS_WITH_AS(codec::decode<Image>(bad),
                           ("Image.bit_depth: " + std::to_string(d) +
                            " is not a PNG bit depth (1, 2, 4, 8 or 16) at offset 4")
                               .c_str(),
                           format_error);
  }
  CHECK_THROWS_WITH_AS(codec::decode<Image>(bytes_of({0, 0, 0, 0, 8})), "Image.width: 0 fails NonZero at offset 0",
                       format_error);
  Image zero{{{0}}, {8}};
  CHECK_THROWS_AS(codec::encode(zero), std::invalid_argument);

  Named n{{{"x"}}};
  check_round_trip(n);
  CHECK_THROWS_WITH_AS(codec::decode<Named>(bytes_of({0})), "Named.name: the value fails NotEmpty at offset 0",
                       format_error);
  CHECK_THROWS_AS(codec::encode(Named{}), std::invalid_argument);
}

TEST_CASE("crc32_of is the standard CRC-32 (check value of \"123456789\")") {
  CHECK(codec::zlib_crc32::compute(text_bytes("123456789")) == 0xcbf43926u);
  CHECK(codec::zlib_crc32::compute({}) == 0u);
  Whole w{{'1', '2', '3', '4', '5', '6', '7', '8', '9'}, {}};
  auto b = check_round_trip(w);
  REQUIRE(b.size() == 9 + 4);
  CHECK(codec::load_le<std::uint32_t>(b.data() + 9) == 0xcbf43926u);
  CHECK(codec::decode<Whole>(b).crc.value == 0xcbf43926u);
}

TEST_CASE("checksums are computed on encode and verified on decode, wherever the struct sits") {
  tilefmt::testing::rng r(3);
  for (int round = 0; round < 30; ++round) {
    Chunks cs{r.next<std::uint8_t>(), {}};
    const std::size_t n = 1 + r.below(4);
    for (std::size_t i = 0; i < n; ++i) {
      Chunk c{{}, {'t', 'E', 'X', 't'}, r.values<std::byte>(r.below(20)), {}};
      cs.chunks.value.push_back(c);
    }
    auto b = check_round_trip(cs);
    check_every_prefix_throws<Chunks>(b);
    // Each stored CRC is zlib's CRC of that chunk's type and data.
    std::size_t at = 2;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = cs.chunks[i].data.size();
      CHECK(load_be32(b, at + 8 + len) ==
            codec::zlib_crc32::compute(std::span<const std::byte>(b).subspan(at + 4, 4 + len)));
      at += 12 + len;
    }
    // Any flipped bit in a chunk's type, data or CRC is caught, and named.
    const std::size_t flip = 2 + 4 + r.below(b.size() - 6);
    auto bad = b;
    bad[flip] ^= static_cast<std::byte>(1u << r.below(8));
    std::size_t start = 2, index = 0;
    while (start + 12 + cs.chunks[index].data.size() <= flip) start += 12 + cs.chunks[index++].data.size();
    const std::size_t len = cs.chunks[index].data.size();
    if (flip < start + 4) continue; // a length byte: some other error, tested with truncation
    CAPTURE(flip);
    try {
      (void)codec::decode<Chunks>(bad);
      FAIL("decoded a corrupt chunk");
    } catch (const format_error& e) {
      CHECK(e.field() == "Chunks.chunks[" + std::to_string(index) + "].crc");
      CHECK(e.offset() == start + 8 + len);
      CHECK(std::string(e.reason()).starts_with("CRC-32 mismatch: stored 0x"));
    }
  }
}

TEST_CASE("a checksum mismatch says what was stored and computed") {
  Chunk c{{}, {'I', 'E', 'N', 'D'}, {}, {}};
  auto b = codec::encode(c);
  CHECK(b == bytes_of({0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82})); // PNG's IEND chunk
  b[11] = std::byte{0x83};
  CHECK_THROWS_WITH_AS(codec::decode<Chunk>(b),
                       "Chunk.crc: CRC-32 mismatch: stored 0xae426083, computed 0xae426082 over fields type to data "
                       "at offset 8",
                       format_error);
}

TEST_CASE("the checksum policy takes other algorithms") {
  Summed s{1, 0x0302, {}};
  auto b = check_round_trip(s);
  CHECK(b == bytes_of({1, 2, 3, 6}));
  CHECK_THROWS_WITH_AS(codec::decode<Summed>(bytes_of({1, 2, 3, 7})),
                       "Summed.sum: byte sum mismatch: stored 0x07, computed 0x06 over fields a to b at offset 3",
                       format_error);
}

TEST_CASE("dumps name checked fields and show their values") {
  Image i{{{3}}, {4}};
  CHECK(codec::to_text(i) == "Image {\n  width: 3\n  bit_depth: 4\n}");
  auto c = codec::decode<Chunk>(bytes_of({0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82}));
  CHECK(codec::to_text(c) == "Chunk {\n  length: 0\n  type: \"IEND\"\n  data: []\n  crc: 2923585666\n}");
}

} // namespace test_checked
