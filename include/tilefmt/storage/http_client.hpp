// tilefmt — HTTP requests over libcurl, for the backends that speak HTTP
// (s3.hpp, http.hpp): a pool of easy handles, so that connections and TLS
// sessions are kept and reused without two requests sharing one; one
// request tried again, with exponential backoff and jitter, while it fails
// for a reason that passes (HTTP 5xx, 429, connection failures, timeouts,
// bodies cut short); the certificate authorities to verify against.
// Programs that include this header link libcurl.
//
// Every const member may be called from many threads at once.
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <curl/curl.h>

#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage::detail {

/// How requests are sent and tried again, and whom they trust.
struct http_client_options {
  unsigned retries = 5;
  std::chrono::milliseconds first_backoff{100};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{120'000};
  bool verify_tls = true;
  /// A PEM bundle or an OpenSSL hashed folder; both empty: libcurl's own
  /// bundle, or where that is missing (a wheel's libcurl built on another
  /// distribution) the first system bundle that exists.
  std::string ca_file{}, ca_path{};
};

/// One request.
/// What a backend has asked of its server so far: requests sent (tries
/// again included) and the bytes of the answers' bodies.
struct http_statistics {
  std::uint64_t requests = 0, bytes_received = 0;
};

struct http_request {
  std::string method = "GET";  ///< GET, HEAD, PUT, POST, DELETE, ...
  std::string url;
  std::vector<std::string> headers{};  ///< "Name: value" lines
  std::span<const std::byte> payload{};  ///< PUT's or POST's body
  std::uint64_t limit = unlimited;       ///< the most body bytes kept (too_large past it)
  /// libcurl signs the request with these when set (S3's Signature V4).
  std::string aws_sigv4{}, userpwd{};
};

/// The certificate bundle of the system: the first that exists of where
/// Debian and Ubuntu, Fedora and RHEL, openSUSE and Alpine keep theirs;
/// empty when none does.
inline std::string system_ca_file() {
  for (const char* f : {"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                        "/etc/ssl/ca-bundle.pem", "/etc/pki/tls/cacert.pem", "/etc/ssl/cert.pem"}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(f, ec)) return f;
  }
  return {};
}

class http_client {
public:
  /// `service` names the server in messages ("S3", "HTTP").
  http_client(http_client_options o, std::string service) : o_(std::move(o)), service_(std::move(service)) {
    static std::once_flag init;
    std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    ca_file_ = o_.ca_file.empty() && o_.ca_path.empty() && !builtin_ca_exists() ? system_ca_file() : o_.ca_file;
  }
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;
  ~http_client() {
    for (CURL* h : pool_) curl_easy_cleanup(h);
  }

  const http_client_options& options() const noexcept { return o_; }
  /// Requests sent (tries again included) and the bytes of their answers.
  std::uint64_t requests() const noexcept { return requests_.load(); }
  std::uint64_t bytes_received() const noexcept { return received_.load(); }
  http_statistics stats() const noexcept { return {requests(), bytes_received()}; }

  /// Sends `q`, again while it fails for a passing reason; an io_error
  /// naming `p` when it cannot be sent at all. The answer's status is the
  /// caller's to judge.
  http_response perform(const http_request& q, const fs::path& p) const {
    std::mt19937 jitter(std::random_device{}());
    for (unsigned attempt = 0;; ++attempt) {
      http_response r;
      const CURLcode rc = once(q, r);
      if (r.too_large) return r;  // the caller's limit, not the network: nothing to try again
      const bool passing = rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_COULDNT_CONNECT || rc == CURLE_SEND_ERROR ||
                           rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE ||
                           (rc == CURLE_OK && (r.status >= 500 || r.status == 429));
      if (!passing || attempt >= o_.retries) {
        if (rc != CURLE_OK) throw io_error(p, service_ + " " + q.method + ": " + curl_easy_strerror(rc));
        return r;
      }
      // Exponential backoff with jitter, so that many clients do not come back together.
      const auto base = o_.first_backoff * (1LL << std::min(attempt, 10u));
      const auto wait = std::min<std::chrono::milliseconds>(base + std::chrono::milliseconds(jitter() % 100),
                                                            std::chrono::milliseconds(20'000));
      std::this_thread::sleep_for(wait);
    }
  }

private:
  /// A handle from the pool (or a new one), back in it, reset, when the guard goes.
  struct handle {
    const http_client* owner;
    CURL* h;
    handle(const http_client* o, CURL* c) : owner(o), h(c) {}
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;
    ~handle() {
      curl_easy_reset(h);
      std::lock_guard lock(owner->pool_mutex_);
      owner->pool_.push_back(h);
    }
  };
  CURL* take_raw() const {
    {
      std::lock_guard lock(pool_mutex_);
      if (!pool_.empty()) {
        CURL* h = pool_.back();
        pool_.pop_back();
        return h;
      }
    }
    CURL* h = curl_easy_init();
    if (!h) throw std::runtime_error("tilefmt: curl_easy_init failed");
    return h;
  }

  struct transfer {
    http_response* r;
    std::uint64_t limit;
    CURL* h;
  };
  /// The most bytes of an error's answer kept (its text says why).
  static constexpr std::uint64_t error_body_limit = 64 * 1024;

  CURLcode once(const http_request& q, http_response& r) const {
    handle h(this, take_raw());
    transfer t{&r, q.limit, h.h};
    curl_slist* list = nullptr;
    for (const auto& line : q.headers) list = curl_slist_append(list, line.c_str());
    if (q.method == "PUT") {
      // The body as POST fields sent with PUT, not an upload callback:
      // libcurl's signature hashes the POST fields as the payload. (A
      // header removed with "Name:" breaks libcurl 7.88's signature, so
      // the form Content-Type it adds is replaced, not removed.)
      list = curl_slist_append(list, "Content-Type: application/octet-stream");
    }
    curl_easy_setopt(h.h, CURLOPT_URL, q.url.c_str());
    curl_easy_setopt(h.h, CURLOPT_HTTPHEADER, list);
    if (!q.aws_sigv4.empty()) {
      curl_easy_setopt(h.h, CURLOPT_AWS_SIGV4, q.aws_sigv4.c_str());
      curl_easy_setopt(h.h, CURLOPT_USERPWD, q.userpwd.c_str());
    }
    curl_easy_setopt(h.h, CURLOPT_WRITEFUNCTION, &http_client::on_body);
    curl_easy_setopt(h.h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h.h, CURLOPT_HEADERFUNCTION, &http_client::on_header);
    curl_easy_setopt(h.h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h.h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o_.connect_timeout.count()));
    curl_easy_setopt(h.h, CURLOPT_TIMEOUT_MS, static_cast<long>(o_.request_timeout.count()));
    curl_easy_setopt(h.h, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: safe in threads
    curl_easy_setopt(h.h, CURLOPT_SSL_VERIFYPEER, o_.verify_tls ? 1L : 0L);
    curl_easy_setopt(h.h, CURLOPT_SSL_VERIFYHOST, o_.verify_tls ? 2L : 0L);
    if (!ca_file_.empty()) curl_easy_setopt(h.h, CURLOPT_CAINFO, ca_file_.c_str());
    if (!o_.ca_path.empty()) curl_easy_setopt(h.h, CURLOPT_CAPATH, o_.ca_path.c_str());
    curl_easy_setopt(h.h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (q.method == "HEAD") {
      curl_easy_setopt(h.h, CURLOPT_NOBODY, 1L);
    } else if (q.method == "PUT" || q.method == "POST") {
      if (q.method == "PUT") curl_easy_setopt(h.h, CURLOPT_CUSTOMREQUEST, "PUT");
      curl_easy_setopt(h.h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(q.payload.size()));
      curl_easy_setopt(h.h, CURLOPT_POSTFIELDS, q.payload.empty() ? "" : reinterpret_cast<const char*>(q.payload.data()));
    } else if (q.method != "GET") {
      curl_easy_setopt(h.h, CURLOPT_CUSTOMREQUEST, q.method.c_str());
    }
    const CURLcode rc = curl_easy_perform(h.h);
    requests_.fetch_add(1, std::memory_order_relaxed);
    received_.fetch_add(r.body.size(), std::memory_order_relaxed);
    curl_easy_getinfo(h.h, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(list);
    return rc;
  }

  static std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<transfer*>(user);
    const std::size_t bytes = size * n;
    long status = 0;
    curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &status);
    const bool success = status >= 200 && status < 300;
    if (t->r->body.size() + bytes > (success ? t->limit : error_body_limit)) {
      t->r->too_large = success;
      return 0;  // ends the transfer
    }
    // The whole body at once when its length is known (and allowed).
    if (t->r->body.empty() && t->r->content_length && *t->r->content_length <= t->limit)
      t->r->body.reserve(static_cast<std::size_t>(*t->r->content_length));
    const auto* b = reinterpret_cast<const std::byte*>(data);
    t->r->body.insert(t->r->body.end(), b, b + bytes);
    return bytes;
  }
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<transfer*>(user);
    const std::string_view line(data, size * n);
    if (line.size() > 5 && (line.substr(0, 5) == "ETag:" || line.substr(0, 5) == "etag:")) {
      std::string_view v = line.substr(5);
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
      t->r->etag = v;
    }
    constexpr std::string_view name = "content-length:";
    if (line.size() > name.size()) {
      bool match = true;
      for (std::size_t i = 0; i < name.size() && match; ++i)
        match = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
      if (match) {
        std::uint64_t v = 0;
        bool digits = false;
        for (char c : line.substr(name.size())) {
          if (c >= '0' && c <= '9') {
            if (v > (unlimited - 9) / 10) return 0;  // no file is that large: a broken answer
            v = v * 10 + static_cast<std::uint64_t>(c - '0');
            digits = true;
          }
        }
        if (digits) t->r->content_length = v;
      }
    }
    return size * n;
  }

  /// Whether libcurl's compiled-in bundle is on this machine (it names
  /// its own distribution's path; a library copied elsewhere may miss it).
  static bool builtin_ca_exists() {
#if LIBCURL_VERSION_NUM >= 0x075400  // CURLINFO_CAINFO: curl 7.84
    CURL* h = curl_easy_init();
    if (h == nullptr) return true;
    char* path = nullptr;
    const bool known = curl_easy_getinfo(h, CURLINFO_CAINFO, &path) == CURLE_OK && path != nullptr;
    std::error_code ec;
    const bool exists = !known || fs::exists(path, ec);
    curl_easy_cleanup(h);
    return exists;
#else
    return true;
#endif
  }

  http_client_options o_;
  std::string service_;
  std::string ca_file_;  // the bundle requests verify against; empty: libcurl's
  mutable std::atomic<std::uint64_t> requests_{0}, received_{0};
  mutable std::mutex pool_mutex_;
  mutable std::vector<CURL*> pool_;
};

} // namespace tilefmt::storage::detail
