#!/usr/bin/env bash
# tilefmt writes a twin of every corpus array its writer can write, at the
# array's own format version (5-22) with the original's timestamps and
# labels (interop-rewrite); then tilefmt (interop-check) and the libtiledb
# release that wrote each original read the twin and must find the
# original's values: releases 2.0-2.12 through their C API
# (reverse_check_c.py), 2.13 on through TileDB-Py (reverse_check.py). Prints
# how many files are byte-identical with TileDB's per format version.
# Exits 77 (skip) without a corpus (scripts/interop.sh makes it under
# build/interop, or set TILEFMT_INTEROP_DIR).
#
#   twins_check.sh REWRITE_EXE CHECK_EXE SOURCE_ROOT
set -u
rewrite=$1
check=$2
src=$3
dir=${TILEFMT_INTEROP_DIR:-$src/build/interop}
manifest=$dir/corpus/manifest.json
if [ ! -f "$manifest" ]; then
  echo "no corpus at $manifest (run scripts/interop.sh or set TILEFMT_INTEROP_DIR): skipped"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tilefmt-twins.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/twins  # interop-rewrite empties it first
"$rewrite" "$manifest" "$out" > "$work/rewrite.log"
status=$?
grep -v '^twin\|^meta' "$work/rewrite.log"
[ $status -eq 0 ] || exit 1
python3 "$src/tests/interop/manifest.py" twins "$manifest" "$out" || exit 1
rc=0
echo "== tilefmt reads the twins"
"$check" "$out/manifest.json" > "$work/check.log" || rc=1
grep -v '^ok' "$work/check.log"
if [ -d "$dir/libtiledb" ]; then
  echo "== libtiledb 2.0-2.12 (C API) read the twins of their own arrays"
  python3 "$src/tests/interop/reverse_check_c.py" --libs "$dir/libtiledb" "$out/manifest.json" || rc=1
fi
for venv in "$dir"/venv/tiledb-*/; do
  py=$venv/bin/python
  [ -x "$py" ] || continue
  lib=$("$py" -c 'import tiledb; print(".".join(map(str, tiledb.libtiledb.version())))') || { rc=1; continue; }
  echo "== libtiledb $lib (TileDB-Py $(basename "$venv")) reads the twins of its own arrays"
  "$py" "$src/tests/interop/reverse_check.py" --quiet --libtiledb "$lib" "$out/manifest.json" || rc=1
done
exit $rc
