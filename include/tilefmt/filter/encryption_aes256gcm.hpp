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
// AES-256-GCM is OpenSSL's EVP cipher, as in TileDB itself (OpenSSL uses the
// CPU's AES instructions when there are any, and portable code otherwise);
// the IVs come from OpenSSL's RAND_bytes. Each call has its own cipher
// context: nothing is shared between threads.
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

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

/// A tag did not verify: the key is wrong or the tile was altered.
class authentication_error : public format_error {
public:
  using format_error::format_error;
};

/// AES-256-GCM cannot run here: the OpenSSL in use provides no AES-256-GCM
/// (e.g. its configuration loads no provider that implements it).
class encryption_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

inline constexpr std::size_t aes256gcm_key_bytes = 32;
inline constexpr std::size_t aes256gcm_iv_bytes = 12;
inline constexpr std::size_t aes256gcm_tag_bytes = 16;

struct evp_cipher_ctx_deleter {
  void operator()(EVP_CIPHER_CTX* c) const noexcept { EVP_CIPHER_CTX_free(c); } // also wipes the key schedule
};
using evp_cipher_ctx_ptr = std::unique_ptr<EVP_CIPHER_CTX, evp_cipher_ctx_deleter>;

/// A cipher context set up for AES-256-GCM with 12-byte IVs, for encrypting
/// or decrypting; each part then sets its key and IV.
inline evp_cipher_ctx_ptr aes256gcm_context(bool encrypt) {
  evp_cipher_ctx_ptr c(EVP_CIPHER_CTX_new());
  if (!c) throw std::bad_alloc();
  const int init = encrypt ? EVP_EncryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr)
                           : EVP_DecryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr);
  if (init != 1 ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(aes256gcm_iv_bytes), nullptr) != 1) {
    ERR_clear_error();
    throw encryption_unavailable("tilefmt: AES-256-GCM is unavailable: OpenSSL could not set up the cipher "
                                 "(does its configuration load the default provider?)");
  }
  return c;
}

/// Checks once that OpenSSL can run AES-256-GCM; throws
/// encryption_unavailable otherwise. The filter needs no call to it first.
inline void require_aes256gcm() {
  static const bool available = [] {
    try {
      aes256gcm_context(true);
      return true;
    } catch (const encryption_unavailable&) {
      return false;
    }
  }();
  if (!available) aes256gcm_context(true); // throws the explanation
}

/// EVP_*Update over any length (OpenSSL counts in int): GCM is a stream
/// mode, so every input byte gives one output byte straight away.
template <class Update>
bool aes256gcm_update(EVP_CIPHER_CTX* c, Update update, unsigned char* out, const unsigned char* in, std::size_t n) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  static_assert(piece <= static_cast<std::size_t>(INT_MAX));
  while (n > 0) {
    const std::size_t step = n < piece ? n : piece;
    int written = 0;
    if (update(c, out, &written, in, static_cast<int>(step)) != 1 || written != static_cast<int>(step)) return false;
    out += step;
    in += step;
    n -= step;
  }
  return true;
}

/// Encrypts `in` into `out` (as long) with `key` and `iv`, no additional
/// data; writes the tag.
inline void aes256gcm_encrypt(EVP_CIPHER_CTX* c, const unsigned char* key, const unsigned char* iv, bytes_view in,
                              std::byte* out, unsigned char* tag) {
  unsigned char last[16]; // GCM's final step writes nothing
  int final_len = 0;
  if (EVP_EncryptInit_ex(c, nullptr, nullptr, key, iv) != 1 ||
      !aes256gcm_update(c, EVP_EncryptUpdate, reinterpret_cast<unsigned char*>(out),
                        reinterpret_cast<const unsigned char*>(in.data()), in.size()) ||
      EVP_EncryptFinal_ex(c, last, &final_len) != 1 || final_len != 0 ||
      EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, static_cast<int>(aes256gcm_tag_bytes), tag) != 1) {
    ERR_clear_error();
    throw std::runtime_error("tilefmt: AES-256-GCM encryption failed (OpenSSL)");
  }
}

/// Decrypts `in` into `out` (as long) and checks the tag; false when the tag
/// does not verify (then `out` holds no plaintext: it is zeroed).
inline bool aes256gcm_decrypt(EVP_CIPHER_CTX* c, const unsigned char* key, const unsigned char* iv,
                              const unsigned char* tag, bytes_view in, std::span<std::byte> out) {
  if (EVP_DecryptInit_ex(c, nullptr, nullptr, key, iv) != 1 ||
      // OpenSSL copies the expected tag; it takes it through a non-const pointer.
      EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, static_cast<int>(aes256gcm_tag_bytes),
                          const_cast<unsigned char*>(tag)) != 1) {
    ERR_clear_error();
    throw std::runtime_error("tilefmt: AES-256-GCM decryption failed (OpenSSL)");
  }
  unsigned char last[16];
  int final_len = 0;
  const bool ok = aes256gcm_update(c, EVP_DecryptUpdate, reinterpret_cast<unsigned char*>(out.data()),
                                   reinterpret_cast<const unsigned char*>(in.data()), in.size()) &&
                  EVP_DecryptFinal_ex(c, last, &final_len) == 1 && final_len == 0;
  if (!ok) {
    ERR_clear_error();
    if (!out.empty()) OPENSSL_cleanse(out.data(), out.size());
  }
  return ok;
}

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
      if (RAND_bytes(iv, static_cast<int>(detail::aes256gcm_iv_bytes)) != 1) {
        ERR_clear_error();
        throw std::runtime_error("tilefmt: OpenSSL's random generator failed (no IV for AES-256-GCM)");
      }
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
        if (!md_out.empty()) OPENSSL_cleanse(md_out.data(), md_out.size());
        if (!data_out.empty()) OPENSSL_cleanse(data_out.data(), data_out.size());
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
