// tilefmt — Google Cloud Storage through its JSON API on libcurl: objects
// read whole or by byte range, listed a level at a time (prefixes with
// delimiter "/") or all below a prefix, written by single uploads (TileDB's
// files are written once, whole), removed. Paths are `gs://bucket/key`
// (`gcs://` too, as TileDB writes them). Requests go through
// detail::http_client (retries with backoff, TLS, a pool of connections);
// gcs_auth.hpp says who signs them.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/gcs_auth.hpp"
#include "tilefmt/storage/http_client.hpp"
#include "tilefmt/storage/object_store.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage {

/// Where the service is and who signs the requests.
struct gcs_options {
  /// The service's address; empty: https://storage.googleapis.com.
  std::string endpoint{};
  /// The project new buckets belong to (create_bucket only).
  std::string project{};
  /// An OAuth 2.0 access token (e.g. `gcloud auth print-access-token`).
  std::string token{};
  /// A service account's key, the JSON text (TileDB's
  /// vfs.gcs.service_account_key): tokens are asked for with it.
  std::string service_account_key{};
  /// Requests unsigned, whatever is at hand: public buckets, the emulator.
  bool anonymous = false;
  unsigned retries = 5;
  std::chrono::milliseconds first_backoff{100};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{120'000};
  bool verify_tls = true;
  std::string ca_file{}, ca_path{};

  /// What Google's tools read: STORAGE_EMULATOR_HOST (an emulator's
  /// host:port or URL; its requests go unsigned unless a token or key is
  /// given), GOOGLE_APPLICATION_CREDENTIALS (a service account key's file),
  /// GOOGLE_OAUTH_ACCESS_TOKEN, GOOGLE_CLOUD_PROJECT.
  static gcs_options from_environment() {
    auto env = [](const char* name) -> std::string {
      const char* v = std::getenv(name);
      return v ? v : "";
    };
    gcs_options o;
    o.endpoint = env("STORAGE_EMULATOR_HOST");
    if (!o.endpoint.empty() && o.endpoint.find("://") == std::string::npos) o.endpoint = "http://" + o.endpoint;
    o.token = env("GOOGLE_OAUTH_ACCESS_TOKEN");
    if (const auto file = env("GOOGLE_APPLICATION_CREDENTIALS"); !file.empty()) {
      std::ifstream in(file, std::ios::binary);
      if (!in) throw io_error(file, "GOOGLE_APPLICATION_CREDENTIALS names a file that cannot be read");
      o.service_account_key.assign(std::istreambuf_iterator<char>(in), {});
    }
    o.project = env("GOOGLE_CLOUD_PROJECT");
    o.anonymous = !o.endpoint.empty() && o.token.empty() && o.service_account_key.empty();
    return o;
  }
};

namespace detail {
/// Bucket and object name of a `gs://bucket/key` or `gcs://bucket/key` path.
struct gcs_location {
  std::string bucket, key;

  static gcs_location of(const fs::path& p) {
    const std::string& s = p.native();
    // "gs:/" and "gcs:/": path operations may fold the double slash.
    const std::size_t at = s.rfind("gs:/", 0) == 0 ? 4 : s.rfind("gcs:/", 0) == 0 ? 5 : 0;
    if (at == 0) throw io_error(p, "is not a gs://bucket/key path");
    auto [bucket, key] = s3_location::of_segments(s, at, p);
    return {std::move(bucket), std::move(key)};
  }
};

/// The page of objects.list GCS answered with `text`; an io_error naming
/// `p` when it is not such a page.
inline object_page gcs_listing_of(std::string_view text, const fs::path& p) {
  const auto t = parse_json(text, p, "GCS listing");
  object_page out;
  try {
    if (const auto items = t.get_child_optional("items"))
      for (const auto& [_, item] : *items) out.keys.push_back(item.get<std::string>("name", ""));
    if (const auto prefixes = t.get_child_optional("prefixes"))
      for (const auto& [_, f] : *prefixes) out.prefixes.push_back(f.get_value<std::string>());
    out.next = t.get<std::string>("nextPageToken", "");
  } catch (const boost::property_tree::ptree_error& e) {
    throw io_error(p, std::string("GCS listing: ") + e.what());
  }
  out.empty_page = out.keys.empty() && out.prefixes.empty();
  return out;
}
} // namespace detail

class gcs final : public backend {
public:
  explicit gcs(gcs_options o = gcs_options::from_environment())
      : o_(std::move(o)), client_({o_.retries, o_.first_backoff, o_.connect_timeout, o_.request_timeout,
                                   o_.verify_tls, o_.ca_file, o_.ca_path},
                                  "GCS") {
    while (!o_.endpoint.empty() && o_.endpoint.back() == '/') o_.endpoint.pop_back();
    if (o_.endpoint.empty()) o_.endpoint = "https://storage.googleapis.com";
    if (!o_.anonymous && o_.token.empty() && !o_.service_account_key.empty())
      tokens_ = std::make_unique<detail::service_account_tokens>(
          detail::service_account_key::of(o_.service_account_key, "service_account_key"),
          "https://www.googleapis.com/auth/devstorage.read_write", client_);
  }
  gcs(const gcs&) = delete;
  gcs& operator=(const gcs&) = delete;

  const gcs_options& options() const noexcept { return o_; }

  /// Requests sent (tries again included) and the bytes of their answers.
  using statistics = detail::http_statistics;
  statistics stats() const noexcept { return client_.stats(); }

  /// Creates `bucket` in the options' project (tests and scratch stores).
  void create_bucket(const std::string& bucket) {
    const std::string body = "{\"name\":\"" + bucket + "\"}";
    const fs::path p("gs://" + bucket);
    const auto r = request("POST", "/storage/v1/b?project=" + detail::uri_encode(o_.project, false),
                           as_bytes(body), {"Content-Type: application/json"}, unlimited, p);
    if (r.status != 200) fail(p, "POST (create bucket)", r);
  }

private:
  static std::span<const std::byte> as_bytes(const std::string& s) {
    return std::as_bytes(std::span<const char>(s.data(), s.size()));
  }
  static std::string object_path(const detail::gcs_location& at) {
    return "/storage/v1/b/" + detail::uri_encode(at.bucket, false) + "/o/" + detail::uri_encode(at.key, false);
  }
  static detail::gcs_location object_of(const fs::path& p) {
    auto at = detail::gcs_location::of(p);
    if (at.key.empty()) throw io_error(p, "is a bucket, not an object");
    return at;
  }

  std::optional<std::uint64_t> do_file_size(const fs::path& p) const override {
    const auto at = detail::gcs_location::of(p);
    if (at.key.empty()) return std::nullopt;
    const auto r = request("GET", object_path(at), {}, {}, 1 << 20, p);
    if (r.status == 404) return std::nullopt;
    if (r.status != 200) fail(p, "GET (metadata)", r);
    const auto t = detail::parse_json(text_of(r), p, "GCS object metadata");
    const auto size = t.get_optional<std::uint64_t>("size");
    if (!size) throw io_error(p, "GCS object metadata: no size");
    return *size;
  }

  bool do_is_folder(const fs::path& p) const override {
    const auto at = detail::gcs_location::of(p);
    return !list_page(p, at, detail::prefix_of(at.key), true, 1, "").empty_page;
  }

  std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const override {
    const auto at = object_of(p);
    auto r = request("GET", object_path(at) + "?alt=media", {}, {}, max_bytes, p);
    if (r.too_large) throw io_error(p, "larger than the " + std::to_string(max_bytes) + " bytes a read may allocate here");
    if (r.status == 404) throw io_error(p, "no such object");
    if (r.status != 200) fail(p, "GET", r);
    return std::move(r.body);
  }

  bool do_prefers_merged_reads() const override { return true; }

  std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const override {
    const auto at = object_of(p);
    return detail::ranged_read(
        p, offset, n, [&] { return do_file_size(p); },
        [&](const std::string& range) { return request("GET", object_path(at) + "?alt=media", {}, {range}, n, p); },
        [&](const std::string& what, const detail::http_response& r) { fail(p, what, r); });
  }

  std::vector<entry> do_list(const fs::path& p) const override {
    const auto at = detail::gcs_location::of(p);
    const std::string prefix = detail::prefix_of(at.key);
    return detail::entries_of(prefix, [&](const std::string& token) { return list_page(p, at, prefix, true, 1000, token); });
  }

  void do_write(const fs::path& p, std::span<const std::byte> bytes) override {
    const auto at = object_of(p);
    const std::string target = "/upload/storage/v1/b/" + detail::uri_encode(at.bucket, false) + "/o?uploadType=";
    const std::string name = "name=" + detail::uri_encode(at.key, false);
    // An empty object (TileDB's commit markers are) goes as a multipart
    // upload, its name in the metadata part: gcp-storage-emulator fails on
    // an empty media upload's body, GCS takes either.
    const auto r = !bytes.empty() ? request("POST", target + "media&" + name, bytes,
                                            {"Content-Type: application/octet-stream"}, 1 << 20, p)
                                  : request("POST", target + "multipart&" + name, as_bytes(empty_multipart(at.key)),
                                            {"Content-Type: multipart/related; boundary=tilefmt-part"}, 1 << 20, p);
    if (r.status != 200) fail(p, "POST (upload)", r);
  }

  static std::string empty_multipart(const std::string& key) {
    std::string quoted;
    for (const char c : key) {  // a JSON string: quotes, backslashes and controls escaped
      if (c == '"' || c == '\\') quoted += '\\', quoted += c;
      else if (static_cast<unsigned char>(c) < 0x20) quoted += "\\u00" + std::string{"0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]};
      else quoted += c;
    }
    return "--tilefmt-part\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{\"name\": \"" + quoted +
           "\"}\r\n--tilefmt-part\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--tilefmt-part--\r\n";
  }

  void do_make_folder(const fs::path& p) override { (void)detail::gcs_location::of(p); }

  void do_remove(const fs::path& p) override {
    const auto at = detail::gcs_location::of(p);
    if (at.key.empty()) throw io_error(p, "is a bucket: removing buckets is not this backend's job");
    // The object, and everything below the prefix at any depth.
    auto keys = detail::keys_of([&](const std::string& token) {
      return list_page(p, at, detail::prefix_of(at.key), false, 1000, token);
    });
    if (do_file_size(p)) keys.insert(keys.begin(), at.key);
    for (const auto& k : keys) {
      const auto r = request("DELETE", object_path({at.bucket, k}), {}, {}, 1 << 20, p);
      if (r.status != 204 && r.status != 200 && r.status != 404) fail(fs::path("gs://" + at.bucket + "/" + k), "DELETE", r);
    }
  }

  static std::string_view text_of(const detail::http_response& r) {
    return {reinterpret_cast<const char*>(r.body.data()), r.body.size()};
  }

  using listing = detail::object_page;

  /// One page of objects.list under `prefix`: direct children only when
  /// `one_level` (delimiter "/").
  listing list_page(const fs::path& p, const detail::gcs_location& at, const std::string& prefix, bool one_level,
                    unsigned max_results, const std::string& token) const {
    std::string query = "?maxResults=" + std::to_string(max_results) + "&prefix=" + detail::uri_encode(prefix, false);
    if (one_level) query += "&delimiter=%2F";
    if (!token.empty()) query += "&pageToken=" + detail::uri_encode(token, false);
    const auto r = request("GET", "/storage/v1/b/" + detail::uri_encode(at.bucket, false) + "/o" + query, {}, {},
                           64 << 20, p);
    if (r.status != 200) fail(p, "GET (list)", r);
    return detail::gcs_listing_of(text_of(r), p);
  }

  [[noreturn]] static void fail(const fs::path& p, const std::string& what, const detail::http_response& r) {
    // GCS's errors: {"error": {"code": 403, "message": "..."}}.
    std::string why = "GCS " + what + ": HTTP " + std::to_string(r.status);
    try {
      const auto t = detail::parse_json(text_of(r), p, "error");
      if (const auto m = t.get_optional<std::string>("error.message")) why += ": " + *m;
    } catch (const io_error&) {
      if (!r.body.empty()) why += ": " + std::string(text_of(r).substr(0, 200));
    }
    throw io_error(p, why);
  }

  detail::http_response request(const std::string& method, const std::string& target,
                                std::span<const std::byte> payload, std::vector<std::string> headers,
                                std::uint64_t limit, const fs::path& p) const {
    detail::http_request q;
    q.method = method;
    q.url = o_.endpoint + target;
    q.headers = std::move(headers);
    if (!o_.anonymous) {
      const std::string token = tokens_ ? tokens_->current(p) : o_.token;
      if (!token.empty()) q.headers.push_back("Authorization: Bearer " + token);
    }
    q.payload = payload;
    q.limit = limit;
    return client_.perform(q, p);
  }

  gcs_options o_;
  detail::http_client client_;
  std::unique_ptr<detail::service_account_tokens> tokens_;
};

} // namespace tilefmt::storage
