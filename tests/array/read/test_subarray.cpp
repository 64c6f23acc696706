// A query's subarray (read/subarray.hpp) answers "is this coordinate, or
// this MBR, in some range" and "in which ranges" by binary search once it
// holds many ranges (a SOMA axis query sends thousands). Checked against a
// scan of the ranges, for numbers and strings, overlapping, adjacent and
// nested ranges, given and merged.
#include "tilefmt/array/read/subarray.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../support/testing.hpp"

namespace test_subarray {

namespace array = tilefmt::array;
namespace format = tilefmt::format;
using array::detail::key_range;
using array::detail::order_key;
using array::detail::subarray;
using array::detail::user_range;

format::ArraySchema sparse_schema() {
  return format::make_array_schema({.type = format::ArrayType::SPARSE,
                                    .dimensions = {format::make_dimension<std::int64_t>("x", -1000, 1000, 100),
                                                   format::make_string_dimension("k")},
                                    .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
}

std::string key_text(int i) { return "k" + std::to_string(1000 + i); }  // bytewise order = numeric order

TEST_CASE("subarray: coordinates and MBRs meet many ranges as a scan of them says") {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    // No threads here: under ThreadSanitizer (testing.hpp) every fourth round.
    if (tilefmt::testing::under_thread_sanitizer && round % 4 != 0) continue;
    // Ranges of every kind: points, overlapping, nested, adjacent (which
    // TileDB joins as they are added), unsorted.
    std::vector<user_range> xs, ks;
    const int n = round < 10 ? 1 + round : 500 + round * 100;
    for (int r = 0; r < n; ++r) {
      const std::int64_t lo = static_cast<std::int64_t>(rng() % 2100) - 1050;  // some outside the domain: cropped
      const std::int64_t hi = lo + static_cast<std::int64_t>(rng() % (r % 3 == 0 ? 1 : 40));
      xs.push_back({lo, hi});
      const int klo = static_cast<int>(rng() % 900), khi = klo + static_cast<int>(rng() % (r % 2 ? 1 : 30));
      ks.push_back({std::int64_t{0}, std::int64_t{0}, true, key_text(klo), key_text(khi)});
    }
    const subarray given(sparse_schema(), {xs, ks});
    for (const subarray& sub : {given, given.merged()}) {
      const auto& dx = sub.dim(0);
      const auto& dk = sub.dim(1);
      for (std::int64_t v = -1000; v <= 1000; ++v) {
        const auto k = order_key(v);
        std::vector<std::size_t> scan, found;
        for (std::size_t r = 0; r < dx.ranges.size(); ++r)
          if (dx.ranges[r].contains(k)) scan.push_back(r);
        dx.ranges_holding(k, {}, found);
        REQUIRE(found == scan);
        CHECK(dx.contains(k) == !scan.empty());
        const key_range mbr{k, order_key(v + static_cast<std::int64_t>(rng() % 30))};
        CHECK(dx.overlaps(mbr) ==
              std::any_of(dx.ranges.begin(), dx.ranges.end(), [&](const key_range& r) { return r.overlaps(mbr); }));
      }
      for (int i = -5; i < 960; ++i) {
        const std::string s = i < 0 ? std::string(static_cast<std::size_t>(-i), 'a') : key_text(i);
        std::vector<std::size_t> scan, found;
        for (std::size_t r = 0; r < dk.text.size(); ++r)
          if (dk.text[r].contains(s)) scan.push_back(r);
        dk.ranges_holding(0, s, found);
        REQUIRE(found == scan);
        CHECK(dk.contains_text(s) == !scan.empty());
        const std::string hi = key_text(i + 3);
        CHECK(dk.overlaps_text(s, hi) == std::any_of(dk.text.begin(), dk.text.end(), [&](const auto& r) {
                return r.overlaps(s, hi);
              }));
      }
    }
  }
}

TEST_CASE("subarray: covers and the cursor answer as contains does") {
  std::mt19937 rng(12);
  for (int round = 0; round < 12; ++round) {
    std::vector<user_range> xs, ks;
    const int n = round < 6 ? 1 + round : 300 * round;
    for (int r = 0; r < n; ++r) {
      const std::int64_t lo = static_cast<std::int64_t>(rng() % 2100) - 1050;
      xs.push_back({lo, lo + static_cast<std::int64_t>(rng() % (r % 3 == 0 ? 1 : 40))});
      const int klo = static_cast<int>(rng() % 900);
      ks.push_back({std::int64_t{0}, std::int64_t{0}, true, key_text(klo), key_text(klo + static_cast<int>(rng() % 20))});
    }
    const subarray given(sparse_schema(), {xs, ks});
    for (const subarray& sub : {given, given.merged()}) {
      const auto& dx = sub.dim(0);
      const auto& dk = sub.dim(1);
      // An MBR is covered when every key of it is in one range (a
      // conservative answer is allowed only where ranges merely touch).
      for (std::int64_t v = -1000; v <= 1000; v += 3) {
        const std::int64_t w = v + static_cast<std::int64_t>(rng() % 12);
        bool all = true;
        for (std::int64_t x = v; x <= w && all; ++x) all = dx.contains(order_key(x));
        const bool one = std::any_of(dx.ranges.begin(), dx.ranges.end(), [&](const key_range& r) {
          return r.lo <= order_key(v) && order_key(w) <= r.hi;
        });
        const bool covered = dx.covers({order_key(v), order_key(w)});
        CHECK((!covered || all));
        if (one) CHECK(covered);
      }
      for (int i = 0; i < 940; i += 2) {
        const std::string lo = key_text(i), hi = key_text(i + static_cast<int>(rng() % 5));
        const bool one = std::any_of(dk.text.begin(), dk.text.end(), [&](const auto& r) { return r.contains(lo) && r.contains(hi); });
        const bool covered = dk.covers_text(lo, hi);
        if (covered) CHECK((dk.contains_text(lo) && dk.contains_text(hi)));
        if (one) CHECK(covered);
      }
      // The cursor: keys mostly increasing, with jumps back, as the
      // coordinates of a tile's rows come.
      array::detail::dimension_ranges::cursor cx(dx), ck(dk);
      std::int64_t v = -1000;
      for (int step = 0; step < 5000; ++step) {
        v = rng() % 50 == 0 ? static_cast<std::int64_t>(rng() % 2000) - 1000 : std::min<std::int64_t>(1000, v + static_cast<std::int64_t>(rng() % 4));
        REQUIRE(cx.contains(order_key(v)) == dx.contains(order_key(v)));
        const std::string s = key_text(static_cast<int>((v + 1000) % 960));
        REQUIRE(ck.contains_text(s) == dk.contains_text(s));
      }
    }
  }
}

TEST_CASE("subarray: no ranges on a string dimension is all of it") {
  const subarray sub(sparse_schema(), {{{std::int64_t{3}, std::int64_t{4}}}});
  CHECK(sub.dim(1).contains_text(""));
  CHECK(sub.dim(1).contains_text("\xff\xff"));
  CHECK(sub.dim(1).overlaps_text("a", "b"));
  std::vector<std::size_t> found;
  sub.dim(1).ranges_holding(0, "zzz", found);
  CHECK(found == std::vector<std::size_t>{0});
  CHECK(sub.dim(0).contains(order_key(std::int64_t{4})));
  CHECK_FALSE(sub.dim(0).contains(order_key(std::int64_t{5})));
}

TEST_CASE("subarray: clearing the sorted keys outside the ranges agrees with contains") {
  // A tile's first dimension in row-major order: keys that never decrease,
  // with repeats (a matrix row's cells), tested a range at a time.
  std::mt19937 rng(13);
  for (int round = 0; round < 40; ++round) {
    std::vector<user_range> xs;
    const int n = round < 10 ? 1 + round : 50 * round;
    for (int r = 0; r < n; ++r) {
      const std::int64_t lo = static_cast<std::int64_t>(rng() % 2100) - 1050;
      xs.push_back({lo, lo + static_cast<std::int64_t>(rng() % (r % 3 == 0 ? 1 : 40))});
    }
    if (round == 5) xs = {{std::int64_t{-1000}, std::int64_t{1000}}};  // everything
    const subarray sub(sparse_schema(), {xs});
    const auto& dx = sub.dim(0);
    std::vector<std::int64_t> keys;
    for (std::int64_t v = static_cast<std::int64_t>(rng() % 400) - 1000; v <= 1000 && keys.size() < 3000;
         v += static_cast<std::int64_t>(rng() % 3))
      keys.push_back(v);
    if (round % 7 == 0) keys.resize(round % 2);  // no keys, one key
    std::vector<std::uint8_t> in(keys.size()), want(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      in[i] = rng() % 10 != 0;  // another dimension's verdict, kept
      want[i] = in[i] && dx.contains(order_key(keys[i]));
    }
    dx.clear_outside_sorted([&](std::size_t i) { return order_key(keys[i]); }, keys.size(), in.data());
    REQUIRE(in == want);
  }
}

TEST_CASE("subarray: clearing sorted string keys outside the ranges agrees with contains_text") {
  // A 1-D string dimension's tile: keys in bytewise order, with repeats
  // (duplicates), tested against points and ranges (overlapping, nested,
  // adjacent), a range at a time.
  std::mt19937 rng(14);
  for (int round = 0; round < 40; ++round) {
    std::vector<user_range> ks;
    const int n = round < 10 ? 1 + round : 40 * round;
    for (int r = 0; r < n; ++r) {
      const int klo = static_cast<int>(rng() % 900);
      const int width = r % 3 == 0 ? 0 : static_cast<int>(rng() % 30);  // a third are points
      ks.push_back({std::int64_t{0}, std::int64_t{0}, true, key_text(klo), key_text(klo + width)});
    }
    if (round == 5) ks = {{std::int64_t{0}, std::int64_t{0}, true, "", "\xff"}};  // everything
    if (round == 6) ks = {{std::int64_t{0}, std::int64_t{0}, true, "k1100", "k1100"},
                          {std::int64_t{0}, std::int64_t{0}, true, "k1100", "k1100x"}};  // a point and a range from it
    const subarray given(sparse_schema(), {{}, ks});
    for (const subarray& sub : {given, given.merged()}) {
      const auto& dk = sub.dim(1);
      std::vector<std::string> keys;
      for (int v = static_cast<int>(rng() % 400); v < 960 && keys.size() < 3000; v += static_cast<int>(rng() % 3))
        keys.push_back(key_text(v));
      if (round % 7 == 0) keys.resize(static_cast<std::size_t>(round % 2));  // no keys, one key
      if (round == 6) keys = {"k1099", "k1100", "k1100", "k11000", "k1100x", "k1100y", "k1101"};
      std::vector<std::uint8_t> in(keys.size()), want(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        in[i] = rng() % 10 != 0;  // another dimension's verdict, kept
        want[i] = in[i] && dk.contains_text(keys[i]);
      }
      dk.clear_outside_sorted([&](std::size_t i) -> std::string_view { return keys[i]; }, keys.size(), in.data());
      REQUIRE(in == want);
    }
  }
}

TEST_CASE("subarray: many ranges over a small span of keys are a bitmap, tested as contains answers") {
  // A list of genes or joinids: keys out of order (a row-major tile's
  // columns) against three ranges or more within 2^20 keys; wider lists
  // keep the binary search.
  const auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", -(std::int64_t{1} << 40), std::int64_t{1} << 40, 1000)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
  std::mt19937 rng(15);
  for (int round = 0; round < 30; ++round) {
    std::vector<user_range> xs;
    const std::int64_t base = round % 2 ? -500 : 100'000, width = round % 5 == 4 ? std::int64_t{1} << 21 : 5000;
    const int n = 1 + round % 7 + (round > 20 ? 400 : 0);
    if (width > (std::int64_t{1} << 20)) xs = {{base, base}, {base + width - 1, base + width - 1}};  // the span's ends
    for (int r = 0; r < n; ++r) {
      const std::int64_t lo = base + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(width));
      xs.push_back({lo, lo + static_cast<std::int64_t>(rng() % (r % 3 == 0 ? 1 : 70))});
    }
    const subarray sub(schema, {xs});
    const auto& dx = sub.dim(0);
    CAPTURE(round);
    std::vector<std::int64_t> keys;
    for (int i = 0; i < 5000; ++i) keys.push_back(base - 100 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(width + 200)));
    keys.push_back(std::numeric_limits<std::int64_t>::min() + 1);
    std::vector<std::uint8_t> in(keys.size()), want(keys.size()), truth(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      in[i] = rng() % 10 != 0;  // another dimension's verdict, kept
      truth[i] = std::any_of(dx.ranges.begin(), dx.ranges.end(), [&](const key_range& r) { return r.contains(order_key(keys[i])); });
      want[i] = in[i] && truth[i];
    }
    if (width > (std::int64_t{1} << 20)) {
      CHECK_FALSE(dx.has_bitmap());
    } else if (n >= 8) {
      CHECK(dx.has_bitmap());
    }
    array::detail::dimension_ranges::cursor cx(dx);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      REQUIRE(dx.contains(order_key(keys[i])) == (truth[i] != 0));
      REQUIRE(cx.contains(order_key(keys[i])) == (truth[i] != 0));
    }
    if (dx.has_bitmap()) {
      dx.clear_outside_bitmap([&](std::size_t i) { return order_key(keys[i]); }, keys.size(), in.data());
      REQUIRE(in == want);
    }
  }
}

} // namespace test_subarray
