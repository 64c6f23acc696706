#!/usr/bin/env bash
# Builds the benchmarks (release) and runs them pinned to one core. Each
# prints its figures and, at the end, ratios to the baseline measured in the
# same run (memcpy, a hand-written loop, or the raw library call).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_packages
say "Build (release, benchmarks)"
configure build/bench -Dbuildtype=release -Dtests=false -Dexamples=false -Dbench=true
ninja -C build/bench -j "$(jobs)"

say "Machine"
lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3' || true
${CXX:-c++} --version | head -1

# c-blosc2, the library TileDB 2.30 calls for both shuffles, for
# bench-kernels to run beside its kernels: the shared library of the package
# index's blosc2 wheel (c-blosc2 3.3.5 in 4.14.1), unpacked into the build
# directory once and loaded at run time (TILEFMT_BENCH_BLOSC2). Nothing is
# built from it; without it bench-kernels compares with memcpy only.
BLOSC2_WHEEL=4.14.1
VENV=build/bench/venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || true
BLOSC2_DIR=build/bench/references/blosc2-$BLOSC2_WHEEL
if [ ! -f "$BLOSC2_DIR/blosc2/lib/libblosc2.so" ] && [ -x "$VENV/bin/pip" ]; then
  wheels=$(mktemp -d)
  if "$VENV/bin/pip" download -q --no-deps --only-binary :all: -d "$wheels" "blosc2==$BLOSC2_WHEEL"; then
    mkdir -p "$BLOSC2_DIR"
    "$VENV/bin/python" -m zipfile -e "$wheels"/blosc2-*.whl "$BLOSC2_DIR" || rm -rf "$BLOSC2_DIR"
  fi
  rm -rf "$wheels"
fi
if [ -f "$BLOSC2_DIR/blosc2/lib/libblosc2.so" ]; then
  export TILEFMT_BENCH_BLOSC2="$PWD/$BLOSC2_DIR/blosc2/lib/libblosc2.so"
else
  echo "c-blosc2 could not be had: bench-kernels compares with memcpy only"
fi

status=0
for b in build/bench/bench/micro/bench-*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  say "$(basename "$b")"
  taskset -c 0 "$b" --benchmark_min_time=0.2 "$@" || status=1
done
# Whole-column reads against TileDB-Py, on all cores as well as one, so not
# pinned. TileDB-Py comes from the package index into its own environment, at
# the newest release the interop suite covers.
say "tilefmt vs libtiledb's C API and TileDB-Py (bench/compare/compare_tiledb.py)"
read -r TILEDB_PY NUMPY_PIN < <(grep -v '^#' tests/interop/versions.txt | awk 'NF {v=$1; n=$2} END {print v, n}')
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import tiledb" 2>/dev/null; then
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "tiledb==$TILEDB_PY" "$NUMPY_PIN" || VENV=""
fi
if [ -n "$VENV" ]; then
  "$VENV/bin/python" bench/compare/compare_tiledb.py --reader build/bench/bench/compare/bench-read-column --dir build/bench/arrays \
    --rounds 3 || status=1
  say "tilefmt queries vs TileDB-Py (bench/compare/compare_query.py; QUERY_SIDE=16384 for the 1 GiB array)"
  "$VENV/bin/python" bench/compare/compare_query.py --reader build/bench/bench/compare/bench-read-query --dir build/bench/arrays \
    --side "${QUERY_SIDE:-4096}" || status=1
  say "tilefmt writes vs TileDB-Py (bench/compare/compare_write.py: dense 1-D, 32 Mi cells; sparse 2-D, 10^7 cells)"
  "$VENV/bin/python" bench/compare/compare_write.py --writer build/bench/bench/compare/bench-write-array --dir build/bench/arrays \
    || status=1
  say "tilefmt sparse queries vs TileDB-Py (bench/compare/compare_sparse_query.py; SPARSE_CELLS=100000000 for 10^8 cells)"
  "$VENV/bin/python" bench/compare/compare_sparse_query.py --reader build/bench/bench/compare/bench-read-query --dir build/bench/arrays \
    --cells "${SPARSE_CELLS:-10000000}" || status=1
  say "tilefmt 2-D sparse boxes vs TileDB-Py (bench/compare/compare_sparse_box.py, 2 * 10^7 cells)"
  "$VENV/bin/python" bench/compare/compare_sparse_box.py --reader build/bench/bench/compare/bench-read-query --dir build/bench/arrays \
    || status=1
else
  echo "TileDB-Py could not be installed: comparison skipped"
fi
# The read shapes of single-cell matrices, string dimensions, var-size
# strings and duplicates, through both Python packages: the package comes
# from scripts/python_test.sh (built there, with TileDB-Py beside it).
PY_VENV=build/python/venv
if [ -x "$PY_VENV/bin/python" ] && "$PY_VENV/bin/python" -c "import tilefmt, tiledb" 2>/dev/null; then
  say "read shapes vs TileDB-Py through the Python packages (bench/compare/compare_shapes.py; SHAPES_SCALE=0.1 for a quick look)"
  "$PY_VENV/bin/python" bench/compare/compare_shapes.py --dir build/bench/shapes --scale "${SHAPES_SCALE:-1}" || status=1
else
  echo "the Python package is not built (scripts/python_test.sh): compare_shapes.py skipped"
fi
exit $status
