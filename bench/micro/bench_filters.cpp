// Tile decode through the filter pipelines, beside the work it cannot avoid.
//
// (a) [byteshuffle, zstd(1)] and [bit-width reduction, lz4] on int32: a
//     16 MiB tile (256 chunks of 64 KiB) decoded by pipeline<>, and, on the
//     same chunks, the raw library call on each of the chunk's compressed
//     streams (the earlier filter's metadata, then the data) followed by
//     our kernel (the byte unshuffle; or the bit-width restore, window by
//     window, from window tables parsed beforehand). The ratio
//     raw / pipeline is what the framing costs: chunk and filter headers,
//     parsing the filters' metadata, checks, buffers. Goal: >= 0.95.
// (b) DELTA and DOUBLE_DELTA decode of a 16 MiB int64 tile, in GB/s of
//     decoded values. Goal: >= 1 GB/s.
// (c) RLE and DICTIONARY decode of var-size strings (one var tile, its
//     offsets rebuilt), in MB/s of string bytes and cells/s.
//
// The (a) benchmarks time the pipeline and the baseline alternately,
// iteration by iteration, and keep the best time of each: on a shared or
// frequency-scaling machine, runs minutes apart are not comparable, and the
// best of many short runs is the least disturbed one. (b) and (c) report
// their best iteration as well. A table of the figures and goals follows
// Google Benchmark's output.
#include <benchmark/benchmark.h>

#include "bench_support.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <lz4.h>
#include <zstd.h>

#include "tilefmt/filter/bit_width_reduction.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/delta.hpp"
#include "tilefmt/filter/detail/stage_kernels.hpp"
#include "tilefmt/filter/dictionary.hpp"
#include "tilefmt/filter/double_delta.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/rle.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace {

namespace filter = tilefmt::filter;
namespace format = tilefmt::format;
namespace codec = tilefmt::codec;
using clock_type = std::chrono::steady_clock;
using bytes = std::vector<std::byte>;

constexpr std::size_t tile_size = 16u << 20;

double seconds(clock_type::time_point a, clock_type::time_point b) { return std::chrono::duration<double>(b - a).count(); }

const std::vector<std::int32_t>& int32_slowly_increasing() {
  static const std::vector<std::int32_t> v = tilefmt::bench::int32_slowly_increasing(tile_size);
  return v;
}

const std::vector<std::int64_t>& int64_timestamps() {
  static const std::vector<std::int64_t> v = [] {
    std::mt19937_64 rng(11);
    std::vector<std::int64_t> out(tile_size / 8);
    std::int64_t x = 1'700'000'000'000;
    for (auto& e : out) {
      e = x;
      x += 1000 + static_cast<std::int64_t>(rng() % 64) - 32;
    }
    return out;
  }();
  return v;
}

// ---- (a) framing overhead ----------------------------------------------------

/// One compressed stream of a chunk.
struct raw_part {
  const std::byte* compressed;
  std::size_t compressed_length;
  std::size_t original_length;
};

/// One chunk of a [X, compressor] tile as the baseline sees it: the
/// compressed streams of the earlier filter's metadata, the one data
/// stream, and where the chunk's values go.
struct raw_chunk {
  std::vector<raw_part> metadata;
  raw_part data;
  std::size_t output_offset;
  std::vector<format::WindowMD<std::int32_t>> windows; // bit-width reduction only
};

/// Splits a serialized tile into its chunks' compressed streams. With
/// `windows`, also parses the bit-width reduction metadata (the first
/// metadata stream) with `decompress`.
template <class Decompress>
std::vector<raw_chunk> raw_chunks(const bytes& tile, bool windows, Decompress&& decompress) {
  auto view = codec::decode<format::TileView>(tile);
  std::vector<raw_chunk> out;
  std::size_t at = 0;
  for (const auto& c : view.chunks) {
    auto md = codec::decode<format::CompressionMD>(codec::reader(c.metadata.bytes()));
    if (md.data_parts.size() != 1) throw std::runtime_error("bench: expected one data part per chunk");
    const std::byte* p = c.data.bytes().data();
    raw_chunk r{};
    for (const auto& m : md.metadata_parts) {
      r.metadata.push_back({p, m.compressed_length, m.original_length});
      p += m.compressed_length;
    }
    r.data = {p, md.data_parts[0].compressed_length, md.data_parts[0].original_length};
    r.output_offset = at;
    if (windows) {
      bytes meta(r.metadata.at(0).original_length);
      decompress(r.metadata[0], meta.data());
      auto bw = codec::decode<format::BitWidthReductionMD<std::int32_t>>(codec::reader(std::span<const std::byte>(meta)));
      r.windows = bw.windows.value;
    }
    out.push_back(std::move(r));
    at += c.original_length;
  }
  return out;
}

struct best_of {
  double ours = std::numeric_limits<double>::infinity();
  double baseline = std::numeric_limits<double>::infinity();
};

/// Runs ours() and baseline() alternately; the manual time is ours.
template <class Ours, class Baseline>
best_of alternate(benchmark::State& state, Ours&& ours, Baseline&& baseline) {
  best_of b;
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    ours();
    benchmark::ClobberMemory();
    const auto t1 = clock_type::now();
    baseline();
    benchmark::ClobberMemory();
    const auto t2 = clock_type::now();
    state.SetIterationTime(seconds(t0, t1));
    b.ours = std::min(b.ours, seconds(t0, t1));
    b.baseline = std::min(b.baseline, seconds(t1, t2));
  }
  return b;
}

void report(benchmark::State& state, std::size_t decoded_bytes, const best_of& b) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * decoded_bytes));
  state.counters["best_GB/s"] = static_cast<double>(decoded_bytes) / b.ours / 1e9;
  state.counters["raw_GB/s"] = static_cast<double>(decoded_bytes) / b.baseline / 1e9;
  state.counters["x_raw"] = b.baseline / b.ours;
}

bool zstd_decompress(ZSTD_DCtx* dctx, const raw_part& p, std::byte* out) {
  std::size_t n = ZSTD_decompressDCtx(dctx, out, p.original_length, p.compressed, p.compressed_length);
  return !ZSTD_isError(n) && n == p.original_length;
}

bool lz4_decompress(const raw_part& p, std::byte* out) {
  int n = LZ4_decompress_safe(reinterpret_cast<const char*>(p.compressed), reinterpret_cast<char*>(out),
                              static_cast<int>(p.compressed_length), static_cast<int>(p.original_length));
  return n >= 0 && static_cast<std::size_t>(n) == p.original_length;
}

// Baseline: every stream of every chunk decompressed by the library (the
// metadata streams too: the format stores them compressed), then the
// kernel on the data.
void byteshuffle_zstd(benchmark::State& state) {
  using P = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  const auto& values = int32_slowly_increasing();
  const bytes tile = P::encode<std::int32_t>(values);
  const auto chunks = raw_chunks(tile, false, [](const raw_part&, std::byte*) {});
  std::vector<std::int32_t> out(values.size());
  bytes raw_out(tile_size), scratch(filter::max_tile_chunk_size), md_scratch(4096);
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  const filter::detail::shuffle_kernels kernels;
  bool ok = true;
  auto b = alternate(
      state, [&] { P::decode_into<std::int32_t>(tile, out); },
      [&] {
        for (const auto& c : chunks) {
          for (const auto& m : c.metadata) ok &= m.original_length <= md_scratch.size() && zstd_decompress(dctx, m, md_scratch.data());
          ok &= zstd_decompress(dctx, c.data, scratch.data());
          kernels.byteunshuffle(scratch.data(), c.data.original_length, 4, raw_out.data() + c.output_offset);
        }
      });
  ZSTD_freeDCtx(dctx);
  if (!ok || out != values || std::memcmp(raw_out.data(), values.data(), tile_size) != 0) state.SkipWithError("wrong output");
  report(state, tile_size, b);
}

// Baseline: as above, with the window tables parsed beforehand; then the
// restore kernel window by window, as the stage calls it.
void bit_width_lz4(benchmark::State& state) {
  using P = filter::pipeline<filter::bit_width_reduction<>, filter::lz4<>>;
  const auto& values = int32_slowly_increasing();
  const bytes tile = P::encode<std::int32_t>(values);
  const auto chunks = raw_chunks(tile, true, lz4_decompress);
  std::vector<std::int32_t> out(values.size());
  bytes raw_out(tile_size), scratch(filter::max_tile_chunk_size), md_scratch(1u << 16);
  const filter::detail::bit_width_window_kernels<std::int32_t> kernels;
  bool ok = true;
  auto b = alternate(
      state, [&] { P::decode_into<std::int32_t>(tile, out); },
      [&] {
        for (const auto& c : chunks) {
          for (const auto& m : c.metadata) ok &= m.original_length <= md_scratch.size() && lz4_decompress(m, md_scratch.data());
          ok &= lz4_decompress(c.data, scratch.data());
          std::size_t in_at = 0, out_at = c.output_offset;
          for (const auto& w : c.windows) {
            kernels.restore(scratch.data() + in_at, w.length, w.value_offset, w.bit_width, raw_out.data() + out_at);
            in_at += filter::detail::bit_width_stored_bytes<std::int32_t>(w.length, w.bit_width);
            out_at += w.length;
          }
        }
      });
  if (!ok || out != values || std::memcmp(raw_out.data(), values.data(), tile_size) != 0) state.SkipWithError("wrong output");
  report(state, tile_size, b);
}

// ---- (b) delta and double delta -------------------------------------------------

template <class Stage>
void int64_decode(benchmark::State& state) {
  using P = filter::pipeline<Stage>;
  const auto& values = int64_timestamps();
  const bytes tile = P::template encode<std::int64_t>(values);
  std::vector<std::int64_t> out(values.size());
  double best = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    P::template decode_into<std::int64_t>(tile, out);
    benchmark::ClobberMemory();
    const double t = seconds(t0, clock_type::now());
    state.SetIterationTime(t);
    best = std::min(best, t);
  }
  if (out != values) state.SkipWithError("wrong output");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * tile_size));
  state.counters["best_GB/s"] = static_cast<double>(tile_size) / best / 1e9;
  state.counters["stored_bytes_per_value"] = static_cast<double>(tile.size()) / static_cast<double>(values.size());
}

// ---- (c) strings ------------------------------------------------------------------

struct string_tile {
  bytes data;
  std::vector<std::uint64_t> offsets;
};

/// `cells` strings of 4 to 24 characters from a vocabulary of `words`, in
/// runs of 1 to `max_run` equal cells. The first word is the longest, so
/// the last run never needs a wider length field than the others (RLE).
string_tile make_strings(std::size_t cells, std::size_t words, std::size_t max_run) {
  std::mt19937 rng(5);
  std::vector<std::string> vocabulary(words);
  for (std::size_t i = 0; i < words; ++i) {
    std::size_t len = i == 0 ? 24 : 4 + rng() % 21;
    for (std::size_t k = 0; k < len; ++k) vocabulary[i] += static_cast<char>('a' + rng() % 26);
  }
  string_tile t;
  while (t.offsets.size() < cells) {
    const std::string& w = vocabulary[t.offsets.empty() ? 0 : rng() % words];
    for (std::size_t r = 1 + rng() % max_run; r > 0 && t.offsets.size() < cells; --r) {
      t.offsets.push_back(t.data.size());
      for (char ch : w) t.data.push_back(static_cast<std::byte>(ch));
    }
  }
  return t;
}

void strings_decode(benchmark::State& state, format::FilterPipeline stored, std::size_t max_run) {
  const string_tile t = make_strings(200000, 2000, max_run);
  filter::runtime_pipeline rp(stored, format::Datatype::STRING_ASCII, tilefmt::format::written_version);
  const bytes tile = rp.encode_var(t.data, t.offsets, rp.context(1));
  bytes out(t.data.size());
  std::vector<std::uint64_t> offsets;
  double best = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    auto ctx = rp.context(1);
    offsets.clear();
    ctx.rebuilt_offsets = &offsets;
    rp.decode_into(codec::decode<format::TileView>(tile), out, ctx);
    benchmark::ClobberMemory();
    const double s = seconds(t0, clock_type::now());
    state.SetIterationTime(s);
    best = std::min(best, s);
  }
  if (out != t.data || offsets != t.offsets) state.SkipWithError("wrong output");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * t.data.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t.offsets.size()));
  state.counters["best_MB/s"] = static_cast<double>(t.data.size()) / best / 1e6;
  state.counters["best_Mcells/s"] = static_cast<double>(t.offsets.size()) / best / 1e6;
  state.counters["stored/raw"] = static_cast<double>(tile.size()) / static_cast<double>(t.data.size());
}

// ---- the table ------------------------------------------------------------------

using tilefmt::bench::collecting_reporter;

struct goal {
  const char* name;    // as registered
  const char* counter; // the figure compared
  const char* unit;
  double minimum;
};
constexpr goal goals[] = {
    {"decode [byteshuffle, zstd(1)] int32 16MiB", "x_raw", "x raw", 0.95},
    {"decode [bit_width_reduction, lz4] int32 16MiB", "x_raw", "x raw", 0.95},
    {"decode [delta] int64 16MiB", "best_GB/s", "GB/s", 1.0},
    {"decode [double_delta] int64 16MiB", "best_GB/s", "GB/s", 1.0},
    {"decode [rle] strings 200k cells", "best_MB/s", "MB/s", 0},
    {"decode [rle] strings 200k cells", "best_Mcells/s", "Mcells/s", 0},
    {"decode [dictionary] strings 200k cells", "best_MB/s", "MB/s", 0},
    {"decode [dictionary] strings 200k cells", "best_Mcells/s", "Mcells/s", 0},
};

void print_table(const collecting_reporter& r) {
  std::printf("\n%-50s %12s %10s %8s\n", "benchmark (best of all iterations)", "figure", "unit", "goal");
  for (const auto& g : goals) {
    auto it = r.counters.find(std::string(g.name) + "/manual_time");
    if (it == r.counters.end()) continue; // filtered out
    const double v = it->second.at(g.counter).value;
    std::printf("%-50s %12.3f %10s %8.2f%s\n", g.name, v, g.unit, g.minimum,
                g.minimum > 0 && v < g.minimum ? "  (below goal)" : "");
  }
}

void register_all() {
  auto manual = [](benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMillisecond); };
  manual(benchmark::RegisterBenchmark(goals[0].name, byteshuffle_zstd));
  manual(benchmark::RegisterBenchmark(goals[1].name, bit_width_lz4));
  manual(benchmark::RegisterBenchmark(goals[2].name, int64_decode<filter::delta<>>));
  manual(benchmark::RegisterBenchmark(goals[3].name, int64_decode<filter::double_delta<>>));
  manual(benchmark::RegisterBenchmark(goals[4].name, strings_decode, filter::pipeline<filter::rle<>>::descriptor(), 8));
  manual(benchmark::RegisterBenchmark(goals[6].name, strings_decode, filter::pipeline<filter::dictionary<>>::descriptor(), 1));
}

} // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  collecting_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_table(reporter);
  benchmark::Shutdown();
  // Missed goals are marked in the table, not a failure (the figures depend
  // on the machine and its load); a benchmark that reported an error is.
  return reporter.exit_status();
}
