// Memory a benchmark process holds, from /proc (Linux), and the JSON line
// the readers' drivers (read_column.cpp, read_query.cpp) print.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace tilefmt::bench {

/// Resident set size now, in bytes (/proc/self/statm: pages).
inline std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

/// Peak resident set size of this process image, in bytes: VmHWM, which exec
/// resets (ru_maxrss would carry over the parent's peak from before the exec).
inline std::uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

/// Prints the drivers' one JSON object: the best and median of `seconds`,
/// the bytes read, the peak resident memory added since `before`, and a
/// checksum of the results (so that the reads cannot be optimised away),
/// then `extra`: more fields, each written `, "name": value`.
inline void print_timing(std::vector<double> seconds, std::uint64_t bytes, std::uint64_t before,
                         std::uint64_t checksum, const std::string& extra = {}) {
  std::sort(seconds.begin(), seconds.end());
  const std::uint64_t peak = peak_resident_bytes();
  std::printf("{\"best_s\": %.6f, \"median_s\": %.6f, \"bytes\": %llu, \"peak_added_bytes\": %llu, "
              "\"checksum\": %llu",
              seconds.front(), seconds[seconds.size() / 2], static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(peak > before ? peak - before : 0),
              static_cast<unsigned long long>(checksum));
  std::printf("%s}\n", extra.c_str());
}

} // namespace tilefmt::bench
