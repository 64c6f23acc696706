// tilefmt — AWS Signature Version 4, computed here: the S3 backend signs
// its requests with it (libcurl's CURLOPT_AWS_SIGV4 orders some headers
// wrong, s3.hpp), and so does the WebAssembly module, which has no libcurl
// and whose synchronous requests cannot wait for WebCrypto's promises. HMAC-SHA256 (RFC 2104) is written out over detail::sha256 because
// the library under it there is libmd, which has SHA-256 but no HMAC.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage::detail {

inline std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

/// HMAC-SHA256 of `message` under `key` (RFC 2104, block size 64).
inline std::array<unsigned char, 32> hmac_sha256(std::span<const std::byte> key, std::span<const std::byte> message) {
  std::array<unsigned char, 64> block{};
  if (key.size() > block.size()) {
    const auto k = sha256(key);
    std::copy(k.begin(), k.end(), block.begin());
  } else {
    std::transform(key.begin(), key.end(), block.begin(), [](std::byte b) { return static_cast<unsigned char>(b); });
  }
  std::vector<std::byte> inner(block.size() + message.size());
  for (std::size_t i = 0; i < block.size(); ++i) inner[i] = static_cast<std::byte>(block[i] ^ 0x36);
  std::copy(message.begin(), message.end(), inner.begin() + block.size());
  const auto inner_hash = sha256(inner);
  std::array<std::byte, 64 + 32> outer{};
  for (std::size_t i = 0; i < block.size(); ++i) outer[i] = static_cast<std::byte>(block[i] ^ 0x5c);
  std::transform(inner_hash.begin(), inner_hash.end(), outer.begin() + block.size(),
                 [](unsigned char c) { return static_cast<std::byte>(c); });
  return sha256(outer);
}

/// `t` as SigV4 writes dates: YYYYMMDDTHHMMSSZ, in UTC.
inline std::string amz_date(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char text[17];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

/// Who signs, and for which region and service.
struct sigv4_credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string region = "us-east-1";
  std::string service = "s3";
};

/// A request as SigV4 sees it. `canonical_uri` is the path exactly as sent
/// (percent-encoded: S3 encodes each segment once); `canonical_query` its
/// parameters, each name and value encoded as uri_encode does, sorted, joined
/// by '&'; `headers` the signed headers, names in lower case, values trimmed
/// (host and x-amz-date among them).
struct sigv4_request {
  std::string method;
  std::string canonical_uri;
  std::string canonical_query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_hash;  // hex SHA-256 of the body, or UNSIGNED-PAYLOAD
  std::string amz_date;      // YYYYMMDDTHHMMSSZ, as the x-amz-date header
};

/// The Authorization header's value for `r` signed by `c`.
inline std::string sigv4_authorization(sigv4_request r, const sigv4_credentials& c) {
  std::sort(r.headers.begin(), r.headers.end());
  std::string canonical_headers, signed_headers;
  for (const auto& [name, value] : r.headers) {
    canonical_headers += name + ':' + value + '\n';
    signed_headers += (signed_headers.empty() ? "" : ";") + name;
  }
  const std::string canonical_request = r.method + '\n' + r.canonical_uri + '\n' + r.canonical_query + '\n' +
                                        canonical_headers + '\n' + signed_headers + '\n' + r.payload_hash;
  const std::string day = r.amz_date.substr(0, 8);
  const std::string scope = day + '/' + c.region + '/' + c.service + "/aws4_request";
  const std::string to_sign =
      "AWS4-HMAC-SHA256\n" + r.amz_date + '\n' + scope + '\n' + sha256_hex(bytes_of(canonical_request));
  // The signing key: the secret through the date, region, service and the
  // fixed terminator, each an HMAC keyed by the one before.
  auto key = hmac_sha256(bytes_of("AWS4" + c.secret_access_key), bytes_of(day));
  for (const std::string& part : {c.region, c.service, std::string("aws4_request")})
    key = hmac_sha256(std::as_bytes(std::span(key)), bytes_of(part));
  const auto signature = hmac_sha256(std::as_bytes(std::span(key)), bytes_of(to_sign));
  return "AWS4-HMAC-SHA256 Credential=" + c.access_key_id + '/' + scope + ", SignedHeaders=" + signed_headers +
         ", Signature=" + hex_lower(signature);
}

} // namespace tilefmt::storage::detail
