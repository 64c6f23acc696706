#!/usr/bin/env bash
# The Python package's tests with its extension built under
# AddressSanitizer and UndefinedBehaviorSanitizer:
#
#   scripts/python_asan.sh [BUILD_DIR] [pytest arguments...]
#
# Uses the venv of scripts/python_test.sh (run that first); the sanitized
# extension is built into BUILD_DIR/python-asan (site/ and its meson build
# directory build/) and put first on the path, so the tests import it in
# place of the installed one. The sanitizer runtimes are preloaded (Python
# itself is not built with them), with libstdc++ beside libasan so that its
# interceptor of C++ throws finds the real one. TileDB-Py, numpy and pyarrow
# run uninstrumented in the same process: memory errors they make are
# reported too (one such in libtiledb is why test_tiledb_py.py does not ask
# TileDB-Py for a global-order dense read of several ranges).
#
# Not part of scripts/test.sh: the extension's one translation unit takes
# about 14 minutes to compile with the sanitizers on the 2-core reference
# machine; the tests then take about 80 s. Reports go to
# BUILD_DIR/python-asan/report.* (none when clean).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$REPO/build}"
shift || true
OUT="$(cd "$BUILD" && pwd)/python-asan"
PY="$(cd "$BUILD" && pwd)/python/venv/bin/python"
say() { echo "python_asan: $*"; }
# shellcheck source=reference_env.sh
source "$REPO/scripts/reference_env.sh"

[ -x "$PY" ] || { say "no venv at $PY: run scripts/python_test.sh first"; exit 1; }
mkdir -p "$OUT"
say "building the extension with -fsanitize=address,undefined into $OUT/site"
"$PY" -m pip install -q --no-build-isolation --no-deps --upgrade --target "$OUT/site" \
    -Cbuild-dir="$OUT/build" -Csetup-args=-Db_sanitize=address,undefined -Csetup-args=-Db_lundef=false \
    -Csetup-args=-Dbuildtype=debugoptimized "$REPO/python"

ASAN=$(g++ -print-file-name=libasan.so)
STDCXX=$(g++ -print-file-name=libstdc++.so)
rm -f "$OUT"/report.*
cd "$OUT"
set +e
PYTHONPATH="$OUT/site" LD_PRELOAD="$ASAN $STDCXX" \
    ASAN_OPTIONS="detect_leaks=0:alloc_dealloc_mismatch=0:detect_odr_violation=0:halt_on_error=1:log_path=$OUT/report" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$OUT/report" \
    "$PY" -X faulthandler -m pytest -q -p no:cacheprovider "$REPO/python/tests" "$@"
status=$?
set -e
if ls "$OUT"/report.* >/dev/null 2>&1; then
    say "sanitizer reports:"
    cat "$OUT"/report.*
    exit 1
fi
exit $status
