// The dispatch component (tilefmt/filter/dispatch.hpp) and the stages'
// dispatched path: this file is compiled with TILEFMT_DISPATCH, so the four
// SIMD stages call dispatch::active(). Every table the CPU runs must encode
// the same bytes as the scalar references and decode them back.
#include "tilefmt/filter/dispatch.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tilefmt/filter/bit_width_reduction.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/positive_delta.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace test_dispatch {

#ifndef TILEFMT_DISPATCH
#error "test_dispatch.cpp checks the dispatched stages: build it with tilefmt_dispatch_dep"
#endif

namespace {

namespace dispatch = tilefmt::filter::dispatch;
namespace filter = tilefmt::filter;
using tilefmt::format_error;

// Restores the table chosen at start-up when a test ends.
struct active_guard {
  const dispatch::kernel_table& saved = dispatch::active();
  ~active_guard() { dispatch::set_active(saved); }
};

// Values every window of which suits the filters: within each of positive
// delta's 1 KiB windows they never decrease and start anywhere; their spread
// alternates between narrow and wide, and every seventh window jumps by a
// quarter of T's range, so that bit-width reduction writes 8-bit, 16-bit and
// full-width windows. Lengths are no multiple of any window, block or
// register.
template <class T>
std::vector<T> sample_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint64_t quarter = static_cast<std::uint64_t>(std::numeric_limits<T>::max()) / 4;
  const std::size_t per_window = 1024 / sizeof(T);
  std::vector<T> v(n);
  std::uint64_t x = 0, cap = 0, step_max = 1;
  bool jump = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = i % per_window;
    if (k == 0) {
      const std::size_t w = i / per_window;
      const std::uint64_t spread = std::min<std::uint64_t>(quarter, w % 2 == 0 ? 100 : 60000);
      jump = sizeof(T) > 1 && w % 7 == 3;
      x = rng() % quarter;
      cap = x + spread + (jump ? quarter : 0);
      step_max = std::max<std::uint64_t>(1, 2 * spread / per_window);
    }
    if (jump && k == per_window / 2) x += quarter;
    x = std::min(x + rng() % (step_max + 1), cap);
    v[i] = static_cast<T>(x);
  }
  return v;
}

std::vector<double> sample_doubles(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1000.0 * static_cast<double>(i % 977) / 977.0 + 0.25 * static_cast<double>(i);
  return v;
}

std::string names(std::span<const dispatch::kernel_table* const> tables) {
  std::string s;
  for (const dispatch::kernel_table* t : tables) {
    s += t->name;
    s += ' ';
  }
  return s;
}

// Encodes `values` with P under every available table and under the
// references, and checks the tiles are identical and decode back, both
// through pipeline<> and runtime_pipeline, under every table.
template <class P, class T>
void check_pipeline(const std::vector<T>& values) {
  active_guard guard;
  dispatch::set_active(dispatch::reference());
  const std::vector<std::byte> expected = P::template encode<T>(values);
  REQUIRE(P::template decode<T>(expected) == values);
  for (const dispatch::kernel_table* t : dispatch::available()) {
    INFO("kernels: ", t->name, ", values: ", values.size(), " of ", sizeof(T), " bytes");
    dispatch::set_active(*t);
    const std::vector<std::byte> tile = P::template encode<T>(values);
    CHECK(tile == expected);
    CHECK(P::template decode<T>(expected) == values);
    filter::runtime_pipeline rp(P::descriptor(), tilefmt::format::datatype_of<T>(), tilefmt::format::written_version);
    const std::vector<std::byte> raw = rp.decode(expected, rp.context(sizeof(T)));
    REQUIRE(raw.size() == values.size() * sizeof(T));
    CHECK((raw.empty() || std::memcmp(raw.data(), values.data(), raw.size()) == 0));
  }
}

template <class T>
void check_all_stages(std::size_t n, std::uint64_t seed) {
  const std::vector<T> v = sample_values<T>(n, seed);
  check_pipeline<filter::pipeline<filter::byteshuffle>>(v);
  check_pipeline<filter::pipeline<filter::bitshuffle>>(v);
  check_pipeline<filter::pipeline<filter::positive_delta<>>>(v);
  check_pipeline<filter::pipeline<filter::positive_delta<>, filter::bitshuffle>>(v);
  if constexpr (sizeof(T) > 1) {
    check_pipeline<filter::pipeline<filter::bit_width_reduction<>>>(v);
    check_pipeline<filter::pipeline<filter::positive_delta<>, filter::bit_width_reduction<>>>(v);
  }
}

TEST_CASE("dispatch: the tables this CPU runs") {
  const auto tables = dispatch::available();
  MESSAGE("available: ", names(tables), "; best: ", std::string(dispatch::best().name));
  REQUIRE(!tables.empty());
  CHECK(std::string(tables.front()->name) == "scalar");
  CHECK(&dispatch::best() == tables.back());
  CHECK(dispatch::find("reference") == &dispatch::reference());
  CHECK(dispatch::find("scalar") == tables.front());
  CHECK(dispatch::find("no such set") == nullptr);
  for (const dispatch::kernel_table* t : tables) CHECK(dispatch::find(t->name) == t);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // Every x86-64 CPU has SSE2, and the component always builds it there.
  CHECK(dispatch::find("sse2") != nullptr);
  if (__builtin_cpu_supports("avx2")) CHECK(dispatch::find("avx2") != nullptr);
  if (!__builtin_cpu_supports("avx512bw")) CHECK(dispatch::find("avx512bw") == nullptr);
  // The VBMI + GFNI level runs, and so is checked by every kernel test,
  // only where the CPU has both; elsewhere say that it was not tested.
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni")) {
    CHECK(dispatch::find("avx512vbmi_gfni") != nullptr);
    CHECK(&dispatch::best() == dispatch::find("avx512vbmi_gfni"));
  } else {
    CHECK(dispatch::find("avx512vbmi_gfni") == nullptr);
    MESSAGE("avx512vbmi_gfni kernels not tested: this CPU lacks AVX-512 VBMI or GFNI");
  }
#endif
  // Wider sets come later and have wider registers.
  for (std::size_t i = 1; i < tables.size(); ++i) CHECK(tables[i]->vector_bytes >= tables[i - 1]->vector_bytes);
}

TEST_CASE("dispatch: set_active chooses the table the stages use") {
  active_guard guard;
  CHECK(&dispatch::active() == &dispatch::best());
  dispatch::set_active(dispatch::reference());
  CHECK(&dispatch::active() == &dispatch::reference());

  // A table that counts its calls proves the stages go through active().
  static std::atomic<int> calls{0};
  dispatch::kernel_table counting = dispatch::reference();
  counting.name = "counting";
  counting.byteshuffle = [](const std::byte* in, std::size_t n, std::size_t s, std::byte* out) noexcept {
    ++calls;
    dispatch::reference().byteshuffle(in, n, s, out);
  };
  counting.bitunshuffle = [](const std::byte* in, std::size_t n, std::size_t s, std::byte* out) noexcept {
    ++calls;
    dispatch::reference().bitunshuffle(in, n, s, out);
  };
  std::get<dispatch::bit_width_kernels<std::int32_t>>(counting.bit_width).restore_window =
      [](const std::byte* in, std::size_t bytes, std::int32_t offset, unsigned bits, std::byte* out) noexcept {
        ++calls;
        return dispatch::bit_width<std::int32_t>(dispatch::reference()).restore_window(in, bytes, offset, bits, out);
      };
  std::get<dispatch::positive_delta_kernels<std::int32_t>>(counting.positive_delta).encode =
      [](const std::byte* in, std::size_t count, std::byte* out) noexcept {
        ++calls;
        return dispatch::positive_delta<std::int32_t>(dispatch::reference()).encode(in, count, out);
      };
  dispatch::set_active(counting);
  const std::vector<std::int32_t> v = sample_values<std::int32_t>(40000, 1);

  calls = 0;
  (void)filter::pipeline<filter::byteshuffle>::encode<std::int32_t>(v);
  CHECK(calls == 3);  // one part per chunk: 160000 bytes in chunks of 64 KiB

  const auto bits = filter::pipeline<filter::bitshuffle>::encode<std::int32_t>(v);
  calls = 0;
  CHECK(filter::pipeline<filter::bitshuffle>::decode<std::int32_t>(bits) == v);
  CHECK(calls == 3);

  const auto reduced = filter::pipeline<filter::bit_width_reduction<>>::encode<std::int32_t>(v);
  calls = 0;
  CHECK(filter::pipeline<filter::bit_width_reduction<>>::decode<std::int32_t>(reduced) == v);
  CHECK(calls == 160000 / 256);  // one call per 256-byte window

  calls = 0;
  (void)filter::pipeline<filter::positive_delta<>>::encode<std::int32_t>(v);
  CHECK(calls == 160000 / 1024 + 1);  // one per 1 KiB window, the last one shorter

  // And a wrong kernel in the active table shows in the tile's bytes.
  dispatch::set_active(dispatch::reference());
  const auto good = filter::pipeline<filter::byteshuffle>::encode<std::int32_t>(v);
  dispatch::kernel_table wrong = dispatch::reference();
  wrong.byteshuffle = dispatch::reference().byteunshuffle;
  dispatch::set_active(wrong);
  CHECK(filter::pipeline<filter::byteshuffle>::encode<std::int32_t>(v) != good);
}

TEST_CASE("dispatch: every table encodes the references' bytes and decodes them") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{4099}, std::size_t{70001}}) {
    check_all_stages<std::int8_t>(n, 11);
    check_all_stages<std::uint16_t>(n, 12);
    check_all_stages<std::int32_t>(n, 13);
    check_all_stages<std::uint32_t>(n, 14);
    check_all_stages<std::int64_t>(n, 15);
    check_all_stages<std::uint64_t>(n, 16);
  }
  const std::vector<double> d = sample_doubles(50003);
  check_pipeline<filter::pipeline<filter::byteshuffle, filter::zstd<1>>>(d);
  check_pipeline<filter::pipeline<filter::bitshuffle>>(d);
}

TEST_CASE("dispatch: truncated and corrupted tiles fail with format_error under every table") {
  active_guard guard;
  using P = filter::pipeline<filter::positive_delta<>, filter::bit_width_reduction<>, filter::byteshuffle>;
  const std::vector<std::int64_t> v = sample_values<std::int64_t>(9000, 3);
  const std::vector<std::byte> tile = P::encode<std::int64_t>(v);
  for (const dispatch::kernel_table* t : dispatch::available()) {
    INFO("kernels: ", t->name);
    dispatch::set_active(*t);
    for (std::size_t cut = 0; cut < tile.size(); cut += 97) {
      std::vector<std::byte> truncated(tile.begin(), tile.begin() + static_cast<std::ptrdiff_t>(cut));
      CHECK_THROWS_AS((void)P::decode<std::int64_t>(truncated), format_error);
    }
    // Flipped bits in the chunk headers and the filter metadata (the first
    // bytes of the only chunk) are caught; in the data they may only change
    // values. Either way nothing else is thrown and nothing crashes.
    std::mt19937 rng(5);
    for (int k = 0; k < 300; ++k) {
      std::vector<std::byte> bad = tile;
      const std::size_t at = k < 200 ? rng() % 400 : rng() % bad.size();
      bad[at] ^= std::byte{static_cast<unsigned char>(1u << (rng() % 8))};
      try {
        (void)P::decode<std::int64_t>(bad);
      } catch (const format_error&) {
      }
    }
  }
}

}  // namespace

} // namespace test_dispatch
