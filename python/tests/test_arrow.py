"""Query results as Arrow (the PyCapsule interface) and pandas DataFrames:

- pyarrow validates every export in full, and its values are tilefmt's own
  reading of the same query, on every committed array;
- `.df[...]` equals TileDB-Py's `.df[...]` (pandas.testing.assert_frame_equal)
  wherever TileDB-Py answers; multi-value attributes, which TileDB-Py's
  Arrow path refuses, come as lists with the values of `multi_index`;
- Polars and DuckDB read the streams, also with pyarrow hidden from them.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tilefmt

pa = pytest.importorskip("pyarrow")
from conftest import DATA  # noqa: E402

KEY = "0123456789abcdeF0123456789abcdeF"
ALL = [n for n in sorted(os.listdir(os.path.join(DATA, "tiledb"))) if os.path.isdir(os.path.join(DATA, "tiledb", n, "array"))]


def path(name):
    return os.path.join(DATA, "tiledb", name, "array")


def opened(name):
    return tilefmt.open(path(name), key=KEY if name.startswith("encrypted") else None)


def as_int64(values):
    return np.asarray(values).view("int64") if np.asarray(values).dtype.kind in "mM" else np.asarray(values).astype("int64")


def column_equal(col, want, what):
    """An Arrow column against tilefmt's multi_index answer for it."""
    mask = np.ma.getmaskarray(want) if np.ma.isMaskedArray(want) else np.zeros(len(want), bool)
    data = np.ma.getdata(want)
    t = col.type
    got = col.to_pylist()
    assert len(got) == len(data), what
    assert [g is None for g in got] == list(mask), "%s: nulls" % what
    if pa.types.is_timestamp(t) or pa.types.is_duration(t) or pa.types.is_date(t):
        ints = col.cast(pa.int32() if pa.types.is_date32(t) else pa.int64()).to_pylist()
        expect = as_int64(data).tolist()
        assert [g for g, m in zip(ints, mask) if not m] == [e for e, m in zip(expect, mask) if not m], what
        return
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        expect = [list(x) for x in data] if data.dtype == object else [list(r) for r in data.reshape(len(got), -1)]
        assert [g for g, m in zip(got, mask) if not m] == [[v.item() if hasattr(v, "item") else v for v in e]
                                                           for e, m in zip(expect, mask) if not m], what
        return
    expect = [v.item() if hasattr(v, "item") else v for v in data.tolist()] if data.dtype != object else list(data)
    for g, e, m in zip(got, expect, mask):
        if m:
            continue
        if isinstance(e, float) and np.isnan(e):
            assert g is not None and np.isnan(g), what
        elif pa.types.is_fixed_size_binary(t) and isinstance(e, str):
            assert g == e.encode(), what
        elif pa.types.is_large_string(t) and isinstance(e, bytes):  # ASCII: NumPy bytes, Arrow text (as TileDB-Py's)
            assert g.encode() == e, what
        else:
            assert g == e, "%s: %r, expected %r" % (what, g, e)


@pytest.mark.parametrize("name", ALL)
def test_every_export_validates_and_holds_what_tilefmt_reads(name):
    with opened(name) as A:
        q = A.query(dims=True)
        table = pa.RecordBatchReader.from_stream(q).read_all()
        table.validate(full=True)
        want = q.multi_index[:]
        checked = 0
        for field in table.schema:
            assert field.metadata[b"tiledb.datatype"]
            w = want[field.name]
            if not A.schema.sparse:  # dense: shaped as the region, the stream in C order
                multi = A.schema.has_attr(field.name) and A.schema.attr(field.name).cell_val_num > 1
                w = w.reshape(table.num_rows, -1) if multi else w.ravel()
            assert len(w) == table.num_rows
            column_equal(table.column(field.name), w, "%s.%s" % (name, field.name))
            checked += 1
        # Dimensions too: a dense array's coordinates, as the query asks for them.
        assert checked == len(A.schema.attrs) + A.schema.ndim


CORPUS = os.environ.get("TILEFMT_INTEROP_CORPUS", "")


def _newest_corpus_arrays():
    """The newest release's corpus arrays (path, key), when the corpus is there."""
    manifest = os.path.join(CORPUS, "manifest.json")
    if not CORPUS or not os.path.isfile(manifest):
        return []
    import json
    with open(manifest) as f:
        arrays = json.load(f)["arrays"]
    newest = max({a["libtiledb_version"] for a in arrays}, key=lambda v: tuple(int(x) for x in v.split(".")))
    return [(os.path.join(CORPUS, a["path"]), (a.get("encryption") or {}).get("key"))
            for a in arrays if a["libtiledb_version"] == newest]


@pytest.mark.skipif(not _newest_corpus_arrays(), reason="no interop corpus (TILEFMT_INTEROP_CORPUS)")
def test_every_corpus_export_validates():
    """Every array of the newest release's corpus: the stream validates in
    full and holds as many cells as multi_index returns; a read tilefmt
    refuses (a filter this build lacks) is refused by both."""
    checked = 0
    for uri, key in _newest_corpus_arrays():
        with tilefmt.open(uri, key=key) as A:
            try:
                want = A.query(dims=True).multi_index[:]
            except Exception:
                with pytest.raises(Exception):
                    pa.RecordBatchReader.from_stream(A.query()).read_all()
                continue
            table = pa.RecordBatchReader.from_stream(A.query()).read_all()
            table.validate(full=True)
            first = next(iter(want.values()))
            assert table.num_rows == (first.size if not A.schema.sparse else len(first)), uri
            checked += 1
    assert checked >= 50


def test_batches_of_a_stream_add_up():
    with opened("sparse_2d_duplicates") as A:
        whole = pa.RecordBatchReader.from_stream(A.query(order="G")).read_all()
        reader = pa.RecordBatchReader.from_stream(tilefmt.ArrowResult(A.query(order="G"), [[], []], batch_bytes=256))
        parts = list(reader)
        assert len(parts) > 1
        assert pa.Table.from_batches(parts).equals(whole)


def test_enumerations_are_dictionaries_and_booleans_bits():
    with opened("enumeration") as A:
        table = pa.table(A.query().arrow[:])
        enumerated = [f for f in table.schema if pa.types.is_dictionary(f.type)]
        assert enumerated
        labels = A.multi_index[:]
        for f in enumerated:
            assert table.column(f.name).to_pylist() == [None if m else v for v, m in zip(
                np.ma.getdata(labels[f.name]).tolist(), np.ma.getmaskarray(labels[f.name]))]


tiledb = None
try:
    import tiledb  # noqa: F811
except ImportError:
    pass


def tiledb_df(name, sel):
    cfg = tiledb.Config({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": KEY}) if name.startswith("encrypted") else None
    with tiledb.open(path(name), ctx=tiledb.Ctx(cfg) if cfg else None) as B:
        return B.df[sel]


@pytest.mark.skipif(tiledb is None, reason="TileDB-Py is not installed")
@pytest.mark.parametrize("batch_bytes", [None, 64], ids=["batches of 64 MiB", "batches of a slab"])
@pytest.mark.parametrize("name", ALL)
def test_df_is_tiledb_pys(name, batch_bytes, monkeypatch):
    """`batch_bytes` 64: every slab a batch of its own (the smallest the
    reader cuts), each converted into the frame's columns."""
    import pandas as pd
    if batch_bytes:
        monkeypatch.setattr(tilefmt._arrow, "DF_BATCH_BYTES", batch_bytes)
    with opened(name) as A:
        multi = [a.name for a in A.schema.attrs
                 if a.cell_val_num > 1 or (a.cell_val_num == 0 and np.dtype(a.dtype).kind not in "USO")]
    if multi:
        # TileDB-Py's Arrow path refuses these; its .df falls back to NumPy
        # results without their nulls. test_every_export_... checks ours.
        pytest.skip("multi-value attributes %s" % multi)
    try:
        want = tiledb_df(name, slice(None))
    except Exception as e:  # TileDB-Py refuses (multi-value attributes): ours must still answer
        pytest.skip("TileDB-Py refuses: %s" % e)
    with opened(name) as A:
        got = A.df[:]
    pd.testing.assert_frame_equal(got, want, check_dtype=True)


POLARS_DUCKDB = textwrap.dedent("""
    import importlib.util, sys
    import numpy as np, polars as pl, duckdb, tilefmt
    A = tilefmt.open(sys.argv[1])
    want = A.multi_index[:]
    frame = pl.DataFrame(A.query().arrow[:])
    assert frame.columns == list(want), frame.columns
    assert frame["a"].to_list() == np.asarray(want["a"]).tolist()
    r = A.query().arrow[:]
    total = duckdb.sql("select sum(a)::bigint as s, count(*) as n from r").fetchall()[0]
    assert total == (int(np.asarray(want["a"], dtype=np.int64).sum()), len(want["a"])), total
    print("ok", importlib.util.find_spec("pyarrow") is not None)
""")


@pytest.mark.parametrize("without_pyarrow", [False, True])
def test_polars_and_duckdb_read_the_stream(without_pyarrow, tmp_path):
    """Also in a venv without pyarrow (scripts/python_test.sh makes it:
    NumPy, Polars and DuckDB), importing this tilefmt."""
    pytest.importorskip("polars")
    pytest.importorskip("duckdb")
    python, env = sys.executable, dict(os.environ)
    if without_pyarrow:
        python = os.environ.get("TILEFMT_NO_PYARROW_PYTHON")
        if not python:
            pytest.skip("no venv without pyarrow (scripts/python_test.sh makes one)")
        site = tmp_path / "site"
        site.mkdir()
        os.symlink(os.path.dirname(tilefmt.__file__), site / "tilefmt")
        libs = os.path.join(os.path.dirname(os.path.dirname(tilefmt.__file__)), "tilefmt.libs")
        if os.path.isdir(libs):  # the wheel's bundled libraries, found beside the package
            os.symlink(libs, site / "tilefmt.libs")
        env["PYTHONPATH"] = str(site)
    uri = str(tmp_path / "sparse")
    schema = tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 999), 100, np.int64)),
                            attrs=[tilefmt.Attr("a", np.int32)], sparse=True)
    tilefmt.create(uri, schema)
    with tilefmt.open(uri, "w") as A:
        A[np.arange(0, 1000, 3, dtype=np.int64)] = {"a": np.arange(334, dtype=np.int32)}
    out = subprocess.run([python, "-c", POLARS_DUCKDB, uri], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", "False" if without_pyarrow else "True"]


def test_df_columns_filled_batch_by_batch_equal_their_concatenation():
    """_Columns (the frame a batched .df fills): NumPy, object, datetime,
    categorical, masked integer and boolean, and string extension
    columns, sized too small at first (grown twice), equal to pandas'
    concatenation of the pieces."""
    import pandas as pd
    from tilefmt._arrow import _Columns
    rng = np.random.default_rng(3)

    def piece(n, start):
        return pd.DataFrame({
            "f": rng.random(n),
            "i": np.arange(start, start + n, dtype=np.int16),
            "s": np.array(["s%d" % (k % 7) for k in range(n)], dtype=object),
            "t": np.arange(start, start + n).astype("datetime64[ms]"),
            "c": pd.Categorical.from_codes(rng.integers(-1, 3, n), categories=["x", "y", "z"]),
            "m": pd.array([None if k % 3 == 0 else k for k in range(n)], dtype="Int32"),
            "b": pd.array([None if k % 4 == 0 else k % 2 == 0 for k in range(n)], dtype="boolean"),
            "e": pd.array(["e%d" % k for k in range(n)], dtype="string"),
        })
    pieces = [piece(n, 100 * k) for k, n in enumerate([5, 1, 17, 0, 40])]
    cols = _Columns(8)
    for p in pieces:
        cols.add(p)
    got = cols.frame()
    want = pd.concat(pieces, ignore_index=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=True)
    assert cols.capacity >= 63


@pytest.mark.skipif(tiledb is None, reason="TileDB-Py is not installed")
@pytest.mark.parametrize("order", ["C", "F"])
def test_dense_coordinates_come_in_the_stream(order):
    """A dense query with dimensions streams each cell's coordinates (made
    by the C++ reader from the subarray), as TileDB-Py's coords=True."""
    pa = pytest.importorskip("pyarrow")
    name = "dense_2d_tilecol_cellcol"
    sel = ([(1, 2), (5, 6)], slice(3, 9))
    with opened(name) as A:
        table = pa.table(A.query(dims=True, order=order).arrow[sel])
        dims = [d.name for d in A.schema.domain.dims]
        assert table.column_names[:len(dims)] == dims
    with tiledb.open(path(name)) as B:
        want = B.query(coords=True, order=order).multi_index[sel]
    for n in want:
        np.testing.assert_array_equal(table.column(n).to_numpy(), np.asarray(want[n]).ravel(), err_msg=n)
    with opened(name) as A, pytest.raises(ValueError, match="row-major and column-major"):
        pa.table(A.query(dims=True, order="G").arrow[sel])
