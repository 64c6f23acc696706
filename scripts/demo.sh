#!/usr/bin/env bash
# The main job: builds the examples and runs them — a declared format, a
# tile through a compile-time filter pipeline, and the inspector on a real
# TileDB array (examples/data, written by TileDB-Py) with a query of a region
# and a condition, then a dense and a
# sparse array written by tilefmt (examples/write_array, write_sparse) and
# inspected.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_packages
say "Build (release)"
configure build/demo -Dbuildtype=release -Dtests=false -Dbench=false
ninja -C build/demo -j "$(jobs)"

say "examples/quickstart: a declared struct, encoded, decoded and printed by field name"
build/demo/examples/quickstart

say "examples/custom_format: a non-TileDB format (a sensor log) from declarations only"
build/demo/examples/custom_format

say "examples/pipeline_tile: a tile through pipeline<positive_delta, bit_width_reduction, zstd<3>>"
build/demo/examples/pipeline_tile

# inspect ARRAY ORIGIN FIELD: the inspector's summary, the first values of FIELD
# and a full decode of every tile.
inspect() {
  say "tilefmt-inspect $1   ($2)"
  build/demo/examples/tilefmt-inspect "$1"
  say "tilefmt-inspect $1 --values $3 12"
  build/demo/examples/tilefmt-inspect "$1" --values "$3" 12
  say "tilefmt-inspect $1 --verify"
  build/demo/examples/tilefmt-inspect "$1" --verify
}

inspect examples/data/nullable_dense "$(head -1 examples/data/nullable_dense.TILEDB_VERSION.txt)" utf8

say "tilefmt-inspect examples/data/nullable_dense --query --range d 8 14 --where \"u8 > 100\"   (a region with a condition, as CSV)"
build/demo/examples/tilefmt-inspect examples/data/nullable_dense --query --range d 8 14 --where "u8 > 100"

WRITTEN=build/demo/written_array
rm -rf "$WRITTEN"
say "examples/write_array: a dense array through pipeline<byteshuffle, zstd<1>> and pipeline<bitshuffle, lz4<>>"
build/demo/examples/write_array "$WRITTEN"

inspect "$WRITTEN" "written by tilefmt" count

SPARSE=build/demo/written_sparse
rm -rf "$SPARSE"
say "examples/write_sparse: a sparse array, cells given out of order, sorted and tiled by the writer"
build/demo/examples/write_sparse "$SPARSE"

inspect "$SPARSE" "written by tilefmt" time

say "In the browser: tilefmt's WebAssembly reader and the inspector page (docs/browser.md)"
cat <<'TEXT'
  scripts/wasm.sh                                        # builds build/wasm/dist (emscripten, about two minutes)
  python3 python/src/tilefmt/web.py listing examples/data/nullable_dense   # the file list a static host cannot give
  python3 web/serve.py --port 8000                       # static files with byte ranges, on 127.0.0.1
  then open http://127.0.0.1:8000/build/wasm/dist/index.html?url=/examples/data/nullable_dense
TEXT
