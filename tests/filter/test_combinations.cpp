// Every ordered combination of up to three of byteshuffle, bitshuffle, bit
// width reduction and positive delta, with and without a compressor after
// them, on every integer width, float, double and a date type. All run
// through runtime pipelines; a set of the same pipelines fixed at compile
// time must produce identical bytes.
#include "tilefmt/filter/bit_width_reduction.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/positive_delta.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "../support/testing.hpp"

namespace test_combinations {

using namespace tilefmt;
using FT = format::FilterType;

namespace {

template <class T>
std::vector<T> increasing(std::size_t n, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<T> v(n);
  std::uint64_t x = 0;
  for (auto& e : v) {
    x += r.below(3);
    if constexpr (std::is_floating_point_v<T>) {
      e = static_cast<T>(static_cast<double>(x) - 20);
    } else {
      // Integers wrap around modulo 2^N (C++20 conversion rules), so the
      // narrow types see the series overflow, as long columns do.
      e = static_cast<T>(std::is_signed_v<T> ? x - 20 : x);
    }
  }
  return v;
}

format::Filter make(FT t) {
  switch (t) {
  case FT::BIT_WIDTH_REDUCTION: return filter::bit_width_reduction<>{}.descriptor(23);
  case FT::POSITIVE_DELTA: return filter::positive_delta<>{}.descriptor(23);
  case FT::ZSTD: return filter::zstd<1>{}.descriptor(23);
  default: return format::Filter::make(t);
  }
}

std::vector<std::vector<FT>> combinations() {
  const std::vector<FT> four{FT::BYTESHUFFLE, FT::BITSHUFFLE, FT::BIT_WIDTH_REDUCTION, FT::POSITIVE_DELTA};
  std::vector<std::vector<FT>> out{{}};
  for (FT a : four) {
    out.push_back({a});
    for (FT b : four) {
      if (b == a) continue;
      out.push_back({a, b});
      for (FT c : four)
        if (c != a && c != b) out.push_back({a, b, c});
    }
  }
  return out; // 1 + 4 + 12 + 24
}

template <class T>
void all_combinations(format::Datatype type) {
  auto combos = combinations();
  REQUIRE(combos.size() == 41);
  for (std::size_t n : {0u, 1u, 33u, 16384u + 3u, 70000u}) {
    auto v = increasing<T>(n, n);
    for (const auto& combo : combos) {
      for (bool compress : {false, true}) {
        format::FilterPipeline p;
        for (FT f : combo) p.filters.value.push_back(make(f));
        if (compress) p.filters.value.push_back(make(FT::ZSTD));
        CAPTURE(n);
        CAPTURE(codec::to_text(p));
        filter::runtime_pipeline rp(p, type, tilefmt::format::written_version);
        std::vector<std::byte> tile;
        try {
          tile = rp.encode(std::as_bytes(std::span(v)), rp.context(sizeof(T)));
        } catch (const std::invalid_argument&) {
          // positive delta refuses a decrease, which an earlier filter can create
          CHECK(std::find(combo.begin(), combo.end(), FT::POSITIVE_DELTA) != combo.end());
          continue;
        }
        auto back = rp.decode(tile, rp.context(sizeof(T)));
        REQUIRE(back.size() == v.size() * sizeof(T));
        CHECK((back.empty() || std::memcmp(back.data(), v.data(), back.size()) == 0));
      }
    }
  }
}

template <class P, class T>
void same_as_runtime(format::Datatype type) {
  auto v = increasing<T>(20000, 7);
  auto tile = P::template encode<T>(v, {.datatype = type});
  filter::runtime_pipeline rp(P::descriptor(), type, tilefmt::format::written_version);
  CHECK(rp.encode(std::as_bytes(std::span(v)), rp.context(sizeof(T))) == tile);
  auto back = rp.decode(tile, rp.context(sizeof(T)));
  CHECK((back.empty() || std::memcmp(back.data(), v.data(), back.size()) == 0));
  CHECK(P::template decode<T>(tile, {.datatype = type}) == v);
}

using BS = filter::byteshuffle;
using BT = filter::bitshuffle;
using BW = filter::bit_width_reduction<>;
using PD = filter::positive_delta<>;
using Z = filter::zstd<1>;

} // namespace

TEST_CASE("int8") { all_combinations<std::int8_t>(format::Datatype::INT8); }
TEST_CASE("uint8") { all_combinations<std::uint8_t>(format::Datatype::UINT8); }
TEST_CASE("int16") { all_combinations<std::int16_t>(format::Datatype::INT16); }
TEST_CASE("uint16") { all_combinations<std::uint16_t>(format::Datatype::UINT16); }
TEST_CASE("int32") { all_combinations<std::int32_t>(format::Datatype::INT32); }
TEST_CASE("uint32") { all_combinations<std::uint32_t>(format::Datatype::UINT32); }
TEST_CASE("int64") { all_combinations<std::int64_t>(format::Datatype::INT64); }
TEST_CASE("uint64") { all_combinations<std::uint64_t>(format::Datatype::UINT64); }
TEST_CASE("float") { all_combinations<float>(format::Datatype::FLOAT32); }
TEST_CASE("double") { all_combinations<double>(format::Datatype::FLOAT64); }
TEST_CASE("datetime") { all_combinations<std::int64_t>(format::Datatype::DATETIME_MS); }

TEST_CASE("compile-time pipelines give the runtime pipeline's bytes") {
  same_as_runtime<filter::pipeline<PD, BW, Z>, std::int64_t>(format::Datatype::INT64);
  same_as_runtime<filter::pipeline<BS, Z>, std::int32_t>(format::Datatype::INT32);
  same_as_runtime<filter::pipeline<BT, Z>, double>(format::Datatype::FLOAT64);
  same_as_runtime<filter::pipeline<BW, BT>, std::uint16_t>(format::Datatype::UINT16);
  same_as_runtime<filter::pipeline<PD, BS, BT>, std::uint32_t>(format::Datatype::UINT32);
  same_as_runtime<filter::pipeline<PD, BW, BS>, std::int64_t>(format::Datatype::DATETIME_NS);
}

} // namespace test_combinations
