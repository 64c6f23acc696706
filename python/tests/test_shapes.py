"""The read shapes users have, against TileDB-Py on arrays it writes here:
a single-cell matrix (2-D int64, one fragment, and three fragments that
overwrite each other), the same in column-major order, a string dimension,
and duplicates in one and in several fragments; read whole, by thousands of
ranges (overlapping, adjacent, nested, points) on one or both dimensions,
by lists of points, and by string keys, in every layout. Without
duplicates, unordered reads come in TileDB's global order, compared
exactly; with duplicates, cells of equal coordinates in any order."""

import numpy as np
import pytest

import tilefmt

tiledb = pytest.importorskip("tiledb")

from test_tiledb_py import check_sparse, same  # noqa: E402

TOP = 2**62


def _matrix(path, writes, rows=400, cols=100, order="row-major", dups=False, seed=1):
    dims = [tiledb.Dim(name=n, domain=(0, TOP), tile=64, dtype=np.int64,
                       filters=tiledb.FilterList([tiledb.ZstdFilter(level=3)])) for n in ("r", "c")]
    tiledb.Array.create(path, tiledb.ArraySchema(
        domain=tiledb.Domain(*dims), sparse=True, capacity=300, allows_duplicates=dups,
        cell_order=order, tile_order=order,
        attrs=[tiledb.Attr(name="x", dtype=np.float32, filters=tiledb.FilterList([tiledb.ZstdFilter(level=-1)]))]))
    rng = np.random.default_rng(seed)
    for w in range(writes):
        flat = rng.choice(rows * cols, rows * cols // 5, replace=dups)
        if not dups:
            flat = np.unique(flat)
        with tiledb.open(path, "w") as A:
            A[flat // cols, flat % cols] = {"x": rng.random(len(flat), dtype=np.float32) + w}


def _strings(path):
    dom = tiledb.Domain(tiledb.Dim(name="key", domain=(None, None), tile=None, dtype="ascii"))
    tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, sparse=True, capacity=200,
                                                 attrs=[tiledb.Attr(name="v", dtype=np.int64)]))
    rng = np.random.default_rng(2)
    keys = np.array(["k%06d" % k for k in rng.choice(10**6, 3000, replace=False)])
    with tiledb.open(path, "w") as A:
        A[keys] = {"v": np.arange(len(keys), dtype=np.int64)}
    return sorted(keys.tolist())


def _dups(path, writes):
    dom = tiledb.Domain(tiledb.Dim(name="t", domain=(0, 10**6), tile=1000, dtype=np.int64))
    tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, sparse=True, capacity=300, allows_duplicates=True,
                                                 attrs=[tiledb.Attr(name="a", dtype=np.float64)]))
    rng = np.random.default_rng(3)
    for w in range(writes):
        t = rng.integers(0, 5000, 2000)
        with tiledb.open(path, "w") as A:
            A[t] = {"a": rng.random(len(t)) + w}


@pytest.fixture(scope="module")
def arrays(tmp_path_factory):
    base = tmp_path_factory.mktemp("shapes")
    out = {}
    for name, make in {
        "matrix": lambda p: _matrix(p, 1),
        "matrix_3_writes": lambda p: _matrix(p, 3),
        "matrix_col_major": lambda p: _matrix(p, 1, order="col-major"),
        "matrix_dups": lambda p: _matrix(p, 1, dups=True),
        "dups_1_write": lambda p: _dups(p, 1),
        "dups_3_writes": lambda p: _dups(p, 3),
    }.items():
        out[name] = str(base / name)
        make(out[name])
    out["strings"] = str(base / "strings")
    out["keys"] = _strings(out["strings"])
    return out


def runs(rng, top, n, width):
    """n ranges over [0, top): points, overlapping, nested and adjacent."""
    out = []
    for k in range(n):
        lo = int(rng.integers(0, top))
        kind = k % 4
        if kind == 0:
            out.append(lo)  # a point
        elif kind == 1:
            out.append((lo, lo + int(rng.integers(0, width))))
        elif kind == 2 and out and isinstance(out[-1], tuple):
            out.append((out[-1][1] + 1, out[-1][1] + 1 + int(rng.integers(0, width))))  # adjacent
        else:
            out.append((max(0, lo - width), lo + width))  # overlaps others
    return out


def _rng(seed):
    return np.random.default_rng(seed)


MATRIX_SELS = {
    "whole": (slice(None), slice(None)),
    "2,000 row ranges": lambda: (runs(_rng(5), 400, 2000, 3), slice(None)),
    "50 columns as points": lambda: (slice(None), [int(c) for c in _rng(6).choice(100, 50, replace=False)]),
    "ranges on both": lambda: (runs(_rng(7), 400, 300, 5), runs(_rng(8), 100, 40, 2)),
    "one box": (slice(37, 201), slice(10, 80)),
}


def _sel(s):
    return s() if callable(s) else s


def _compare(A, T, sel, order, what):
    """tilefmt's answer against TileDB-Py's; where TileDB refuses the read
    (several ranges of a dimension that stay apart once merged, in global
    order), tilefmt must refuse it too. Returns whether TileDB answered."""
    try:
        want = T.query(order=order).multi_index[sel]
    except tiledb.TileDBError:
        with pytest.raises(ValueError):
            A.query(order=order).multi_index[sel]
        return False
    check_sparse(A, lambda: A.query(order=order).multi_index[sel], lambda: want, what, order, True)
    if order == "U" and not T.schema.allows_duplicates:
        # TileDB's unordered reads without duplicates come in its global order.
        same(A.query(order=order).multi_index[sel], want, what, unmasked=True)
    return True


@pytest.mark.parametrize("name", ["matrix", "matrix_3_writes", "matrix_col_major", "matrix_dups"])
@pytest.mark.parametrize("sel", list(MATRIX_SELS))
@pytest.mark.parametrize("order", ["C", "F", "G", "U"])
def test_matrix(arrays, name, sel, order):
    with tilefmt.open(arrays[name]) as A, tiledb.open(arrays[name]) as T:
        _compare(A, T, _sel(MATRIX_SELS[sel]), order, "%s %s order %s" % (name, sel, order))


@pytest.mark.parametrize("order", ["C", "G", "U"])
def test_string_keys(arrays, order):
    keys = arrays["keys"]
    rng = _rng(9)
    points = [(k, k) for k in rng.choice(keys, 200, replace=False).tolist()]
    with tilefmt.open(arrays["strings"]) as A, tiledb.open(arrays["strings"]) as T:
        for what, sel in {
            "whole": slice(None),
            "200 keys as points": points,
            "points and ranges, some missing": points[:50] + [("k1", "k2"), ("k5", "k55"), ("zz", "zzz"), ("k0", "k0")],
            "a key range": slice("k1", "k3"),
        }.items():
            _compare(A, T, (sel,), order, "strings %s order %s" % (what, order))


@pytest.mark.parametrize("name", ["dups_1_write", "dups_3_writes"])
@pytest.mark.parametrize("order", ["C", "F", "G", "U"])
def test_duplicates(arrays, name, order):
    with tilefmt.open(arrays[name]) as A, tiledb.open(arrays[name]) as T:
        for what, sel in {
            "whole": slice(None),
            "a range": slice(1000, 3000),
            "1,000 ranges": runs(_rng(10), 5000, 1000, 4),
            "points": [int(t) for t in _rng(11).integers(0, 5000, 300)],
        }.items():
            _compare(A, T, sel, order, "%s %s order %s" % (name, what, order))


def test_duplicates_unordered_come_as_stored(arrays):
    """With duplicates, an unordered read returns the cells fragment by
    fragment in the order they are stored, as TileDB does: the same
    sequence, not only the same cells."""
    with tilefmt.open(arrays["dups_3_writes"]) as A, tiledb.open(arrays["dups_3_writes"]) as T:
        got = A.query(order="U")[:]
        want = T.query(order="U")[:]
        assert np.array_equal(got["t"], want["t"])
        assert np.array_equal(got["a"], want["a"])
