#!/usr/bin/env bash
# TileDB-Py 0.36.1 (libtiledb 2.30, which made tests/data/consolidation_modes)
# reads what tilefmt-consolidate writes for each consolidation mode
# (consolidation_modes_check.py). Uses the interop venv (scripts/interop.sh
# makes it under build/interop, or set TILEFMT_INTEROP_DIR); exits 77 (skip)
# without it.
#
#   consolidation_modes_check.sh TILEFMT_CONSOLIDATE SOURCE_ROOT
set -u
exe=$1
src=$2
dir=${TILEFMT_INTEROP_DIR:-$src/build/interop}
py=$dir/venv/tiledb-0.36.1/bin/python
if [ ! -x "$py" ]; then
  echo "no TileDB-Py 0.36.1 environment under $dir/venv (run scripts/interop.sh or set TILEFMT_INTEROP_DIR): skipped"
  exit 77
fi
exec "$py" "$src/tests/interop/consolidation_modes_check.py" "$exe" "$src/tests/data/consolidation_modes"
