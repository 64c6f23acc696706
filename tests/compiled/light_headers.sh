#!/bin/sh
# light_headers.sh KIND SOURCE INCLUDE_DIR CXX [CXX_ARGS...]: a program built
# against the compiled component (SOURCE; KIND reader: it opens an array and
# runs a query; writer: it creates an array and writes a fragment) parses
# declarations only: none of the code the component compiles once (the
# -inl.hpp definitions, the tile source, the filter pipelines, the query
# readers, the fragment builder) is among the headers it includes. A header
# that includes one of these again would bring back most of the compile time
# (docs/performance.md, "Compile time"). A writer's program may parse
# filter/pipeline.hpp, the compile-time pipelines' machinery that set<P>()
# names (not any filter).
set -eu
kind=$1 src=$2 inc=$3
shift 3
common='-inl\.hpp$|/array/read/(tile_source|fragment_sections|read_plan|condition_eval)\.hpp$|/array/read/(dense|sparse)/|/array/model/(legacy|schema_file|metadata_files)\.hpp$|/filter/(runtime_pipeline|generic_tile|zstd|byteshuffle|detail/compression)\.hpp$|/array/write/(fragment_builder|field_tiles|tile_metadata|new_files|schema_rules|sparse_input|fragment_metadata_file)\.hpp$'
case $kind in
  reader) pattern="$common|/filter/pipeline\.hpp$" ;;
  writer) pattern="$common" ;;
  *) echo "light_headers.sh: KIND is reader or writer, not $kind" >&2; exit 2 ;;
esac
deps=$("$@" -std=c++20 -DTILEFMT_COMPILED -I"$inc" -MM "$src")
heavy=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E -- "$pattern" || true)
if [ -n "$heavy" ]; then
  echo "$(basename "$src") with TILEFMT_COMPILED includes what the compiled component holds:" >&2
  printf '%s\n' "$heavy" >&2
  exit 1
fi
echo "$(basename "$src") with TILEFMT_COMPILED: $(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -c 'tilefmt/') tilefmt headers, none of the compiled ones"
