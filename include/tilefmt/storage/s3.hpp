// tilefmt — arrays in an S3-compatible object store (AWS S3, MinIO, Ceph,
// moto, ...) as a storage backend, over libcurl. Programs that include this
// header link libcurl (`pkg-config libcurl`); nothing else in tilefmt does.
//
//   auto s3 = std::make_shared<tilefmt::storage::s3>(tilefmt::storage::s3_options::from_environment());
//   auto arr = tilefmt::array::open("s3://bucket/path/array", {.storage = s3});
//
// Paths are `s3://bucket/key`. Requests are signed with AWS Signature
// Version 4 by libcurl (CURLOPT_AWS_SIGV4), with the payload's SHA-256 in
// `x-amz-content-sha256`, which S3 requires. An object store has no
// folders: a folder is a key prefix, there while an object under it is, so
// make_folder writes nothing (TileDB does the same on S3). A write is one
// PUT: an object appears whole or not at all, which is the atomicity the
// backend contract asks for; the array layer writes a fragment's commit
// marker last, as TileDB does on S3. A file written in pieces (open_write)
// is gathered in memory and sent as one PUT at its commit (the backend's
// default); a multipart upload, which would stream it, is not used.
//
// Requests go through detail::http_client (http_client.hpp): those that
// fail for reasons that pass (HTTP 5xx, 429 SlowDown, connection failures
// and timeouts) are retried with exponential backoff, and each takes a
// libcurl handle from a pool, so connections are kept alive and reused
// without being shared by two requests. Every const member may be called
// from many threads at once.
#pragma once

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <curl/curl.h>
#include <openssl/sha.h>

#include "tilefmt/storage/aws_profile.hpp"
#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/http_client.hpp"
#include "tilefmt/storage/object_store.hpp"
#include "tilefmt/storage/s3_multipart.hpp"
#include "tilefmt/storage/s3_request.hpp"
#include "tilefmt/storage/s3_signature.hpp"
#include "tilefmt/storage/s3_sts.hpp"

namespace tilefmt::storage {

/// Where the object store is and who signs the requests.
struct s3_options {
  /// The service's address, e.g. "http://127.0.0.1:9000"; empty: AWS's
  /// "https://s3.<region>.amazonaws.com".
  std::string endpoint{};
  std::string region = "us-east-1";
  std::string access_key_id{}, secret_access_key{};
  std::string session_token{};  ///< temporary credentials' token, if any
  /// Addresses objects as <endpoint>/<bucket>/<key> rather than
  /// <bucket>.<endpoint host>/<key>: what servers other than AWS expect.
  bool path_style = false;
  /// How many times a request that failed for a passing reason is tried again.
  unsigned retries = 5;
  std::chrono::milliseconds first_backoff{100};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{120'000};
  bool verify_tls = true;
  /// The certificate authorities that sign the service's certificate: a
  /// PEM file (`ca_file`) or an OpenSSL hashed folder (`ca_path`). Empty:
  /// libcurl's own bundle, or where it is missing (a wheel's libcurl built
  /// on another distribution), the first of the usual system bundles that
  /// exists (system_ca_file()).
  std::string ca_file{}, ca_path{};
  /// Sends requests unsigned, whatever credentials are at hand: public
  /// buckets read anonymously (TileDB's vfs.s3.no_sign_request).
  bool no_sign_request = false;
  /// Says in every request that the requester pays for it, which buckets
  /// whose owner has the readers pay require (TileDB's vfs.s3.requester_pays).
  bool requester_pays = false;
  /// Server-side encryption of the objects written: empty (the bucket's
  /// default), "AES256" (SSE-S3) or "aws:kms" (SSE-KMS with the key
  /// `sse_kms_key_id`, else the account's default key). TileDB's vfs.s3.sse
  /// ("aes256", "kms") and vfs.s3.sse_kms_key_id; its names are taken too.
  std::string sse{}, sse_kms_key_id{};
  /// A role to assume through STS (AssumeRole) with the credentials above:
  /// its temporary credentials sign the requests, renewed before they
  /// expire (TileDB's vfs.s3.aws_role_arn, aws_session_name, aws_external_id,
  /// aws_load_frequency in seconds).
  std::string role_arn{}, role_session_name = "tilefmt", role_external_id{};
  std::chrono::seconds role_duration{3600};
  /// STS's address; empty: the endpoint above when one is given (local
  /// servers answer both), else https://sts.<region>.amazonaws.com.
  std::string sts_endpoint{};
  /// A file larger than this goes up in a multipart upload, in parts of
  /// this size (at least S3's 5 MiB), `multipart_in_flight` at once; so do
  /// files written in pieces, a part as each fills (TileDB's
  /// vfs.s3.multipart_part_size).
  std::uint64_t multipart_part_size = std::uint64_t{8} << 20;
  unsigned multipart_in_flight = 8;

  /// The usual AWS variables: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
  /// AWS_SESSION_TOKEN, AWS_REGION (else AWS_DEFAULT_REGION) and
  /// AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL); path-style addressing
  /// when an endpoint is given. Credentials and region the variables do not
  /// give come from the shared AWS files' profile `profile` (empty:
  /// AWS_PROFILE's, aws_profile.hpp), as the AWS tools take them.
  static s3_options from_environment(const std::string& profile = {}) {
    auto env = [](const char* name) -> std::string {
      const char* v = std::getenv(name);
      return v ? v : "";
    };
    s3_options o;
    o.access_key_id = env("AWS_ACCESS_KEY_ID");
    o.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
    o.session_token = env("AWS_SESSION_TOKEN");
    if (auto r = env("AWS_REGION"); !r.empty()) o.region = r;
    else if (auto d = env("AWS_DEFAULT_REGION"); !d.empty()) o.region = d;
    o.endpoint = env("AWS_ENDPOINT_URL_S3");
    if (o.endpoint.empty()) o.endpoint = env("AWS_ENDPOINT_URL");
    o.sts_endpoint = env("AWS_ENDPOINT_URL_STS");
    o.path_style = !o.endpoint.empty();
    // The variables' keys win over the files', unless a profile is named.
    const auto p = aws_profile::from_files(profile);
    if (o.access_key_id.empty() || !profile.empty())
      o.access_key_id = p.access_key_id, o.secret_access_key = p.secret_access_key, o.session_token = p.session_token;
    if (env("AWS_REGION").empty() && env("AWS_DEFAULT_REGION").empty() && !p.region.empty()) o.region = p.region;
    // The AWS tools' bundle variable, then OpenSSL's and curl's.
    for (const char* name : {"AWS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE"})
      if (o.ca_file.empty()) o.ca_file = env(name);
    o.ca_path = env("SSL_CERT_DIR");
    return o;
  }

  /// The certificate bundle of the system (detail::system_ca_file).
  static std::string system_ca_file() { return detail::system_ca_file(); }
};

class s3 final : public backend {
public:
  explicit s3(s3_options o = s3_options::from_environment())
      : o_(checked(std::move(o))), client_(client_options(o_), "S3"), role_(role_of(o_), client_) {}
  s3(const s3&) = delete;
  s3& operator=(const s3&) = delete;

  const s3_options& options() const noexcept { return o_; }

  /// What this backend has asked of the server so far: requests sent
  /// (tries again included) and the bytes of the answers' bodies.
  using statistics = detail::http_statistics;
  statistics stats() const noexcept { return client_.stats(); }

  /// Creates `bucket` (for tests and scratch stores; arrays live in buckets
  /// made by whoever owns the account).
  void create_bucket(const std::string& bucket) {
    const auto r = request("PUT", bucket, "", "", {}, {}, unlimited, fs::path("s3://" + bucket));
    if (r.status != 200) fail(fs::path("s3://" + bucket), "PUT (create bucket)", r);
  }

private:
  std::optional<std::uint64_t> do_file_size(const fs::path& p) const override {
    const auto at = detail::s3_location::of(p);
    if (at.key.empty()) return std::nullopt;
    const auto r = request("HEAD", at.bucket, at.key, "", {}, {}, unlimited, p);
    if (r.status == 404) return std::nullopt;
    if (r.status != 200) fail(p, "HEAD", r);
    if (!r.content_length) throw io_error(p, "S3 HEAD: no Content-Length in the answer");
    return r.content_length;
  }

  bool do_is_folder(const fs::path& p) const override {
    const auto at = detail::s3_location::of(p);
    return !list_page(p, at, detail::prefix_of(at.key), true, 1, "").empty_page;
  }

  std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const override {
    const auto at = detail::s3_location::of(p);
    if (at.key.empty()) throw io_error(p, "is a bucket, not an object");
    auto r = request("GET", at.bucket, at.key, "", {}, {}, max_bytes, p);
    if (r.too_large)
      throw io_error(p, "larger than the " + std::to_string(max_bytes) + " bytes a read may allocate here");
    if (r.status == 404) throw io_error(p, "no such object");
    if (r.status != 200) fail(p, "GET", r);
    return std::move(r.body);
  }

  // A round trip per request: adjacent tiles are better read as one range.
  bool do_prefers_merged_reads() const override { return true; }

  std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const override {
    const auto at = detail::s3_location::of(p);
    if (at.key.empty()) throw io_error(p, "is a bucket, not an object");
    return detail::ranged_read(
        p, offset, n, [&] { return do_file_size(p); },
        [&](const std::string& range) { return request("GET", at.bucket, at.key, "", {}, {range}, n, p); },
        [&](const std::string& what, const detail::http_response& r) { fail(p, what, r); });
  }

  std::vector<entry> do_list(const fs::path& p) const override {
    const auto at = detail::s3_location::of(p);
    const std::string prefix = detail::prefix_of(at.key);
    return detail::entries_of(prefix, [&](const std::string& token) { return list_page(p, at, prefix, true, 1000, token); });
  }

  void do_write(const fs::path& p, std::span<const std::byte> bytes) override {
    const auto at = detail::s3_location::of(p);
    if (at.key.empty()) throw io_error(p, "is a bucket, not an object");
    if (bytes.size() > o_.multipart_part_size) {
      detail::s3_multipart upload(sender(at, p), p, o_.multipart_in_flight);
      for (std::uint64_t at_byte = 0; at_byte < bytes.size(); at_byte += o_.multipart_part_size)
        upload.add(bytes.subspan(at_byte, std::min<std::uint64_t>(o_.multipart_part_size, bytes.size() - at_byte)));
      upload.complete();
      return;
    }
    const auto r = request("PUT", at.bucket, at.key, "", bytes, {}, unlimited, p);
    if (r.status != 200) fail(p, "PUT", r);
  }

  /// A file written in pieces: one PUT at commit while it fits in a part,
  /// else a multipart upload whose parts go up as they fill.
  class piece_writer final : public file_writer {
  public:
    piece_writer(const s3& b, fs::path p) : b_(b), p_(std::move(p)), at_(detail::s3_location::of(p_)) {
      if (at_.key.empty()) throw io_error(p_, "is a bucket, not an object");
    }

  private:
    void do_append(std::span<const std::byte> bytes) override {
      const std::uint64_t part = b_.o_.multipart_part_size;
      while (!bytes.empty()) {
        if (buffer_.size() == part) send_part();  // full, and more is coming: not the last part
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(part - buffer_.size(), bytes.size()));
        buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
        bytes = bytes.subspan(n);
      }
    }
    void do_commit() override {
      if (!upload_) {
        const auto r = b_.request("PUT", at_.bucket, at_.key, "", buffer_, {}, unlimited, p_);
        if (r.status != 200) fail(p_, "PUT", r);
      } else {
        if (!buffer_.empty()) send_part();
        upload_->complete();
      }
      buffer_ = {};
    }
    void send_part() {
      if (!upload_) upload_ = std::make_unique<detail::s3_multipart>(b_.sender(at_, p_), p_, b_.o_.multipart_in_flight);
      auto part = std::make_shared<const std::vector<std::byte>>(std::move(buffer_));
      buffer_ = {};
      upload_->add(*part, part);
    }

    const s3& b_;
    fs::path p_;
    detail::s3_location at_;
    std::vector<std::byte> buffer_;
    std::unique_ptr<detail::s3_multipart> upload_;
  };

  std::unique_ptr<file_writer> do_open_write(const fs::path& p) override { return std::make_unique<piece_writer>(*this, p); }

  /// Requests about the object `at` for a multipart upload.
  detail::s3_send sender(const detail::s3_location& at, const fs::path& p) const {
    return [this, at, p](const std::string& method, const std::string& query, std::span<const std::byte> payload,
                         const std::vector<std::string>& headers) {
      return request(method, at.bucket, at.key, query, payload, headers, 1 << 20, p);
    };
  }

  void do_make_folder(const fs::path& p) override { (void)detail::s3_location::of(p); }

  void do_remove(const fs::path& p) override {
    const auto at = detail::s3_location::of(p);
    if (at.key.empty()) throw io_error(p, "is a bucket: removing buckets is not this backend's job");
    // The object, and everything below the prefix at any depth.
    auto keys = detail::keys_of([&](const std::string& token) {
      return list_page(p, at, detail::prefix_of(at.key), false, 1000, token);
    });
    if (do_file_size(p)) keys.insert(keys.begin(), at.key);
    for (const auto& k : keys) {
      const auto r = request("DELETE", at.bucket, k, "", {}, {}, unlimited, p);
      if (r.status != 204 && r.status != 200 && r.status != 404) fail(fs::path("s3://" + at.bucket + "/" + k), "DELETE", r);
    }
  }


  using listing = detail::object_page;

  /// One page of ListObjectsV2 under `prefix`: direct children only when
  /// `one_level` (delimiter "/").
  listing list_page(const fs::path& p, const detail::s3_location& at, const std::string& prefix, bool one_level,
                    unsigned max_keys, const std::string& token) const {
    // The query string in SigV4's canonical form (sorted, encoded), which
    // libcurl signs as it is given.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + detail::uri_encode(token, false) + "&";
    if (one_level) query += "delimiter=%2F&";
    query += "list-type=2&max-keys=" + std::to_string(max_keys) + "&prefix=" + detail::uri_encode(prefix, false);
    const auto r = request("GET", at.bucket, "", query, {}, {}, unlimited, p);
    if (r.status != 200) fail(p, "GET (list)", r);
    const std::string_view xml(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    listing out;
    // <Contents><Key>...</Key>...</Contents> and <CommonPrefixes><Prefix>...</Prefix></CommonPrefixes>;
    // the request's own <Prefix> comes before both and is left out.
    for (const auto& c : detail::xml_texts(xml, "Contents", true)) {
      auto k = detail::xml_texts(c, "Key");
      if (!k.empty()) out.keys.push_back(std::move(k.front()));
    }
    for (const auto& c : detail::xml_texts(xml, "CommonPrefixes", true)) {
      auto k = detail::xml_texts(c, "Prefix");
      if (!k.empty()) out.prefixes.push_back(std::move(k.front()));
    }
    out.empty_page = out.keys.empty() && out.prefixes.empty();
    const auto truncated = detail::xml_texts(xml, "IsTruncated");
    if (!truncated.empty() && truncated.front() == "true") {
      const auto next = detail::xml_texts(xml, "NextContinuationToken");
      if (next.empty() || next.front().empty()) throw io_error(p, "S3 listing: truncated without a continuation token");
      out.next = next.front();
    }
    return out;
  }

  [[noreturn]] static void fail(const fs::path& p, const std::string& what, const detail::http_response& r) {
    const std::string_view xml(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    const auto code = detail::xml_texts(xml, "Code"), message = detail::xml_texts(xml, "Message");
    std::string why = "S3 " + what + ": HTTP " + std::to_string(r.status);
    if (!code.empty()) why += " " + code.front();
    if (!message.empty()) why += ": " + message.front();
    throw io_error(p, why);
  }

  std::string url(const std::string& bucket, const std::string& key, const std::string& query) const {
    std::string base = o_.endpoint.empty() ? "https://s3." + o_.region + ".amazonaws.com" : o_.endpoint;
    std::string u;
    if (o_.path_style) {
      u = base + "/" + detail::uri_encode(bucket, false) + "/" + detail::uri_encode(key, true);
    } else {
      const std::size_t scheme = base.find("://");
      const std::size_t host = scheme == std::string::npos ? 0 : scheme + 3;
      u = base.substr(0, host) + bucket + "." + base.substr(host) + "/" + detail::uri_encode(key, true);
    }
    if (!query.empty()) u += "?" + query;
    return u;
  }

  /// One request, tried again while it fails for a passing reason
  /// (detail::http_client), signed unless the options say not to.
  detail::http_response request(const std::string& method, const std::string& bucket, const std::string& key,
                                const std::string& query, std::span<const std::byte> payload,
                                const std::vector<std::string>& headers, std::uint64_t limit,
                                const fs::path& p) const {
    detail::http_request q;
    q.method = method;
    q.url = url(bucket, key, query);
    q.headers = headers;
    // Signed with the request, as the payload's hash.
    q.headers.push_back("x-amz-content-sha256: " + detail::sha256_hex(payload));
    if (o_.requester_pays) q.headers.push_back("x-amz-request-payer: requester");
    // Encryption is asked for where an object is made: a PUT of the whole,
    // or the start of a multipart upload (its parts take no such header).
    if (!key.empty() && !o_.sse.empty() && ((method == "PUT" && query.empty()) || (method == "POST" && query == "uploads="))) {
      q.headers.push_back("x-amz-server-side-encryption: " + o_.sse);
      if (!o_.sse_kms_key_id.empty()) q.headers.push_back("x-amz-server-side-encryption-aws-kms-key-id: " + o_.sse_kms_key_id);
    }
    if (!o_.no_sign_request) {
      const detail::aws_credentials own{o_.access_key_id, o_.secret_access_key, o_.session_token};
      const auto c = o_.role_arn.empty() ? own : role_.current(own, p);
      if (!c.session_token.empty()) q.headers.push_back("x-amz-security-token: " + c.session_token);
      if (!c.access_key_id.empty()) sign(q, query, payload, c);
    }
    q.payload = payload;
    q.limit = limit;
    return client_.perform(q, p);
  }

  /// Signs `q` (AWS Signature V4, s3_signature.hpp): every x-amz-* header
  /// it has and the host. (libcurl's own signing orders headers by whole
  /// line, not by name, so a header whose name extends another's, as
  /// SSE-KMS's key id extends SSE's, breaks its signature.)
  void sign(detail::http_request& q, const std::string& query, std::span<const std::byte> payload,
            const detail::aws_credentials& c) const {
    const std::string date = detail::amz_date(std::chrono::system_clock::now());
    q.headers.push_back("x-amz-date: " + date);
    const std::size_t scheme = q.url.find("://") + 3;
    const std::size_t path = q.url.find('/', scheme);
    std::string host = q.url.substr(scheme, path - scheme);
    // The Host header libcurl sends: the port only when it is not the scheme's.
    const bool https = q.url.rfind("https", 0) == 0;
    if (const std::string dflt = https ? ":443" : ":80"; host.ends_with(dflt)) host.resize(host.size() - dflt.size());
    const std::size_t question = q.url.find('?', path);
    detail::sigv4_request r{q.method, q.url.substr(path, question == std::string::npos ? std::string::npos : question - path),
                            query, {{"host", host}}, detail::sha256_hex(payload), date};
    for (const auto& line : q.headers) {
      if (line.rfind("x-amz-", 0) != 0) continue;
      const std::size_t colon = line.find(':');
      std::size_t v = colon + 1;
      while (v < line.size() && line[v] == ' ') ++v;
      r.headers.emplace_back(line.substr(0, colon), line.substr(v));
    }
    q.headers.push_back("Authorization: " + detail::sigv4_authorization(std::move(r), {c.access_key_id, c.secret_access_key, o_.region, "s3"}));
  }

  /// The options as used: endpoints without a trailing '/', TileDB's names
  /// of the encryptions taken.
  static s3_options checked(s3_options o) {
    for (auto* e : {&o.endpoint, &o.sts_endpoint})
      while (!e->empty() && e->back() == '/') e->pop_back();
    std::string sse = o.sse;
    std::transform(sse.begin(), sse.end(), sse.begin(), [](unsigned char c) { return std::tolower(c); });
    if (sse == "aes256") o.sse = "AES256";
    else if (sse == "kms" || sse == "aws:kms") o.sse = "aws:kms";
    else if (!sse.empty()) throw std::invalid_argument("tilefmt: S3 sse must be AES256 (aes256), aws:kms (kms) or empty, not \"" + o.sse + "\"");
    if (o.multipart_part_size < (std::uint64_t{5} << 20))
      throw std::invalid_argument("tilefmt: S3 multipart_part_size must be at least 5 MiB (S3's smallest part)");
    if (!o.sse_kms_key_id.empty() && o.sse != "aws:kms")
      throw std::invalid_argument("tilefmt: S3 sse_kms_key_id is for sse aws:kms");
    return o;
  }
  static detail::sts_role role_of(const s3_options& o) {
    std::string endpoint = o.sts_endpoint;
    if (endpoint.empty()) endpoint = o.endpoint.empty() ? "https://sts." + o.region + ".amazonaws.com" : o.endpoint;
    return {o.role_arn, o.role_session_name, o.role_external_id, o.role_duration, endpoint, o.region};
  }
  static detail::http_client_options client_options(const s3_options& o) {
    return {o.retries, o.first_backoff, o.connect_timeout, o.request_timeout, o.verify_tls, o.ca_file, o.ca_path};
  }

  s3_options o_;
  detail::http_client client_;
  detail::sts_session role_;  // used when o_.role_arn is set
};

} // namespace tilefmt::storage
