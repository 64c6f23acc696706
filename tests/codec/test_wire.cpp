#include "tilefmt/codec/wire.hpp"

#include <cmath>
#include <limits>

#include "../support/testing.hpp"

namespace test_wire {

using namespace tilefmt;
using tilefmt::testing::bytes_of;

TEST_CASE("load_le/store_le are little-endian for every width") {
  std::byte buf[8];
  codec::store_le<std::uint32_t>(buf, 0x11223344u);
  CHECK(std::vector<std::byte>(buf, buf + 4) == bytes_of({0x44, 0x33, 0x22, 0x11}));
  CHECK(codec::load_le<std::uint32_t>(buf) == 0x11223344u);

  codec::store_le<std::int16_t>(buf, -2);
  CHECK(std::vector<std::byte>(buf, buf + 2) == bytes_of({0xfe, 0xff}));
  CHECK(codec::load_le<std::int16_t>(buf) == -2);

  codec::store_le<std::uint64_t>(buf, 0x0102030405060708ull);
  CHECK(std::vector<std::byte>(buf, buf + 8) == bytes_of({8, 7, 6, 5, 4, 3, 2, 1}));

  codec::store_le<double>(buf, 1.0);
  CHECK(std::vector<std::byte>(buf, buf + 8) == bytes_of({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  codec::store_le<float>(buf, -2.0f);
  CHECK(std::vector<std::byte>(buf, buf + 4) == bytes_of({0, 0, 0, 0xc0}));
  CHECK(codec::load_le<float>(buf) == -2.0f);

  codec::store_le<bool>(buf, true);
  CHECK(buf[0] == std::byte{1});
}

TEST_CASE("NaN payloads survive a store/load") {
  std::byte buf[8];
  const std::uint64_t bits = 0x7ff8000000000123ull;
  codec::store_le<double>(buf, std::bit_cast<double>(bits));
  CHECK(std::bit_cast<std::uint64_t>(codec::load_le<double>(buf)) == bits);
}

TEST_CASE("arrays: bulk load/store equals element-wise") {
  tilefmt::testing::rng r;
  auto v = r.values<std::uint64_t>(1001);
  std::vector<std::byte> buf(v.size() * 8 + 1);
  codec::store_le_array(buf.data() + 1, v.data(), v.size()); // unaligned on purpose
  for (std::size_t i = 0; i < v.size(); ++i) REQUIRE(codec::load_le<std::uint64_t>(buf.data() + 1 + i * 8) == v[i]);
  std::vector<std::uint64_t> back(v.size());
  codec::load_le_array(buf.data() + 1, back.data(), back.size());
  CHECK(back == v);
}

TEST_CASE("reader: bounds are checked and reported") {
  auto b = bytes_of({1, 0, 0, 0, 2, 0});
  codec::reader r(b);
  CHECK(r.read<std::uint32_t>() == 1);
  CHECK(r.offset() == 4);
  CHECK(r.remaining() == 2);
  try {
    r.read<std::uint32_t>();
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.offset() == 4);
    CHECK(std::string(e.what()) == "needs 4 bytes at offset 4, 2 left");
  }
  // The failed read consumed nothing.
  CHECK(r.read<std::uint16_t>() == 2);
  CHECK(r.at_end());

  codec::reader r2(b);
  r2.take(2);
  codec::reader sub = r2.sub(3);
  CHECK(sub.offset() == 2);
  CHECK(sub.remaining() == 3);
  CHECK_THROWS_AS(sub.take(4), format_error);
  CHECK(r2.remaining() == 1);
}

TEST_CASE("writer: refuses to overrun the caller's buffer") {
  std::vector<std::byte> out(5);
  codec::writer w(out);
  w.write<std::uint32_t>(7);
  CHECK(w.offset() == 4);
  CHECK_THROWS_AS(w.write<std::uint16_t>(1), std::length_error);
  w.write<std::uint8_t>(9);
  CHECK(out == bytes_of({7, 0, 0, 0, 9}));
}

} // namespace test_wire
