// The one mapping of an array's cells to TileDB's Hilbert curve
// (model/hilbert.hpp) that the sparse reader and both sparse writers use.
#include "tilefmt/array/model/hilbert.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "../../support/testing.hpp"

namespace test_hilbert {

using tilefmt::array::detail::hilbert_bucket;
using tilefmt::array::detail::hilbert_curve;
namespace format = tilefmt::format;

TEST_CASE("hilbert_curve: libtiledb 2.2's wider integer domains for writers of format 7 and 8 only") {
  const std::vector<format::Dimension> dims{format::make_dimension<std::int32_t>("x", 0, 1023, 16),
                                            format::make_dimension<double>("y", -1.0, 1.0, 0.5)};
  const auto v8 = hilbert_curve::for_writing(dims, 8);
  const auto v9 = hilbert_curve::for_writing(dims, 9);
  const auto read = hilbert_curve::for_reading(dims);
  REQUIRE(v8.bits() == 31);
  REQUIRE(read.dimensions() == 2);
  for (std::int32_t x : {0, 1, 511, 700, 1022, 1023}) {
    CHECK(v8.bucket(0, x) == hilbert_bucket(x, 0, 1023, 31, true));
    CHECK(v9.bucket(0, x) == hilbert_bucket(x, 0, 1023, 31, false));
    CHECK(read.bucket(0, x) == v9.bucket(0, x));
  }
  CHECK(v8.bucket(0, std::int32_t{700}) != read.bucket(0, std::int32_t{700}));  // the mappings differ
  CHECK(read.bucket(0, std::int32_t{1023}) == (std::uint64_t{1} << 31) - 1);
  CHECK(v8.bucket(0, std::int32_t{1023}) < (std::uint64_t{1} << 31) - 1);      // hi - lo + 1 never reaches the top
  // Floating-point domains are measured as hi - lo by every version.
  for (double y : {-1.0, -0.25, 0.0, 0.9, 1.0}) CHECK(v8.bucket(1, y) == read.bucket(1, y));
  // A cell's value: the free function's, at the curve's bits.
  std::vector<std::uint64_t> a{read.bucket(0, std::int32_t{5}), read.bucket(1, 0.5)}, b = a;
  CHECK(read.value(a) == tilefmt::array::detail::hilbert_value(b, 31));
}

TEST_CASE("hilbert_curve: strings by their first eight bytes, a one-value domain at bucket 0") {
  const std::vector<format::Dimension> dims{format::make_dimension<std::int64_t>("t", 7, 7, 1)};
  const auto c = hilbert_curve::for_reading(dims);
  CHECK(c.bits() == 63);
  CHECK(c.bucket(0, std::int64_t{7}) == 0);
  CHECK(c.bucket(std::string_view("b")) > c.bucket(std::string_view("a")));
  CHECK(c.bucket(std::string_view("abcdefgh-ignored")) == c.bucket(std::string_view("abcdefgh")));
}

} // namespace test_hilbert
