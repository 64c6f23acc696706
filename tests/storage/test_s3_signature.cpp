// AWS Signature Version 4 as the WebAssembly module signs a browser's S3
// requests (storage/s3_signature.hpp): HMAC-SHA256 against RFC 4231's
// vectors, a request of AWS's SigV4 test suite, and an S3 listing request
// with a session token, whose signature botocore computed for the same
// canonical request. (The browser tests send such requests to a local S3
// server that checks every signature.)
#include "tilefmt/storage/s3_signature.hpp"

#include "../support/testing.hpp"

using namespace tilefmt::storage::detail;

namespace {
std::string hmac_hex(std::string_view key, std::string_view message) {
  return hex_lower(hmac_sha256(bytes_of(key), bytes_of(message)));
}
} // namespace

TEST_CASE("s3 signature: HMAC-SHA256 as RFC 4231 gives it") {
  CHECK(hmac_hex("Jefe", "what do ya want for nothing?") ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than the block is hashed first (test case 6).
  CHECK(hmac_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First") ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  // A key shorter than the block is padded with zeros (test case 1).
  CHECK(hmac_hex(std::string(20, '\x0b'), "Hi There") ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST_CASE("s3 signature: AWS's get-vanilla request") {
  const sigv4_credentials who{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "service"};
  sigv4_request r{"GET", "/", "", {{"x-amz-date", "20150830T123600Z"}, {"host", "example.amazonaws.com"}},
                  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "20150830T123600Z"};
  CHECK(sigv4_authorization(r, who) ==
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  // Any change to what is signed changes the signature.
  r.canonical_uri = "/x";
  CHECK(sigv4_authorization(r, who).find("5fa00fa3") == std::string::npos);
}

TEST_CASE("s3 signature: a listing request with a session token, as botocore signs it") {
  const sigv4_credentials who{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "eu-west-2", "s3"};
  const sigv4_request r{"GET",
                        "/data",
                        "list-type=2&prefix=" + uri_encode("tiledb/dense 1d/", false),
                        {{"host", "127.0.0.1:5000"},
                         {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"},
                         {"x-amz-date", "20261130T050102Z"},
                         {"x-amz-security-token", "session/token+1"}},
                        "UNSIGNED-PAYLOAD",
                        "20261130T050102Z"};
  CHECK(sigv4_authorization(r, who) ==
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/eu-west-2/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
        "Signature=5187b493881585116fc50c1591907ac3a5d279fde411f69defd4d458ca7f3708");
}
