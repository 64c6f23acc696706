// Runs the registered benchmarks and prints, after Google Benchmark's own
// table, each benchmark's throughput as a ratio to a named baseline measured
// in the same run (e.g. memcpy of the same bytes, or a hand-written loop).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tilefmt::bench {

struct comparison {
  std::string name;     // benchmark name (as registered)
  std::string baseline; // benchmark name of the baseline
  double goal;          // minimum ratio (baseline time / our time); 0 = none
};

class collecting_reporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs)
      // CPU time: single-threaded work, robust to other load on the machine.
      if (r.run_type == Run::RT_Iteration) seconds_per_iter[r.benchmark_name()] = r.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> seconds_per_iter;
};

/// Returns the number of comparisons that missed their goal.
inline int run_and_compare(int argc, char** argv, const std::vector<comparison>& comparisons) {
  benchmark::Initialize(&argc, argv);
  collecting_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  std::printf("\n%-58s %-34s %8s %6s\n", "benchmark", "baseline", "ratio", "goal");
  int missed = 0;
  for (const auto& c : comparisons) {
    auto a = rep.seconds_per_iter.find(c.name), b = rep.seconds_per_iter.find(c.baseline);
    if (a == rep.seconds_per_iter.end() || b == rep.seconds_per_iter.end()) continue; // filtered out
    double ratio = b->second / a->second;
    bool ok = c.goal <= 0 || ratio >= c.goal;
    missed += ok ? 0 : 1;
    std::printf("%-58s %-34s %7.2fx %5.2fx %s\n", c.name.c_str(), c.baseline.c_str(), ratio, c.goal,
                ok ? "" : "(below goal)");
  }
  benchmark::Shutdown();
  return missed;
}

} // namespace tilefmt::bench
