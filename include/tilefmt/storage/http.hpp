// tilefmt — arrays and groups on a static web host (http:// and https://
// URLs), read-only, over libcurl. Programs that include this header link
// libcurl.
//
//   auto web = std::make_shared<tilefmt::storage::http>();
//   auto arr = tilefmt::array::open("https://example.org/data/my_array", {.storage = web});
//
// A static host answers range requests but cannot list a folder. The files
// of an object come from its listing document, `<url>.tilefmt-listing`
// beside it (written by `python -m tilefmt.web listing PATH`; one line per
// file, "<size> <path relative to the object>"), or from the listing of a
// folder holding it (a group's covers its members). A listing is read once
// and kept for the backend's life: make a new backend to see an object
// that changed. Reads are ranged GETs, merged for adjacent tiles by the
// readers (prefers_merged_reads). The same document serves tilefmt's
// browser reader (web/).
//
// Every const member may be called from many threads at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/http_client.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage {

/// Who the host is and how to ask it.
struct http_options {
  /// Sent with every request ("Name: value"): an authorization, say.
  std::vector<std::string> headers{};
  unsigned retries = 5;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{120'000};
  bool verify_tls = true;
  /// The certificate authorities of an https:// host (PEM file, hashed
  /// folder); empty: libcurl's bundle, else the system's.
  std::string ca_file{}, ca_path{};
  /// The largest listing document read (its lines are kept in memory).
  std::uint64_t max_listing_bytes = 64ull << 20;
};

namespace detail {

/// A parsed listing document: the files under `base`, their sizes, and
/// every folder's entries.
struct http_listing {
  std::string base;                                    // the object's URL, no trailing '/'
  std::map<std::string, std::uint64_t> files;          // relative path -> size
  std::map<std::string, std::vector<entry>> folders;  // relative folder ("" the object) -> entries, sorted
};

/// The listing of `text` (as tilefmt.web writes it) for `base`; an
/// io_error naming `doc` and the line on a malformed one.
inline http_listing parse_http_listing(const std::string& base, std::string_view text, const fs::path& doc) {
  http_listing out;
  out.base = base;
  std::map<std::string, std::set<std::pair<std::string, bool>>> children;
  children[""];
  std::size_t at = 0, line_no = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const std::size_t space = line.find(' ');
    std::uint64_t size = 0;
    bool ok = space != std::string_view::npos && space > 0 && space < 20 && space + 1 < line.size();
    for (std::size_t i = 0; ok && i < space; ++i) {
      ok = line[i] >= '0' && line[i] <= '9';
      size = size * 10 + static_cast<std::uint64_t>(line[i] - '0');
    }
    const std::string rel(ok ? line.substr(space + 1) : std::string_view());
    // Paths stay inside the object: no absolute paths, no "." or "..".
    if (ok) {
      std::size_t from = 0;
      while (ok && from <= rel.size()) {
        const std::size_t slash = std::min(rel.find('/', from), rel.size());
        const std::string_view part(rel.data() + from, slash - from);
        ok = !part.empty() && part != "." && part != "..";
        from = slash + 1;
      }
    }
    if (!ok) throw io_error(doc, "line " + std::to_string(line_no) + " is not \"<size> <relative path>\"");
    out.files[rel] = size;
    std::string folder;
    std::size_t from = 0;
    for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', from)) {
      children[folder].insert({rel.substr(from, slash - from), true});
      folder = rel.substr(0, slash);
      children[folder];
      from = slash + 1;
    }
    children[folder].insert({rel.substr(from), false});
  }
  for (auto& [folder, names] : children) {
    auto& list = out.folders[folder];
    for (const auto& [name, is_folder] : names)
      if (list.empty() || list.back().name != name) list.push_back({name, is_folder});
  }
  return out;
}

} // namespace detail

class http final : public backend {
public:
  explicit http(http_options o = {})
      : o_(std::move(o)),
        client_({o_.retries, std::chrono::milliseconds(100), o_.connect_timeout, o_.request_timeout, o_.verify_tls,
                 o_.ca_file, o_.ca_path},
                "HTTP") {}

  const http_options& options() const noexcept { return o_; }
  /// Requests sent so far (tries again included).
  std::uint64_t requests() const noexcept { return client_.requests(); }

private:
  /// Where `p` is: its listing and its path relative to the object.
  struct located {
    std::shared_ptr<const detail::http_listing> listing;
    std::string rel;
  };

  /// `p` as a URL, "scheme://host/a/b": path operations may fold "://" to
  /// ":/" (lexically_normal does, and libstdc++'s generic form), and empty
  /// segments are dropped; "." and ".." are refused, so no path leaves the
  /// object it names.
  static std::string url_of(const fs::path& p) {
    const std::string& s = p.native();
    const std::size_t colon = s.find(":/");
    const std::string scheme = colon == std::string::npos ? std::string() : s.substr(0, colon);
    if (scheme != "http" && scheme != "https") throw io_error(p, "not an http:// or https:// URL");
    const auto parts = detail::path_segments(s, colon + 2, p);
    if (parts.empty()) throw io_error(p, "names no host");
    std::string out = scheme + ":/";
    for (const auto part : parts) (out += '/') += part;
    return out;  // "scheme:/" + "/host" + "/a"...
  }

  /// The listing that covers `p`: p's own, else the nearest folder's above it.
  located locate(const fs::path& p) const {
    const std::string u = url_of(p);
    const std::size_t host_end = u.find('/', u.find("://") + 3);
    for (std::string base = u; host_end != std::string::npos && base.size() > host_end;
         base = base.substr(0, base.rfind('/'))) {
      if (auto l = listing_at(base)) return {l, u.size() == base.size() ? std::string() : u.substr(base.size() + 1)};
    }
    throw io_error(p, "no listing document beside it or a folder above it (write " + u +
                          ".tilefmt-listing with `python -m tilefmt.web listing`)");
  }

  /// The listing document `<base>.tilefmt-listing`, or null when the host
  /// has none there (404, 403); fetched once.
  std::shared_ptr<const detail::http_listing> listing_at(const std::string& base) const {
    {
      std::lock_guard lock(m_);
      if (const auto it = listings_.find(base); it != listings_.end()) return it->second;
    }
    const std::string doc = base + ".tilefmt-listing";
    detail::http_request q;
    q.url = encoded(doc);
    q.headers = o_.headers;
    q.limit = o_.max_listing_bytes;
    const auto r = client_.perform(q, doc);
    std::shared_ptr<const detail::http_listing> l;
    if (r.too_large) throw io_error(doc, "larger than " + std::to_string(o_.max_listing_bytes) + " bytes");
    if (r.status == 200) {
      l = std::make_shared<const detail::http_listing>(detail::parse_http_listing(
          base, std::string_view(reinterpret_cast<const char*>(r.body.data()), r.body.size()), doc));
    } else if (r.status != 404 && r.status != 403) {
      throw io_error(doc, "HTTP " + std::to_string(r.status));
    }
    std::lock_guard lock(m_);
    return listings_.emplace(base, std::move(l)).first->second;
  }

  /// `u` with each path segment after the host percent-encoded.
  static std::string encoded(const std::string& u) {
    const std::size_t host_end = u.find('/', u.find("://") + 3);
    if (host_end == std::string::npos) return u;
    return u.substr(0, host_end) + detail::uri_encode(u.substr(host_end), true);
  }

  std::optional<std::uint64_t> do_file_size(const fs::path& p) const override {
    const auto at = locate(p);
    const auto it = at.listing->files.find(at.rel);
    if (it == at.listing->files.end()) return std::nullopt;
    return it->second;
  }
  bool do_is_folder(const fs::path& p) const override {
    const auto at = locate(p);
    return at.listing->folders.count(at.rel) != 0;
  }
  std::vector<entry> do_list(const fs::path& p) const override {
    const auto at = locate(p);
    const auto it = at.listing->folders.find(at.rel);
    return it == at.listing->folders.end() ? std::vector<entry>{} : it->second;
  }
  std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const override {
    const auto size = do_file_size(p);
    if (!size) throw io_error(p, "no such file in the listing");
    if (*size > max_bytes)
      throw io_error(p, "larger than the " + std::to_string(max_bytes) + " bytes a read may allocate here");
    return do_read_range(p, 0, *size);
  }
  std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const override {
    const auto size = do_file_size(p);
    if (!size) throw io_error(p, "no such file in the listing");
    if (offset > *size || n > *size - offset)
      throw io_error(p, "is shorter than " + std::to_string(offset) + " + " + std::to_string(n) + " bytes");
    if (n == 0) return {};
    detail::http_request q;
    q.url = encoded(url_of(p));
    q.headers = o_.headers;
    q.headers.push_back("Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + n - 1));
    // A host that ignores ranges answers the whole file: allowed when the
    // range is all of it.
    q.limit = n;
    auto r = client_.perform(q, p);
    if (r.status == 404) throw io_error(p, "HTTP 404: gone since the listing was written");
    if (r.status == 416 || (r.status == 206 && r.body.size() != n))
      throw io_error(p, "the host has fewer bytes than the listing says (" + std::to_string(offset + n) + ")");
    if (r.status == 200 && offset == 0 && r.body.size() == n && !r.too_large) return std::move(r.body);
    if (r.status != 206) throw io_error(p, "HTTP " + std::to_string(r.status) + " for a byte range");
    return std::move(r.body);
  }
  // A round trip per request: adjacent tiles are better read as one range.
  bool do_prefers_merged_reads() const override { return true; }

  [[noreturn]] static void read_only(const fs::path& p) { throw io_error(p, "a web host is read-only here"); }
  void do_write(const fs::path& p, std::span<const std::byte>) override { read_only(p); }
  void do_make_folder(const fs::path& p) override { read_only(p); }
  void do_remove(const fs::path& p) override { read_only(p); }

  http_options o_;
  detail::http_client client_;
  mutable std::mutex m_;
  mutable std::map<std::string, std::shared_ptr<const detail::http_listing>> listings_;  // null: none there
};

} // namespace tilefmt::storage
