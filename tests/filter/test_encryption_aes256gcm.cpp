// The internal AES_256_GCM filter: the GCM specification's test vectors
// read through a hand-built chunk, the metadata layout (lengths, IV, tag),
// earlier metadata encrypted into the data, wrong keys and altered bytes
// rejected with authentication_error, never garbage.
#include "tilefmt/filter/encryption_aes256gcm.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "tilefmt/filter/dictionary.hpp"
#include "tilefmt/filter/gzip.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/xor.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_encryption_aes256gcm {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::check_both_ways;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;
using D = format::Datatype;

namespace {

std::vector<std::uint8_t> key_of(std::string_view hex) {
  std::vector<std::uint8_t> k;
  for (std::byte b : hex_bytes(hex)) k.push_back(static_cast<std::uint8_t>(b));
  return k;
}

const std::vector<std::uint8_t> zero_key(32, 0);
const std::vector<std::uint8_t> test_key = key_of("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");

bool available() {
  try {
    filter::detail::require_aes256gcm();
    return true;
  } catch (const filter::encryption_unavailable& e) {
    MESSAGE(e.what());
    return false;
  }
}

/// AES-256-GCM decryption of one part straight through OpenSSL's EVP calls,
/// without the filter; false when the tag does not verify.
bool gcm_open(std::vector<std::uint8_t>& out, std::span<const std::byte> in, const std::array<std::uint8_t, 12>& iv,
              std::array<std::uint8_t, 16> tag, const std::vector<std::uint8_t>& key) {
  std::unique_ptr<EVP_CIPHER_CTX, void (*)(EVP_CIPHER_CTX*)> c(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  out.resize(in.size());
  int n = 0, last = 0;
  unsigned char tail[16];
  return c && EVP_DecryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
         EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_IVLEN, 12, nullptr) == 1 &&
         EVP_DecryptInit_ex(c.get(), nullptr, nullptr, key.data(), iv.data()) == 1 &&
         EVP_DecryptUpdate(c.get(), out.data(), &n, reinterpret_cast<const unsigned char*>(in.data()),
                           static_cast<int>(in.size())) == 1 &&
         EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_TAG, 16, tag.data()) == 1 &&
         EVP_DecryptFinal_ex(c.get(), tail, &last) == 1 && static_cast<std::size_t>(n + last) == in.size();
}

/// A runtime pipeline of the stored filters plus the encryption filter, as
/// TileDB's reader and writer build it for an encrypted array.
filter::runtime_pipeline encrypted(const format::FilterPipeline& stored, D type) {
  filter::runtime_pipeline rp(stored, type, 23);
  rp.append(filter::encryption_aes256gcm{});
  return rp;
}

filter::tile_context keyed(const filter::runtime_pipeline& rp, std::size_t cell_size, const std::vector<std::uint8_t>& key) {
  auto ctx = rp.context(cell_size);
  ctx.encryption_key = key;
  return ctx;
}

} // namespace

TEST_CASE("AES-256-GCM: the GCM test vectors, read through a chunk") {
  if (!available()) return;
  filter::runtime_pipeline rp = encrypted(filter::pipeline<>::descriptor(), D::UINT8);
  // Test case 14: zero key, zero IV, 16 zero bytes.
  auto tile = one_chunk(16,
                        hex_bytes("00000000 01000000 10000000 10000000 000000000000000000000000"
                                  "d0d1c8a799996bf0265b98b5d48ab919"),
                        hex_bytes("cea7403d4d606b6e074ec5d3baf39d18"));
  CHECK(rp.decode(tile, keyed(rp, 1, zero_key)) == std::vector<std::byte>(16));
  // Test case 13: an empty part has a tag too.
  auto empty = one_chunk(0, hex_bytes("00000000 01000000 00000000 00000000 000000000000000000000000"
                                      "530f8afbc74536b9a963b4f1c4cb738b"),
                         {});
  CHECK(rp.decode(empty, keyed(rp, 1, zero_key)).empty());
  // Test case 15, as a metadata part and a data part of one chunk.
  const auto plain = hex_bytes("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                               "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255");
  auto tile15 = one_chunk(64,
                          hex_bytes("00000000 01000000 40000000 40000000 cafebabefacedbaddecaf888"
                                    "b094dac5d93471bdec1a502270e3cc6c"),
                          hex_bytes("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                                    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"));
  CHECK(rp.decode(tile15, keyed(rp, 1, test_key)) == plain);
  // A wrong key, an altered ciphertext, tag or IV: authentication_error.
  CHECK_THROWS_AS(rp.decode(tile, keyed(rp, 1, test_key)), filter::authentication_error);
  auto bad = tile15;
  bad[bad.size() - 1] ^= std::byte{1};
  CHECK_THROWS_AS(rp.decode(bad, keyed(rp, 1, test_key)), filter::authentication_error);
  for (std::size_t at : {8u + 12u + 8u + 8u, 8u + 12u + 8u + 8u + 12u}) { // IV, tag
    bad = tile15;
    bad[at] ^= std::byte{0x80};
    CHECK_THROWS_AS(rp.decode(bad, keyed(rp, 1, test_key)), filter::authentication_error);
  }
}

TEST_CASE("AES-256-GCM: metadata layout; a fresh IV per part; earlier metadata is encrypted") {
  if (!available()) return;
  std::vector<std::int64_t> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i * i);
  auto raw = std::as_bytes(std::span(v));
  filter::runtime_pipeline rp = encrypted(filter::pipeline<filter::xor_filter>::descriptor(), D::INT64);
  auto ctx = keyed(rp, 8, test_key);
  auto tile = rp.encode(raw, ctx);
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  auto md_bytes = view.chunks[0].metadata.bytes();
  auto data = view.chunks[0].data.bytes();
  // The chunk metadata is only the encryption header: XOR's went inside.
  auto md = codec::decode<format::EncryptionMD>(md_bytes);
  REQUIRE(md.metadata_parts.size() == 1);
  REQUIRE(md.data_parts.size() == 1);
  CHECK(md.metadata_parts[0].plaintext_length == 8);
  CHECK(md.data_parts[0].plaintext_length == 8000);
  CHECK(data.size() == 8008);
  CHECK(md.metadata_parts[0].iv != md.data_parts[0].iv);
  // Each part decrypts on its own with its IV and tag, no additional data.
  std::vector<std::uint8_t> xor_md(8);
  REQUIRE(gcm_open(xor_md, data.first(8), md.metadata_parts[0].iv, md.metadata_parts[0].tag, test_key));
  CHECK(xor_md == std::vector<std::uint8_t>{1, 0, 0, 0, 0x40, 0x1f, 0, 0}); // XOR: 1 part of 8000 bytes
  CHECK(rp.decode(tile, ctx) == std::vector<std::byte>(raw.begin(), raw.end()));
  // Random IVs: the same tile encrypts differently every time, and decodes the same.
  auto again = rp.encode(raw, ctx);
  CHECK(again != tile);
  CHECK(rp.decode(again, ctx) == std::vector<std::byte>(raw.begin(), raw.end()));
  CHECK(filter::encryption_aes256gcm{}.output_type(D::INT64) == D::BLOB);
}

TEST_CASE("AES-256-GCM: round trips after other filters, through the runtime pipeline and compile-time stages") {
  if (!available()) return;
  for (std::size_t n : {0u, 1u, 5u, 20000u, 100000u}) {
    CAPTURE(n);
    std::vector<std::int32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(i % 97) - 40;
    std::vector<std::byte> raw(n * 4);  // the values as tiles hold them, on any host
    codec::store_le_array(raw.data(), v.data(), n);
    for (const auto& stored : {filter::pipeline<>::descriptor(), filter::pipeline<filter::zstd<>>::descriptor(),
                               filter::pipeline<filter::xor_filter, filter::gzip<>>::descriptor()}) {
      filter::runtime_pipeline rp = encrypted(stored, D::INT32);
      auto ctx = keyed(rp, 4, test_key);
      auto tile = rp.encode(raw, ctx);
      CHECK(rp.decode(tile, ctx) == std::vector<std::byte>(raw.begin(), raw.end()));
      auto other = test_key;
      other[31] ^= 1;
      if (n) CHECK_THROWS_AS(rp.decode(tile, keyed(rp, 4, other)), filter::authentication_error);
    }
    // Compile-time stages, decoded by pipeline<> with the key.
    using P = filter::pipeline<filter::zstd<>, filter::encryption_aes256gcm>;
    std::tuple<filter::zstd<>, filter::encryption_aes256gcm> stages{};
    filter::detail::tuple_stages<filter::zstd<>, filter::encryption_aes256gcm> seq{stages};
    filter::detail::runner run(seq);
    run.set_input_type(D::INT32);
    filter::tile_context ctx;
    ctx.cell_size = 4;
    ctx.encryption_key = test_key;
    auto tile = filter::detail::encode_tile(run, ctx, raw, filter::fixed_chunks(raw.size(), 4));
    CHECK(P::decode<std::int32_t>(tile, {.encryption_key = test_key}) == v);
  }
}

TEST_CASE("AES-256-GCM: descriptor, keys, corrupt chunks") {
  if (!available()) return;
  CHECK(filter::pipeline<filter::encryption_aes256gcm>::descriptor().filters[0] ==
        format::Filter{format::FilterType::AES_256_GCM, {}});
  // The pipeline of an encrypted generic tile: GZIP then AES (type 11, no options).
  format::FilterPipeline generic = filter::pipeline<filter::gzip<1>, filter::encryption_aes256gcm>::descriptor();
  CHECK(codec::encode(generic) == hex_bytes("00000100 02000000 01 05000000 01 01000000 0b 00000000"));
  filter::runtime_pipeline rp(generic, D::CHAR, 23);
  std::vector<std::byte> payload(300, std::byte{'t'});
  auto tile = rp.encode(payload, keyed(rp, 1, test_key));
  CHECK(rp.decode(tile, keyed(rp, 1, test_key)) == payload);
  // No key, a short key.
  CHECK_THROWS_AS(rp.encode(payload, rp.context(1)), std::invalid_argument);
  CHECK_THROWS_AS(rp.decode(tile, rp.context(1)), std::invalid_argument);
  std::vector<std::uint8_t> short_key(16, 1);
  CHECK_THROWS_AS(rp.decode(tile, keyed(rp, 1, short_key)), std::invalid_argument);

  // Truncations and altered lengths are format errors; no flip decodes.
  filter::runtime_pipeline plain = encrypted(filter::pipeline<>::descriptor(), D::UINT8);
  const auto md = hex_bytes("00000000 01000000 10000000 10000000 000000000000000000000000 d0d1c8a799996bf0265b98b5d48ab919");
  const auto data = hex_bytes("cea7403d4d606b6e074ec5d3baf39d18");
  auto decode = [&](const std::vector<std::byte>& t) { return plain.decode(t, keyed(plain, 1, zero_key)); };
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(16, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(16, md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  CHECK_THROWS_AS(decode(one_chunk(16, hex_bytes("00000000 01000000 10000000 11000000 000000000000000000000000 "
                                                 "d0d1c8a799996bf0265b98b5d48ab919"),
                                   data)),
                  format_error);
  for (std::size_t i = 0; i < 8 * (md.size() + data.size()); ++i) {
    auto bad_md = md, bad_data = data;
    if (i < 8 * md.size())
      bad_md[i / 8] ^= static_cast<std::byte>(1u << (i % 8));
    else
      bad_data[i / 8 - md.size()] ^= static_cast<std::byte>(1u << (i % 8));
    CHECK_THROWS_AS(decode(one_chunk(16, bad_md, bad_data)), format_error);
  }
}

TEST_CASE("AES-256-GCM: pipeline<> encodes with a key from encode_options; the runtime pipeline decodes it") {
  if (!available()) return;
  using P = filter::pipeline<filter::xor_filter, filter::zstd<>, filter::encryption_aes256gcm>;
  for (std::size_t n : {0u, 1u, 3000u, 40000u}) {
    CAPTURE(n);
    std::vector<std::int64_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int64_t>(i * i) - 5000;
    auto tile = P::encode<std::int64_t>(v, {.encryption_key = test_key});
    CHECK(P::decode<std::int64_t>(tile, {.encryption_key = test_key}) == v);
    filter::runtime_pipeline rp(P::descriptor(), D::INT64, 23);
    auto bytes = rp.decode(tile, keyed(rp, 8, test_key));
    REQUIRE(bytes.size() == n * 8);
    std::vector<std::byte> le(n * 8);  // the values as the tile stores them, on any host
    codec::store_le_array(le.data(), v.data(), n);
    CHECK(bytes == le);
    // The runtime pipeline encodes too; fresh IVs make each encoding differ.
    auto again = rp.encode(bytes, keyed(rp, 8, test_key));
    CHECK(P::decode<std::int64_t>(again, {.encryption_key = test_key}) == v);
    if (n) {
      CHECK(again != tile);
      CHECK_THROWS_AS(P::decode<std::int64_t>(tile, {.encryption_key = zero_key}), filter::authentication_error);
    }
  }
  // Without a key, or with a short one, nothing is encoded.
  std::vector<std::int64_t> v(10, 3);
  CHECK_THROWS_AS(P::encode<std::int64_t>(v), std::invalid_argument);
  std::vector<std::uint8_t> short_key(31, 1);
  CHECK_THROWS_AS(P::encode<std::int64_t>(v, {.encryption_key = short_key}), std::invalid_argument);
}

TEST_CASE("AES-256-GCM: encrypted var strings with DICTIONARY through encode_var") {
  if (!available()) return;
  std::vector<std::byte> data;
  std::vector<std::uint64_t> offsets;
  for (std::size_t i = 0; i < 5000; ++i) {
    offsets.push_back(data.size());
    std::string cell = i % 7 == 0 ? "seven" : i % 3 == 0 ? "three" : "other";
    for (char c : cell) data.push_back(static_cast<std::byte>(c));
  }
  filter::runtime_pipeline rp = encrypted(filter::pipeline<filter::dictionary<>, filter::zstd<>>::descriptor(), D::STRING_UTF8);
  auto tile = rp.encode_var(data, offsets, keyed(rp, 1, test_key));
  std::vector<std::uint64_t> rebuilt;
  auto ctx = keyed(rp, 1, test_key);
  ctx.rebuilt_offsets = &rebuilt;
  CHECK(rp.decode(tile, ctx) == data);
  CHECK(rebuilt == offsets);
  auto wrong = keyed(rp, 1, zero_key);
  wrong.rebuilt_offsets = &rebuilt;
  CHECK_THROWS_AS(rp.decode(tile, wrong), filter::authentication_error);
}

namespace {

/// Whether `what` shows any 6 consecutive bytes of `key`, raw or as
/// hexadecimal (either case).
bool shows_key(std::string_view what, const std::vector<std::uint8_t>& key) {
  constexpr std::size_t window = 6;
  std::string lower, upper;
  for (std::uint8_t b : key) {
    constexpr char l[] = "0123456789abcdef", u[] = "0123456789ABCDEF";
    lower += {l[b >> 4], l[b & 15]};
    upper += {u[b >> 4], u[b & 15]};
  }
  const std::string raw(key.begin(), key.end());
  for (std::size_t i = 0; i + window <= key.size(); ++i) {
    if (what.find(std::string_view(raw).substr(i, window)) != std::string_view::npos) return true;
    if (what.find(std::string_view(lower).substr(2 * i, 2 * window)) != std::string_view::npos) return true;
    if (what.find(std::string_view(upper).substr(2 * i, 2 * window)) != std::string_view::npos) return true;
  }
  return false;
}

/// Runs f, which must throw E; returns the message.
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL_CHECK("unexpected exception: " << e.what());
    return e.what();
  }
  FAIL_CHECK("nothing was thrown");
  return {};
}

} // namespace

TEST_CASE("AES-256-GCM: wrong keys, flipped tag and ciphertext bytes, truncated parts; no key in any message") {
  if (!available()) return;
  const std::string text = "K3y!Q7#zP9@wX2&vL5*nM8^bR4%tY6$h"; // a printable key, to search for in messages
  const std::vector<std::uint8_t> key(text.begin(), text.end());
  REQUIRE(key.size() == 32);
  for (const auto& k : {key, test_key}) {
    auto other = k;
    other[0] ^= 0x40;
    filter::runtime_pipeline rp = encrypted(filter::pipeline<>::descriptor(), D::UINT8);
    std::vector<std::byte> plain(1000);
    for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::byte>(i * 7 + 1);
    const auto tile = rp.encode(plain, keyed(rp, 1, k));
    REQUIRE(rp.decode(tile, keyed(rp, 1, k)) == plain);
    auto view = codec::decode<format::TileView>(tile);
    REQUIRE(view.chunks.size() == 1);
    const auto md = std::vector<std::byte>(view.chunks[0].metadata.bytes().begin(), view.chunks[0].metadata.bytes().end());
    const auto data = std::vector<std::byte>(view.chunks[0].data.bytes().begin(), view.chunks[0].data.bytes().end());
    REQUIRE(md.size() == 8 + 36);
    REQUIRE(data.size() == plain.size());
    auto decode = [&](const std::vector<std::byte>& m, const std::vector<std::byte>& d, const std::vector<std::uint8_t>& with) {
      return rp.decode(one_chunk(static_cast<std::uint32_t>(plain.size()), m, d), keyed(rp, 1, with));
    };
    REQUIRE(decode(md, data, k) == plain);
    std::vector<std::string> messages;

    // A wrong key.
    messages.push_back(message_of<filter::authentication_error>([&] { decode(md, data, other); }));
    // Each byte of the tag flipped (the tag is the last 16 bytes of the header).
    for (std::size_t at = md.size() - 16; at < md.size(); ++at) {
      auto bad = md;
      bad[at] ^= std::byte{0x01};
      messages.push_back(message_of<filter::authentication_error>([&] { decode(bad, data, k); }));
    }
    // Ciphertext bytes flipped: first, middle, last.
    for (std::size_t at : {std::size_t{0}, data.size() / 2, data.size() - 1}) {
      auto bad = data;
      bad[at] ^= std::byte{0x80};
      messages.push_back(message_of<filter::authentication_error>([&] { decode(md, bad, k); }));
    }
    // A truncated part whose lengths were shortened to match: only the tag
    // can tell, and it does.
    for (std::size_t cut : {std::size_t{1}, std::size_t{16}, data.size()}) {
      auto short_md = md;
      const auto n = static_cast<std::uint32_t>(data.size() - cut);
      codec::store_le<std::uint32_t>(short_md.data() + 8, n);
      codec::store_le<std::uint32_t>(short_md.data() + 12, n);
      const std::vector<std::byte> short_data(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
      messages.push_back(message_of<filter::authentication_error>([&] {
        rp.decode(one_chunk(n, short_md, short_data), keyed(rp, 1, k));
      }));
      // Truncated data with the lengths left alone: a format error before any decryption.
      messages.push_back(message_of<format_error>([&] { decode(md, short_data, k); }));
    }
    // A truncated header.
    for (std::size_t n : {std::size_t{0}, std::size_t{7}, md.size() - 1})
      messages.push_back(message_of<format_error>([&] {
        decode(std::vector<std::byte>(md.begin(), md.begin() + static_cast<std::ptrdiff_t>(n)), data, k);
      }));
    // Keys of the wrong size.
    auto short_key = k;
    short_key.pop_back();
    messages.push_back(message_of<std::invalid_argument>([&] { decode(md, data, short_key); }));
    messages.push_back(message_of<std::invalid_argument>([&] { rp.encode(plain, keyed(rp, 1, short_key)); }));
    auto long_key = k;
    long_key.push_back(0);
    messages.push_back(message_of<std::invalid_argument>([&] { decode(md, data, long_key); }));

    for (const auto& m : messages) {
      CAPTURE(m);
      CHECK(!m.empty());
      CHECK(!shows_key(m, k));
      CHECK(!shows_key(m, other));
    }
  }
  // The check itself finds a key where there is one.
  CHECK(shows_key("... " + text.substr(3, 8) + " ...", key));
  CHECK(shows_key("... FEFFE9928665731C ...", test_key));
}

TEST_CASE("AES-256-GCM: a tile that does not authenticate leaves no plaintext in the caller's buffer") {
  if (!available()) return;
  using P = filter::pipeline<filter::encryption_aes256gcm>;
  std::vector<std::int32_t> v(5000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * 31 + 7);
  const auto tile = P::encode<std::int32_t>(v, {.encryption_key = test_key});
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  // Flip the chunk's last ciphertext byte: everything else decrypts to the
  // right values, then the tag fails.
  auto bad = tile;
  bad[bad.size() - 1] ^= std::byte{1};
  std::vector<std::int32_t> out(v.size(), -1);
  CHECK_THROWS_AS(P::decode_into<std::int32_t>(bad, std::span(out), {.encryption_key = test_key}),
                  filter::authentication_error);
  CHECK(std::count(out.begin(), out.end(), 0) == static_cast<std::ptrdiff_t>(out.size()));
  P::decode_into<std::int32_t>(tile, std::span(out), {.encryption_key = test_key});
  CHECK(out == v);
}

TEST_CASE("AES-256-GCM: threads encrypt and decrypt at once") {
  if (!available()) return;
  using P = filter::pipeline<filter::zstd<>, filter::encryption_aes256gcm>;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto key = test_key;
      key[0] = static_cast<std::uint8_t>(t);
      std::vector<std::int64_t> v(3000);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i) * (t + 1);
      for (int round = 0; round < 40; ++round) {
        auto tile = P::encode<std::int64_t>(v, {.encryption_key = key});
        if (P::decode<std::int64_t>(tile, {.encryption_key = key}) != v) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
}

} // namespace test_encryption_aes256gcm
