#!/usr/bin/env bash
# Compile time of a program's translation units, header-only and against the
# compiled component (TILEFMT_COMPILED, src/compiled/): user CPU seconds and
# the compiler's peak memory, from /usr/bin/time.
#
#   bench/compile_time.sh                 # g++ -O2
#   CXX=clang++ bench/compile_time.sh -O1 # other compiler / flags
#
# The translation units are bench/compile_time/reader.cpp (opens an array,
# reads a column, runs a query) and writer.cpp (creates an array, writes a
# dense fragment). examples/quickstart.cpp (the codec alone) is timed beside
# them as a yardstick: on a loaded machine user time grows too (shared cores
# and caches), and the ratio to the yardstick moves less than the seconds.
# The library's own translation units (compiled once) are timed last.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=${CXX:-g++}
OPT=${1:--O2}
TIME=/usr/bin/time
[[ -x $TIME ]] || { echo "compile_time.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-std=c++20 "$OPT" -Iinclude)
pkg-config --exists libwebp 2>/dev/null && flags+=(-DTILEFMT_HAVE_WEBP)

# One compile: prints "user_seconds max_rss_kb".
measure() {
  local log=$out/time.log
  if ! "$TIME" -f '%U %M' -o "$log" "$CXX" "${flags[@]}" "$@" -c -o "$out/x.o"; then
    echo "compile_time.sh: compile failed: $CXX ${flags[*]} $*" >&2
    exit 1
  fi
  tail -n 1 "$log"
}

row() {  # label, then compiler arguments
  local label=$1 res user rss; shift
  res=$(measure "$@")
  read -r user rss <<<"$res"
  printf '%-37s %8.2f %8.1f %10.0f\n' "$label" "$user" "$(awk -v u="$user" -v r="$ref" 'BEGIN { print (r > 0 ? u / r : 0) }')" "$((rss / 1024))"
}

echo "$CXX $OPT ($("$CXX" --version | head -n 1)); load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
printf '%-37s %8s %8s %10s\n' "translation unit" "user s" "x codec" "max RSS MB"
res=$(measure examples/quickstart.cpp)
read -r ref ref_rss <<<"$res"
printf '%-37s %8.2f %8.1f %10.0f\n' "codec only (examples/quickstart)" "$ref" 1 "$((ref_rss / 1024))"
row "reader, header-only" bench/compile_time/reader.cpp
row "reader, -DTILEFMT_COMPILED" -DTILEFMT_COMPILED bench/compile_time/reader.cpp
row "writer, header-only" bench/compile_time/writer.cpp
row "writer, -DTILEFMT_COMPILED" -DTILEFMT_COMPILED bench/compile_time/writer.cpp
row "library: src/compiled/instances.cpp" src/compiled/instances.cpp
row "library: src/compiled/reader.cpp" src/compiled/reader.cpp
row "library: src/compiled/writer.cpp" src/compiled/writer.cpp
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
