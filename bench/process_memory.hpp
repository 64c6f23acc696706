// Memory a benchmark process holds, from /proc (Linux): what the readers'
// drivers (read_column.cpp, read_query.cpp) report beside their timings.
#pragma once

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

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

} // namespace tilefmt::bench
