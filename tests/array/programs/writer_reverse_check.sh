#!/usr/bin/env bash
# TileDB reads arrays tilefmt's writer wrote: writer-reverse writes them with
# a manifest of their intended cells, then reverse_check.py opens each with
# TileDB-Py and compares. Uses the interop venvs (scripts/interop.sh makes
# them under build/interop, or set TILEFMT_INTEROP_DIR); exits 77 (skip)
# when there are none.
#
#   writer_reverse_check.sh WRITER_REVERSE_EXE SOURCE_ROOT
set -u
exe=$1
src=$2
dir=${TILEFMT_INTEROP_DIR:-$src/build/interop}
# Releases that read format 22 (libtiledb 2.25 and later); older ones refuse
# any format-22 array, TileDB's own included.
pythons=()
for v in 0.36.1 0.31.1; do
  py=$dir/venv/tiledb-$v/bin/python
  [ -x "$py" ] && pythons+=("$py")
done
if [ ${#pythons[@]} -eq 0 ]; then
  echo "no TileDB-Py environment under $dir/venv (run scripts/interop.sh or set TILEFMT_INTEROP_DIR): skipped"
  exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/tilefmt-writer-reverse.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$exe" "$out" || exit 1
rc=0
for py in "${pythons[@]}"; do
  echo "== $("$py" -c 'import tiledb; print("TileDB-Py", tiledb.__version__, "libtiledb", ".".join(map(str, tiledb.libtiledb.version())))')"
  "$py" "$src/tests/interop/reverse_check.py" "$out/manifest.json" || rc=1
done
exit $rc
