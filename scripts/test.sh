#!/usr/bin/env bash
# Builds and runs the whole test suite: with g++ (-O2), and with clang++
# under AddressSanitizer + UndefinedBehaviorSanitizer (with the libFuzzer
# targets, smoke-run), the array and storage tests under ThreadSanitizer,
# the interop suite against TileDB-Py, the Python package (pytest), and the
# byte-level and array tests on big-endian s390x under qemu-user. Ends with
# the time of each step and "N passed, M failed"; exits non-zero on any
# failure. Safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

declare -a STEPS=()
SCRIPT_START=$(date +%s)
STEP_START=$SCRIPT_START
# step NAME: closes the step that began at the previous call.
# Each line also gives the disk's free space when the step ended: the suite
# holds about 8 GB at its peak (the sanitized build beside the Python venvs
# and the interop corpus), and a machine's disk is shared.
step() {
  local now
  now=$(date +%s)
  STEPS+=("$(printf '%-40s %5d s   %s free' "$1" $((now - STEP_START)) "$(free_disk)")")
  STEP_START=$now
}
free_disk() { df -h --output=avail "$TILEFMT_ROOT" 2>/dev/null | tail -n 1 | tr -d ' '; }

# pip writes no bytecode when it installs (pip reads PIP_NO_COMPILE as the
# value of its negated option: 0 means --no-compile). The venvs' modules are
# compiled when first imported instead, and only those imported: this saves
# some 500 MB of the suite's disk.
export PIP_NO_COMPILE=0

install_packages
step "Debian packages"

# The interop corpus (TileDB-Py wheels from the package index, one virtual
# environment per release) is mostly downloads: it is generated in the
# background while g++ compiles, and waited for before the first tests.
INTEROP_DIR="$TILEFMT_ROOT/build/interop"
interop_status=0 interop_pid=""
if [ -x scripts/interop.sh ]; then
  mkdir -p "$INTEROP_DIR"
  say "Interop corpus (TileDB-Py), in the background: $INTEROP_DIR/interop.log"
  scripts/interop.sh "$INTEROP_DIR" >"$INTEROP_DIR/interop.log" 2>&1 &
  interop_pid=$!
fi
INTEROP_START=$(date +%s)
# The S3 and GCS tests' local servers (moto, gcp-storage-emulator, from the
# package index) likewise.
tests/storage/s3_check.sh --prepare "$TILEFMT_ROOT/build/s3" >/dev/null 2>&1 &
moto_pid=$!
tests/storage/gcs_check.sh --prepare "$TILEFMT_ROOT/build/gcs" >/dev/null 2>&1 &
gcs_pid=$!
wait_interop() {
  if [ -n "$moto_pid" ]; then
    wait "$moto_pid" "$gcs_pid" || true  # without them, the S3 and GCS tests say they are skipped
    moto_pid=""
  fi
  [ -n "$interop_pid" ] || return 0
  say "Interop corpus: waiting"
  set +e
  wait "$interop_pid"
  interop_status=$?
  set -e
  interop_pid=""
  tail -n 15 "$INTEROP_DIR/interop.log"
  if [ $interop_status -ne 0 ] && [ $interop_status -ne 77 ]; then
    echo "interop: corpus generation failed (exit $interop_status)"
  fi
  STEPS+=("$(printf '%-40s %5d s   %s free' "  (interop corpus, concurrent)" $(($(date +%s) - INTEROP_START)) "$(free_disk)")")
}
export TILEFMT_INTEROP_MANIFEST="$INTEROP_DIR/corpus/manifest.json"

declare -a RESULTS=()
# run_suite NAME DIR [TEST_ARGS...] -- [MESON_ARGS...]
run_suite() {
  local name="$1" dir="$2"; shift 2
  local test_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do test_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  say "Build: $name ($dir)"
  configure "$dir" "$@"
  ninja -C "$dir" -j "$(jobs)"
  step "build: $name"
  wait_interop
  say "Test: $name"
  set +e
  meson test -C "$dir" --num-processes "$(jobs)" --print-errorlogs "${test_args[@]}"
  set -e
  RESULTS+=("$dir")
  step "tests: $name"
}

# -O1: the optimizer's view of the code (its warnings, reordering that
# exposes a missing barrier) at two thirds of -O2's compile time (the
# largest units: 40-45 s at -O2, 28-29 at -O1), and the suite's largest
# step. Code built as users build it is tested too: the Python package
# (release, -O2) runs its suite and the interop corpus's queries, the
# WebAssembly module its own; benchmarks are built here but timed by
# scripts/bench.sh in its own -O3 build. -Dcompiled=true makes the
# compiled component the shared library an install ships, which the
# consumers test installs and builds CMake and pkg-config programs against.
# g++ 12's -Wmaybe-uninitialized at -O1 reports std::variant and
# std::vector members moved out of a format struct (ConditionNode) as used
# uninitialized, which -O2's fuller analysis does not: off here (clang's
# -Wuninitialized stays on in the sanitized build).
run_suite "g++ -O1" build/gcc -- -Dbuildtype=plain -Doptimization=1 -Db_ndebug=true -Dbench=true -Dcompiled=true \
  -Dcpp_args=-Wno-maybe-uninitialized

# The Python package (python/): built into its venv under build/python and
# tested with pytest against TileDB-Py and the interop corpus's recorded
# queries (scripts/python_test.sh; about two minutes from nothing: package
# downloads, then one translation unit compiling on one core). It runs in
# the background beside the sanitized build, whose second core it mostly
# takes while that build's is idle; its output is printed when it is done.
say "Python package (scripts/python_test.sh), in the background: build/python/python_test.log"
mkdir -p build/python
scripts/python_test.sh "$TILEFMT_ROOT/build" >build/python/python_test.log 2>&1 &
python_pid=$!
PYTHON_START=$(date +%s)
wait_python() {
  say "Python package: waiting"
  set +e
  wait "$python_pid"
  python_status=$?
  set -e
  cat build/python/python_test.log
  STEPS+=("$(printf '%-40s %5d s   %s free' "  (Python package, concurrent)" $(($(date +%s) - PYTHON_START)) "$(free_disk)")")
}

# The second compiler builds the same suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, at -O0 without debug info: the sanitizers find
# the same faults at -O0, and it compiles in 40% of the time of -O1. The same
# build holds the libFuzzer targets. Left to the g++ run: the examples, and
# (by the meson files, in every sanitized build) the crash suite (processes
# killed mid-commit: the file system's part, not memory safety) and the
# compile-only check of every header on its own: together a third of this
# build's compile time and 190 s of its tests. -Dcompiled=true: the array
# tests and the programs link the compiled component, itself built under
# the sanitizers, rather than compiling the reader and writer in each unit
# (an array-tests unit 19 s instead of 34, the S3 test 5 instead of 26);
# the header-only reader runs under the sanitizers in the fuzz targets,
# the header-only reader and writer in the ThreadSanitizer build below.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
CXX=clang++ run_suite "clang++ ASan+UBSan" build/clang-asan -- -Dbuildtype=plain -Db_ndebug=false \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false -Dexamples=false -Dfuzz=true -Dcompiled=true \
  "-Dcpp_args=-O0 -fno-sanitize-recover=undefined"

wait_python
step "Python package (the rest)"

# The libFuzzer targets (fuzz/): every corpus replayed, then each target
# fuzzed for a few seconds.
say "Fuzz smoke (libFuzzer)"
set +e
scripts/fuzz.sh --smoke 5 --build build/clang-asan
fuzz_status=$?
set -e
# On CI, the sanitized build's objects (1.4 GB) go once its tests and fuzz
# targets have run: a fresh machine's disk is the limit there, and nothing
# after this builds in that directory. Locally they are kept, so that a second
# run compiles only what changed.
[ "${CI:-}" != "true" ] || find build/clang-asan -name '*.o' -delete
step "fuzz smoke"

# The WebAssembly module (scripts/wasm.sh: zstd, lz4, zlib, bzip2, libwebp
# and libmd compiled from Debian's sources, then web/src/core.cpp) and its
# JavaScript API, tested in Node and in headless Chromium.
say "WebAssembly and browser (scripts/web_test.sh)"
set +e
scripts/web_test.sh "$TILEFMT_ROOT/build"
web_status=$?
set -e
step "WebAssembly + browser"

# An opened array is safe to use from many threads: the array and storage
# tests once more under ThreadSanitizer (clang++, -O0), built alone.
say "Build: clang++ TSan (array and storage tests)"
CXX=clang++ configure build/clang-tsan -Dbuildtype=plain -Db_ndebug=false -Db_sanitize=thread -Db_lundef=false -Dbench=false \
  -Dexamples=false -Dinterop=disabled "-Dcpp_args=-O0"
TSAN_TARGETS=$(cd build/clang-tsan && ninja -t targets all | grep -E '^tests/(array|storage)/[a-z]+-tests?(_[a-z0-9_]+)?: ' | cut -d: -f1)
ninja -C build/clang-tsan -j "$(jobs)" $TSAN_TARGETS
say "Test: clang++ TSan"
set +e
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
  meson test -C build/clang-tsan --no-rebuild --suite array --suite storage --num-processes "$(jobs)" --print-errorlogs
set -e
RESULTS+=("build/clang-tsan")
step "ThreadSanitizer"

# The byte-level tests once more on a big-endian CPU (s390x under qemu-user).
say "Big-endian (s390x, qemu-user)"
set +e
scripts/bigendian.sh build/s390x
bigendian_status=$?
set -e
step "big-endian"

say "Time"
printf '%s\n' "${STEPS[@]}"
printf '%-40s %5d s\n' total $(($(date +%s) - ${SCRIPT_START}))

say "Summary"
python3 - "$INTEROP_DIR/interop.log" "$interop_status" "$bigendian_status" "$fuzz_status" "$python_status" "$web_status" "${RESULTS[@]}" <<'PY'
import json, sys
interop_log = sys.argv.pop(1)
interop_status = int(sys.argv[1])
bigendian_status = int(sys.argv[2])
fuzz_status = int(sys.argv[3])
python_status = int(sys.argv[4])
web_status = int(sys.argv[5])
passed = failed = skipped = 0
for d in sys.argv[6:]:
    p = f"{d}/meson-logs/testlog.json"
    try:
        lines = open(p).read().splitlines()
    except OSError:
        print(f"{d}: no test log"); failed += 1; continue
    for line in lines:
        t = json.loads(line)
        r = t["result"]
        if r in ("OK", "EXPECTEDFAIL"): passed += 1
        elif r == "SKIP": skipped += 1
        else:
            failed += 1
            print(f"FAILED [{d}] {t['name']}: {r}")
if bigendian_status == 0:
    passed += 1
else:
    failed += 1
    print("FAILED big-endian run (scripts/bigendian.sh)")
if fuzz_status == 0:
    passed += 1
else:
    failed += 1
    print("FAILED fuzz smoke (scripts/fuzz.sh --smoke)")
if python_status == 0:
    passed += 1
elif python_status == 77:
    skipped += 1
else:
    failed += 1
    print("FAILED Python package tests (scripts/python_test.sh)")
if web_status == 0:
    passed += 1
else:
    failed += 1
    print("FAILED WebAssembly / browser tests (scripts/web_test.sh)")
if interop_status not in (0, 77):
    failed += 1
    print(f"FAILED interop corpus generation (exit {interop_status}; {interop_log}):")
    try:  # what went wrong, here where the end of a CI log shows it
        lines = open(interop_log, errors="replace").read().splitlines()
    except OSError:
        lines = []
    # A crash inside TileDB-Py prints its Python stack ("Fatal Python
    # error") before the error line: shown from there, with the release.
    err = next((i for i, l in enumerate(lines) if "ERROR" in l or "Traceback" in l), max(len(lines) - 8, 0))
    fatal = next((i for i in range(err, max(err - 40, -1), -1) if "Fatal Python error" in lines[i]), None)
    start = fatal if fatal is not None else max(err - 6, 0)
    release = next((l for l in reversed(lines[:err]) if "generate: TileDB-Py" in l), None)
    if release:
        print("  | " + release.strip()[:200])
    for l in lines[start:err + 8]:
        print("  | " + l[:200])
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
