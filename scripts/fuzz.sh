#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang++, ASan + UBSan, in
# build/fuzz with -Dfuzz=true) and runs them:
#
#   scripts/fuzz.sh --smoke SECONDS [TARGET...]           replay every corpus, then fuzz each target SECONDS
#   scripts/fuzz.sh --time SECONDS [--jobs N] [TARGET...]  a campaign: each target SECONDS, N at a time
#   --build DIR   use the fuzz targets of a build already configured with
#                 -Dfuzz=true (scripts/test.sh: its ASan build) instead of build/fuzz
#   --fast        build/fuzz-fast instead: -O2 with UBSan only, for long
#                 campaigns (several times the executions per second; a memory
#                 error that does not crash goes unseen there, so replay the
#                 grown corpus under ASan afterwards: --replay)
#   --replay      run every corpus input once (ASan build), fuzz nothing
#
# The corpora: seeds made from tests/data by fuzz_make_seeds (build/fuzz/seeds,
# made afresh each run), the committed ones (fuzz/corpus/<target>: reproducers
# of past findings), and what the fuzzer finds (build/fuzz-corpus/<target>,
# kept between campaigns and shared by the builds; a smoke run starts from an
# empty one). Inputs that
# crash, leak, hang (-timeout), allocate more than -malloc_limit_mb at once or
# grow past -rss_limit_mb land in fuzz/findings/<target>/ (not committed).
# A campaign prints the executions of each target (libFuzzer's
# stat::number_of_executed_units) and their total. Exits non-zero on any finding.
#
# FUZZ_BUILD_JOBS sets ninja's -j (default: one per core). FUZZ_TIMEOUT sets
# the seconds one input may take (default 10; libFuzzer counts wall-clock
# time, so a campaign sharing a busy machine wants more).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ALL_TARGETS=(schema fragment_metadata generic_tile array_metadata group_details consolidated_fragment_metadata commit_files
  filter_pipeline array codec_formats storage_answers)
MODE="" SECONDS_PER_TARGET="" PARALLEL="$(jobs)" BUILD="" FAST=0
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) MODE=smoke; SECONDS_PER_TARGET="$2"; shift 2 ;;
    --time) MODE=campaign; SECONDS_PER_TARGET="$2"; shift 2 ;;
    --jobs) PARALLEL="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    --fast) FAST=1; shift ;;
    --replay) MODE=replay; SECONDS_PER_TARGET=0; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
if [ -z "$MODE" ] || ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || ! [[ "$PARALLEL" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh --smoke SECONDS | --time SECONDS | --replay  [--jobs N] [--build DIR | --fast] [TARGET...]" >&2
  exit 2
fi
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target $t (${ALL_TARGETS[*]})" >&2; exit 2; }
done

install_packages

if [ -z "$BUILD" ] && [ "$FAST" = 1 ]; then
  BUILD=build/fuzz-fast
  say "Build: fuzz targets (clang++, libFuzzer, -O2, UBSan only, $BUILD)"
  CXX=clang++ configure "$BUILD" -Dfuzz=true -Dtests=false -Dbench=false -Dexamples=false -Dinterop=disabled \
    -Dbuildtype=plain -Db_ndebug=false -Db_sanitize=undefined -Db_lundef=false \
    "-Dcpp_args=-O2 -gline-tables-only -fno-sanitize-recover=undefined"
elif [ -z "$BUILD" ]; then
  BUILD=build/fuzz
  say "Build: fuzz targets (clang++, libFuzzer, ASan+UBSan, $BUILD)"
  CXX=clang++ configure "$BUILD" -Dfuzz=true -Dtests=false -Dbench=false -Dexamples=false -Dinterop=disabled \
    -Dbuildtype=plain -Db_ndebug=false -Db_sanitize=address,undefined -Db_lundef=false \
    "-Dcpp_args=-O1 -gline-tables-only -fno-sanitize-recover=undefined"
else
  [ -f "$BUILD/build.ninja" ] || { echo "fuzz.sh: $BUILD is not a configured build" >&2; exit 2; }
  say "Build: fuzz targets in $BUILD"
fi
ninja -C "$BUILD" -j "${FUZZ_BUILD_JOBS:-$(jobs)}" fuzz/fuzz_make_seeds $(printf 'fuzz/fuzz_%s ' "${TARGETS[@]}")

say "Seeds from tests/data"
rm -rf "$BUILD/seeds"
"$BUILD/fuzz/fuzz_make_seeds" tests/data "$BUILD/seeds"

LOGS="$BUILD/logs"
rm -rf "$LOGS"
mkdir -p "$LOGS" fuzz/findings
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allocator_may_return_null=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# run_target TARGET: fuzzes one target for SECONDS_PER_TARGET; its log is $LOGS/TARGET.log.
run_target() {
  local t="$1" work
  if [ "$MODE" = smoke ]; then
    work="$BUILD/smoke-corpus/$t"
    rm -rf "$work"
  else
    work="build/fuzz-corpus/$t"
  fi
  mkdir -p "$work" "fuzz/findings/$t" "$BUILD/seeds/$t"
  local dirs=("$work" "$BUILD/seeds/$t")
  [ -d "fuzz/corpus/$t" ] && dirs+=("fuzz/corpus/$t")
  local status=0 limit=(-max_total_time="$SECONDS_PER_TARGET")
  # -runs=0: every input of the corpora once, then stop.
  [ "$MODE" = replay ] && limit=(-runs=0)
  "$BUILD/fuzz/fuzz_$t" "${limit[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -malloc_limit_mb=256 -print_final_stats=1 -artifact_prefix="fuzz/findings/$t/" "${dirs[@]}" \
    >"$LOGS/$t.log" 2>&1 || status=$?
  echo "$status" >"$LOGS/$t.status"
}

say "Fuzz: ${#TARGETS[@]} targets, $SECONDS_PER_TARGET s each, $PARALLEL at a time ($MODE)"
# At most PARALLEL at once. (Counted here: `$(jobs -rp)` would run in a
# subshell, which sees no jobs.)
running=0
for t in "${TARGETS[@]}"; do
  if [ "$running" -ge "$PARALLEL" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true

# One line per target: executions, seconds, executions per second, outcome.
failed=0 total=0
printf '%-32s %12s %8s %10s  %s\n' target executions seconds "exec/s" outcome
for t in "${TARGETS[@]}"; do
  log="$LOGS/$t.log"
  status=$(cat "$LOGS/$t.status" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  outcome=ok
  if [ "$status" != 0 ]; then
    outcome="FINDING (exit $status): $(grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|terminate called)' "$log" | cut -c1-160 || true)"
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    [ -n "$artifact" ] && outcome="$outcome; input: $artifact"
    failed=$((failed + 1))
  fi
  total=$((total + ${execs:-0}))
  printf '%-32s %12s %8s %10s  %s\n' "$t" "${execs:--}" "${secs:--}" "${rate:--}" "$outcome"
done
printf '%-32s %12s\n' total "$total"
if [ $failed -ne 0 ]; then
  echo "fuzz: $failed of ${#TARGETS[@]} targets found something; logs in $LOGS, inputs in fuzz/findings/"
  exit 1
fi
echo "fuzz: no findings"
