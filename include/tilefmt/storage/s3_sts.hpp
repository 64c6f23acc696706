// tilefmt — temporary credentials of a role assumed through AWS STS
// (AssumeRole), for the S3 backend: asked for with the credentials at hand,
// kept while they are good, asked for again a few minutes before they
// expire. One session per backend; safe to use from many threads.
#pragma once

#include <chrono>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>

#include "tilefmt/storage/http_client.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage::detail {

/// Signing credentials: a key, its secret and, for temporary ones, a token.
struct aws_credentials {
  std::string access_key_id, secret_access_key, session_token;
};

/// What AssumeRole needs besides the caller's credentials.
struct sts_role {
  std::string arn;
  std::string session_name = "tilefmt";
  std::string external_id;
  std::chrono::seconds duration{3600};
  std::string endpoint;  ///< e.g. https://sts.us-east-1.amazonaws.com
  std::string region = "us-east-1";
};

/// "2026-11-30T06:00:00Z" (STS's <Expiration>) as a system clock time;
/// nullopt when it is not that shape.
inline std::optional<std::chrono::system_clock::time_point> parse_utc(std::string_view s) {
  std::tm t{};
  int fields[6] = {};
  const int widths[6] = {4, 2, 2, 2, 2, 2};
  const char seps[6] = {'-', '-', 'T', ':', ':', 0};
  std::size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    if (at + widths[i] > s.size()) return std::nullopt;
    for (int k = 0; k < widths[i]; ++k) {
      const char c = s[at + k];
      if (c < '0' || c > '9') return std::nullopt;
      fields[i] = fields[i] * 10 + (c - '0');
    }
    at += widths[i];
    if (seps[i] && (at >= s.size() || s[at++] != seps[i])) return std::nullopt;
  }
  // Within what a clock of nanoseconds holds (to 2262), and a real date and time.
  if (fields[0] < 1970 || fields[0] > 2200 || fields[1] < 1 || fields[1] > 12 || fields[2] < 1 || fields[2] > 31 ||
      fields[3] > 23 || fields[4] > 59 || fields[5] > 60)
    return std::nullopt;
  t.tm_year = fields[0] - 1900, t.tm_mon = fields[1] - 1, t.tm_mday = fields[2];
  t.tm_hour = fields[3], t.tm_min = fields[4], t.tm_sec = fields[5];
  return std::chrono::system_clock::from_time_t(timegm(&t));
}

class sts_session {
public:
  sts_session(sts_role role, const http_client& client) : role_(std::move(role)), client_(client) {}

  /// The role's credentials, asked for again when they are missing or
  /// expire within five minutes; `caller` signs the request. `p` names the
  /// object being reached, for errors.
  aws_credentials current(const aws_credentials& caller, const fs::path& p) const {
    std::lock_guard lock(m_);
    if (!held_.access_key_id.empty() && std::chrono::system_clock::now() + std::chrono::minutes(5) < expires_)
      return held_;
    assume(caller, p);
    return held_;
  }

private:
  void assume(const aws_credentials& caller, const fs::path& p) const {
    if (caller.access_key_id.empty())
      throw io_error(p, "assuming role " + role_.arn + ": no credentials to ask STS with");
    std::string form = "Action=AssumeRole&DurationSeconds=" + std::to_string(role_.duration.count());
    if (!role_.external_id.empty()) form += "&ExternalId=" + uri_encode(role_.external_id, false);
    form += "&RoleArn=" + uri_encode(role_.arn, false) + "&RoleSessionName=" + uri_encode(role_.session_name, false) +
            "&Version=2011-06-15";
    http_request q;
    q.method = "POST";
    q.url = role_.endpoint + "/";
    q.headers = {"Content-Type: application/x-www-form-urlencoded"};
    if (!caller.session_token.empty()) q.headers.push_back("x-amz-security-token: " + caller.session_token);
    q.aws_sigv4 = "aws:amz:" + role_.region + ":sts";
    q.userpwd = caller.access_key_id + ":" + caller.secret_access_key;
    q.payload = std::as_bytes(std::span<const char>(form.data(), form.size()));
    q.limit = 1 << 20;
    const auto r = client_.perform(q, p);
    const std::string_view xml(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    if (r.status != 200) {
      const auto code = xml_texts(xml, "Code"), message = xml_texts(xml, "Message");
      throw io_error(p, "STS AssumeRole of " + role_.arn + ": HTTP " + std::to_string(r.status) +
                            (code.empty() ? "" : " " + code.front()) + (message.empty() ? "" : ": " + message.front()));
    }
    const auto key = xml_texts(xml, "AccessKeyId"), secret = xml_texts(xml, "SecretAccessKey"),
               token = xml_texts(xml, "SessionToken"), expiration = xml_texts(xml, "Expiration");
    const auto expires = expiration.empty() ? std::nullopt : parse_utc(expiration.front());
    if (key.empty() || secret.empty() || token.empty() || !expires)
      throw io_error(p, "STS AssumeRole of " + role_.arn + ": an answer without credentials or their expiration");
    held_ = {key.front(), secret.front(), token.front()};
    expires_ = *expires;
  }

  sts_role role_;
  const http_client& client_;
  mutable std::mutex m_;
  mutable aws_credentials held_;
  mutable std::chrono::system_clock::time_point expires_{};
};

} // namespace tilefmt::storage::detail
