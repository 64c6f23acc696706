"""TileDB-Py's recorded answers (tests/interop/record_queries.py) to
queries on the committed arrays and, when the interop corpus is there
(TILEFMT_INTEROP_CORPUS, scripts/interop.sh's OUTDIR/corpus), on the
corpus: the same queries through tilefmt's Python API, compared byte for
byte as the C++ checker compares them (tests/support/recorded_queries.hpp)."""

import functools
import json
import math
import os

import numpy as np
import pytest

import tilefmt

import recorded
from conftest import DATA

CORPUS = os.environ.get("TILEFMT_INTEROP_CORPUS", "")


def _committed():
    out = []
    for name in ("dense.txt", "sparse.txt"):
        path = os.path.join(DATA, "queries", name)
        for r in recorded.parse(path):
            out.append((DATA, r))
    return out


def _corpus():
    """The newest release's corpus (the C++ checker runs every release's:
    what the bindings add does not depend on who wrote the array), or every
    release's with TILEFMT_PY_ALL_RELEASES=1."""
    if not CORPUS or not os.path.isdir(CORPUS):
        return []
    versions = [v for v in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, v))]
    if os.environ.get("TILEFMT_PY_ALL_RELEASES") != "1" and versions:
        versions = [max(versions, key=lambda v: tuple(int(x) for x in v.split(".") if x.isdigit()))]
    out = []
    for version in sorted(versions):
        path = os.path.join(CORPUS, version, "queries", "recorded.txt")
        if os.path.isfile(path):
            out.extend((os.path.join(CORPUS, version), r) for r in recorded.parse(path))
    return out


@functools.lru_cache(maxsize=None)
def _corpus_keys():
    """Encryption keys of the corpus arrays (its manifest is large: read once)."""
    if not CORPUS or not os.path.isfile(os.path.join(CORPUS, "manifest.json")):
        return {}
    with open(os.path.join(CORPUS, "manifest.json")) as f:
        return {os.path.join(CORPUS, a["path"]): a["encryption"]["key"]
                for a in json.load(f)["arrays"] if a.get("encryption")}


def _literal(tiledb_type, raw, label):
    """A condition value as Python source."""
    if label or tiledb_type in ("STRING_UTF8", "STRING_ASCII"):
        try:
            return repr(raw.decode("utf-8"))
        except UnicodeDecodeError:
            return repr(raw)
    if tiledb_type in ("CHAR", "BLOB"):
        return repr(raw)
    dt = tilefmt._types.base_dtype(tiledb_type)
    v = np.frombuffer(raw, dtype=dt if dt.kind not in "mM" else "<i8")[0].item()
    return repr(v)


def _condition(A, where):
    parts = []
    for name, op, value, label in where:
        t = (A.schema.attr(name).tiledb_type if A.schema.has_attr(name)
             else A.schema.domain.dim(name).tiledb_type)
        parts.append('attr(%r) %s %s' % (name, op, _literal(t, value, label)))
    return " and ".join(parts) or None


def _selection(A, r):
    sel = []
    for d, rs in zip(A.schema.domain.dims, r.ranges):
        sel.append([(lo, hi) for lo, hi in rs])
    return tuple(sel) if sel else slice(None)


def _returned(result, f):
    """Field `f` of a tilefmt result as raw buffers, like a recorded Field."""
    v = result[f.name]
    if isinstance(v, tuple):  # var-size, return_raw
        offsets, data = v[0], v[1]
        out = recorded.Field(f.name, f.dimension, len(offsets), data.tobytes(), [int(o) for o in offsets])
        if len(v) > 2:
            out.validity = np.asarray(v[2], dtype=np.uint8).tobytes()
        return out
    mask = None
    if isinstance(v, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(v)
        v = v.data
    flat = np.ravel(v, order="C")
    out = recorded.Field(f.name, f.dimension, 0, flat.tobytes())
    cell = len(f.values) // f.cells if f.cells else 0
    out.cells = len(out.values) // cell if cell else flat.size
    if mask is not None:
        out.validity = (~np.ravel(mask, order="C")).astype(np.uint8).tobytes()
    return out


def _rows(fields, cells, with_validity):
    rows = []
    for c in range(cells):
        row = []
        for f in fields:
            row.append(f.cell(c))
            if with_validity and f.validity is not None:
                row.append(f.validity[c:c + 1])
        rows.append(row)
    return rows


def _compare_cells(r, result):
    got = [_returned(result, f) for f in r.fields]
    cells = 0
    for g, e in zip(got, r.fields):
        assert g.cells == e.cells, "%s: %d cells, TileDB-Py returned %d" % (e.name, g.cells, e.cells)
        cells = e.cells
        if e.validity is not None:
            assert g.validity is not None, "%s: no validity" % e.name
    want_rows = _rows(r.fields, cells, True)
    got_rows = _rows(got, cells, True)
    dims = sum(1 for f in r.fields if f.dimension)
    if r.order == "U":
        want_rows.sort()
        got_rows.sort()
    elif dims:
        for c in range(cells):
            assert got_rows[c][:dims] == want_rows[c][:dims], "cell %d: other coordinates" % c
        b = 0
        while b < cells:
            e = b + 1
            while e < cells and want_rows[e][:dims] == want_rows[b][:dims]:
                e += 1
            want_rows[b:e] = sorted(want_rows[b:e])
            got_rows[b:e] = sorted(got_rows[b:e])
            b = e
    differ = [c for c in range(cells) if got_rows[c] != want_rows[c]]
    assert not differ, "%d of %d cells differ, first cell %d" % (len(differ), cells, differ[0])


def _compare_aggregates(A, r, cond):
    q = A.query(cond=cond)
    for name, op, value in r.aggregates:
        got = q.agg({name: [op]}).multi_index[_selection(A, r)]
        what = "%s of %s" % (op, name)
        if value == "null":
            assert got is None or (isinstance(got, float) and math.isnan(got)), "%s: %r, TileDB-Py null" % (what, got)
        elif value == "nan":
            assert got is None or math.isnan(got), "%s: %r, TileDB-Py nan" % (what, got)
        elif isinstance(got, float):
            want = float(value)
            if op in ("sum", "mean"):
                assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), "%s: %r, TileDB-Py %s" % (what, got, value)
            else:
                assert got == want, "%s: %r, TileDB-Py %s" % (what, got, value)
        else:
            assert str(got) == value, "%s: %r, TileDB-Py %s" % (what, got, value)


_opened = {}


def _open(base, r, keys):
    path = os.path.join(base, r.array)
    if path not in _opened:
        key = keys.get(os.path.relpath(path, DATA)) or _corpus_keys().get(path)
        _opened.clear()  # one array open at a time
        _opened[path] = tilefmt.open(path, key=key)
    return _opened[path]


def run_record(base, r, keys):
    A = _open(base, r, keys)
    cond = _condition(A, r.where)
    sel = _selection(A, r)
    if r.error:
        with pytest.raises((ValueError, IndexError, OverflowError)):
            A.query(cond=cond, order=r.order if r.order != "A" else None).multi_index[sel]
        return
    if r.order == "A":
        _compare_aggregates(A, r, cond)
        return
    attrs = [f.name for f in r.fields if not f.dimension]
    result = A.query(attrs=attrs, cond=cond, order=r.order, return_raw=True).multi_index[sel]
    _compare_cells(r, result)


def _group(records):
    """Records by array, for one test per array."""
    by = {}
    for base, r in records:
        by.setdefault((base, r.array), []).append(r)
    return sorted(by.items())


_COMMITTED = _group(_committed())
_CORPUS = _group(_corpus())


def _check(base, records, keys):
    failures = []
    for r in records:
        try:
            run_record(base, r, keys)
        except (AssertionError, Exception) as e:  # noqa: B014 -- every failure is reported with its query
            failures.append("%s: %s: %s" % (r.describe(), type(e).__name__, e))
    assert not failures, "%d of %d queries differ:\n%s" % (len(failures), len(records), "\n".join(failures[:10]))


@pytest.mark.parametrize("key,records", _COMMITTED, ids=[k[1] for k, _ in _COMMITTED])
def test_committed_queries(key, records, data_keys):
    _check(key[0], records, data_keys)


@pytest.mark.skipif(not _CORPUS, reason="no interop corpus (TILEFMT_INTEROP_CORPUS)")
@pytest.mark.parametrize("key,records", _CORPUS, ids=[os.path.relpath(os.path.join(*k), CORPUS) for k, _ in _CORPUS] or None)
def test_corpus_queries(key, records, data_keys):
    _check(key[0], records, data_keys)


def test_records_parsed():
    # The committed records are there and were parsed: a missing file must
    # not turn the suite into an empty pass.
    assert sum(len(rs) for _, rs in _COMMITTED) > 1000
