#!/usr/bin/env bash
# Runs the codec tests, the byte-level format tests, the filter kernel
# tests, the AES-256-GCM and SHA-256 filter tests, the array read and write
# tests and the interop check of the committed TileDB arrays (encrypted ones
# included) on a big-endian CPU: cross-compiled for s390x with Debian's
# g++-s390x-linux-gnu and run under qemu-user. They compare against the same
# little-endian golden bytes and TileDB-written arrays as on x86, so a load
# or store that skipped Boost.Endian fails here.
#
#   scripts/bigendian.sh [BUILD_DIR]     (default: build/s390x)
#
# Most of these tests need only header-only dependencies (Boost, doctest,
# xsimd). The AES-256-GCM and SHA-256 filter tests (test_encryption_aes256gcm,
# test_pipeline) also link OpenSSL's libcrypto and the compression libraries:
# Debian's s390x builds of them (libssl-dev:s390x and the others in
# S390X_DEV_PACKAGES), whose .deb files are fetched with apt-get download
# (after `dpkg --add-architecture s390x`) and unpacked into BUILD_DIR/sysroot
# rather than installed: a Multi-Arch package must have the host's version,
# so installing them could upgrade the host's own libssl. Those tests link
# the static archives, so qemu needs no s390x shared libraries beyond libc.
# Prints "N passed, M failed" and exits non-zero on failure. Safe to run again:
# what is there already is not fetched again.
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

# The s390x -dev packages, unpacked into $OUT/sysroot (see the top).
S390X_DEV_PACKAGES=(libssl-dev libssl3 libzstd-dev libzstd1 liblz4-dev liblz4-1 zlib1g-dev zlib1g
  libbz2-dev libbz2-1.0 libmd-dev libmd0)
SYSROOT="$OUT/sysroot"
S390X_LIBS=(libcrypto.a libzstd.a liblz4.a libz.a libbz2.a libmd.a)
have_sysroot() {
  local l
  for l in "${S390X_LIBS[@]}"; do [ -f "$SYSROOT/usr/lib/s390x-linux-gnu/$l" ] || return 1; done
  [ -f "$SYSROOT/usr/include/s390x-linux-gnu/openssl/configuration.h" ]
}
if ! have_sysroot; then
  if ! dpkg --print-foreign-architectures | grep -qx s390x; then
    say "Adding the s390x architecture to dpkg (for the s390x library packages)"
    $SUDO dpkg --add-architecture s390x
  fi
  if ! apt-cache show libssl-dev:s390x >/dev/null 2>&1; then
    $SUDO apt-get update -qq
  fi
  say "Fetching ${S390X_DEV_PACKAGES[*]} for s390x into $SYSROOT"
  rm -rf "$OUT/debs" "$SYSROOT.tmp"
  mkdir -p "$OUT/debs" "$SYSROOT.tmp"
  (cd "$OUT/debs" && apt-get download -qq "${S390X_DEV_PACKAGES[@]/%/:s390x}" 2>&1 | grep -v "unsandboxed" || true)
  for d in "$OUT"/debs/*.deb; do dpkg-deb -x "$d" "$SYSROOT.tmp"; done
  rm -rf "$SYSROOT"
  mv "$SYSROOT.tmp" "$SYSROOT"
  have_sysroot || { echo "big-endian: the s390x libraries are missing from $SYSROOT"; exit 1; }
fi
LIB_FLAGS=(-isystem "$SYSROOT/usr/include" -isystem "$SYSROOT/usr/include/s390x-linux-gnu")
LIB_ARCHIVES=("${S390X_LIBS[@]/#/$SYSROOT/usr/lib/s390x-linux-gnu/}" -pthread)

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
# The test files are written to share a translation unit (each wraps itself
# in a namespace of its own name, as the meson build's unity groups do): each
# folder's files here are one program, which compiles the reader and the
# writer once rather than once per file, and runs once per file (doctest's
# --source-file). Three codec tests are programs of their own (as in
# tests/codec/meson.build).
CODEC_ALONE=(test_names test_custom test_allocation)
codec_group=()
for t in tests/codec/test_*.cpp; do
  case " ${CODEC_ALONE[*]} " in *" $(basename "$t" .cpp) "*) ;; *) codec_group+=("$t") ;; esac
done
declare -A TEST_GROUPS=(
  [codec-tests]="${codec_group[*]}"
  [format-tests]="tests/format/test_golden.cpp tests/format/test_names.cpp"
  [filter-kernel-tests]="tests/filter/test_simd.cpp $(echo tests/filter/test_*_kernel.cpp)"
  [filter-tests]="tests/filter/test_encryption_aes256gcm.cpp tests/filter/test_pipeline.cpp"
  [array-tests]="tests/array/read/test_array.cpp tests/array/model/test_legacy.cpp tests/array/write/test_writer.cpp
                 tests/array/read/test_memory_array.cpp tests/array/read/test_query.cpp")
# PROGRAMS: "name source", the longest to compile first; RUNS: "program
# [source file]" per test. The interop checker has its own main: every
# committed TileDB array compared with the values TileDB-Py read from it.
PROGRAMS=("interop-check tests/interop/check.cpp") RUNS=()
for g in array-tests filter-tests codec-tests format-tests filter-kernel-tests; do
  unit="$OUT/$g.cpp"
  : >"$unit"
  for t in ${TEST_GROUPS[$g]}; do
    echo "#include \"$TILEFMT_ROOT/$t\"" >>"$unit"
    RUNS+=("$g $(basename "$t")")
  done
  PROGRAMS+=("$g $unit")
done
for t in "${CODEC_ALONE[@]}"; do
  PROGRAMS+=("codec-$t tests/codec/$t.cpp") RUNS+=("codec-$t")
done
pids=()
for p in "${PROGRAMS[@]}"; do
  n=${p%% *} src=${p#* }
  extra=() libs=("$OUT/test_main.o")
  case "$n" in
    # The kernel tables (scalar only: see above).
    filter-kernel-tests) extra=("$OUT/dispatch.o" "$OUT/kernel_tables.o") ;;
    # The s390x libraries: for the codec's checksum adaptors (zlib's
    # crc32), AES-256-GCM (the GCM test vectors in TileDB's layout, wrong
    # keys, altered tiles), SHA-256 (with the pipeline engine and the
    # compressors), and the array layer: TileDB-written arrays read (every
    # filter, legacy formats, from disk and from memory) and arrays written
    # and read back.
    codec-tests | filter-tests | array-tests) extra=("${LIB_FLAGS[@]}") libs+=("${LIB_ARCHIVES[@]}") ;;
    interop-check) extra=("${LIB_FLAGS[@]}") libs=("${LIB_ARCHIVES[@]}") ;;
  esac
  $CXX "${FLAGS[@]}" "${extra[@]}" "$src" "${libs[@]}" -o "$OUT/$n" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$(jobs)" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
build_failed=0
for p in "${pids[@]}"; do wait "$p" || build_failed=1; done

# The same arguments as the interop/committed-corpus and interop/time-travel tests.
RUNS+=("interop-check tests/data/tiledb/manifest.json tests/interop/unsupported.txt"
  "interop-check tests/data/time_travel/manifest.json")
# run NAME PROGRAM [ARGS...]: one test under qemu, its output in $OUT/NAME.log
# (a --source-file that selects no test case fails).
run() {
  local name=$1; shift
  if qemu-s390x -L /usr/s390x-linux-gnu "$OUT/$1" "${@:2}" >"$OUT/$name.log" 2>&1 &&
    ! grep -q 'test cases: *0 |' "$OUT/$name.log"; then
    echo ok >"$OUT/$name.status"
  else
    echo FAILED >"$OUT/$name.status"
  fi
}
# name_of RUN: a test's name: its program, and the file or manifest it runs.
name_of() {
  set -- $1
  case "$1" in
    interop-check) echo "interop-check-$(basename "$(dirname "$2")")" ;;
    *-tests) echo "$1-$(basename "$2" .cpp)" ;;
    *) echo "$1" ;;
  esac
}
# Two at a time (qemu-user runs a program on one host thread).
pids=()
for r in "${RUNS[@]}"; do
  set -- $r
  name=$(name_of "$r")
  rm -f "$OUT/$name.status"
  case "$1" in
    *-tests) run "$name" "$1" "--source-file=*/$2" & ;;
    *) run "$name" "$@" & ;;
  esac
  pids+=($!)
  if [ ${#pids[@]} -ge "$(jobs)" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
passed=0 failed=$build_failed
[ $build_failed -eq 0 ] || echo "FAILED  a test program did not compile"
for r in "${RUNS[@]}"; do
  name=$(name_of "$r")
  if [ "$(cat "$OUT/$name.status" 2>/dev/null)" = ok ]; then
    passed=$((passed + 1)); echo "ok      $name"
  else
    failed=$((failed + 1)); echo "FAILED  $name"; tail -20 "$OUT/$name.log"
  fi
done
echo "big-endian: $passed passed, $failed failed"
[ $failed -eq 0 ]
