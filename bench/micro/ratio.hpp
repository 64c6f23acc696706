// Runs the registered benchmarks and prints, after Google Benchmark's own
// table, each benchmark's throughput as a ratio to a named baseline measured
// in the same run (e.g. memcpy of the same bytes, or a hand-written loop).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.hpp"

namespace tilefmt::bench {

struct comparison {
  std::string name;     // benchmark name (as registered)
  std::string baseline; // benchmark name of the baseline
  double goal;          // minimum ratio (baseline time / our time); 0 = none
};

/// Runs the benchmarks and prints the ratio table. Missed goals are marked
/// in it, not turned into a failure (the figures depend on the machine and
/// its load); returns non-zero only if a benchmark reported an error.
inline int run_and_compare(int argc, char** argv, const std::vector<comparison>& comparisons) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  collecting_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  std::printf("\n%-58s %-34s %8s %6s\n", "benchmark", "baseline", "ratio", "goal");
  for (const auto& c : comparisons) {
    auto a = rep.seconds_per_iter.find(c.name), b = rep.seconds_per_iter.find(c.baseline);
    if (a == rep.seconds_per_iter.end() || b == rep.seconds_per_iter.end()) continue; // filtered out
    double ratio = b->second / a->second;
    bool ok = c.goal <= 0 || ratio >= c.goal;
    std::printf("%-58s %-34s %7.2fx %5.2fx %s\n", c.name.c_str(), c.baseline.c_str(), ratio, c.goal,
                ok ? "" : "(below goal)");
  }
  benchmark::Shutdown();
  return rep.exit_status();
}

} // namespace tilefmt::bench
