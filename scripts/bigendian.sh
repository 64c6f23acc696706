#!/usr/bin/env bash
# Runs the codec tests, the byte-level format tests and the filter kernel
# tests on a big-endian CPU:
# cross-compiled for s390x with Debian's g++-s390x-linux-gnu and run under
# qemu-user. They compare against the same little-endian golden bytes as on
# x86, so a load or store that skipped Boost.Endian fails here.
#
#   scripts/bigendian.sh [BUILD_DIR]     (default: build/s390x)
#
# Only header-only dependencies are needed (Boost, doctest, xsimd), so no
# s390x libraries are installed; tests that need the compression libraries
# are not part of this run. Prints "N passed, M failed" and exits non-zero on failure.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

OUT="${1:-build/s390x}"
CROSS_PACKAGES=(g++-s390x-linux-gnu qemu-user)
missing=()
for p in "${CROSS_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  say "Installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

mkdir -p "$OUT/include"
# Only Boost, doctest and xsimd from the host's /usr/include: the rest of that
# directory is the host's C library, which the cross compiler must not see.
ln -sfn /usr/include/boost "$OUT/include/boost"
ln -sfn /usr/include/doctest "$OUT/include/doctest"
ln -sfn /usr/include/xsimd "$OUT/include/xsimd"
CXX=s390x-linux-gnu-g++
FLAGS=(-std=c++20 -O1 -Wall -Wextra -Wpedantic -Werror -Iinclude -Itests -isystem "$OUT/include"
  "-DTILEFMT_TEST_DATA=\"$TILEFMT_ROOT/tests/data\"")

say "Big-endian: $($CXX --version | head -1), qemu-s390x"
$CXX "${FLAGS[@]}" -c tests/test_main.cpp -o "$OUT/test_main.o"
# The filter kernels' tests need the kernel tables (scalar only here: xsimd
# has no s390x instruction set, so this also checks that every kernel builds
# and runs without SIMD).
$CXX "${FLAGS[@]}" -c src/dispatch/dispatch.cpp -o "$OUT/dispatch.o"
$CXX "${FLAGS[@]}" -Isrc/dispatch -c tests/filter/kernel_tables.cpp -o "$OUT/kernel_tables.o"
TESTS=(tests/codec/test_*.cpp tests/format/test_golden.cpp tests/format/test_names.cpp
  tests/filter/test_simd.cpp tests/filter/test_*_kernel.cpp)
pids=()
for t in "${TESTS[@]}"; do
  n="$(basename "$(dirname "$t")")-$(basename "$t" .cpp)"
  extra=()
  case "$t" in tests/filter/*) extra=("$OUT/dispatch.o" "$OUT/kernel_tables.o") ;; esac
  $CXX "${FLAGS[@]}" "$t" "$OUT/test_main.o" "${extra[@]}" -o "$OUT/$n" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$(jobs)" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done

passed=0 failed=0
for t in "${TESTS[@]}"; do
  n="$(basename "$(dirname "$t")")-$(basename "$t" .cpp)"
  if qemu-s390x -L /usr/s390x-linux-gnu "$OUT/$n" > "$OUT/$n.log" 2>&1; then
    passed=$((passed + 1)); echo "ok      $n"
  else
    failed=$((failed + 1)); echo "FAILED  $n"; tail -20 "$OUT/$n.log"
  fi
done
echo "big-endian: $passed passed, $failed failed"
[ $failed -eq 0 ]
