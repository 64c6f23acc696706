// Throughput of the filter kernels beside memcpy of the same bytes, for
// every instruction set of the dispatch component (src/dispatch) that the
// CPU supports.
//
// Two shapes: a 16 MiB buffer processed as 256 chunks of 64 KiB (TileDB's
// chunk size), and one 64 KiB chunk that stays in cache. Data: int32 values
// increasing slowly, and a smooth float64 signal. The windowed filters run
// with TileDB's default windows (bit-width reduction 256 bytes, positive
// delta 1024 bytes) and call the kernels per window as the filter does.
// The byte unshuffle also runs as the reader runs it when it decodes tiles
// larger than a core's L2 straight into the result ("into a result": the
// form with non-temporal stores, tile_context::stream_destination), on the
// 16 MiB shape, the one that models it; c-blosc2 has no such form, and
// TileDB calls its ordinary one.
//
// Each benchmark times its kernel and memcpy of the same bytes (same input,
// same output buffer) alternately, iteration by iteration, and reports the
// ratio of the best times as `x_memcpy`: on a shared or frequency-scaling
// machine, figures taken minutes apart are not comparable, and the best of
// many short runs is the least disturbed one. A table of the ratios and the
// ratio aimed for follows Google Benchmark's output.
//
// The byte and bit shuffles of the widest table also run against c-blosc2,
// the library TileDB 2.30 calls for them, when scripts/bench.sh provides it
// (TILEFMT_BENCH_BLOSC2): same chunks, same outputs (checked), alternately,
// with a second table of ratios.
#include <benchmark/benchmark.h>

#include "bench_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dlfcn.h>

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

// Runs work() and baseline() alternately, iteration by iteration; the manual
// time is work()'s. Returns the best time of each.
template <class Work, class Baseline>
std::pair<double, double> measure_against(benchmark::State& state, std::size_t bytes, Work&& work,
                                          Baseline&& baseline) {
  using clock = std::chrono::steady_clock;
  double best_kernel = std::numeric_limits<double>::infinity();
  double best_baseline = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    const auto t0 = clock::now();
    work();
    benchmark::ClobberMemory();
    const auto t1 = clock::now();
    baseline();
    benchmark::ClobberMemory();
    const auto t2 = clock::now();
    const double kernel = std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(kernel);
    best_kernel = std::min(best_kernel, kernel);
    best_baseline = std::min(best_baseline, std::chrono::duration<double>(t2 - t1).count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["best_GB/s"] = static_cast<double>(bytes) / best_kernel / 1e9;
  return {best_kernel, best_baseline};
}

// work() against a chunked memcpy of `bytes` from `copy_from` into `out`.
template <class Work>
void measure(benchmark::State& state, std::size_t bytes, const std::byte* copy_from, std::byte* out, Work&& work) {
  const auto [best_kernel, best_copy] = measure_against(state, bytes, work, [&] {
    for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
      std::memcpy(out + off, copy_from + off, chunk_bytes);
    }
  });
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

// c-blosc2, the library TileDB 2.30 calls for both shuffles (byteshuffle:
// blosc2_shuffle / blosc2_unshuffle on each part as one block; bitshuffle:
// blosc2_bitshuffle / blosc2_bitunshuffle on 8 KiB blocks, BitshuffleFilter::
// shuffle_part). Loaded at run time from the shared library named by
// TILEFMT_BENCH_BLOSC2, which scripts/bench.sh takes from the package index's
// blosc2 wheel into the build directory: no build, test or CI run needs it,
// and without it the comparison rows are left out.
struct blosc2_library {
  using shuffle_fn = std::int32_t (*)(std::int32_t typesize, std::int32_t blocksize, const void* src, void* dest);
  shuffle_fn shuffle = nullptr;
  shuffle_fn unshuffle = nullptr;
  shuffle_fn bitshuffle = nullptr;
  shuffle_fn bitunshuffle = nullptr;
  std::string version;
  std::string status;  // why it is not loaded

  bool loaded() const { return bitunshuffle != nullptr; }
};

template <class F>
F symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  F f;
  static_assert(sizeof(f) == sizeof(p));
  std::memcpy(&f, &p, sizeof(f));  // object to function pointer, as POSIX allows
  return f;
}

blosc2_library load_blosc2() {
  blosc2_library l;
  const char* path = std::getenv("TILEFMT_BENCH_BLOSC2");
  if (path == nullptr || *path == '\0') {
    l.status = "TILEFMT_BENCH_BLOSC2 is not set (scripts/bench.sh sets it)";
    return l;
  }
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    l.status = std::string("cannot load ") + path + ": " + dlerror();
    return l;
  }
  const auto init = symbol<void (*)()>(lib, "blosc2_init");
  const auto version = symbol<const char* (*)()>(lib, "blosc2_get_version_string");
  const blosc2_library::shuffle_fn fns[] = {
      symbol<blosc2_library::shuffle_fn>(lib, "blosc2_shuffle"),
      symbol<blosc2_library::shuffle_fn>(lib, "blosc2_unshuffle"),
      symbol<blosc2_library::shuffle_fn>(lib, "blosc2_bitshuffle"),
      symbol<blosc2_library::shuffle_fn>(lib, "blosc2_bitunshuffle")};
  if (init == nullptr || version == nullptr || std::find(std::begin(fns), std::end(fns), nullptr) != std::end(fns)) {
    l.status = std::string(path) + " lacks the blosc2 shuffle functions";
    return l;
  }
  init();
  l.version = version();
  l.shuffle = fns[0];
  l.unshuffle = fns[1];
  l.bitshuffle = fns[2];
  l.bitunshuffle = fns[3];
  return l;
}

const blosc2_library& blosc2() {
  static const blosc2_library l = load_blosc2();
  return l;
}

// One chunk through c-blosc2 as TileDB 2.30 calls it; false on an error code.
bool blosc2_chunk(blosc2_library::shuffle_fn fn, bool bit_blocks, const std::byte* in, std::size_t n,
                  std::size_t type_size, std::byte* out) {
  const std::size_t block = bit_blocks ? d::bitshuffle_block_bytes : n;
  for (std::size_t off = 0; off < n; off += block) {
    const auto len = static_cast<std::int32_t>(std::min(block, n - off));
    if (fn(static_cast<std::int32_t>(type_size), len, in + off, out + off) != len) return false;
  }
  return true;
}

// The widest table's kernel against c-blosc2 on the same chunks, run
// alternately, into the same output buffer; x_c-blosc2 = c-blosc2's best
// time / the kernel's. Both outputs are first checked to be the same bytes.
void run_vs_blosc2(benchmark::State& state, dispatch::byte_kernel kernel, blosc2_library::shuffle_fn fn,
                   bool bit_blocks, const buffer& in, std::size_t type_size, std::size_t bytes) {
  buffer ours(bytes), theirs(bytes);
  bool ok = true;
  for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
    kernel(in.data() + off, chunk_bytes, type_size, ours.data() + off);
    ok = ok && blosc2_chunk(fn, bit_blocks, in.data() + off, chunk_bytes, type_size, theirs.data() + off);
  }
  if (!ok || ours != theirs) {
    state.SkipWithError(ok ? "c-blosc2 wrote other bytes than the kernel" : "c-blosc2 returned an error");
    return;
  }
  const auto [best_kernel, best_blosc2] = measure_against(
      state, bytes,
      [&] {
        for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
          kernel(in.data() + off, chunk_bytes, type_size, ours.data() + off);
        }
      },
      [&] {
        // Into the same buffer as the kernel, so that both find it equally warm.
        for (std::size_t off = 0; off < bytes; off += chunk_bytes) {
          blosc2_chunk(fn, bit_blocks, in.data() + off, chunk_bytes, type_size, ours.data() + off);
        }
      });
  state.counters["c-blosc2_GB/s"] = static_cast<double>(bytes) / best_blosc2 / 1e9;
  state.counters["x_c-blosc2"] = best_blosc2 / best_kernel;
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

std::vector<std::pair<std::string, double>> blosc2_goals;  // benchmark name, x_c-blosc2 aimed for

void register_all() {
  using dispatch::byte_kernel;
  const kernel_table& widest = *dispatch::available().back();
  struct byte_case {
    const char* name;
    byte_kernel kernel_table::*kernel;
    byte_kernel kernel_table::*prepare;  // nullptr: the raw data
    std::size_t type_size;
    double goal;
    blosc2_library::shuffle_fn blosc2_library::*reference;
    double reference_goal;  // in cache; 0: none
    // The form the reader runs when the output goes straight into a result
    // larger than the caches (tile_context::stream_destination); nullptr:
    // none. Measured on the 16 MiB shape only, where the reader uses it.
    byte_kernel kernel_table::*into_result = nullptr;
  };
  // Against c-blosc2: the byte shuffles 1.25x on both shapes, the bit
  // shuffles 3x in cache (16 MiB is bound by memory, not by the kernel).
  const byte_case byte_cases[] = {
      {"byteshuffle", &kernel_table::byteshuffle, nullptr, 4, 0.5, &blosc2_library::shuffle, 1.25},
      {"byteunshuffle", &kernel_table::byteunshuffle, &kernel_table::byteshuffle, 4, 0.65,
       &blosc2_library::unshuffle, 1.25, &kernel_table::byteunshuffle_stream},
      {"bitshuffle", &kernel_table::bitshuffle, nullptr, 4, 0.25, &blosc2_library::bitshuffle, 3.0},
      {"bitunshuffle", &kernel_table::bitunshuffle, &kernel_table::bitshuffle, 4, 0.25,
       &blosc2_library::bitunshuffle, 3.0},
      {"byteshuffle", &kernel_table::byteshuffle, nullptr, 8, 0.5, &blosc2_library::shuffle, 1.25},
      {"byteunshuffle", &kernel_table::byteunshuffle, &kernel_table::byteshuffle, 8, 0.65,
       &blosc2_library::unshuffle, 1.25, &kernel_table::byteunshuffle_stream},
      {"bitshuffle", &kernel_table::bitshuffle, nullptr, 8, 0.25, &blosc2_library::bitshuffle, 3.0},
      {"bitunshuffle", &kernel_table::bitunshuffle, &kernel_table::bitshuffle, 8, 0.25,
       &blosc2_library::bitunshuffle, 3.0},
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
      if (c.into_result != nullptr) {
        const std::string name = row + " into a result/" + t->name + "/" + shapes[1].name;
        register_case(name, c.goal,
                      benchmark::RegisterBenchmark(name.c_str(), run_byte_kernel, t->*(c.into_result), std::cref(*in),
                                                   c.type_size, shapes[1].bytes));
      }
    }
    if (blosc2().loaded()) {
      const bool bit_blocks = std::string_view(c.name).starts_with("bit");  // TileDB's 8 KiB blocks
      for (const shape& s : shapes) {
        const std::string name = row + "/" + widest.name + " vs c-blosc2/" + s.name;
        const double goal = bit_blocks && s.bytes != chunk_bytes ? 0.0 : c.reference_goal;
        benchmark::RegisterBenchmark(name.c_str(), run_vs_blosc2, widest.*(c.kernel), blosc2().*(c.reference),
                                     bit_blocks, std::cref(*in), c.type_size, s.bytes)
            ->Unit(benchmark::kMicrosecond)
            ->UseManualTime();
        blosc2_goals.emplace_back(name, goal);
      }
      if (c.into_result != nullptr) {
        const std::string name = row + " into a result/" + widest.name + " vs c-blosc2/" + shapes[1].name;
        benchmark::RegisterBenchmark(name.c_str(), run_vs_blosc2, widest.*(c.into_result), blosc2().*(c.reference),
                                     false, std::cref(*in), c.type_size, shapes[1].bytes)
            ->Unit(benchmark::kMicrosecond)
            ->UseManualTime();
        blosc2_goals.emplace_back(name, c.reference_goal);
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
  if (!blosc2().loaded()) {
    std::printf("\nc-blosc2 not compared: %s\n", blosc2().status.c_str());
    return;
  }
  std::printf("\n%-50s %9s %11s %9s %6s\n", ("against c-blosc2 " + blosc2().version).c_str(), "GB/s",
              "c-blosc2", "x blosc2", "goal");
  for (const auto& [name, goal] : blosc2_goals) {
    const auto it = r.counters.find(name + "/manual_time");
    if (it == r.counters.end()) continue;
    const double ratio = it->second.at("x_c-blosc2").value;
    std::printf("%-50s %9.2f %11.2f %8.2fx ", name.c_str(), it->second.at("best_GB/s").value,
                it->second.at("c-blosc2_GB/s").value, ratio);
    if (goal > 0) {
      std::printf("%5.2fx%s\n", goal, ratio >= goal ? "" : "  (below goal)");
    } else {
      std::printf("%6s\n", "-");
    }
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
