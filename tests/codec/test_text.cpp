// codec/text.hpp: hexadecimal and JSON string literals for dumps and tools.
#include "tilefmt/codec/text.hpp"

#include <doctest/doctest.h>

#include "../support/testing.hpp"

namespace test_text {

using tilefmt::codec::hex_string;
using tilefmt::codec::json_string;

TEST_CASE("hex_string: two lowercase digits per byte") {
  CHECK(hex_string({}) == "");
  CHECK(hex_string(tilefmt::testing::bytes_of({0x00, 0x0f, 0xa0, 0xff})) == "000fa0ff");
}

TEST_CASE("json_string: quotes, escapes and control characters") {
  CHECK(json_string("") == R"("")");
  CHECK(json_string("plain") == R"("plain")");
  CHECK(json_string("a\"b\\c") == R"("a\"b\\c")");
  CHECK(json_string("\n\r\t") == R"("\n\r\t")");
  CHECK(json_string(std::string_view("\x00\x01\x1f\x7f", 4)) == R"("\u0000\u0001\u001f\u007f")");
}

TEST_CASE("json_string: valid UTF-8 is kept, other bytes become \\u00XX") {
  CHECK(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  // A lone continuation byte, a truncated sequence: the whole string is
  // escaped byte by byte, so the result is valid JSON either way.
  CHECK(json_string("a\x80z") == R"("a\u0080z")");
  CHECK(json_string("\xc3\xa9\xe2\x82") == R"("\u00c3\u00a9\u00e2\u0082")");
}

} // namespace test_text
