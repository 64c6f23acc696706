// Shared by the Google Benchmark programs: the data the issues' speed goals
// name (int32 slowly increasing, float64 smooth signal), made the same way in
// every benchmark so their figures compare, and a console reporter that keeps
// each run's counters for the ratio table printed at the end.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tilefmt::bench {

/// `bytes / 4` int32 values: 1000, then steps of 0, 1 or 2.
inline std::vector<std::int32_t> int32_slowly_increasing(std::size_t bytes) {
  std::mt19937 rng(7);
  std::vector<std::int32_t> out(bytes / 4);
  std::int32_t x = 1000;
  for (auto& e : out) {
    e = x;
    x += static_cast<std::int32_t>(rng() % 3);
  }
  return out;
}

/// `bytes / 8` doubles: a slow sine with a small fast one on top.
inline std::vector<double> float64_smooth(std::size_t bytes) {
  std::vector<double> out(bytes / 8);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double t = static_cast<double>(i);
    out[i] = 1000.0 * std::sin(t * 1e-3) + 0.5 * std::sin(t * 0.37);
  }
  return out;
}

/// Google Benchmark's console output, keeping each run's counters and CPU
/// time per iteration by name, and the names of runs that reported an error
/// (a benchmark whose output was wrong: the program then exits non-zero,
/// which makes the test suite's smoke run of each benchmark mean something).
class collecting_reporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.error_occurred) {
        errors.push_back(r.benchmark_name() + ": " + r.error_message);
      } else if (r.run_type == Run::RT_Iteration) {
        counters[r.benchmark_name()] = r.counters;
        // CPU time: single-threaded work, robust to other load on the machine.
        seconds_per_iter[r.benchmark_name()] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  /// 1 if any benchmark reported an error (listed on stderr), else 0.
  int exit_status() const {
    for (const auto& e : errors) std::fprintf(stderr, "benchmark error: %s\n", e.c_str());
    return errors.empty() ? 0 : 1;
  }
  std::map<std::string, benchmark::UserCounters> counters;
  std::map<std::string, double> seconds_per_iter;
  std::vector<std::string> errors;
};

} // namespace tilefmt::bench
