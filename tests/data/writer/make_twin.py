#!/usr/bin/env python3
"""Writes the TileDB-Py twins of the arrays tests/array/write/test_writer.cpp writes.

    make_twin.py OUTDIR [twin] [twin_var] [twin_col] [twin_sparse] [twin_partial] [twin_sparse_global]
                 [twin_dense_global]   (run with TileDB-Py 0.36.1 / libtiledb 2.30)

A 2D dense array, int32 dimensions rows [1, 8] (extent 4) and cols [1, 6]
(extent 3), two attributes:
  a  INT32    [BYTESHUFFLE, ZSTD(1)]
  b  FLOAT64  [BITSHUFFLE, LZ4]
and one fragment over rows 1..4, cols 1..6 (two whole space tiles) written at
a fixed timestamp. Values: a = 10 * row + col - 3 * (row * col % 5),
b = row + col / 8 (row-major over the subarray). The test reads the schema
name and fragment name off this twin, writes the same array with tilefmt
under those names and compares every file byte for byte.

The second twin, twin_var, has the same domain and fragment and the
attributes a writer of var-size and nullable cells must get right:
  s   ASCII var            [ZSTD(1)]      (tile min/max of strings)
  n   INT32 nullable       [LZ4]          (its second tile all null)
  ns  ASCII var nullable   (none)         (a row all null)
  nu  UTF8 var nullable    (none)         (no min/max, hence no null count)
  r   ASCII var            [RLE]          (offsets not filtered)
  d   UTF8 var             [DICTIONARY]   (offsets not filtered)
  c   CHAR nullable        (none)
  u   UINT8                (none)
Values and validity are the functions var_values() and var_validity()
below; test_writer.cpp computes the same ones.

The third twin, twin_col, has column-major tiles and cells, tiles of 2 x 3
and one fragment over the whole domain (8 tiles, more than its 4
attributes), which takes TileDB's dense writer down its other paths:
  s   ASCII var            [ZSTD(1)]
  ns  ASCII var nullable   (none)
  p   INT32 x 2 nullable   (none)         (no min/max)
  f   FLOAT64 nullable     (none)         (a NaN and an infinity)
Values and validity: col_values() and col_validity().

The fourth twin, twin_sparse, is sparse: dimensions x INT32 [1, 100]
(extent 10) and y INT64 [-50, 49] (extent 25), capacity 4, row-major
orders, and one unordered write of 23 cells (six data tiles, the last one
short) whose coordinates and values are sparse_cells():
  a   INT32                [ZSTD(1)]
  f   FLOAT64 nullable     (none)
  s   ASCII var            (none)

The fifth twin, twin_partial, is dense with a write that covers space
tiles only in part: rows 2-6, cols 2-5 of the first twin's domain (four
tiles, each partly written; TileDB fills the rest), cells partial_cells():
  a   INT32                [ZSTD(1)]
  n   FLOAT64 nullable     (none)
  s   ASCII var nullable   (none)
"""

import os
import shutil
import sys

import numpy as np
import tiledb

FRAGMENT_TIMESTAMP = 1700000000123


def domain():
    return tiledb.Domain(
        tiledb.Dim("rows", domain=(1, 8), tile=4, dtype=np.int32),
        tiledb.Dim("cols", domain=(1, 6), tile=3, dtype=np.int32),
    )


def fresh(out, name):
    uri = os.path.join(out, name)
    if os.path.exists(uri):
        shutil.rmtree(uri)
    return uri


def write_twin(out):
    uri = fresh(out, "twin")
    attrs = [
        tiledb.Attr("a", dtype=np.int32,
                    filters=tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("b", dtype=np.float64,
                    filters=tiledb.FilterList([tiledb.BitShuffleFilter(), tiledb.LZ4Filter()])),
    ]
    schema = tiledb.ArraySchema(domain=domain(), attrs=attrs, sparse=False,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    rows = np.arange(1, 5, dtype=np.int64)[:, None]
    cols = np.arange(1, 7, dtype=np.int64)[None, :]
    a = (10 * rows + cols - 3 * (rows * cols % 5)).astype(np.int32)
    b = (rows + cols / 8.0).astype(np.float64)
    with tiledb.open(uri, "w", timestamp=FRAGMENT_TIMESTAMP) as A:
        A[1:5, 1:7] = {"a": a, "b": b}


def grid(f, dtype=object):
    return np.array([[f(r, c) for c in range(1, 7)] for r in range(1, 5)], dtype=dtype)


def var_values():
    return {
        "s": grid(lambda r, c: ("r%dc%d" % (r, c)) * (1 + (r * c) % 3)),
        "n": grid(lambda r, c: 10 * r + c, np.int32),
        "ns": grid(lambda r, c: "ab"[(r + c) % 2] * ((r + c) % 4)),
        "nu": grid(lambda r, c: "\u00e9" * (r % 3)),
        "r": grid(lambda r, c: "run" if c < 4 else "other"),
        "d": grid(lambda r, c: ["x", "yy", "zzz"][(r * c) % 3]),
        "c": grid(lambda r, c: b"abcdef"[(r + c) % 6:(r + c) % 6 + 1], "S1"),
        "u": grid(lambda r, c: r * 7 + c, np.uint8),
    }


def var_validity():
    return {
        "n": grid(lambda r, c: c <= 3 and (r + c) % 3 != 0, np.uint8),
        "ns": grid(lambda r, c: (r * c) % 4 != 0, np.uint8),
        "nu": grid(lambda r, c: (r + 2 * c) % 5 != 0, np.uint8),
        "c": grid(lambda r, c: (r + c) % 4 != 1, np.uint8),
    }


def var_attrs():
    F = tiledb.FilterList
    return [
        tiledb.Attr("s", dtype="ascii", var=True, filters=F([tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("n", dtype=np.int32, nullable=True, filters=F([tiledb.LZ4Filter()])),
        tiledb.Attr("ns", dtype="ascii", var=True, nullable=True),
        tiledb.Attr("nu", dtype=str, var=True, nullable=True),
        tiledb.Attr("r", dtype="ascii", var=True, filters=F([tiledb.RleFilter()])),
        tiledb.Attr("d", dtype=str, var=True, filters=F([tiledb.DictionaryFilter()])),
        tiledb.Attr("c", dtype="S1", nullable=True),
        tiledb.Attr("u", dtype=np.uint8),
    ]


def write_twin_var(out):
    uri = fresh(out, "twin_var")
    schema = tiledb.ArraySchema(domain=domain(), attrs=var_attrs(), sparse=False,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    validity = {k: np.ascontiguousarray(v.ravel(), np.uint8) for k, v in var_validity().items()}
    with tiledb.open(uri, "w", timestamp=FRAGMENT_TIMESTAMP) as A:
        # Explicit validity maps: the masked-array path of this release
        # rejects object (string) arrays.
        A._setitem_impl((slice(1, 5), slice(1, 7)), var_values(), validity)


def col_grid(f, dtype=object):
    return np.array([[f(r, c) for c in range(1, 7)] for r in range(1, 9)], dtype=dtype)


def col_f(r, c):
    if (r, c) == (3, 2):
        return float("nan")
    if (r, c) == (5, 5):
        return float("-inf")
    return r + c / 4.0


def col_values():
    return {
        "s": col_grid(lambda r, c: ("c%d" % c) * (1 + r % 2)),
        "ns": col_grid(lambda r, c: "q" * ((r * c) % 3)),
        "p": col_grid(lambda r, c: (r, c), np.dtype("i4, i4")),
        "f": col_grid(col_f, np.float64),
    }


def col_validity():
    return {
        "ns": col_grid(lambda r, c: (r + c) % 3 != 0, np.uint8),
        "p": col_grid(lambda r, c: (r * c) % 5 != 1, np.uint8),
        "f": col_grid(lambda r, c: (r + 2 * c) % 4 != 0, np.uint8),
    }


def write_twin_col(out):
    uri = fresh(out, "twin_col")
    dom = tiledb.Domain(
        tiledb.Dim("rows", domain=(1, 8), tile=2, dtype=np.int32),
        tiledb.Dim("cols", domain=(1, 6), tile=3, dtype=np.int32),
    )
    attrs = [
        tiledb.Attr("s", dtype="ascii", var=True, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("ns", dtype="ascii", var=True, nullable=True),
        tiledb.Attr("p", dtype=np.dtype("i4, i4"), nullable=True),
        tiledb.Attr("f", dtype=np.float64, nullable=True),
    ]
    schema = tiledb.ArraySchema(domain=dom, attrs=attrs, sparse=False,
                                cell_order="col-major", tile_order="col-major")
    tiledb.Array.create(uri, schema)
    validity = {k: np.ascontiguousarray(v.ravel(), np.uint8) for k, v in col_validity().items()}
    with tiledb.open(uri, "w", timestamp=FRAGMENT_TIMESTAMP) as A:
        # C-ordered values: a row-major query, as TileDB-Py writes.
        A._setitem_impl((slice(1, 9), slice(1, 7)), col_values(), validity)


def sparse_cells():
    n = 23
    return {
        "x": np.array([(i * 37) % 100 + 1 for i in range(n)], dtype=np.int32),
        "y": np.array([((i * 53) % 100) - 50 for i in range(n)], dtype=np.int64),
        "a": np.array([i * 3 - 20 for i in range(n)], dtype=np.int32),
        "f": np.array([i / 4.0 for i in range(n)], dtype=np.float64),
        "f_valid": np.array([i % 5 != 2 for i in range(n)], dtype=np.uint8),
        "s": np.array([("v%d" % (i * 7 % 11)) * (1 + i % 3) for i in range(n)], dtype=object),
    }


def write_twin_sparse(out):
    uri = fresh(out, "twin_sparse")
    dom = tiledb.Domain(
        tiledb.Dim("x", domain=(1, 100), tile=10, dtype=np.int32),
        tiledb.Dim("y", domain=(-50, 49), tile=25, dtype=np.int64),
    )
    attrs = [
        tiledb.Attr("a", dtype=np.int32, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("f", dtype=np.float64, nullable=True),
        tiledb.Attr("s", dtype="ascii", var=True),
    ]
    schema = tiledb.ArraySchema(domain=dom, attrs=attrs, sparse=True, capacity=4,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    c = sparse_cells()
    try:
        from tiledb.sparse_array import _setitem_impl_sparse as impl
    except ImportError:
        from tiledb.libtiledb import _setitem_impl_sparse as impl
    with tiledb.open(uri, "w", timestamp=FRAGMENT_TIMESTAMP) as A:
        impl(A, (c["x"], c["y"]), {"a": c["a"], "f": c["f"], "s": c["s"]}, {"f": c["f_valid"]})


GLOBAL_SUBMISSIONS = [5, 1, 9, 8]


def write_twin_sparse_global(out):
    """twin_sparse's schema and cells, written as one global-order query
    submitted four times (GLOBAL_SUBMISSIONS cells each: boundaries inside
    data tiles of 4), then finalized, through libtiledb's own query object."""
    import tiledb.libtiledb as lt

    uri = fresh(out, "twin_sparse_global")
    dom = tiledb.Domain(
        tiledb.Dim("x", domain=(1, 100), tile=10, dtype=np.int32),
        tiledb.Dim("y", domain=(-50, 49), tile=25, dtype=np.int64),
    )
    attrs = [
        tiledb.Attr("a", dtype=np.int32, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("f", dtype=np.float64, nullable=True),
        tiledb.Attr("s", dtype="ascii", var=True),
    ]
    schema = tiledb.ArraySchema(domain=dom, attrs=attrs, sparse=True, capacity=4,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    c = sparse_cells()
    # The global order: row-major space tiles (x extent 10 from 1, y extent
    # 25 from -50), then row-major coordinates.
    order = sorted(range(len(c["x"])), key=lambda i: ((int(c["x"][i]) - 1) // 10, (int(c["y"][i]) + 50) // 25,
                                                      int(c["x"][i]), int(c["y"][i])))
    ctx = lt.Context()
    arr = lt.Array(ctx, uri, lt.QueryType.WRITE, (None, FRAGMENT_TIMESTAMP))
    q = lt.Query(ctx, arr, lt.QueryType.WRITE)
    q.layout = lt.LayoutType.GLOBAL_ORDER
    at = 0
    keep = []  # the buffers stay alive until finalize
    for n in GLOBAL_SUBMISSIONS:
        idx = order[at:at + n]
        at += n
        x = np.ascontiguousarray(c["x"][idx])
        y = np.ascontiguousarray(c["y"][idx])
        a = np.ascontiguousarray(c["a"][idx])
        f = np.ascontiguousarray(c["f"][idx])
        fv = np.ascontiguousarray(c["f_valid"][idx])
        strs = [c["s"][i].encode() for i in idx]
        s_off = np.array(np.cumsum([0] + [len(v) for v in strs[:-1]]), dtype=np.uint64)
        s_val = np.frombuffer(b"".join(strs), dtype=np.uint8).copy()
        keep.append((x, y, a, f, fv, s_off, s_val))
        q.set_data_buffer("x", x, n)
        q.set_data_buffer("y", y, n)
        q.set_data_buffer("a", a, n)
        q.set_data_buffer("f", f, n)
        q.set_validity_buffer("f", fv, n)
        q.set_data_buffer("s", s_val, len(s_val))
        q.set_offsets_buffer("s", s_off, n)
        assert q._submit() == lt.QueryStatus.COMPLETE
    q.finalize()
    arr._close()


DENSE_GLOBAL_SUBMISSIONS = [5, 1, 9, 9]


def write_twin_dense_global(out):
    """twin_var's attributes and a FLOAT64 one, b [BITSHUFFLE, LZ4] = row +
    col / 8, over twin_var's subarray (rows 1-4, cols 1-6: two whole space
    tiles), written as one global-order query submitted four times
    (DENSE_GLOBAL_SUBMISSIONS cells each: the second tile starts inside the
    third), then finalized: cells tile after tile, row-major in each."""
    import tiledb.libtiledb as lt

    uri = fresh(out, "twin_dense_global")
    attrs = var_attrs() + [tiledb.Attr("b", dtype=np.float64,
                                       filters=tiledb.FilterList([tiledb.BitShuffleFilter(), tiledb.LZ4Filter()]))]
    schema = tiledb.ArraySchema(domain=domain(), attrs=attrs, sparse=False,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    values = var_values()
    values["b"] = grid(lambda r, c: r + c / 8.0, np.float64)
    validity = var_validity()
    # The global order over rows 1-4, cols 1-6: the tile of cols 1-3, then
    # that of cols 4-6, each row-major.
    order = [(r, c) for c0 in (1, 4) for r in range(1, 5) for c in range(c0, c0 + 3)]
    ctx = lt.Context()
    arr = lt.Array(ctx, uri, lt.QueryType.WRITE, (None, FRAGMENT_TIMESTAMP))
    q = lt.Query(ctx, arr, lt.QueryType.WRITE)
    q.layout = lt.LayoutType.GLOBAL_ORDER
    sub = lt.Subarray(ctx, arr)
    sub._add_dim_range(0, (1, 4))
    sub._add_dim_range(1, (1, 6))
    q.set_subarray(sub)
    at = 0
    keep = []  # the buffers stay alive until finalize
    for n in DENSE_GLOBAL_SUBMISSIONS:
        cells = order[at:at + n]
        at += n
        for name in ("s", "n", "ns", "nu", "r", "d", "c", "u", "b"):
            col = [values[name][r - 1, c - 1] for r, c in cells]
            if name in ("s", "ns", "nu", "r", "d"):
                strs = [v.encode() for v in col]
                off = np.array(np.cumsum([0] + [len(v) for v in strs[:-1]]), dtype=np.uint64)
                data = np.frombuffer(b"".join(strs) or b"\0", dtype=np.uint8).copy()
                keep.append((off, data))
                q.set_data_buffer(name, data, len(b"".join(strs)))
                q.set_offsets_buffer(name, off, n)
            else:
                data = np.ascontiguousarray(np.array(col, dtype=values[name].dtype))
                if name == "c":
                    data = np.frombuffer(b"".join(col), dtype=np.uint8).copy()
                keep.append(data)
                q.set_data_buffer(name, data, n)
            if name in validity:
                v = np.ascontiguousarray(np.array([validity[name][r - 1, c - 1] for r, c in cells], dtype=np.uint8))
                keep.append(v)
                q.set_validity_buffer(name, v, n)
        assert q._submit() == lt.QueryStatus.COMPLETE
    q.finalize()
    arr._close()


def partial_cells():
    rows = np.arange(2, 7)[:, None]
    cols = np.arange(2, 6)[None, :]
    return {
        "a": (100 * rows + cols).astype(np.int32),
        "n": (rows - cols / 8.0).astype(np.float64),
        "n_valid": (((rows + cols) % 4) != 0).astype(np.uint8),
        "s": grid_of(lambda r, c: "p" * ((r * c) % 5), 2, 7, 2, 6),
        "s_valid": (((rows * cols) % 3) != 0).astype(np.uint8),
    }


def grid_of(f, r0, r1, c0, c1):
    return np.array([[f(r, c) for c in range(c0, c1)] for r in range(r0, r1)], dtype=object)


def write_twin_partial(out):
    uri = fresh(out, "twin_partial")
    attrs = [
        tiledb.Attr("a", dtype=np.int32, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("n", dtype=np.float64, nullable=True),
        tiledb.Attr("s", dtype="ascii", var=True, nullable=True),
    ]
    schema = tiledb.ArraySchema(domain=domain(), attrs=attrs, sparse=False,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    c = partial_cells()
    validity = {"n": c["n_valid"].ravel(), "s": c["s_valid"].ravel()}
    with tiledb.open(uri, "w", timestamp=FRAGMENT_TIMESTAMP) as A:
        A._setitem_impl((slice(2, 7), slice(2, 6)), {"a": c["a"], "n": c["n"], "s": c["s"]}, validity)


def main():
    out = sys.argv[1]
    which = sys.argv[2:] or ["twin", "twin_var", "twin_col", "twin_sparse", "twin_partial", "twin_sparse_global",
                             "twin_dense_global"]
    if "twin" in which:
        write_twin(out)
    if "twin_var" in which:
        write_twin_var(out)
    if "twin_col" in which:
        write_twin_col(out)
    if "twin_sparse" in which:
        write_twin_sparse(out)
    if "twin_partial" in which:
        write_twin_partial(out)
    if "twin_sparse_global" in which:
        write_twin_sparse_global(out)
    if "twin_dense_global" in which:
        write_twin_dense_global(out)
    with open(os.path.join(out, "TILEDB_VERSION.txt"), "w") as f:
        f.write("libtiledb %s, TileDB-Py %s\n" % (".".join(map(str, tiledb.libtiledb.version())), tiledb.__version__))


if __name__ == "__main__":
    main()
