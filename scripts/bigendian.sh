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
# The tests that link the s390x libraries: AES-256-GCM (the GCM test
# vectors in TileDB's layout, wrong keys, altered tiles), SHA-256 (with the
# pipeline engine and the compressors), and the array layer: TileDB-written
# arrays read (every filter, legacy formats, from disk and from memory) and
# arrays written and read back.
LIB_TESTS=(tests/filter/test_encryption_aes256gcm.cpp tests/filter/test_pipeline.cpp
  tests/array/test_array.cpp tests/array/test_legacy.cpp tests/array/test_writer.cpp tests/array/test_memory_array.cpp
  tests/array/test_query.cpp)
# Codec tests of the checksum adaptors (crc32.hpp) need zlib: linked with the
# s390x libraries too.
ZLIB_TESTS=(tests/codec/test_checked.cpp tests/codec/test_formats.cpp)
TESTS=(tests/codec/test_*.cpp tests/format/test_golden.cpp tests/format/test_names.cpp
  tests/filter/test_simd.cpp tests/filter/test_*_kernel.cpp "${LIB_TESTS[@]}")
pids=()
for t in "${TESTS[@]}"; do
  n="$(basename "$(dirname "$t")")-$(basename "$t" .cpp)"
  extra=() libs=()
  case "$t" in tests/filter/*) extra=("$OUT/dispatch.o" "$OUT/kernel_tables.o") ;; esac
  case " ${LIB_TESTS[*]} ${ZLIB_TESTS[*]} " in *" $t "*) extra=("${LIB_FLAGS[@]}") libs=("${LIB_ARCHIVES[@]}") ;; esac
  $CXX "${FLAGS[@]}" "${extra[@]}" "$t" "$OUT/test_main.o" "${libs[@]}" -o "$OUT/$n" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$(jobs)" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
# The interop checker (its own main): every committed TileDB array compared
# with the values TileDB-Py read from it.
$CXX "${FLAGS[@]}" "${LIB_FLAGS[@]}" tests/interop/check.cpp "${LIB_ARCHIVES[@]}" -o "$OUT/interop-check" &
pids+=($!)
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
# The same arguments as the interop/committed-corpus and interop/time-travel tests.
for args in "tests/data/tiledb/manifest.json tests/interop/unsupported.txt" "tests/data/time_travel/manifest.json"; do
  m="${args%% *}"
  n="interop-check $(basename "$(dirname "$m")")"
  # shellcheck disable=SC2086  # two words: the manifest and the unsupported list
  if qemu-s390x -L /usr/s390x-linux-gnu "$OUT/interop-check" $args \
    > "$OUT/interop-$(basename "$(dirname "$m")").log" 2>&1; then
    passed=$((passed + 1)); echo "ok      $n"
  else
    failed=$((failed + 1)); echo "FAILED  $n"; tail -20 "$OUT/interop-$(basename "$(dirname "$m")").log"
  fi
done
echo "big-endian: $passed passed, $failed failed"
[ $failed -eq 0 ]
