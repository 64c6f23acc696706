#!/usr/bin/env bash
# Build the Python package (python/) and run its tests:
#
#   scripts/python_test.sh [BUILD_DIR]      (default: build in the repository)
#
# Keeps everything under BUILD_DIR/python: the venv (venv/), pip's download
# cache (pip-cache/) and the extension's meson build directory (build/), so
# that a second run neither downloads nor recompiles anything unchanged.
# The venv's packages come from python/requirements-test.txt; it is rebuilt
# when that file changes. When the interop corpus is there
# (BUILD_DIR/interop/corpus, scripts/interop.sh), its recorded queries are
# run too.
#
# Cost on the 2-core reference machine: about 4 minutes from nothing
# (2026-11-24, busy with other builds: about 95 s for the venv's packages,
# downloads included (dask, pandas, pyarrow, moto and TileDB-Py are most of
# it; cached afterwards in BUILD_DIR/python/pip-cache), 124 s compiling the
# extension, one translation unit at -O2, and 15 s of tests, of which
# test_dask.py's two-process Dask cluster and S3 server take about 10),
# about 20 s when nothing changed. The SOMA venv (tiledbsoma and its
# dependencies, python/requirements-soma.txt) adds about 40 s once.
#
# Exit status: 0 passed; 77 the package index cannot be reached while the
# venv needs packages (meson's "skip"), except under CI=true, where that is
# an error (1); 1 on any other failure.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$REPO/build}"
mkdir -p "$BUILD/python"
OUT="$(cd "$BUILD" && pwd)/python"
VENV="$OUT/venv"
PY="$VENV/bin/python"
REQ="$REPO/python/requirements-test.txt"
START=$(date +%s)

say() { echo "python_test: $*"; }

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CACHE_DIR="$OUT/pip-cache"
# shellcheck source=reference_env.sh
source "$REPO/scripts/reference_env.sh"

unreachable() {
    if [ "${CI:-}" = "true" ]; then
        say "ERROR: package index unreachable ($1); CI needs the Python tests"
        exit 1
    fi
    say "package index unreachable ($1), skipping the Python tests"
    exit 77
}

STAMP="$VENV/.requirements.sha256"
WANT=$(sha256sum "$REQ" | cut -c1-64)
if [ ! -x "$PY" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    say "creating $VENV"
    python3 -m venv --clear "$VENV" >/dev/null 2>&1 || {
        say "ERROR: python3 -m venv failed (Debian: apt-get install python3-venv)"
        exit 1
    }
    if ! "$PY" -m pip index versions nanobind --timeout 15 --retries 1 >/dev/null 2>&1; then
        rm -rf "$VENV"
        unreachable "pip index versions nanobind failed"
    fi
    say "pip install -r python/requirements-test.txt"
    "$PY" -m pip install -q --only-binary=:all: -r "$REQ"
    echo "$WANT" >"$STAMP"
fi

# The package as users get it: a wheel (pip wheel; no build isolation: the
# backend is in the venv, and the build directory is kept, so that an
# unchanged extension is not compiled again), repaired by auditwheel so that
# it bundles the libraries it links (tilefmt.libs/), installed into the
# venv; every test below runs against it (test_wheel.py checks the bundling).
say "pip wheel ./python, auditwheel repair, pip install"
T0=$(date +%s)
rm -rf "$OUT/dist" "$OUT/wheelhouse"
"$PY" -m pip wheel -q --no-build-isolation --no-deps -Cbuild-dir="$OUT/build" -w "$OUT/dist" "$REPO/python"
PATH="$VENV/bin:$PATH" "$VENV/bin/auditwheel" repair -w "$OUT/wheelhouse" "$OUT"/dist/tilefmt-*.whl \
    >"$OUT/auditwheel.log" 2>&1 || { cat "$OUT/auditwheel.log"; exit 1; }
TILEFMT_WHEEL=$(ls "$OUT"/wheelhouse/tilefmt-*.whl)
export TILEFMT_WHEEL
"$PY" -m pip install -q --no-deps --force-reinstall "$TILEFMT_WHEEL"
say "$(basename "$TILEFMT_WHEEL") ($(( $(stat -c %s "$TILEFMT_WHEEL") / 1024 )) KiB) built and installed in $(( $(date +%s) - T0 )) s"

CORPUS="$BUILD/interop/corpus"
if [ -f "$CORPUS/manifest.json" ]; then
    export TILEFMT_INTEROP_CORPUS="$(cd "$CORPUS" && pwd)"
    say "with the interop corpus $TILEFMT_INTEROP_CORPUS"
fi

# A SOMA experiment tiledbsoma writes from an AnnData, and tiledbsoma's
# reading of it (python/tests/soma_make.py), for test_soma.py: made in a
# venv of its own (python/requirements-soma.txt), again only when the
# requirements or the script change. The same venv runs test_soma_api.py
# below.
SOMA_REQ="$REPO/python/requirements-soma.txt"
SOMA_VENV="$OUT/soma-venv"
SOMA_DIR="$OUT/soma"
SOMA_WANT=$(cat "$SOMA_REQ" "$REPO/python/tests/soma_make.py" | sha256sum | cut -c1-64)
SOMA_OK=1
if [ "$(cat "$SOMA_DIR/.stamp" 2>/dev/null)" != "$SOMA_WANT" ]; then
    T0=$(date +%s)
    SOMA_REQ_SUM=$(sha256sum "$SOMA_REQ" | cut -c1-64)
    if [ ! -x "$SOMA_VENV/bin/python" ] || [ "$(cat "$SOMA_VENV/.requirements.sha256" 2>/dev/null)" != "$SOMA_REQ_SUM" ]; then
        say "creating $SOMA_VENV (tiledbsoma)"
        python3 -m venv --clear "$SOMA_VENV" >/dev/null 2>&1
        if ! "$SOMA_VENV/bin/python" -m pip install -q --only-binary=:all: -r "$SOMA_REQ"; then
            rm -rf "$SOMA_VENV"
            [ "${CI:-}" = "true" ] && { say "ERROR: pip install -r python/requirements-soma.txt failed"; exit 1; }
            say "pip install -r python/requirements-soma.txt failed: test_soma.py is skipped"
            SOMA_OK=""
        else
            echo "$SOMA_REQ_SUM" >"$SOMA_VENV/.requirements.sha256"
        fi
    fi
    if [ -n "$SOMA_OK" ]; then
        "$SOMA_VENV/bin/python" "$REPO/python/tests/soma_make.py" "$SOMA_DIR"
        echo "$SOMA_WANT" >"$SOMA_DIR/.stamp"
        say "SOMA experiment made in $(( $(date +%s) - T0 )) s"
    fi
fi
[ -z "$SOMA_OK" ] || export TILEFMT_SOMA_DIR="$SOMA_DIR"

# A venv without pyarrow (NumPy, Polars, DuckDB at the test venv's
# versions), where test_arrow.py runs tilefmt's Arrow streams through
# Polars and DuckDB: the capsule interface needs no pyarrow.
NOPA="$OUT/venv-no-pyarrow"
NOPA_PINS=$(grep -E '^(numpy|polars|duckdb)==' "$REQ" | sort | tr '\n' ' ')
if [ "$(cat "$NOPA/.pins" 2>/dev/null)" != "$NOPA_PINS" ]; then
    say "creating $NOPA ($NOPA_PINS)"
    python3 -m venv --clear "$NOPA" >/dev/null 2>&1
    # shellcheck disable=SC2086
    if "$NOPA/bin/python" -m pip install -q --only-binary=:all: $NOPA_PINS; then
        echo "$NOPA_PINS" >"$NOPA/.pins"
    else
        rm -rf "$NOPA"
        [ "${CI:-}" = "true" ] && { say "ERROR: the venv without pyarrow could not be made"; exit 1; }
        say "the venv without pyarrow could not be made: its test is skipped"
    fi
fi
[ -x "$NOPA/bin/python" ] && export TILEFMT_NO_PYARROW_PYTHON="$NOPA/bin/python"

# From outside the source tree, so that the installed package is the one tested.
cd "$OUT"
"$PY" -m pytest -q -p no:cacheprovider "$REPO/python/tests"

# tilefmt.soma beside tiledbsoma (test_soma_api.py, skipped above): in the
# SOMA venv, with the package just installed put on its path (the same
# Python, so the same extension; NumPy and pyarrow at the same versions).
if [ -n "$SOMA_OK" ]; then
    SOMA_PATH="$OUT/soma-path"
    mkdir -p "$SOMA_PATH"
    SITE=$("$PY" -c 'import os, tilefmt; print(os.path.dirname(os.path.dirname(tilefmt.__file__)))')
    # The package and the libraries its extension finds beside it ($ORIGIN/../tilefmt.libs).
    ln -sfn "$SITE/tilefmt" "$SOMA_PATH/tilefmt"
    ln -sfn "$SITE/tilefmt.libs" "$SOMA_PATH/tilefmt.libs"
    PYTHONPATH="$SOMA_PATH" "$SOMA_VENV/bin/python" -m pytest -q -p no:cacheprovider \
        "$REPO/python/tests/test_soma_api.py" "$REPO/python/tests/test_docs.py"
fi
say "done in $(( $(date +%s) - START )) s"
