// tilefmt — the fuzz harness of what storage servers answer: S3's XML
// (listings, errors, STS's AssumeRole, multipart uploads), GCS's JSON
// (listings, service account keys), web hosts' listing documents, and
// STS's expiration times. A server is input like a file: a hostile or
// broken one must get an io_error, never a crash or an unbounded
// allocation. The first byte picks the parser.
#include <string>
#include <string_view>

#include "fuzz.hpp"
#include "tilefmt/storage/gcs.hpp"
#include "tilefmt/storage/http.hpp"
#include "tilefmt/storage/s3_request.hpp"
#include "tilefmt/storage/s3_sts.hpp"

namespace tilefmt::fuzz {

void storage_answers(input in) {
  if (in.empty()) return;
  const std::string_view text(reinterpret_cast<const char*>(in.data() + 1), in.size() - 1);
  const storage::fs::path where("fuzz://answer");
  namespace d = storage::detail;
  try {
    switch (in[0] % 5) {
      case 0: {  // what the S3 backend reads of a listing, an error, STS and multipart answers
        for (const auto& c : d::xml_texts(text, "Contents", true)) (void)d::xml_texts(c, "Key");
        for (const auto& tag : {"CommonPrefixes", "Code", "Message", "NextContinuationToken", "IsTruncated", "UploadId",
                                "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"})
          (void)d::xml_texts(text, tag);
        break;
      }
      case 1:
        (void)d::gcs_listing_of(text, where);
        break;
      case 2:
        (void)d::service_account_key::of(text, where);
        break;
      case 3:
        (void)d::parse_http_listing("https://example.org/a", text, where);
        break;
      case 4:
        (void)d::parse_utc(text);
        break;
    }
  } catch (const storage::io_error&) {
  }
}

} // namespace tilefmt::fuzz
