#!/usr/bin/env bash
# TileDB-Py's view of the crash and concurrency tests: crash-writer kills
# writers during commits and runs two writers at once (crash_writer.cpp),
# and after each step TileDB-Py (tests/array/programs/crash_check.py, one process per
# release) must open the arrays, list exactly the committed fragments and
# read each back as written. Uses the interop venvs (scripts/interop.sh
# makes them under build/interop, or set TILEFMT_INTEROP_DIR); exits 77
# (skip) when there are none. The kills follow a fixed seed
# (TILEFMT_CRASH_SEED to change it) and stop at 100 or after 50 s.
#
#   crash_check.sh CRASH_WRITER_EXE SOURCE_ROOT WORKDIR torture|concurrent
set -u
exe=$1
src=$2
work=$3
mode=$4
dir=${TILEFMT_INTEROP_DIR:-$src/build/interop}
# Releases that read format 22 (libtiledb 2.25 and later).
checkers=()
for v in 0.36.1 0.31.1; do
  py=$dir/venv/tiledb-$v/bin/python
  [ -x "$py" ] && checkers+=(--checker "$py $src/tests/array/programs/crash_check.py")
done
if [ ${#checkers[@]} -eq 0 ]; then
  echo "no TileDB-Py environment under $dir/venv (run scripts/interop.sh or set TILEFMT_INTEROP_DIR): skipped"
  exit 77
fi
rc=0
case $mode in
  torture) "$exe" torture "$work/torture" --seed "${TILEFMT_CRASH_SEED:-7}" --kills 100 --seconds 50 --rotate 10 \
             "${checkers[@]}" || rc=1 ;;
  concurrent) "$exe" concurrent "$work/concurrent" --writers 2 --fragments 8 --seconds 6 "${checkers[@]}" || rc=1 ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
rm -rf "${work:?}/$mode"
exit $rc
