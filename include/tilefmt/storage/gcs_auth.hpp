// tilefmt — who signs Google Cloud Storage requests: nobody (public buckets,
// the emulator), a bearer token the caller has, or a service account's key,
// whose signed JWT is exchanged for a token at the key's token_uri (OAuth
// 2.0's JWT bearer grant, RFC 7523), renewed before it expires. JSON is
// read with Boost.PropertyTree, which needs no compiled library.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "tilefmt/storage/http_client.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage::detail {

/// A JSON text as a property tree; an io_error naming `p` and `what` when it
/// is not JSON.
inline boost::property_tree::ptree parse_json(std::string_view text, const fs::path& p, const std::string& what) {
  // The parser recurses per level: a hostile answer nested deep enough
  // would overflow the stack, and no answer read here nests past a few.
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > 32) throw io_error(p, what + ": nested more than 32 levels deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  boost::property_tree::ptree out;
  std::istringstream in{std::string(text)};
  try {
    boost::property_tree::read_json(in, out);
  } catch (const boost::property_tree::json_parser_error& e) {
    throw io_error(p, what + ": not JSON (" + e.message() + " at line " + std::to_string(e.line()) + ")");
  }
  return out;
}

/// base64url without padding, as JWTs are written.
inline std::string base64url(std::string_view bytes) {
  static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : bytes) {
    acc = (acc << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += digits[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += digits[(acc << (6 - bits)) & 63];
  return out;
}

/// A service account's key (the JSON file Google's console gives).
struct service_account_key {
  std::string client_email, private_key, token_uri;

  static service_account_key of(std::string_view json, const fs::path& p) {
    const auto t = parse_json(json, p, "service account key");
    service_account_key k;
    try {
      k = {t.get<std::string>("client_email", ""), t.get<std::string>("private_key", ""),
           t.get<std::string>("token_uri", "https://oauth2.googleapis.com/token")};
    } catch (const boost::property_tree::ptree_error& e) {
      throw io_error(p, std::string("service account key: ") + e.what());
    }
    if (k.client_email.empty() || k.private_key.empty())
      throw io_error(p, "service account key: no client_email or private_key");
    return k;
  }
};

/// `message` signed with RSASSA-PKCS1-v1_5 over SHA-256 (JWT's RS256) by the
/// PEM private key `pem`.
inline std::string rs256(const std::string& pem, std::string_view message, const fs::path& p) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, &EVP_PKEY_free);
  if (!key) {
    ERR_clear_error();
    throw io_error(p, "service account key: its private_key is not a PEM private key");
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::size_t n = 0;
  std::string sig;
  const bool ok = ctx && EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
                  EVP_DigestSign(ctx.get(), nullptr, &n, reinterpret_cast<const unsigned char*>(message.data()),
                                 message.size()) == 1 &&
                  (sig.resize(n), EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &n,
                                                 reinterpret_cast<const unsigned char*>(message.data()),
                                                 message.size()) == 1);
  if (!ok) {
    ERR_clear_error();
    throw io_error(p, "service account key: signing the token request failed (OpenSSL)");
  }
  sig.resize(n);
  return sig;
}

/// The bearer tokens of a service account, asked for when missing or within
/// five minutes of expiring. Safe to use from many threads.
class service_account_tokens {
public:
  service_account_tokens(service_account_key key, std::string scope, const http_client& client)
      : key_(std::move(key)), scope_(std::move(scope)), client_(client) {}

  std::string current(const fs::path& p) const {
    std::lock_guard lock(m_);
    const auto now = std::chrono::system_clock::now();
    if (token_.empty() || now + std::chrono::minutes(5) >= expires_) fetch(now, p);
    return token_;
  }

private:
  void fetch(std::chrono::system_clock::time_point now, const fs::path& p) const {
    const auto iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    const std::string claims = "{\"iss\":\"" + key_.client_email + "\",\"scope\":\"" + scope_ + "\",\"aud\":\"" +
                               key_.token_uri + "\",\"iat\":" + std::to_string(iat) +
                               ",\"exp\":" + std::to_string(iat + 3600) + "}";
    const std::string signing_input = base64url(R"({"alg":"RS256","typ":"JWT"})") + "." + base64url(claims);
    const std::string jwt = signing_input + "." + base64url(rs256(key_.private_key, signing_input, p));
    const std::string form = "grant_type=" + uri_encode("urn:ietf:params:oauth:grant-type:jwt-bearer", false) +
                             "&assertion=" + jwt;
    http_request q;
    q.method = "POST";
    q.url = key_.token_uri;
    q.headers = {"Content-Type: application/x-www-form-urlencoded"};
    q.payload = std::as_bytes(std::span<const char>(form.data(), form.size()));
    q.limit = 1 << 20;
    const auto r = client_.perform(q, p);
    const std::string_view body(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    if (r.status != 200)
      throw io_error(p, "service account " + key_.client_email + ": token request to " + key_.token_uri + ": HTTP " +
                            std::to_string(r.status) + " " + std::string(body.substr(0, 200)));
    const auto t = parse_json(body, p, "token answer");
    const auto token = t.get_optional<std::string>("access_token");
    const auto lifetime = t.get_optional<long>("expires_in");
    if (!token || token->empty()) throw io_error(p, "token answer: no access_token");
    token_ = *token;
    expires_ = now + std::chrono::seconds(lifetime && *lifetime > 0 && *lifetime < 86400 * 366 ? *lifetime : 300);
  }

  service_account_key key_;
  std::string scope_;
  const http_client& client_;
  mutable std::mutex m_;
  mutable std::string token_;
  mutable std::chrono::system_clock::time_point expires_{};
};

} // namespace tilefmt::storage::detail
