// TileDB's global order of sparse cells (model/global_order.hpp), the one
// the sparse reader and both sparse writers use: checked against a direct
// statement of GlobalCmp (space tiles in the tile order, then coordinates
// in the cell order) and HilbertCmp (the curve, then row-major), and the
// packed radix-sort path against the general one.
#include "tilefmt/array/model/global_order.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../../support/testing.hpp"

namespace test_global_order {

using tilefmt::array::detail::global_order;
using tilefmt::array::detail::hilbert_curve;
namespace format = tilefmt::format;

format::ArraySchema schema_of(format::Layout tile_order, format::Layout cell_order) {
  return format::make_array_schema({.type = format::ArrayType::SPARSE,
                                    .dimensions = {format::make_dimension<std::int32_t>("x", -50, 49, 10),
                                                   format::make_dimension<std::int32_t>("y", 0, 99, 25)},
                                    .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})},
                                    .tile_order = tile_order,
                                    .cell_order = cell_order});
}

std::vector<std::byte> column(const std::vector<std::int32_t>& v) {
  std::vector<std::byte> out(v.size() * 4);
  for (std::size_t i = 0; i < v.size(); ++i) tilefmt::codec::store_le<std::int32_t>(out.data() + 4 * i, v[i]);
  return out;
}

TEST_CASE("global_order: space tiles in the tile order, then the cell order; the packed sort agrees") {
  std::mt19937 rng(7);
  std::vector<std::int32_t> xs(500), ys(500);
  for (auto& x : xs) x = static_cast<std::int32_t>(rng() % 100) - 50;
  for (auto& y : ys) y = static_cast<std::int32_t>(rng() % 100);
  const auto cx = column(xs), cy = column(ys);
  for (auto tile_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR})
    for (auto cell_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR}) {
      const auto s = schema_of(tile_order, cell_order);
      auto order = global_order::for_writing(s);
      auto no_text = [](std::size_t) { return std::string_view{}; };
      order.add_column(0, xs.size(), cx.data(), no_text);
      order.add_column(1, ys.size(), cy.data(), no_text);
      std::vector<std::uint64_t> sorted(xs.size());
      std::iota(sorted.begin(), sorted.end(), std::uint64_t{0});
      std::stable_sort(sorted.begin(), sorted.end(), [&](auto a, auto b) { return order.less(a, b); });
      // GlobalCmp stated directly.
      auto expected = sorted;
      std::stable_sort(expected.begin(), expected.end(), [&](auto a, auto b) {
        const int tx[2] = {(xs[a] + 50) / 10, (xs[b] + 50) / 10}, ty[2] = {ys[a] / 25, ys[b] / 25};
        const bool tr = tile_order == format::Layout::ROW_MAJOR, cr = cell_order == format::Layout::ROW_MAJOR;
        const auto ta = tr ? std::pair{tx[0], ty[0]} : std::pair{ty[0], tx[0]};
        const auto tb = tr ? std::pair{tx[1], ty[1]} : std::pair{ty[1], tx[1]};
        if (ta != tb) return ta < tb;
        return cr ? std::pair{xs[a], ys[a]} < std::pair{xs[b], ys[b]} : std::pair{ys[a], xs[a]} < std::pair{ys[b], xs[b]};
      });
      CHECK(sorted == expected);
      bool dups = true;
      const auto packed = global_order::packed(
          s, xs.size(), [&](std::size_t d) { return d == 0 ? cx.data() : cy.data(); }, 2, dups);
      REQUIRE(packed.has_value());
      CHECK(*packed == sorted);
      bool equal_neighbours = false;
      for (std::size_t k = 1; k < sorted.size(); ++k)
        equal_neighbours |= xs[sorted[k]] == xs[sorted[k - 1]] && ys[sorted[k]] == ys[sorted[k - 1]];
      CHECK(dups == equal_neighbours);
      // Neighbours in different space tiles are across tiles.
      for (std::size_t k = 1; k < sorted.size(); ++k) {
        const auto a = sorted[k - 1], b = sorted[k];
        CHECK(order.across_tiles(a, b) == ((xs[a] + 50) / 10 != (xs[b] + 50) / 10 || ys[a] / 25 != ys[b] / 25));
      }
    }
}

TEST_CASE("global_order: the Hilbert order is the curve's value, ties in row-major order; strings rank bytewise") {
  const auto s = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int32_t>("x", 0, 1023, 64), format::make_string_dimension("k")},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})},
       .cell_order = format::Layout::HILBERT});
  const std::vector<std::int32_t> xs{5, 5, 900, 5, 0, 1023};
  const std::vector<std::string> ks{"abce", "abcd", "zz", "abce", "", "\x80"};
  const auto cx = column(xs);
  auto order = global_order::for_writing(s);
  REQUIRE(order.hilbert());
  auto text = [&](std::size_t, std::size_t c) { return std::string_view(ks[c]); };
  order.add_column(0, xs.size(), cx.data(), [&](std::size_t c) { return text(1, c); });
  order.add_column(1, ks.size(), nullptr, [&](std::size_t c) { return text(1, c); });
  order.compute_hilbert(text);
  const auto curve = hilbert_curve::for_writing(s.domain.dimensions.value, s.version.value);
  for (std::size_t c = 0; c < xs.size(); ++c) {
    std::vector<std::uint64_t> x{curve.bucket(0, xs[c]), curve.bucket(ks[c])};
    CHECK(order.hilbert_value(c) == curve.value(x));
  }
  CHECK(order.same_coordinates(0, 3));
  CHECK_FALSE(order.same_coordinates(0, 1));
  // Equal curve values (cells 0, 1: "abce" and "abcd" share their first
  // 31 bits, a bucket) fall back to row-major coordinates.
  REQUIRE(order.hilbert_value(0) == order.hilbert_value(1));
  CHECK(order.less(1, 0));
  CHECK_FALSE(order.less(0, 1));
}

} // namespace test_global_order
