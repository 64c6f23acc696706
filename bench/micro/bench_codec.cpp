// Codec throughput against the same work done by hand, in the same run:
//  - a struct holding 1,000,000 counted uint64 values, decoded and encoded,
//    against memcpy of the same bytes;
//  - 1,000,000 CompressedPartMD records decoded, against a hand-written loop.
#include <cstring>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/filter_metadata.hpp"

#include "ratio.hpp"

namespace codec = tilefmt::codec;

namespace {

constexpr std::size_t n_values = 1'000'000;

struct Column {
  codec::counted<std::uint64_t, std::vector<std::uint64_t>> values;
};
struct Parts {
  codec::counted<std::uint32_t, std::vector<tilefmt::format::CompressedPartMD>> parts;
};

std::vector<std::byte> column_bytes() {
  Column c;
  c.values.value.resize(n_values);
  for (std::size_t i = 0; i < n_values; ++i) c.values.value[i] = i * 2654435761u;
  return codec::encode(c);
}

std::vector<std::byte> parts_bytes() {
  Parts p;
  p.parts.value.resize(n_values);
  for (std::size_t i = 0; i < n_values; ++i)
    p.parts.value[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i / 2)};
  return codec::encode(p);
}

void memcpy_column(benchmark::State& state) {
  auto bytes = column_bytes();
  std::vector<std::uint64_t> out(n_values);
  for (auto _ : state) {
    std::memcpy(out.data(), bytes.data() + 8, n_values * 8);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n_values * 8));
}

void decode_column(benchmark::State& state) {
  auto bytes = column_bytes();
  Column c;
  c.values.value.reserve(n_values); // decode_into reuses capacity, as a streaming reader would
  for (auto _ : state) {
    codec::decode_into(bytes, c);
    benchmark::DoNotOptimize(c.values.value.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n_values * 8));
}

void encode_column(benchmark::State& state) {
  Column c = codec::decode<Column>(column_bytes());
  std::vector<std::byte> out(codec::encoded_size(c));
  for (auto _ : state) {
    codec::encode_into(c, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n_values * 8));
}

void hand_loop_parts(benchmark::State& state) {
  auto bytes = parts_bytes();
  std::vector<tilefmt::format::CompressedPartMD> out;
  for (auto _ : state) {
    // What one would write without the codec: read the count, check it,
    // then load two little-endian u32 per record.
    const std::byte* p = bytes.data();
    std::uint32_t n = codec::load_le<std::uint32_t>(p);
    if (n > (bytes.size() - 4) / 8) state.SkipWithError("short");
    out.resize(n);
    p += 4;
    for (std::uint32_t i = 0; i < n; ++i, p += 8) {
      out[i].original_length = codec::load_le<std::uint32_t>(p);
      out[i].compressed_length = codec::load_le<std::uint32_t>(p + 4);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_record"] = benchmark::Counter(static_cast<double>(state.iterations() * n_values),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void decode_parts(benchmark::State& state) {
  auto bytes = parts_bytes();
  Parts p;
  for (auto _ : state) {
    codec::decode_into(bytes, p);
    benchmark::DoNotOptimize(p.parts.value.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_record"] = benchmark::Counter(static_cast<double>(state.iterations() * n_values),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace

BENCHMARK(memcpy_column)->Unit(benchmark::kMicrosecond);
BENCHMARK(decode_column)->Unit(benchmark::kMicrosecond);
BENCHMARK(encode_column)->Unit(benchmark::kMicrosecond);
BENCHMARK(hand_loop_parts)->Unit(benchmark::kMicrosecond);
BENCHMARK(decode_parts)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
  return tilefmt::bench::run_and_compare(argc, argv,
                                         {
                                             {"decode_column", "memcpy_column", 0.8},
                                             {"encode_column", "memcpy_column", 0.8},
                                             // within 1.2x of the hand loop = ratio >= 1/1.2
                                             {"decode_parts", "hand_loop_parts", 1.0 / 1.2},
                                         });
}
