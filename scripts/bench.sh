#!/usr/bin/env bash
# Builds the benchmarks (release) and runs them pinned to one core. Each
# prints its figures and, at the end, ratios to the baseline measured in the
# same run (memcpy, a hand-written loop, or the raw library call).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_packages
say "Build (release, benchmarks)"
configure build/bench -Dbuildtype=release -Dtests=false -Dexamples=false -Dbench=true
ninja -C build/bench -j "$(jobs)"

say "Machine"
lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3' || true
${CXX:-c++} --version | head -1

status=0
for b in build/bench/bench/bench-*; do
  [ -x "$b" ] || continue
  say "$(basename "$b")"
  taskset -c 0 "$b" --benchmark_min_time=0.2 "$@" || status=1
done
exit $status
