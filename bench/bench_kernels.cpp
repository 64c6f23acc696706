// Throughput of the filter kernels beside memcpy of the same bytes, for
// every instruction set of the dispatch component (src/dispatch) that the
// CPU supports.
//
// Two shapes: a 16 MiB buffer processed as 256 chunks of 64 KiB (TileDB's
// chunk size), and one 64 KiB chunk that stays in cache. Data: int32 values
// increasing slowly, and a smooth float64 signal. The windowed filters run
// with TileDB's default windows (bit-width reduction 256 bytes, positive
// delta 1024 bytes) and call the kernels per window as the filter does.
//
// Each benchmark times its kernel and memcpy of the same bytes (same input,
// same output buffer) alternately, iteration by iteration, and reports the
// ratio of the best times as `x_memcpy`: on a shared or frequency-scaling
// machine, figures taken minutes apart are not comparable, and the best of
// many short runs is the least disturbed one. A table of the ratios and the
// ratio aimed for follows Google Benchmark's output.
#include <benchmark/benchmark.h>

#include "bench_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"
#include "tilefmt/filter/detail/bitshuffle_kernel.hpp"
#include "tilefmt/filter/detail/byteshuffle_kernel.hpp"
#include "tilefmt/filter/detail/positive_delta_kernel.hpp"
#include "tilefmt/filter/dispatch.hpp"

namespace {

namespace d = tilefmt::filter::detail;
namespace dispatch = tilefmt::filter::dispatch;
using dispatch::kernel_table;

constexpr std::size_t chunk_bytes = 64u << 10;
constexpr std::size_t buffer_bytes = 16u << 20;
constexpr std::size_t bit_width_window = 256;        // TileDB's default max window
constexpr std::size_t positive_delta_window = 1024;  // TileDB's default max window

using buffer = std::vector<std::byte>;

struct shape {
  const char* name;
  std::size_t bytes;
};
constexpr shape shapes[] = {{"64KiB", chunk_bytes}, {"16MiB", buffer_bytes}};

// The shared data as little-endian bytes.
buffer make_int32_increasing() {
  const auto values = tilefmt::bench::int32_slowly_increasing(buffer_bytes);
  buffer b(buffer_bytes);
  for (std::size_t i = 0; i < values.size(); ++i) d::store_le<std::int32_t>(b.data() + 4 * i, values[i]);
  return b;
}

buffer make_float64_smooth() {
  const auto values = tilefmt::bench::float64_smooth(buffer_bytes);
  buffer b(buffer_bytes);
  std::memcpy(b.data(), values.data(), buffer_bytes);
  return b;
}

const buffer& int32_data() {
  static const buffer b = make_int32_increasing();
  return b;
}

const buffer& float64_data() {
  static const buffer b = make_float64_smooth();
  return b;
}

// The input of an inverse kernel: what the forward kernel wrote, chunk by
// chunk (made with the last table, the widest instruction set; the tests
// check that every table writes the same bytes).
buffer chunkwise(const buffer& in, dispatch::byte_kernel kernel, std::size_t type_size) {
  buffer out(in.size());
  for (std::size_t off = 0; off < in.size(); off += chunk_bytes) {
    kernel(in.data() + off, chunk_bytes, type_size, out.data() + off);
  }
  return out;
}

// Runs work() and a chunked memcpy of `bytes` from `copy_from` into `out`
// alternately; the manual time is the kernel's.
template <class Work>
void measure(benchmark::State& state, std::size_t bytes, const std::byte* copy_from, std::byte* out, Work&& work) {
  using clock = std::chrono::steady_clock;
  double best_kernel = std::numeric_limits<double>::infinity();
  double best_copy = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    const auto t0 = clock::now();
    work();
    benchmark::ClobberMemory();
    const auto t1 = clock::now();
    for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
      std::memcpy(out + off, copy_from + off, chunk_bytes);
    }
    benchmark::ClobberMemory();
    const auto t2 = clock::now();
    const double kernel = std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(kernel);
    best_kernel = std::min(best_kernel, kernel);
    best_copy = std::min(best_copy, std::chrono::duration<double>(t2 - t1).count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["best_GB/s"] = static_cast<double>(bytes) / best_kernel / 1e9;
  state.counters["memcpy_GB/s"] = static_cast<double>(bytes) / best_copy / 1e9;
  state.counters["x_memcpy"] = best_copy / best_kernel;
}

void run_byte_kernel(benchmark::State& state, dispatch::byte_kernel kernel, const buffer& in,
                     std::size_t type_size, std::size_t bytes) {
  buffer out(bytes);
  measure(state, bytes, in.data(), out.data(), [&] {
    for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
      kernel(in.data() + off, chunk_bytes, type_size, out.data() + off);
    }
  });
}

// Bit-width reduction of one chunk, window by window, as the filter runs it.
struct bit_width_stream {
  buffer data;
  std::vector<std::size_t> offsets;  // per window, into data
  std::vector<std::int32_t> value_offsets;
  std::vector<std::uint8_t> bits;
};

std::size_t bit_width_encode_chunk(const dispatch::bit_width_kernels<std::int32_t>& k, const std::byte* in,
                                   std::byte* out, std::int32_t* value_offsets, std::uint8_t* bits) {
  std::size_t out_off = 0;
  for (std::size_t w = 0; w < chunk_bytes / bit_width_window; ++w) {
    d::bit_width_stats<std::int32_t> s;
    out_off += k.reduce_window(in + w * bit_width_window, bit_width_window, out + out_off, s);
    value_offsets[w] = s.value_offset();
    bits[w] = s.bits;
  }
  return out_off;
}

bit_width_stream make_bit_width_stream(const buffer& in) {
  const auto& k = dispatch::bit_width<std::int32_t>(dispatch::reference());
  bit_width_stream s;
  const std::size_t windows = in.size() / bit_width_window;
  s.data.resize(in.size());
  s.value_offsets.resize(windows);
  s.bits.resize(windows);
  s.offsets.resize(windows);
  std::size_t out_off = 0;
  for (std::size_t off = 0; off < in.size(); off += chunk_bytes) {
    const std::size_t w0 = off / bit_width_window;
    const std::size_t written = bit_width_encode_chunk(k, in.data() + off, s.data.data() + out_off,
                                                       s.value_offsets.data() + w0, s.bits.data() + w0);
    std::size_t pos = out_off;
    for (std::size_t w = w0; w < w0 + chunk_bytes / bit_width_window; ++w) {
      s.offsets[w] = pos;
      pos += d::bit_width_stored_bytes<std::int32_t>(bit_width_window, s.bits[w]);
    }
    out_off += written;
  }
  return s;
}

const bit_width_stream& int32_bit_width_stream() {
  static const bit_width_stream s = make_bit_width_stream(int32_data());
  return s;
}

void run_bit_width_encode(benchmark::State& state, const kernel_table* table, std::size_t bytes) {
  const auto& k = dispatch::bit_width<std::int32_t>(*table);
  const buffer& in = int32_data();
  buffer out(bytes);
  std::vector<std::int32_t> value_offsets(bytes / bit_width_window);
  std::vector<std::uint8_t> bits(bytes / bit_width_window);
  measure(state, bytes, in.data(), out.data(), [&] {
    std::size_t out_off = 0;
    for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
      const std::size_t w0 = off / bit_width_window;
      out_off += bit_width_encode_chunk(k, in.data() + off, out.data() + out_off, value_offsets.data() + w0,
                                        bits.data() + w0);
    }
    benchmark::DoNotOptimize(out_off);
  });
}

void run_bit_width_decode(benchmark::State& state, const kernel_table* table, std::size_t bytes) {
  const auto& k = dispatch::bit_width<std::int32_t>(*table);
  const bit_width_stream& s = int32_bit_width_stream();
  buffer out(bytes);
  const std::size_t windows = bytes / bit_width_window;
  measure(state, bytes, int32_data().data(), out.data(), [&] {
    for (std::size_t w = 0; w < windows; ++w) {
      k.restore_window(s.data.data() + s.offsets[w], bit_width_window, s.value_offsets[w], s.bits[w],
                       out.data() + w * bit_width_window);
    }
  });
}

void run_positive_delta_encode(benchmark::State& state, const kernel_table* table, std::size_t bytes) {
  const auto& k = dispatch::positive_delta<std::int32_t>(*table);
  const buffer& in = int32_data();
  buffer out(bytes);
  constexpr std::size_t count = positive_delta_window / 4;
  std::size_t failed = 0;
  measure(state, bytes, in.data(), out.data(), [&] {
    for (std::size_t off = 0; off < bytes; off += positive_delta_window) {
      failed += k.encode(in.data() + off, count, out.data() + off) != count;
    }
  });
  if (failed != 0) state.SkipWithError("positive delta rejected increasing data");
}

void run_positive_delta_decode(benchmark::State& state, const kernel_table* table, std::size_t bytes) {
  const auto& k = dispatch::positive_delta<std::int32_t>(*table);
  const buffer& raw = int32_data();
  static const buffer deltas = [] {
    const auto& ref = dispatch::positive_delta<std::int32_t>(dispatch::reference());
    buffer out(buffer_bytes);
    for (std::size_t off = 0; off < buffer_bytes; off += positive_delta_window) {
      ref.encode(int32_data().data() + off, positive_delta_window / 4, out.data() + off);
    }
    return out;
  }();
  buffer out(bytes);
  constexpr std::size_t count = positive_delta_window / 4;
  measure(state, bytes, raw.data(), out.data(), [&] {
    for (std::size_t off = 0; off < bytes; off += positive_delta_window) {
      k.decode(deltas.data() + off, count, d::load_le<std::int32_t>(raw.data() + off), out.data() + off);
    }
  });
}

std::vector<std::pair<std::string, double>> goals;  // benchmark name, x_memcpy aimed for

void register_case(const std::string& name, double goal, benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMicrosecond)->UseManualTime();
  goals.emplace_back(name, goal);
}

void register_all() {
  using dispatch::byte_kernel;
  const kernel_table& widest = *dispatch::available().back();
  struct byte_case {
    const char* name;
    byte_kernel kernel_table::*kernel;
    byte_kernel kernel_table::*prepare;  // nullptr: the raw data
    std::size_t type_size;
    double goal;
  };
  const byte_case byte_cases[] = {
      {"byteshuffle", &kernel_table::byteshuffle, nullptr, 4, 0.5},
      {"byteunshuffle", &kernel_table::byteunshuffle, &kernel_table::byteshuffle, 4, 0.65},
      {"bitshuffle", &kernel_table::bitshuffle, nullptr, 4, 0.25},
      {"bitunshuffle", &kernel_table::bitunshuffle, &kernel_table::bitshuffle, 4, 0.25},
      {"byteshuffle", &kernel_table::byteshuffle, nullptr, 8, 0.5},
      {"byteunshuffle", &kernel_table::byteunshuffle, &kernel_table::byteshuffle, 8, 0.65},
      {"bitshuffle", &kernel_table::bitshuffle, nullptr, 8, 0.25},
      {"bitunshuffle", &kernel_table::bitunshuffle, &kernel_table::bitshuffle, 8, 0.25},
  };
  static std::deque<buffer> prepared;  // inputs of the inverse kernels
  for (const auto& c : byte_cases) {
    const buffer& raw = c.type_size == 4 ? int32_data() : float64_data();
    const buffer* in = &raw;
    if (c.prepare != nullptr) in = &prepared.emplace_back(chunkwise(raw, widest.*(c.prepare), c.type_size));
    const std::string row = std::string(c.name) + (c.type_size == 4 ? " int32" : " float64");
    for (const kernel_table* t : dispatch::available()) {
      for (const shape& s : shapes) {
        const std::string name = row + "/" + t->name + "/" + s.name;
        register_case(name, c.goal,
                      benchmark::RegisterBenchmark(name.c_str(), run_byte_kernel, t->*(c.kernel), std::cref(*in),
                                                   c.type_size, s.bytes));
      }
    }
  }
  struct numeric_case {
    const char* name;
    void (*run)(benchmark::State&, const kernel_table*, std::size_t);
    double goal;
  };
  const numeric_case numeric_cases[] = {
      {"bwr encode int32", run_bit_width_encode, 0.3},
      {"bwr decode int32", run_bit_width_decode, 0.5},
      {"positive_delta encode int32", run_positive_delta_encode, 0.3},
      {"positive_delta decode int32", run_positive_delta_decode, 0.3},
  };
  for (const auto& c : numeric_cases) {
    for (const kernel_table* t : dispatch::available()) {
      for (const shape& s : shapes) {
        const std::string name = std::string(c.name) + "/" + t->name + "/" + s.name;
        register_case(name, c.goal, benchmark::RegisterBenchmark(name.c_str(), c.run, t, s.bytes));
      }
    }
  }
}

using tilefmt::bench::collecting_reporter;

void print_table(const collecting_reporter& r) {
  std::printf("\n%-50s %9s %11s %9s %6s\n", "benchmark (best of all iterations)", "GB/s", "memcpy GB/s", "x memcpy",
              "goal");
  for (const auto& [name, goal] : goals) {
    const auto it = r.counters.find(name + "/manual_time");
    if (it == r.counters.end()) continue;  // filtered out
    const double ratio = it->second.at("x_memcpy").value;
    std::printf("%-50s %9.2f %11.2f %8.2fx %5.2fx%s\n", name.c_str(), it->second.at("best_GB/s").value,
                it->second.at("memcpy_GB/s").value, ratio, goal, ratio >= goal ? "" : "  (below goal)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("compiler: %s; default architecture of this build: %s\n", __VERSION__, xsimd::default_arch::name());
  collecting_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_table(reporter);
  benchmark::Shutdown();
  // Missed goals are marked in the table, not a failure (the figures depend
  // on the machine and its load); a benchmark that reported an error is.
  return reporter.exit_status();
}
