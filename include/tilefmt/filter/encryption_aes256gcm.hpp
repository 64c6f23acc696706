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
// where it is: this filter never copies it, and no message names it.
// AES-256-GCM is OpenSSL's EVP cipher, as in TileDB itself
// (detail/aes256gcm_openssl.hpp). Each call has its own cipher context:
// nothing is shared between threads.
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>

#include "tilefmt/filter/detail/aes256gcm_basics.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

// The cipher itself: OpenSSL's, or, in a build without OpenSSL (the
// WebAssembly module), one that refuses with encryption_unavailable. Both
// give aes256gcm_context, aes256gcm_encrypt, aes256gcm_decrypt,
// aes256gcm_random_iv, aes256gcm_wipe and require_aes256gcm.
#if defined(TILEFMT_NO_OPENSSL)
#include "tilefmt/filter/detail/aes256gcm_unavailable.hpp"
#else
#include "tilefmt/filter/detail/aes256gcm_openssl.hpp"
#endif

namespace tilefmt::filter {
namespace detail {

inline const unsigned char* aes_key(const tile_context& ctx, bool writing) {
  if (ctx.encryption_key.size() != aes256gcm_key_bytes) {
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
  static_assert(std::tuple_size_v<decltype(format::AESPart::iv)> == detail::aes256gcm_iv_bytes &&
                std::tuple_size_v<decltype(format::AESPart::tag)> == detail::aes256gcm_tag_bytes);

  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static encryption_aes256gcm from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype) const { return format::Datatype::BLOB; }

  void forward(forward_io& io) const {
    const unsigned char* key = detail::aes_key(io.ctx, true);
    const part_list& md = io.in_metadata;
    const part_list& data = io.in_data;
    auto cipher = detail::aes256gcm_context(true);
    constexpr std::size_t entry = 4 + 4 + detail::aes256gcm_iv_bytes + detail::aes256gcm_tag_bytes;
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
      detail::aes256gcm_random_iv(iv);
      detail::aes256gcm_encrypt(cipher.get(), key, iv, part, out.data() + at, tag);
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
    auto cipher = detail::aes256gcm_context(false);
    auto md_out = io.metadata_output(md_total);
    auto data_out = io.output(data_total);
    std::size_t in_at = 0;
    auto one = [&](const format::AESPart& p, std::span<std::byte> dest, const char* what, std::size_t index) {
      if (!detail::aes256gcm_decrypt(cipher.get(), key, p.iv.data(), p.tag.data(),
                                     io.data.subspan(in_at, p.encrypted_length), dest)) {
        // No part of a tile that fails to authenticate is let out, not even
        // the parts before that did authenticate.
        detail::aes256gcm_wipe(md_out);
        detail::aes256gcm_wipe(data_out);
        throw authentication_error("AES_256_GCM filter: " + std::string(what) + " part " + std::to_string(index) +
                                       " does not authenticate (wrong key, or a corrupt tile)",
                                   in_at);
      }
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
