#include "tilefmt/codec/dump.hpp"

#include <cmath>
#include <limits>

#include "../support/testing.hpp"

namespace test_dump {

using namespace tilefmt;

namespace {
enum class Kind : std::uint8_t { a = 0, b = 1 };
constexpr std::string_view codec_enum_name(Kind k) { return k == Kind::a ? "A" : "B"; }

struct Point {
  std::int32_t x;
  float y;
};
struct Doc {
  codec::version_field<std::uint32_t> version;
  codec::counted<std::uint8_t, std::string> name;
  Kind kind;
  codec::since<3, std::uint16_t> added_in_3;
  codec::counted<std::uint32_t, std::vector<Point>> points;
  std::uint8_t has_extra;
  codec::when<codec::field_equals<"has_extra", 1>, double> extra;
  codec::counted<std::uint32_t, std::vector<std::uint8_t>> bytes;
};
} // namespace

TEST_CASE("text dump names fields and omits absent ones") {
  Doc d{{2}, {"p\"q"}, Kind::b, {7}, {{{1, 0.5f}}}, 0, {1.0}, {{1, 2, 3}}};
  std::string t = codec::to_text(d);
  CHECK(t == "Doc {\n"
             "  version: 2\n"
             "  name: \"p\\\"q\"\n"
             "  kind: B\n"
             "  points: [\n"
             "    Point {\n"
             "      x: 1\n"
             "      y: 0.5\n"
             "    }\n"
             "  ]\n"
             "  has_extra: 0\n"
             "  bytes: [1, 2, 3]\n"
             "}");
}

TEST_CASE("JSON dump") {
  Doc d{{3}, {"n"}, Kind::a, {7}, {}, 1, {std::numeric_limits<double>::quiet_NaN()}, {}};
  std::string j = codec::to_json(d);
  CHECK(j == "{\n"
             "  \"version\": 3,\n"
             "  \"name\": \"n\",\n"
             "  \"kind\": \"A\",\n"
             "  \"added_in_3\": 7,\n"
             "  \"points\": [],\n"
             "  \"has_extra\": 1,\n"
             "  \"extra\": \"NaN\",\n"
             "  \"bytes\": []\n"
             "}");
}

TEST_CASE("text dump shortens long arrays; JSON does not") {
  struct Many {
    codec::counted<std::uint32_t, std::vector<std::uint16_t>> v;
  };
  Many m{{std::vector<std::uint16_t>(40, 5)}};
  std::string t = codec::to_text(m, codec::no_context{}, {.max_elements = 3});
  CHECK(t.find("[5, 5, 5, ... (40 total)]") != std::string::npos);
  std::string j = codec::to_json(m);
  CHECK(std::count(j.begin(), j.end(), '5') == 40);
}

} // namespace test_dump
