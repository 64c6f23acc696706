// Reads a region of a TileDB array's int32 attribute with a tilefmt query
// (array/read/query.hpp) and prints how long it took and how much memory it
// needed. Driven by bench/compare/compare_query.py, which runs TileDB-Py on the same
// array and region in the same run.
//
//   bench-read-query [--aggregate | --aggregate-cells | --where-gt X] ARRAY ATTRIBUTE THREADS REPEATS LO HI [LO HI ...]
//
// One inclusive range per dimension; row-major result. Prints one JSON
// object: the best and median wall time of REPEATS reads, the result bytes,
// and the peak resident memory the reads added to the process. With
// --aggregate, each repeat is COUNT and SUM of the attribute over the
// region instead (query::aggregate): the bytes are the 16 of the two
// answers, the checksum the sum's bits; --aggregate-cells the same without
// the tile metadata (query::use_tile_metadata(false)). --where-gt X reads
// only the cells whose ATTRIBUTE (float64) is greater than X (a query
// condition, array/model/condition.hpp).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "process_memory.hpp"
#include "tilefmt/array/model/condition.hpp"
#include "tilefmt/array/read/query.hpp"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool aggregate = mode == "--aggregate" || mode == "--aggregate-cells";
  if (aggregate) --argc, ++argv;
  std::optional<double> greater;
  if (mode == "--where-gt" && argc > 2) {
    greater = std::stod(argv[2]);
    argc -= 2, argv += 2;
  }
  if (argc < 7 || (argc - 5) % 2 != 0) {
    std::cerr << "usage: bench-read-query [--aggregate | --aggregate-cells | --where-gt X] ARRAY ATTRIBUTE THREADS REPEATS LO HI "
                 "[LO HI ...]\n";
    return 2;
  }
  const std::string path = argv[1], attr = argv[2];
  tilefmt::array::open_options opt;
  opt.threads = static_cast<unsigned>(std::stoul(argv[3]));
  const int repeats = std::max(1, std::stoi(argv[4]));
  std::vector<std::pair<std::int64_t, std::int64_t>> box;
  for (int i = 5; i + 1 < argc; i += 2) box.emplace_back(std::stoll(argv[i]), std::stoll(argv[i + 1]));
  try {
    const auto before = tilefmt::bench::memory_mark::now();
    auto a = tilefmt::array::open(path, opt);
    std::vector<double> seconds;
    std::uint64_t bytes = 0, checksum = 0;
    for (int r = 0; r < repeats; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      if (aggregate) {
        using tilefmt::array::aggregate_op;
        const auto v = a.query()
                           .subarray(box)
                           .use_tile_metadata(mode == "--aggregate")
                           .aggregate({{aggregate_op::count, ""}, {aggregate_op::sum, attr}});
        bytes = 2 * sizeof(std::uint64_t);
        checksum = static_cast<std::uint64_t>(std::get<std::int64_t>(v[1]));
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        continue;
      }
      auto q = a.query().subarray(box).attributes({attr});
      if (greater) q.where(tilefmt::array::field(attr) > *greater);
      const auto result = q.read();
      const auto& v = result.bytes(attr);
      bytes = v.size();
      // Touch the result so the read cannot be optimised away.
      if (!v.empty()) checksum += std::to_integer<std::uint64_t>(v[v.size() / 2]);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    tilefmt::bench::print_timing(std::move(seconds), bytes, before, checksum);
  } catch (const std::exception& e) {
    std::cerr << "bench-read-query: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
