#!/usr/bin/env bash
# Builds the WebAssembly module of tilefmt's read side (web/src/core.cpp)
# with Debian's emscripten, and puts it beside the JavaScript API and the
# inspector page in BUILD_DIR/dist (default build/wasm/dist), ready to be
# served as static files.
#
# The compression and hashing libraries the filters use (zstd, lz4, zlib,
# bzip2, libwebp, libmd) are compiled to WebAssembly from Debian's source
# packages, fetched with apt through a private source list derived from the
# machine's own (nothing in /etc/apt changes) and kept under BUILD_DIR, so a
# second run compiles only what changed. Safe to run again.
#
#   scripts/wasm.sh [BUILD_DIR]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

B="$(mkdir -p "${1:-$TILEFMT_ROOT/build/wasm}" && cd "${1:-$TILEFMT_ROOT/build/wasm}" && pwd)"
install_packages "${WEB_PACKAGES[@]}" libboost1.81-dev libxsimd-dev

# Debian's emscripten 3.1.6: its optimizer (run at -O2) finds its own
# modules only through NODE_PATH.
export NODE_PATH=/usr/share/nodejs

# ---- Sources ---------------------------------------------------------------
SOURCES=(libzstd lz4 zlib bzip2 libwebp libmd)
fetch_sources() {
  local apt="$B/apt" want=()
  for p in "${SOURCES[@]}"; do
    compgen -G "$B/sources/$p.dir" >/dev/null || want+=("$p")
  done
  [ ${#want[@]} -eq 0 ] && return
  say "WebAssembly: fetching sources of ${want[*]}"
  mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache" "$B/sources/dl"
  # The machine's deb lines as deb-src, without the security suite: its pool
  # holds only the newest security upload, which a snapshot may not match.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN{RS=""; ORS="\n\n"} !/security/' "$f" | sed 's/^Types: deb$/Types: deb-src/' >"$apt/parts/$(basename "$f")"
  done
  if [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | grep -v security | sed 's/^deb /deb-src /' >"$apt/parts/list.list" || true
  fi
  local opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/parts"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" -qq update
  (cd "$B/sources/dl" && apt-get "${opts[@]}" -qq source --download-only "${want[@]}")
  for p in "${want[@]}"; do
    local tarball
    tarball=$(ls "$B/sources/dl/${p}_"*.orig.tar.* | grep -v '\.asc$' | head -n 1)
    rm -rf "$B/sources/$p.dir" && mkdir -p "$B/sources/$p.dir"
    tar -xf "$tarball" -C "$B/sources/$p.dir" --strip-components=1
  done
}

# ---- Libraries -------------------------------------------------------------
# compile_lib NAME CFLAGS... -- FILES...: an archive of the files, compiled
# two at a time; rebuilt when missing only (sources do not change).
compile_lib() {
  local name="$1"; shift
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  local out="$B/lib/lib$name.a"
  [ -f "$out" ] && return
  say "WebAssembly: compiling $name (${#} files)"
  local objs="$B/obj/$name"
  rm -rf "$objs" && mkdir -p "$objs" "$B/lib"
  printf '%s\n' "$@" | xargs -P "$(jobs)" -I{} sh -c \
    'emcc -O2 "$@" -c "{}" -o "'"$objs"'/$(echo "{}" | tr / _).o"' _ "${flags[@]}"
  emar rcs "$out" "$objs"/*.o
}

build_libraries() {
  local s="$B/sources"
  (cd "$s/libzstd.dir/lib" && compile_lib zstd -DZSTD_DISABLE_ASM -DZSTD_MULTITHREAD=0 -Icommon -- \
    "$PWD"/common/*.c "$PWD"/compress/*.c "$PWD"/decompress/*.c)
  (cd "$s/lz4.dir/lib" && compile_lib lz4 -- "$PWD/lz4.c" "$PWD/lz4hc.c")
  (cd "$s/zlib.dir" && compile_lib z -DHAVE_UNISTD_H -- "$PWD"/{adler32,compress,crc32,deflate,infback,inffast,inflate,inftrees,trees,uncompr,zutil}.c)
  (cd "$s/bzip2.dir" && compile_lib bz2 -- "$PWD"/{blocksort,bzlib,compress,crctable,decompress,huffman,randtable}.c)
  (cd "$s/libwebp.dir" && compile_lib webp -I"$PWD" -I"$PWD/src" -- \
    $(ls "$PWD"/src/{dec,enc,utils,dsp}/*.c | grep -Ev '_(neon|msa|mips32|mips_dsp_r2|sse2|sse41)\.c$'))
  # libmd's sources want an autoconf config.h; nothing in it is needed here.
  mkdir -p "$B/sources/libmd.config" && : >"$B/sources/libmd.config/config.h"
  (cd "$s/libmd.dir" && compile_lib md -I"$B/sources/libmd.config" -I"$PWD/include" -- "$PWD/src/md5.c" "$PWD/src/sha2.c")
}

# ---- The module --------------------------------------------------------------
INCLUDES=()
includes() {
  local s="$B/sources"
  INCLUDES=(-I"$TILEFMT_ROOT/include" -I"$s/libzstd.dir/lib" -I"$s/lz4.dir/lib" -I"$s/zlib.dir" -I"$s/bzip2.dir"
    -I"$s/libwebp.dir/src" -I"$s/libmd.dir/include"
    # em++'s sysroot hides /usr/include: Boost's headers (PFR, Endian) and
    # xsimd's are given by their own folders, copied so nothing else of
    # /usr/include is seen.
    -isystem "$B/system")
  if [ ! -d "$B/system/boost" ]; then
    mkdir -p "$B/system"
    cp -r /usr/include/boost "$B/system/"
    cp -r /usr/include/xsimd "$B/system/" 2>/dev/null || true
  fi
}

build_module() {
  local dist="$B/dist"
  mkdir -p "$dist"
  cp "$TILEFMT_ROOT"/web/*.mjs "$TILEFMT_ROOT"/web/*.js "$TILEFMT_ROOT"/web/*.html "$TILEFMT_ROOT"/web/*.css "$dist/" 2>/dev/null || true
  if [ -f "$dist/tilefmt_core.wasm" ] &&
    [ -z "$(find "$TILEFMT_ROOT/include" "$TILEFMT_ROOT/web/src" "$TILEFMT_ROOT/scripts/wasm.sh" -newer "$dist/tilefmt_core.wasm" -print -quit)" ]; then
    say "WebAssembly: the module is up to date"
    return
  fi
  say "WebAssembly: compiling web/src/core.cpp"
  # -fexceptions: tilefmt's errors reach JavaScript as exceptions with their
  # messages. No pthreads: a query decodes on the calling thread (the
  # browser's threads need cross-origin isolation, which static hosts
  # rarely give).
  em++ -std=c++20 -O2 -fexceptions -DNDEBUG -DTILEFMT_NO_OPENSSL "${INCLUDES[@]}" \
    "$TILEFMT_ROOT/web/src/core.cpp" -o "$dist/tilefmt_core.js" \
    --bind -sMODULARIZE -sEXPORT_NAME=createTilefmtCore -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=4GB \
    -sENVIRONMENT=web,worker,node \
    -L"$B/lib" -lzstd -llz4 -lz -lbz2 -lwebp -lmd
  ls -l "$dist"
}

fetch_sources
build_libraries
includes
build_module
