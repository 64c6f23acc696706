#!/usr/bin/env bash
# Builds the WebAssembly module (scripts/wasm.sh) and runs its tests: the
# JavaScript API in Node (node --test web/tests) and in headless Chromium
# (web/tests/test_browser.py, selenium driving Debian's chromium through
# chromium-driver, against a server of the test's own on 127.0.0.1).
# Exits non-zero on any failure. Safe to run again.
#
#   scripts/web_test.sh [BUILD_DIR]     (default: build)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BUILD="${1:-$TILEFMT_ROOT/build}"
scripts/wasm.sh "$BUILD/wasm"
export TILEFMT_WEB_DIST="$BUILD/wasm/dist"
# The native reader, to compare errors with, where scripts/python_test.sh made it.
if [ -x "$BUILD/python/venv/bin/python" ]; then export TILEFMT_NATIVE_PYTHON="$BUILD/python/venv/bin/python"; fi

venv="$BUILD/web/venv"
if [ ! -x "$venv/bin/python" ] || ! cmp -s web/tests/requirements.txt "$venv/requirements.txt"; then
  say "Browser tests: venv ($venv)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r web/tests/requirements.txt
  cp web/tests/requirements.txt "$venv/requirements.txt"
fi

status=0
say "Node: node --test web/tests"
node --test web/tests/ || status=1
say "Chromium: pytest web/tests"
"$venv/bin/python" -m pytest -q -p no:cacheprovider web/tests || status=1
exit $status
