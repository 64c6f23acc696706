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

/// A field of /proc/self/status given in kB ("VmHWM", "RssFile"...), in
/// bytes; 0 where there is none.
inline std::uint64_t status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == field + ":") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

/// Resident set size now, in bytes (/proc/self/statm: pages).
inline std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

/// The memory a process holds at one moment: all of it resident, and its
/// private part (anonymous pages: heap, stacks, mapped buffers), which,
/// unlike the pages of its code and libraries, only it can use.
struct memory_mark {
  std::uint64_t resident = 0, anonymous = 0;
  static memory_mark now() { return {resident_bytes(), status_bytes("RssAnon")}; }
};

/// Peak resident set size of this process image, in bytes: VmHWM, which exec
/// resets (ru_maxrss would carry over the parent's peak from before the exec).
inline std::uint64_t peak_resident_bytes() { return status_bytes("VmHWM"); }

/// Prints the drivers' one JSON object: the best and median of `seconds`,
/// the bytes read, the peak resident memory added since `before` and the
/// private part of it, and a checksum of the results (so that the reads
/// cannot be optimised away), then `extra`: more fields, each written
/// `, "name": value`. The private peak is the peak less the file-backed and
/// shared pages resident at the end (code and libraries, which a process
/// only gains while nothing presses on memory) and the private pages before.
inline void print_timing(std::vector<double> seconds, std::uint64_t bytes, const memory_mark& before,
                         std::uint64_t checksum, const std::string& extra = {}) {
  std::sort(seconds.begin(), seconds.end());
  const std::uint64_t peak = peak_resident_bytes();
  const std::uint64_t shared = status_bytes("RssFile") + status_bytes("RssShmem");
  auto less = [](std::uint64_t a, std::uint64_t b) { return static_cast<unsigned long long>(a > b ? a - b : 0); };
  std::printf("{\"best_s\": %.6f, \"median_s\": %.6f, \"bytes\": %llu, \"peak_added_bytes\": %llu, "
              "\"peak_private_added_bytes\": %llu, \"checksum\": %llu",
              seconds.front(), seconds[seconds.size() / 2], static_cast<unsigned long long>(bytes),
              less(peak, before.resident), less(peak, shared + before.anonymous),
              static_cast<unsigned long long>(checksum));
  std::printf("%s}\n", extra.c_str());
}

} // namespace tilefmt::bench
