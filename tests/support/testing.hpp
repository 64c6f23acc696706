// Helpers shared by the unit tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <unistd.h>

#include "tilefmt/codec/codec.hpp"

namespace tilefmt::testing {

/// Whether this is a ThreadSanitizer build. Its job is races between
/// threads, and each step there costs 10-40 times what it does elsewhere:
/// the sweeps whose variants differ only in single-threaded logic (every
/// order, every budget, one thread) run whole in the other builds (g++
/// -O2, AddressSanitizer) and take the variants that run threads, or a
/// sample, under it.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool under_thread_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool under_thread_sanitizer = true;
#else
inline constexpr bool under_thread_sanitizer = false;
#endif
#else
inline constexpr bool under_thread_sanitizer = false;
#endif

/// The whole of a test data file.
inline std::vector<std::byte> file_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE(f.good());
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  if (!c.empty()) std::memcpy(b.data(), c.data(), c.size());
  return b;
}

/// A private copy of the folder `src` under the temporary directory, named
/// after `name` and this process, for tests that damage or add files.
inline std::filesystem::path copy_to_temp(const std::filesystem::path& src, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dst = fs::temp_directory_path() / ("tilefmt-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dst);
  fs::copy(src, dst, fs::copy_options::recursive);
  return dst;
}

/// The bytes of a string.
inline std::vector<std::byte> text_bytes(std::string_view s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

inline std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

inline std::vector<std::byte> hex_bytes(std::string_view hex) {
  std::vector<std::byte> out;
  int hi = -1;
  for (char c : hex) {
    int v = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<std::byte>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

/// Decoding any proper prefix of a valid encoding must throw format_error
/// (never crash, never succeed with a shorter value).
template <class T, class Ctx = codec::no_context>
void check_every_prefix_throws(std::span<const std::byte> valid, const Ctx& ctx = {}) {
  for (std::size_t n = 0; n < valid.size(); ++n) {
    CAPTURE(n);
    CHECK_THROWS_AS(codec::decode<T>(valid.first(n), ctx), format_error);
  }
}

/// encode -> decode -> equal, and encode(decode(b)) == b, and encoded_size
/// agrees with the bytes produced.
template <class T, class Ctx = codec::no_context>
std::vector<std::byte> check_round_trip(const T& v, const Ctx& ctx = {}) {
  std::vector<std::byte> b = codec::encode(v, ctx);
  CHECK(codec::encoded_size(v, ctx) == b.size());
  T back = codec::decode<T>(b, ctx);
  CHECK(back == v);
  CHECK(codec::encode(back, ctx) == b);
  return b;
}

struct rng {
  std::mt19937_64 gen;
  explicit rng(std::uint64_t seed = 0x7113f0) : gen(seed) {}
  template <class T>
  T next() {
    if constexpr (std::is_same_v<T, bool>) {
      return (gen() & 1) != 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::uniform_real_distribution<T>(-1e6, 1e6)(gen);
    } else if constexpr (std::is_same_v<T, std::byte>) {
      return static_cast<std::byte>(gen());
    } else {
      return static_cast<T>(gen());
    }
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(gen() % n) : 0; }
  std::string text(std::size_t max_len) {
    std::string s(below(max_len + 1), ' ');
    for (auto& c : s) c = static_cast<char>('a' + below(26));
    return s;
  }
  template <class T>
  std::vector<T> values(std::size_t n) {
    std::vector<T> v(n);
    for (auto& x : v) x = next<T>();
    return v;
  }
};

/// The key the interop generator (tests/interop/cases.py) encrypts its
/// `encrypted_*` arrays with; empty for every other test array.
inline std::vector<std::uint8_t> test_array_key(const std::filesystem::path& array_dir) {
  for (const auto& part : array_dir)
    if (part.string().starts_with("encrypted_")) {
      const std::string_view k = "0123456789abcdeF0123456789abcdeF";
      return {k.begin(), k.end()};
    }
  return {};
}

} // namespace tilefmt::testing
