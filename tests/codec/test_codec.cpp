// The public entry points: decode and decode_into (from a buffer or a
// reader), encode, encode_into (into a buffer or a writer), encoded_size,
// fixed_wire_size.
#include "tilefmt/codec/codec.hpp"

#include "../support/testing.hpp"

namespace test_codec {

using namespace tilefmt;
using tilefmt::testing::bytes_of;

namespace {
struct Footer {
  std::uint32_t version;
  codec::counted<std::uint64_t, std::vector<std::uint64_t>> file_sizes;
  friend bool operator==(const Footer&, const Footer&) = default;
};
struct Columns {
  codec::counted<std::uint32_t, codec::le_span<std::uint64_t>> offsets;
};
} // namespace

TEST_CASE("decode of a buffer requires every byte; decode from a reader does not") {
  Footer f{23, {{1, 2, 3}}};
  auto b = codec::encode(f);
  b.push_back(std::byte{7});
  try {
    codec::decode<Footer>(b);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()) == "Footer: 1 trailing bytes after the end of the structure at offset 36");
  }
  CHECK(codec::decode<Footer>(codec::reader(b)) == f);

  codec::reader r(b);
  CHECK(codec::decode<Footer>(r) == f);
  CHECK(r.offset() == 36);
  CHECK(r.remaining() == 1);
  // Into an existing value: strict from a buffer, a prefix from a reader.
  Footer out;
  CHECK_THROWS_AS(codec::decode_into(b, out), format_error);
  codec::reader again(b);
  codec::decode_into(again, out);
  CHECK(out == f);
  CHECK(again.offset() == 36);
}

TEST_CASE("the error names the top-level type, the field and the element") {
  Footer f{23, {{1, 2, 3, 4, 5}}};
  auto b = codec::encode(f);
  b.erase(b.end() - 14, b.end()); // (not resize: g++ 12 warns falsely under ASan)
  try {
    codec::decode<Footer>(b);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()) == "Footer.file_sizes[3]: needs 8 bytes at offset 36, 2 left (5 elements declared)");
    CHECK(e.field() == "Footer.file_sizes[3]");
    CHECK(e.offset() == 36);
  }
}

TEST_CASE("decode_into reuses capacity") {
  Footer f{23, {std::vector<std::uint64_t>(1000, 9)}};
  auto b = codec::encode(f);
  Footer out;
  codec::decode_into(b, out);
  const auto* data = out.file_sizes.value.data();
  codec::decode_into(b, out);
  CHECK(out.file_sizes.value.data() == data);
  CHECK(out == f);
}

TEST_CASE("encode_into a caller's buffer") {
  Footer f{1, {{5}}};
  std::vector<std::byte> buf(codec::encoded_size(f) + 3, std::byte{0xaa});
  CHECK(codec::encode_into(f, buf) == 20);
  CHECK(buf[20] == std::byte{0xaa});
  std::vector<std::byte> small(19);
  CHECK_THROWS_AS(codec::encode_into(f, small), std::length_error);
  // At a writer's position: two in a row.
  std::vector<std::byte> two(40);
  codec::writer w(two);
  codec::encode_into(f, w);
  codec::encode_into(f, w);
  CHECK(w.offset() == 40);
  codec::reader r(two);
  CHECK(codec::decode<Footer>(r) == f);
  CHECK(codec::decode<Footer>(r) == f);
  CHECK(r.at_end());
}

TEST_CASE("byte ranges of char and unsigned char decode too") {
  std::vector<unsigned char> raw{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(codec::decode<Footer>(raw).version == 1);
  std::string s(12, '\0');
  s[0] = 2;
  CHECK(codec::decode<Footer>(s).version == 2);
}

TEST_CASE("zero-copy view of a large array") {
  std::vector<std::uint64_t> values(10000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i * i;
  Footer f{0, {values}};
  auto b = codec::encode(f);
  // Columns reads the count as u32: build bytes for it by hand.
  std::vector<std::byte> cb(4 + values.size() * 8);
  codec::store_le<std::uint32_t>(cb.data(), static_cast<std::uint32_t>(values.size()));
  codec::store_le_array(cb.data() + 4, values.data(), values.size());
  auto c = codec::decode<Columns>(cb);
  CHECK(c.offsets.value.size() == values.size());
  CHECK(c.offsets.value.bytes().data() == cb.data() + 4); // points into the input
  CHECK(c.offsets.value.to_vector() == values);
  CHECK(codec::encode(c) == cb);
}

TEST_CASE("a corrupt count of 2^60 elements is rejected before allocating") {
  auto b = bytes_of({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 1, 2, 3, 4});
  try {
    codec::decode<Footer>(b);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "Footer.file_sizes[0]");
    CHECK(std::string(e.what()).find("1152921504606846976 elements declared") != std::string::npos);
  }
}

} // namespace test_codec
