// Reads one fixed-size attribute of every fragment of a TileDB array with
// tilefmt and prints how long it took and how much memory it needed. Driven
// by bench/compare/compare_tiledb.py, which runs libtiledb's C API and TileDB-Py on
// the same array in the same run.
//
//   bench-read-column ARRAY ATTRIBUTE TYPE THREADS REPEATS
//
// TYPE is int32, int64, float32 or float64. Prints one JSON object: the best
// and median wall time of REPEATS reads, the decoded bytes, the peak
// resident memory the reads added to the process (VmHWM minus the
// resident size before the first read, from /proc/self/status), the least
// CPU time of one read (every thread's, CLOCK_PROCESS_CPUTIME_ID: less
// sensitive than wall time to other processes on a shared machine), and the
// digest of every value read (bench/compare/timing.py's digest), from one more read
// after the timed ones, so the drivers can check that another reader
// returned the same cells.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "process_memory.hpp"
#include "tilefmt/array/read/array.hpp"

namespace {


double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

template <class T>
std::uint64_t read_all(const tilefmt::array::array_reader& a, const std::string& attr, std::uint64_t& checksum) {
  std::uint64_t bytes = 0;
  for (const auto& f : a.fragments()) {
    auto v = f.read<T>(attr);
    bytes += v.size() * sizeof(T);
    // Touch the result so the read cannot be optimised away.
    if (!v.empty()) checksum += static_cast<std::uint64_t>(v[v.size() / 2]);
  }
  return bytes;
}

// The sum over cells i (from 0, across fragments in order) of (i + 1) times
// the cell's bit pattern as an unsigned integer, modulo 2^64: it changes
// when a value or its place changes, and numpy computes it the same way.
template <class T>
std::uint64_t digest(const tilefmt::array::array_reader& a, const std::string& attr) {
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  std::uint64_t sum = 0, i = 0;
  for (const auto& f : a.fragments())
    for (T v : f.read<T>(attr)) sum += ++i * static_cast<std::uint64_t>(std::bit_cast<bits>(v));
  return sum;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: bench-read-column ARRAY ATTRIBUTE int32|int64|float32|float64 THREADS REPEATS\n";
    return 2;
  }
  const std::string path = argv[1], attr = argv[2], type = argv[3];
  tilefmt::array::open_options opt;
  opt.threads = static_cast<unsigned>(std::stoul(argv[4]));
  const int repeats = std::max(1, std::stoi(argv[5]));
  try {
    const auto before = tilefmt::bench::memory_mark::now();
    auto a = tilefmt::array::open(path, opt);
    std::vector<double> seconds;
    double best_cpu = 0;
    std::uint64_t bytes = 0, checksum = 0;
    for (int r = 0; r < repeats; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      const double c0 = cpu_seconds();
      if (type == "int32") bytes = read_all<std::int32_t>(a, attr, checksum);
      else if (type == "int64") bytes = read_all<std::int64_t>(a, attr, checksum);
      else if (type == "float32") bytes = read_all<float>(a, attr, checksum);
      else if (type == "float64") bytes = read_all<double>(a, attr, checksum);
      else {
        std::cerr << "unknown type " << type << "\n";
        return 2;
      }
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      const double cpu = cpu_seconds() - c0;
      best_cpu = r == 0 ? cpu : std::min(best_cpu, cpu);
    }
    std::uint64_t values_digest = 0;
    if (type == "int32") values_digest = digest<std::int32_t>(a, attr);
    else if (type == "int64") values_digest = digest<std::int64_t>(a, attr);
    else if (type == "float32") values_digest = digest<float>(a, attr);
    else values_digest = digest<double>(a, attr);
    tilefmt::bench::print_timing(std::move(seconds), bytes, before, checksum,
                                 ", \"best_cpu_s\": " + std::to_string(best_cpu) +
                                     ", \"digest\": " + std::to_string(values_digest));
  } catch (const std::exception& e) {
    std::cerr << "bench-read-column: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
