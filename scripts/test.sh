#!/usr/bin/env bash
# Builds and runs the whole test suite: with g++ (release), and with clang++
# under AddressSanitizer + UndefinedBehaviorSanitizer, plus the interop suite
# against TileDB-Py, and the byte-level tests on big-endian s390x under
# qemu-user. Ends with "N passed, M failed"; exits non-zero on any
# failure. Safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_packages

INTEROP_DIR="$TILEFMT_ROOT/build/interop"
interop_status=0
if [ -x scripts/interop.sh ]; then
  say "Interop corpus (TileDB-Py)"
  set +e
  scripts/interop.sh "$INTEROP_DIR"
  interop_status=$?
  set -e
  if [ $interop_status -ne 0 ] && [ $interop_status -ne 77 ]; then
    echo "interop: corpus generation failed (exit $interop_status)"
  fi
fi
export TILEFMT_INTEROP_MANIFEST="$INTEROP_DIR/corpus/manifest.json"

declare -a RESULTS=()
run_suite() {
  local name="$1" dir="$2"; shift 2
  say "Build: $name ($dir)"
  configure "$dir" "$@"
  ninja -C "$dir" -j "$(jobs)"
  say "Test: $name"
  set +e
  meson test -C "$dir" --num-processes "$(jobs)" --print-errorlogs
  set -e
  RESULTS+=("$dir")
}


run_suite "g++ release" build/gcc -Dbuildtype=release -Dbench=true
# The second compiler builds the same suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, at -O1 without debug info (twice as fast to
# compile, and the sanitizers need no more): one build covers clang++'s
# warnings and the sanitizers, which keeps the whole run within its budget.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
CXX=clang++ run_suite "clang++ ASan+UBSan" build/clang-asan -Dbuildtype=plain -Db_ndebug=false \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false "-Dcpp_args=-O1 -fno-sanitize-recover=undefined"

# An opened array is safe to use from many threads: the array and storage
# tests once more under ThreadSanitizer (clang++, -O1), built alone.
say "Build: clang++ TSan (array and storage tests)"
CXX=clang++ configure build/clang-tsan -Dbuildtype=plain -Db_ndebug=false -Db_sanitize=thread -Db_lundef=false -Dbench=false \
  -Dexamples=false -Dinterop=disabled "-Dcpp_args=-O1"
TSAN_TARGETS=$(cd build/clang-tsan && ninja -t targets all | grep -E '^tests/(array|storage)/[a-z]+-test_[a-z_]+: ' | cut -d: -f1)
ninja -C build/clang-tsan -j "$(jobs)" $TSAN_TARGETS
say "Test: clang++ TSan"
set +e
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
  meson test -C build/clang-tsan --no-rebuild --suite array --suite storage --no-suite crash --num-processes "$(jobs)" --print-errorlogs
set -e
RESULTS+=("build/clang-tsan")

# The byte-level tests once more on a big-endian CPU (s390x under qemu-user).
say "Big-endian (s390x, qemu-user)"
set +e
scripts/bigendian.sh build/s390x
bigendian_status=$?
set -e

# The libFuzzer targets (fuzz/): every corpus replayed, then each target
# fuzzed for a few seconds (scripts/fuzz.sh builds them in build/fuzz).
say "Fuzz smoke (libFuzzer)"
set +e
scripts/fuzz.sh --smoke 6
fuzz_status=$?
set -e

say "Summary"
python3 - "$interop_status" "$bigendian_status" "$fuzz_status" "${RESULTS[@]}" <<'PY'
import json, sys
interop_status = int(sys.argv[1])
bigendian_status = int(sys.argv[2])
fuzz_status = int(sys.argv[3])
passed = failed = skipped = 0
for d in sys.argv[4:]:
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
if interop_status not in (0, 77):
    failed += 1
    print("FAILED interop corpus generation")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
