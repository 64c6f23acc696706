// tilefmt — AES-256-GCM from OpenSSL's EVP cipher, as TileDB itself uses it
// (OpenSSL takes the CPU's AES instructions when there are any, portable code
// otherwise); IVs from OpenSSL's RAND_bytes. Included by
// filter/encryption_aes256gcm.hpp.
#pragma once

#include <climits>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "tilefmt/filter/detail/aes256gcm_basics.hpp"
#include "tilefmt/filter/stage.hpp"

namespace tilefmt::filter::detail {

/// A fresh random IV.
inline void aes256gcm_random_iv(unsigned char* iv) {
  if (RAND_bytes(iv, static_cast<int>(aes256gcm_iv_bytes)) != 1) {
    ERR_clear_error();
    throw std::runtime_error("tilefmt: OpenSSL's random generator failed (no IV for AES-256-GCM)");
  }
}

/// Overwrites plaintext that must not be let out (the compiler may not drop it).
inline void aes256gcm_wipe(std::span<std::byte> bytes) {
  if (!bytes.empty()) OPENSSL_cleanse(bytes.data(), bytes.size());
}

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
    aes256gcm_wipe(out);
  }
  return ok;
}

} // namespace tilefmt::filter::detail
