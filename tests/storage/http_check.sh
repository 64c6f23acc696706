#!/usr/bin/env bash
# The web host backend against a static server: copies of committed arrays
# and of the committed group, with their listing documents
# (python/src/tilefmt/web.py), served by web/serve.py on 127.0.0.1 (Python's
# standard library only), then test_http (tests/storage/test_http.cpp) with
# TILEFMT_HTTP_URL set. The server stops with the script.
#
#   http_check.sh TEST_HTTP_EXE SOURCE_ROOT WORKDIR
set -u
exe=$1
src=$2
work=$3
rm -rf "$work/site" && mkdir -p "$work/site/tiledb" "$work/site/groups"
for a in dense_1d_int32 sparse_string_dim nullable_dense; do
  mkdir -p "$work/site/tiledb/$a"
  cp -r "$src/tests/data/tiledb/$a/array" "$work/site/tiledb/$a/"
  python3 "$src/python/src/tilefmt/web.py" listing "$work/site/tiledb/$a/array" >/dev/null || exit 1
done
cp -r "$src/tests/data/groups/experiment" "$work/site/groups/"
python3 "$src/python/src/tilefmt/web.py" listing "$work/site/groups/experiment" >/dev/null || exit 1
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$src/web/serve.py" --port "$port" "$work/site" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=0.2)" 2>/dev/null && break
  sleep 0.1
done
TILEFMT_HTTP_URL="http://127.0.0.1:$port" "$exe"
