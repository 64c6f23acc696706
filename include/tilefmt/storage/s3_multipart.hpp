// tilefmt — S3 multipart uploads: a large file goes up in parts, several in
// flight at once, and appears whole when the upload completes (nothing of
// it is seen before, and an upload that fails is aborted). The S3 backend
// uses one for a write larger than a part, and for a file written in
// pieces (backend::open_write), whose parts go up as they fill, so that a
// file larger than memory is never held whole.
#pragma once

#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage::detail {

/// Sends one request about the object: method, query (canonical), body,
/// extra headers.
using s3_send = std::function<http_response(const std::string& method, const std::string& query,
                                            std::span<const std::byte> payload, const std::vector<std::string>& headers)>;

class s3_multipart {
public:
  s3_multipart(s3_send send, fs::path p, unsigned in_flight)
      : send_(std::move(send)), p_(std::move(p)), in_flight_(std::max(1u, in_flight)) {
    const auto r = send_("POST", "uploads=", {}, {});
    const std::string_view xml(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    const auto id = xml_texts(xml, "UploadId");
    if (r.status != 200 || id.empty() || id.front().empty()) fail("CreateMultipartUpload", r);
    id_ = id.front();
  }
  s3_multipart(const s3_multipart&) = delete;
  s3_multipart& operator=(const s3_multipart&) = delete;
  /// An upload neither completed nor aborted is aborted.
  ~s3_multipart() {
    if (!done_) abort();
  }

  /// Sends the next part; `keep` owns its bytes when the caller does not
  /// hold them until complete().
  void add(std::span<const std::byte> bytes, std::shared_ptr<const std::vector<std::byte>> keep = {}) {
    while (pending_.size() >= in_flight_) settle_oldest();
    const int number = static_cast<int>(etags_.size() + pending_.size()) + 1;
    const std::string query = "partNumber=" + std::to_string(number) + "&uploadId=" + uri_encode(id_, false);
    pending_.push_back(std::async(std::launch::async, [this, bytes, keep = std::move(keep), query] {
      auto r = send_("PUT", query, bytes, {});
      if (r.status != 200 || r.etag.empty()) fail("UploadPart", r);
      return r.etag;
    }));
  }

  /// Waits for the parts and makes the object from them.
  void complete() {
    while (!pending_.empty()) settle_oldest();
    std::string xml = "<CompleteMultipartUpload>";
    for (std::size_t i = 0; i < etags_.size(); ++i)
      xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags_[i] + "</ETag></Part>";
    xml += "</CompleteMultipartUpload>";
    const auto r = send_("POST", "uploadId=" + uri_encode(id_, false),
                         std::as_bytes(std::span<const char>(xml.data(), xml.size())), {"Content-Type: application/xml"});
    // S3 may answer 200 with an error in the body when the work fails late.
    const std::string_view body(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    if (r.status != 200 || body.find("<Error>") != std::string_view::npos) fail("CompleteMultipartUpload", r);
    done_ = true;
  }

  /// Drops the parts sent (nothing is thrown: this cleans up after a failure).
  void abort() noexcept {
    done_ = true;
    for (auto& f : pending_) {
      try {
        f.get();
      } catch (...) {
      }
    }
    pending_.clear();
    try {
      (void)send_("DELETE", "uploadId=" + uri_encode(id_, false), {}, {});
    } catch (...) {
    }
  }

private:
  void settle_oldest() {
    auto f = std::move(pending_.front());
    pending_.pop_front();
    etags_.push_back(f.get());  // rethrows the part's failure
  }

  [[noreturn]] void fail(const std::string& what, const http_response& r) const {
    const std::string_view xml(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    const auto code = xml_texts(xml, "Code"), message = xml_texts(xml, "Message");
    throw io_error(p_, "S3 " + what + ": HTTP " + std::to_string(r.status) + (code.empty() ? "" : " " + code.front()) +
                           (message.empty() ? "" : ": " + message.front()));
  }

  s3_send send_;
  fs::path p_;
  unsigned in_flight_;
  std::string id_;
  std::deque<std::future<std::string>> pending_;
  std::vector<std::string> etags_;
  bool done_ = false;
};

} // namespace tilefmt::storage::detail
