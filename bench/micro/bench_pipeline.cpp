// Decode of a whole 16 MiB tile (256 chunks of 64 KiB, as TileDB chunks it)
// through runtime_pipeline, beside the same filters as a compile-time
// pipeline<> and beside memcpy of the same bytes, all three timed in the
// same iterations (the table after Google Benchmark's output).
//
// The runtime pipeline holds its stages in a variant and chooses the
// alternative once per stage and chunk; the kernels inside are the same
// functions. The goal: runtime decode within 5% of pipeline<> decode
// (rt/pipe >= 0.95).
//
// Pipelines: [byteshuffle, zstd(1)] and [bitshuffle, lz4] on int32 values
// increasing slowly and on a smooth float64 signal; [positive delta,
// bit-width reduction] on the int32 values (the other order would make
// positive delta see reduced bytes, which it rejects as decreasing).
// Built with the dispatch component: the SIMD stages use the widest
// instruction set the CPU runs.
#include <benchmark/benchmark.h>

#include "bench_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/filter/bit_width_reduction.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/dispatch.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/positive_delta.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace {

namespace filter = tilefmt::filter;
namespace format = tilefmt::format;

constexpr std::size_t tile_bytes = 16u << 20;

const std::vector<std::int32_t>& int32_values() {
  static const std::vector<std::int32_t> v = tilefmt::bench::int32_slowly_increasing(tile_bytes);
  return v;
}

const std::vector<double>& float64_values() {
  static const std::vector<double> v = tilefmt::bench::float64_smooth(tile_bytes);
  return v;
}

template <class T>
const std::vector<T>& values() {
  if constexpr (std::is_same_v<T, double>) {
    return float64_values();
  } else {
    return int32_values();
  }
}

// Decodes the tile through pipeline<> and through runtime_pipeline, and
// copies it with memcpy, alternately, iteration by iteration, keeping the
// best time of each: on a shared or frequency-scaling machine, figures taken
// seconds apart are not comparable, and the best of many short runs is the
// least disturbed one. The manual time reported is runtime_pipeline's.
template <class P, class T>
void decode_both(benchmark::State& state) {
  using clock = std::chrono::steady_clock;
  const std::vector<T>& in = values<T>();
  const std::vector<std::byte> tile = P::template encode<T>(in);
  // Built as a reader builds it: from the stored pipeline and the datatype.
  const filter::runtime_pipeline rp(P::descriptor(), format::datatype_of<T>(), tilefmt::format::written_version);
  const filter::tile_context ctx = rp.context(sizeof(T));
  std::vector<T> by_static(in.size()), by_runtime(in.size()), copied(in.size());
  double best_static = std::numeric_limits<double>::infinity();
  double best_runtime = best_static, best_copy = best_static;
  auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  bool runtime_first = false;  // alternated, so that neither always follows the memcpy
  auto run_static = [&] {
    const auto t0 = clock::now();
    P::template decode_into<T>(tile, std::span<T>(by_static));
    benchmark::ClobberMemory();
    return seconds(t0, clock::now());
  };
  auto run_runtime = [&] {
    const auto t0 = clock::now();
    rp.decode_into(tilefmt::codec::decode<format::TileView>(tile), std::as_writable_bytes(std::span<T>(by_runtime)),
                   ctx);
    benchmark::ClobberMemory();
    return seconds(t0, clock::now());
  };
  for (auto _ : state) {
    double t_static = 0, t_runtime = 0;
    if (runtime_first) {
      t_runtime = run_runtime();
      t_static = run_static();
    } else {
      t_static = run_static();
      t_runtime = run_runtime();
    }
    runtime_first = !runtime_first;
    const auto c0 = clock::now();
    std::memcpy(copied.data(), in.data(), tile_bytes);
    benchmark::ClobberMemory();
    const double t_copy = seconds(c0, clock::now());
    state.SetIterationTime(t_runtime);
    best_static = std::min(best_static, t_static);
    best_runtime = std::min(best_runtime, t_runtime);
    best_copy = std::min(best_copy, t_copy);
  }
  if (by_static != in || by_runtime != in || copied != in) {
    state.SkipWithError("a decode gave other values");
    return;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * tile_bytes));
  state.counters["pipeline_GB/s"] = static_cast<double>(tile_bytes) / best_static / 1e9;
  state.counters["runtime_GB/s"] = static_cast<double>(tile_bytes) / best_runtime / 1e9;
  state.counters["memcpy_GB/s"] = static_cast<double>(tile_bytes) / best_copy / 1e9;
  state.counters["runtime_vs_pipeline"] = best_static / best_runtime;
}

std::vector<std::string> case_names;

template <class P, class T>
void register_case(const std::string& name) {
  const std::string n = "decode " + name;
  benchmark::RegisterBenchmark(n.c_str(), decode_both<P, T>)->Unit(benchmark::kMillisecond)->UseManualTime();
  case_names.push_back(n);
}

using tilefmt::bench::collecting_reporter;

constexpr double runtime_goal = 0.95;  // runtime decode within 5% of pipeline<>

void print_table(const collecting_reporter& r) {
  std::printf("\n%-52s %9s %9s %9s %9s %9s %8s\n", "16 MiB tile (best of all iterations)", "pipeline", "runtime",
              "memcpy", "pipe/mcp", "rt/mcp", "rt/pipe");
  std::printf("%-52s %9s %9s %9s %9s %9s %8s\n", "", "GB/s", "GB/s", "GB/s", "", "", "goal");
  for (const std::string& name : case_names) {
    const auto it = r.counters.find(name + "/manual_time");
    if (it == r.counters.end()) continue;  // filtered out
    const auto& c = it->second;
    const double p = c.at("pipeline_GB/s").value, rt = c.at("runtime_GB/s").value, m = c.at("memcpy_GB/s").value;
    const double ratio = c.at("runtime_vs_pipeline").value;
    std::printf("%-52s %9.2f %9.2f %9.2f %8.2fx %8.2fx %7.2fx%s\n", name.c_str(), p, rt, m, p / m, rt / m, ratio,
                ratio >= runtime_goal ? "" : "  (below 0.95)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  using BZ = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  using BL = filter::pipeline<filter::bitshuffle, filter::lz4<>>;
  using DW = filter::pipeline<filter::positive_delta<>, filter::bit_width_reduction<>>;
  register_case<BZ, std::int32_t>("[byteshuffle, zstd(1)] int32");
  register_case<BZ, double>("[byteshuffle, zstd(1)] float64");
  register_case<BL, std::int32_t>("[bitshuffle, lz4] int32");
  register_case<BL, double>("[bitshuffle, lz4] float64");
  register_case<DW, std::int32_t>("[positive_delta, bit_width_reduction] int32");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::printf("compiler: %s; kernels: %s\n", __VERSION__, filter::dispatch::active().name);
  collecting_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_table(reporter);
  benchmark::Shutdown();
  // Missed goals are marked in the table, not a failure (the figures depend
  // on the machine and its load); a benchmark that reported an error is.
  return reporter.exit_status();
}
