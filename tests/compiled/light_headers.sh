#!/bin/sh
# light_headers.sh SOURCE INCLUDE_DIR CXX [CXX_ARGS...]: a program built
# against the compiled component that opens an array and runs a query
# (SOURCE) parses declarations only: none of the code the component compiles
# once (the -inl.hpp definitions, the tile source, the filter pipeline, the
# query readers) is among the headers it includes. A header that includes
# one of these again would bring back most of the compile time
# (docs/performance.md, "Compile time").
set -eu
src=$1 inc=$2
shift 2
deps=$("$@" -std=c++20 -DTILEFMT_COMPILED -I"$inc" -MM "$src")
heavy=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E -- \
  '-inl\.hpp$|/array/read/(tile_source|fragment_sections|read_plan|condition_eval)\.hpp$|/array/read/(dense|sparse)/|/array/model/(legacy|schema_file|metadata_files)\.hpp$|/filter/(runtime_pipeline|generic_tile|pipeline|zstd|byteshuffle)\.hpp$' || true)
if [ -n "$heavy" ]; then
  echo "$(basename "$src") with TILEFMT_COMPILED includes what the compiled component holds:" >&2
  printf '%s\n' "$heavy" >&2
  exit 1
fi
echo "$(basename "$src") with TILEFMT_COMPILED: $(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -c 'tilefmt/') tilefmt headers, none of the compiled ones"
