// Compile-time probe: the translation unit of a program that opens an array,
// reads a column and runs a query (bench/compile_time.sh times its compile;
// tests/compiled runs it on the array writer.cpp makes).
#include <cstdint>
#include <cstdio>
#include <numeric>

#include <tilefmt/array/read/array.hpp>
#include <tilefmt/array/read/query.hpp>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  auto arr = tilefmt::array::open(argv[1]);
  std::int64_t sum = 0;
  for (const auto& frag : arr.fragments()) {
    const auto a = frag.read<std::int32_t>("a");
    sum = std::accumulate(a.begin(), a.end(), sum);
  }
  const auto q = arr.query().subarray({{2, 4}}).read().get<std::int32_t>("a");
  std::printf("sum %lld, query [2, 4]: %lld\n", static_cast<long long>(sum),
              static_cast<long long>(std::accumulate(q.begin(), q.end(), std::int64_t{0})));
  return 0;
}
