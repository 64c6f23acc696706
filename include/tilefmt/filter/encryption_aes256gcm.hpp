// tilefmt — the internal AES_256_GCM filter (filter type 11; format_spec/
// tile.md, "Encryption Filters"; tiledb/sm/filter/
// encryption_aes256gcm_filter.cc). A schema never lists it: TileDB appends
// it to every pipeline of an encrypted array (runtime_pipeline::append),
// and it is written in the header of encrypted generic tiles.
//
// Like a compressor it consumes the earlier filters' metadata: each input
// metadata part, then each data part, is encrypted on its own with a fresh
// random 12-byte IV, no additional data, and a 16-byte tag; the ciphertexts
// follow one another in one data part; the metadata is
// format::EncryptionMD (lengths, IV and tag per part). The ciphertext is as
// long as the plaintext.
//
// The key (32 bytes) comes from tile_context::encryption_key and is used
// where it is: this filter never copies it. AES-256-GCM is libsodium's,
// which needs hardware AES (AES-NI and PCLMUL on x86-64).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <sodium.h>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

/// A tag did not verify: the key is wrong or the tile was altered.
class authentication_error : public format_error {
public:
  using format_error::format_error;
};

/// AES-256-GCM cannot run here: libsodium's needs hardware AES (AES-NI and
/// PCLMUL on x86-64).
class encryption_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Initialises libsodium once (the static's initialisation is thread-safe)
/// and checks the CPU.
inline void require_aes256gcm() {
  static const int init = sodium_init();
  if (init < 0) throw encryption_unavailable("tilefmt: libsodium failed to initialise");
  if (crypto_aead_aes256gcm_is_available() == 0)
    throw encryption_unavailable("tilefmt: AES-256-GCM is unavailable: this CPU lacks the instructions "
                                 "libsodium needs for it (AES-NI and PCLMUL on x86-64)");
}

inline const unsigned char* aes_key(const tile_context& ctx, bool writing) {
  if (ctx.encryption_key.size() != crypto_aead_aes256gcm_KEYBYTES) {
    std::string what = "tilefmt: AES-256-GCM needs a 32-byte key, " +
                       (ctx.encryption_key.empty() ? std::string("none was given")
                                                   : std::to_string(ctx.encryption_key.size()) + " bytes were given");
    if (writing) throw std::invalid_argument(what);
    throw std::invalid_argument(what + " to read an encrypted tile");
  }
  return ctx.encryption_key.data();
}

} // namespace detail

struct encryption_aes256gcm {
  static constexpr format::FilterType filter_type = format::FilterType::AES_256_GCM;
  static_assert(crypto_aead_aes256gcm_NPUBBYTES == 12 && crypto_aead_aes256gcm_ABYTES == 16 &&
                crypto_aead_aes256gcm_KEYBYTES == 32);

  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static encryption_aes256gcm from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype) const { return format::Datatype::BLOB; }

  void forward(forward_io& io) const {
    detail::require_aes256gcm();
    const unsigned char* key = detail::aes_key(io.ctx, true);
    const part_list& md = io.in_metadata;
    const part_list& data = io.in_data;
    constexpr std::size_t entry = 4 + 4 + 12 + 16;
    auto header = scratch::sized(io.buf.metadata, 8 + (md.size() + data.size()) * entry);
    codec::store_le<std::uint32_t>(header.data(), static_cast<std::uint32_t>(md.size()));
    codec::store_le<std::uint32_t>(header.data() + 4, static_cast<std::uint32_t>(data.size()));
    auto out = scratch::sized(io.buf.data, md.total_bytes() + data.total_bytes());
    std::byte* h = header.data() + 8;
    std::size_t at = 0;
    auto one = [&](bytes_view part) {
      if (part.size() > 0xffffffffu) throw std::length_error("tilefmt: part too large to encrypt");
      unsigned char* iv = reinterpret_cast<unsigned char*>(h + 8);
      unsigned char* tag = reinterpret_cast<unsigned char*>(h + 20);
      randombytes_buf(iv, 12);
      unsigned long long tag_len = 0;
      if (crypto_aead_aes256gcm_encrypt_detached(reinterpret_cast<unsigned char*>(out.data() + at), tag, &tag_len,
                                                 reinterpret_cast<const unsigned char*>(part.data()), part.size(),
                                                 nullptr, 0, nullptr, iv, key) != 0)
        throw std::runtime_error("tilefmt: AES-256-GCM encryption failed");
      codec::store_le<std::uint32_t>(h, static_cast<std::uint32_t>(part.size()));
      codec::store_le<std::uint32_t>(h + 4, static_cast<std::uint32_t>(part.size()));
      h += entry;
      at += part.size();
    };
    for (std::size_t i = 0; i < md.size(); ++i) one(md[i]);
    for (std::size_t i = 0; i < data.size(); ++i) one(data[i]);
    io.out_metadata.push_back(header);
    io.out_data.push_back(out.first(at));
  }

  void reverse(reverse_io& io) const {
    detail::require_aes256gcm();
    const unsigned char* key = detail::aes_key(io.ctx, false);
    format::EncryptionMD md;
    read_metadata(filter_type, io.metadata, md);
    // As with compression, what follows the header belongs to no one.
    std::size_t md_total = 0, data_total = 0, encrypted_total = 0;
    auto tally = [&](const format::AESPart& p, std::size_t& total) {
      if (p.encrypted_length != p.plaintext_length)
        corrupt(filter_type, "part of " + std::to_string(p.plaintext_length) + " bytes claims " +
                                 std::to_string(p.encrypted_length) + " encrypted bytes");
      total += p.plaintext_length;
      encrypted_total += p.encrypted_length;
    };
    for (const auto& p : md.metadata_parts) tally(p, md_total);
    for (const auto& p : md.data_parts) tally(p, data_total);
    if (encrypted_total != io.data.size())
      corrupt(filter_type, "parts hold " + std::to_string(encrypted_total) + " encrypted bytes, the chunk has " +
                               std::to_string(io.data.size()));
    auto md_out = io.metadata_output(md_total);
    auto data_out = io.output(data_total);
    std::size_t in_at = 0;
    auto one = [&](const format::AESPart& p, std::span<std::byte> dest, const char* what, std::size_t index) {
      int rc = crypto_aead_aes256gcm_decrypt_detached(
          reinterpret_cast<unsigned char*>(dest.data()), nullptr,
          reinterpret_cast<const unsigned char*>(io.data.data() + in_at), p.encrypted_length, p.tag.data(), nullptr, 0,
          p.iv.data(), key);
      if (rc != 0)
        throw authentication_error("AES_256_GCM filter: " + std::string(what) + " part " + std::to_string(index) +
                                       " does not authenticate (wrong key, or a corrupt tile)",
                                   in_at);
      in_at += p.encrypted_length;
    };
    std::size_t out_at = 0;
    for (std::size_t i = 0; i < md.metadata_parts.size(); ++i) {
      one(md.metadata_parts[i], md_out.subspan(out_at, md.metadata_parts[i].plaintext_length), "metadata", i);
      out_at += md.metadata_parts[i].plaintext_length;
    }
    out_at = 0;
    for (std::size_t i = 0; i < md.data_parts.size(); ++i) {
      one(md.data_parts[i], data_out.subspan(out_at, md.data_parts[i].plaintext_length), "data", i);
      out_at += md.data_parts[i].plaintext_length;
    }
    io.out_metadata = md_out;
    io.out_data = data_out;
  }
};

} // namespace tilefmt::filter
