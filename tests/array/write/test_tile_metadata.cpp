// Per-tile metadata as TileDB's TileMetadataGenerator computes it: min, max,
// sum (saturating) and null count, for fixed and var cells. The writer's
// byte-identical twins (test_writer.cpp) check it against TileDB's files;
// these cases pin the rules down on their own.
#include "tilefmt/array/write/tile_metadata.hpp"

#include <limits>

#include "../../support/testing.hpp"

namespace test_tile_metadata {

using namespace tilefmt;
using array::detail::tile_stats;

namespace {
template <class T>
std::vector<std::byte> le(std::vector<T> v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  for (std::size_t i = 0; i < v.size(); ++i) codec::store_le<T>(out.data() + i * sizeof(T), v[i]);
  return out;
}
template <class T>
T as(const std::vector<std::byte>& b) {
  REQUIRE(b.size() == sizeof(T));
  return codec::load_le<T>(b.data());
}
} // namespace

TEST_CASE("tile metadata: int32 min, max, sum; nulls skipped and counted") {
  auto tile = le<std::int32_t>({5, -3, 12, 7});
  tile_stats s = array::detail::compute_tile_stats(format::Datatype::INT32, 1, tile, 4);
  CHECK(as<std::int32_t>(s.min) == -3);
  CHECK(as<std::int32_t>(s.max) == 12);
  CHECK(static_cast<std::int64_t>(s.sum) == 21);
  CHECK(s.null_count == 0);
  std::vector<std::uint8_t> valid{1, 0, 1, 0};
  s = array::detail::compute_tile_stats(format::Datatype::INT32, 1, tile, 4, valid);
  CHECK(as<std::int32_t>(s.min) == 5);
  CHECK(as<std::int32_t>(s.max) == 12);
  CHECK(static_cast<std::int64_t>(s.sum) == 17);
  CHECK(s.null_count == 2);
}

TEST_CASE("tile metadata: sums saturate as TileDB's do") {
  constexpr auto big = std::numeric_limits<std::int64_t>::max();
  auto tile = le<std::int64_t>({big - 1, 5, -100});
  auto s = array::detail::compute_tile_stats(format::Datatype::INT64, 1, tile, 8);
  CHECK(static_cast<std::int64_t>(s.sum) == big);  // stops at the first overflow
  auto u = le<std::uint64_t>({std::numeric_limits<std::uint64_t>::max(), 1});
  CHECK(array::detail::compute_tile_stats(format::Datatype::UINT64, 1, u, 8).sum ==
        std::numeric_limits<std::uint64_t>::max());
  auto d = le<double>({1.5, 2.25});
  auto ds = array::detail::compute_tile_stats(format::Datatype::FLOAT64, 1, d, 8);
  CHECK(std::bit_cast<double>(ds.sum) == 3.75);
}

TEST_CASE("tile metadata: var strings by byte order; no sum; types without metadata") {
  const std::string text = "pearapplefig";
  std::vector<std::byte> data(text.size());
  std::memcpy(data.data(), text.data(), text.size());
  std::vector<std::uint64_t> offsets{0, 4, 9};
  auto s = array::detail::compute_var_tile_stats(format::Datatype::STRING_ASCII, data, offsets);
  CHECK(std::string(reinterpret_cast<const char*>(s.min.data()), s.min.size()) == "apple");
  CHECK(std::string(reinterpret_cast<const char*>(s.max.data()), s.max.size()) == "pear");
  CHECK(s.sum == 0);
  CHECK_FALSE(array::detail::has_min_max(format::Datatype::BLOB, 1));
  CHECK_FALSE(array::detail::has_sum(format::Datatype::INT32, 2));
  CHECK(array::detail::has_min_max(format::Datatype::CHAR, 3));
}

} // namespace test_tile_metadata
