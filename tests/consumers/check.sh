#!/bin/sh
# check.sh BUILD_DIR SOURCE_DIR PREFIX LIBDIR: installs the meson build in
# BUILD_DIR into a staging folder (meson install --destdir), then builds
# programs against the installed tree as other projects would, and runs
# them: a CMake project (find_package(tilefmt), tests/consumers/) and the
# same programs through pkg-config. Each consumer builds the quickstart
# example header-only and a writer and a reader of an array with
# tilefmt-compiled; the reader must read what the writer wrote.
set -eu
build=$1 src=$2 prefix=$3 libdir=$4
stage="$build/consumers"
rm -rf "$stage"
meson install -C "$build" --no-rebuild --quiet --destdir "$stage/root" >/dev/null
root="$stage/root$prefix"
export LD_LIBRARY_PATH="$root/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
expected="sum 36, query [2, 4]: 9"

run() {  # run KIND DIR: the three programs in DIR
  "$2/quickstart" | grep -q "Polyline encodes to 34 bytes" || { echo "$1: quickstart gave another answer" >&2; exit 1; }
  "$2/writer" "$2/array" >/dev/null
  got=$("$2/reader" "$2/array")
  [ "$got" = "$expected" ] || { echo "$1: reader gave \"$got\", expected \"$expected\"" >&2; exit 1; }
  echo "$1: quickstart, writer and reader ran ($got)"
}

if command -v cmake >/dev/null 2>&1; then
  cmake -S "$src/tests/consumers" -B "$stage/cmake" -DCMAKE_PREFIX_PATH="$root" -DTILEFMT_SOURCE_DIR="$src" \
    -DCMAKE_BUILD_TYPE=Release >"$stage/cmake.log" 2>&1 || { cat "$stage/cmake.log"; exit 1; }
  cmake --build "$stage/cmake" >>"$stage/cmake.log" 2>&1 || { cat "$stage/cmake.log"; exit 1; }
  run cmake "$stage/cmake"
else
  echo "cmake: not installed (scripts/common.sh installs it)" >&2
  exit 1
fi

# The .pc files name the prefix they were installed for: copies that name
# the staging folder instead (the dependencies' files are the system's).
mkdir -p "$stage/pc"
for f in "$root/$libdir"/pkgconfig/*.pc; do
  sed "s|^prefix=.*|prefix=$root|" "$f" >"$stage/pc/$(basename "$f")"
done
export PKG_CONFIG_PATH="$stage/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
mkdir -p "$stage/pkg-config"
cxx=${CXX:-c++}
# shellcheck disable=SC2046
$cxx -O2 -o "$stage/pkg-config/quickstart" "$src/examples/quickstart.cpp" $(pkg-config --cflags --libs tilefmt)
for p in writer reader; do
  # shellcheck disable=SC2046
  $cxx -O2 -o "$stage/pkg-config/$p" "$src/bench/compile_time/$p.cpp" $(pkg-config --cflags --libs tilefmt-compiled)
done
run pkg-config "$stage/pkg-config"
