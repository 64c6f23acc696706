// tilefmt — the parts of an S3 request that need no connection: where an
// `s3://bucket/key` path points, SigV4's percent-encoding, the texts of an
// XML answer's elements, a payload's SHA-256, and an answer as received.
// s3.hpp sends the requests; these are kept apart so that each file has
// one job (and can be read, and tested, without libcurl).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#if defined(TILEFMT_NO_OPENSSL)
#include <sys/types.h>
#include <sha2.h>
#else
#include <openssl/sha.h>
#endif

#include "tilefmt/storage/backend.hpp"

namespace tilefmt::storage {

namespace detail {

/// Bucket and key of an `s3://bucket/key` path; "." and ".." refused, empty
/// components dropped.
/// The non-empty segments of `s` from byte `at` on, split at '/'; an
/// io_error naming `p` on a "." or ".." segment, so that no path leaves the
/// place it names.
inline std::vector<std::string_view> path_segments(const std::string& s, std::size_t at, const fs::path& p) {
  std::vector<std::string_view> out;
  while (at <= s.size()) {
    const std::size_t end = std::min(s.find('/', at), s.size());
    const std::string_view part(s.data() + at, end - at);
    at = end + 1;
    if (part.empty()) continue;
    if (part == "." || part == "..") throw io_error(p, "has a \".\" or \"..\" component");
    out.push_back(part);
  }
  return out;
}

struct s3_location {
  std::string bucket, key;

  static s3_location of(const fs::path& p) {
    // Path operations may fold "s3://" to "s3:/" (lexically_normal does,
    // and libstdc++'s generic form): either names the bucket next.
    const std::string& s = p.native();
    if (s.rfind("s3:/", 0) != 0) throw io_error(p, "is not an s3://bucket/key path");
    return of_segments(s, 4, p);
  }

  /// The bucket and key of `s` after its scheme's `at` bytes (object
  /// stores' paths are all <scheme>://bucket/key).
  static s3_location of_segments(const std::string& s, std::size_t at, const fs::path& p) {
    const auto parts = path_segments(s, at, p);
    if (parts.empty()) throw io_error(p, "names no bucket");
    s3_location out;
    out.bucket = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) {
      if (i > 1) out.key += '/';
      out.key += parts[i];
    }
    return out;
  }
};

/// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters kept,
/// '/' kept when `keep_slash`, the rest %XX in upper case.
inline std::string uri_encode(std::string_view s, bool keep_slash) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

/// The text of every <tag>...</tag> in `xml`, XML entities decoded unless
/// `raw` (elements holding elements): enough of XML for S3's listings and
/// error bodies.
inline std::vector<std::string> xml_texts(std::string_view xml, std::string_view tag, bool raw = false) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  std::vector<std::string> out;
  for (std::size_t at = xml.find(open); at != std::string_view::npos; at = xml.find(open, at)) {
    at += open.size();
    const std::size_t end = xml.find(close, at);
    if (end == std::string_view::npos) break;
    std::string text;
    if (raw) {
      out.emplace_back(xml.substr(at, end - at));
      at = end + close.size();
      continue;
    }
    for (std::size_t i = at; i < end; ++i) {
      if (xml[i] != '&') {
        text += xml[i];
        continue;
      }
      const std::size_t semi = xml.find(';', i);
      if (semi == std::string_view::npos || semi > end) {
        text += xml[i];
        continue;
      }
      const std::string_view name = xml.substr(i + 1, semi - i - 1);
      if (name == "amp") text += '&';
      else if (name == "lt") text += '<';
      else if (name == "gt") text += '>';
      else if (name == "quot") text += '"';
      else if (name == "apos") text += '\'';
      else if (name.size() > 1 && name[0] == '#') {
        const bool hexa = name[1] == 'x' || name[1] == 'X';
        const std::string digits(name.substr(hexa ? 2 : 1));
        const unsigned long cp = std::strtoul(digits.c_str(), nullptr, hexa ? 16 : 10);
        if (cp < 0x80) {
          text += static_cast<char>(cp);
        } else if (cp < 0x800) {
          text += static_cast<char>(0xC0 | (cp >> 6));
          text += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          text += static_cast<char>(0xE0 | (cp >> 12));
          text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          text += static_cast<char>(0xF0 | (cp >> 18));
          text += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          text += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (cp & 0x3F));
        }
      } else {
        text.append(xml.substr(i, semi - i + 1));  // not an entity S3 writes: kept as it is
      }
      i = semi;
    }
    out.push_back(std::move(text));
    at = end + close.size();
  }
  return out;
}

/// SHA-256 of `bytes`: OpenSSL's, or libmd's in a build without OpenSSL
/// (TILEFMT_NO_OPENSSL: the WebAssembly module, which signs its requests).
inline std::array<unsigned char, 32> sha256(std::span<const std::byte> bytes) {
  std::array<unsigned char, 32> digest{};
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
#if defined(TILEFMT_NO_OPENSSL)
  SHA2_CTX c;
  SHA256Init(&c);
  SHA256Update(&c, data, bytes.size());
  SHA256Final(digest.data(), &c);
#else
  SHA256(data, bytes.size(), digest.data());
#endif
  return digest;
}

/// Bytes as lower-case hexadecimal, as SigV4 writes hashes and signatures.
inline std::string hex_lower(std::span<const unsigned char> bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

inline std::string sha256_hex(std::span<const std::byte> bytes) { return hex_lower(sha256(bytes)); }

/// One HTTP exchange's outcome.
struct http_response {
  long status = 0;
  std::vector<std::byte> body;
  std::optional<std::uint64_t> content_length;  // from the headers
  std::string etag;                             // the ETag header's value, quotes kept (S3's parts)
  bool too_large = false;                       // the body passed the caller's limit: not kept
};

} // namespace detail

} // namespace tilefmt::storage
