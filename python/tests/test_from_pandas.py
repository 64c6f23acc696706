"""tilefmt.from_pandas and tilefmt.from_numpy against TileDB-Py's functions
of the same names: the same frame or array goes to both, and

1. the schemas TileDB-Py reads of the two arrays are equal (``==``, the
   reprs, and field by field for what ``==`` leaves out: enumeration
   labels, the format version; then as tilefmt reads them, which gives the
   fill values of nullable attributes too);
2. the metadata are equal;
3. TileDB-Py's ``.df[:]`` of both are equal (from_numpy's: over the
   written cells), and so are its ``multi_index`` cells (which show the
   values stored under nulls);
4. tilefmt's ``.df`` of its array equals TileDB-Py's of TileDB-Py's.

What TileDB-Py refuses, tilefmt refuses, leaving nothing behind.
"""

import os
import warnings

import numpy as np
import pytest

import tilefmt

pd = pytest.importorskip("pandas")
tiledb = pytest.importorskip("tiledb")

_TDB_FILTERS = {"GZIP": "GzipFilter", "ZSTD": "ZstdFilter", "LZ4": "LZ4Filter", "RLE": "RleFilter",
                "BZIP2": "Bzip2Filter", "DICTIONARY": "DictionaryFilter", "BITSHUFFLE": "BitShuffleFilter",
                "BYTESHUFFLE": "ByteShuffleFilter", "CHECKSUM_MD5": "ChecksumMD5Filter",
                "CHECKSUM_SHA256": "ChecksumSHA256Filter", "NONE": "NoOpFilter"}


def tdb_filters(spec):
    """tilefmt's filter arguments as TileDB-Py's."""
    if spec is True or spec is None:
        return spec
    if isinstance(spec, dict):
        return {k: tdb_filters(v) for k, v in spec.items()}
    out = []
    for name, level in spec:
        cls = getattr(tiledb, _TDB_FILTERS[name])
        out.append(cls(level) if level is not None else cls())
    return out


def tdb_kwargs(kw):
    return {k: tdb_filters(v) if k.endswith("_filters") else v for k, v in kw.items()}


def filters_of(fl):
    return [repr(f) for f in fl]


def schema_fields(s):
    """Everything of a TileDB-Py schema."""
    dims = [(d.name, str(d.dtype), repr(d.domain), repr(d.tile), d.isvar, filters_of(d.filters))
            for d in s.domain]
    attrs = []
    for a in s:
        fill = None if a.isnullable else a.fill  # TileDB-Py gives no fill of nullable attributes
        attrs.append((a.name, str(a.dtype), a.isvar, a.isnullable, filters_of(a.filters),
                      a.enum_label, np.asarray(fill).tobytes() if not isinstance(fill, (str, bytes)) else fill))
    return (dims, attrs, s.sparse, s.cell_order, s.tile_order, s.capacity, s.sparse and s.allows_duplicates,
            filters_of(s.coords_filters), filters_of(s.offsets_filters), filters_of(s.validity_filters), s.version)


def assert_schemas_equal(theirs, ours):
    """The schemas of the arrays at `theirs` and `ours` as TileDB-Py reads
    them; then as tilefmt reads them, with the fill values of nullable
    attributes, which TileDB-Py does not give."""
    with tiledb.open(theirs) as A, tiledb.open(ours) as B:
        assert A.schema == B.schema, "\n%s\n%s" % (A.schema, B.schema)
        assert repr(A.schema) == repr(B.schema)
        assert schema_fields(A.schema) == schema_fields(B.schema)
    with tilefmt.open(theirs) as A, tilefmt.open(ours) as B:
        assert repr(A.schema) == repr(B.schema)


def both(tmp_path, df, **kw):
    """The frame into a TileDB-Py array and a tilefmt one (each from its own
    copy: TileDB-Py changes the frame it is given)."""
    theirs, ours = str(tmp_path / "theirs"), str(tmp_path / "ours")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TileDB-Py's deprecation warnings
        tiledb.from_pandas(theirs, df.copy(), **tdb_kwargs(kw))
    tilefmt.from_pandas(ours, df.copy(), **kw)
    return theirs, ours


def written(A):
    """The nonempty domain as the inclusive ranges multi_index and .df take
    (None when nothing is written)."""
    ned = A.nonempty_domain()
    return None if ned is None else tuple(slice(lo, hi) for lo, hi in ned)


def raw_cells(A):
    """TileDB-Py's multi_index over what is written: nullable attributes
    without their mask, so the values stored under nulls count too."""
    if A.schema.sparse:
        return A.multi_index[:]
    where = written(A)
    return {} if where is None else A.multi_index[where]


def check(theirs, ours, rows=None, over_written=False):
    """The comparisons 1. to 4. above; returns TileDB-Py's frame. With
    `over_written`, the frames are read over the nonempty domain rather
    than with [:], which has TileDB-Py read the whole domain of a dense
    array of several dimensions (from_numpy's full_domain ones are huge);
    with nothing written, there is then no frame (None)."""
    assert_schemas_equal(theirs, ours)
    with tiledb.open(theirs) as A, tiledb.open(ours) as B:
        assert dict(A.meta) == dict(B.meta)
        where = written(A) if over_written else slice(None)
        want = None if where is None else A.df[where]
        if want is not None:
            pd.testing.assert_frame_equal(want, B.df[where])
        a, b = raw_cells(A), raw_cells(B)
        assert list(a) == list(b)
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    if want is not None:
        with tilefmt.open(ours) as C:
            pd.testing.assert_frame_equal(want, C.df[where])
    if rows is not None:
        assert len(want) == rows
    return want


def frame(n=6, start=0, name="row"):
    """Columns of every kind from_pandas takes, under a named RangeIndex."""
    r = np.arange(start, start + n)
    return pd.DataFrame({
        "i32": r.astype(np.int32), "i64": r * 10, "u16": r.astype(np.uint16), "f32": r.astype(np.float32) / 4,
        "f64": np.where(r % 4 == 1, np.nan, r / 3), "b": r % 2 == 0,
        "t": pd.Series(pd.date_range("2021-03-01", periods=n, freq="h")).where(r % 5 != 3),
        "s": ["s%d" % (v * 7 % 11) for v in r], "y": [b"y%d" % v for v in r],
        "I": pd.array([None if v % 3 == 1 else int(v) for v in r], dtype="Int64"),
        "S": pd.array([None if v % 3 == 2 else "S%d" % v for v in r], dtype="string"),
        "B": pd.array([None if v % 4 == 0 else bool(v % 3) for v in r], dtype="boolean"),
        "F": pd.array([None if v % 2 else v / 2 for v in r], dtype="Float32"),
        "U8": pd.array([None if v == 2 else int(v) for v in r], dtype="UInt8"),
    }, index=pd.RangeIndex(start, start + n, name=name))


CASES = {
    "dense": dict(),
    "sparse": dict(sparse=True),
    "dense_full_domain": dict(sparse=False),
    "sparse_full_domain": dict(sparse=True, full_domain=True),
    "string_dim": dict(index_dims=["s"]),
    "datetime_string_dims": dict(index_dims=["t", "s"], df=lambda: frame().dropna(subset=["t"])),
    "int_float_dims": dict(index_dims=["i32", "f64"], df=lambda: frame().fillna({"f64": -1.0})),
    "datetime_dim": dict(index_dims=["t"], sparse=True, df=lambda: frame().dropna(subset=["t"])),
    "datetime_full_domain": dict(index_dims=["t"], sparse=True, full_domain=True, tile=5,
                                 df=lambda: frame().dropna(subset=["t"])),
    "int_column_dense": dict(index_dims=["i64"]),
    "uint_column_sparse": dict(index_dims=["u16"], sparse=True, tile=4),
    "float_full_domain": dict(index_dims=["f32"], sparse=True, full_domain=True),
    "multiindex": dict(df=lambda: frame().set_index(["i32", "s"])),
    "multiindex_3": dict(df=lambda: frame().set_index(["i32", "u16", "y"])),
    "no_duplicates": dict(sparse=True, allows_duplicates=False, capacity=3),
    "tile_and_orders": dict(index_dims=["i32", "s"], tile={"i32": 2}, cell_order="col-major",
                            tile_order="col-major"),
    "hilbert": dict(index_dims=["i64", "f32"], cell_order="hilbert"),
    "filters": dict(sparse=True, attr_filters={"i32": [("GZIP", 5)], "s": None, "f64": [("BYTESHUFFLE", None),
                                                                                       ("LZ4", 2)]},
                    dim_filters=[("BITSHUFFLE", None), ("BZIP2", 3)], offsets_filters=[("ZSTD", -1)]),
    "no_filters": dict(index_dims=["s"], attr_filters=None, dim_filters={"s": [("RLE", None)]}),
    "column_types": dict(sparse=True, column_types={"i64": np.int16, "s": "ascii", "f64": np.float32,
                                                    "I": "Int32", "y": str, "b": "boolean"}),
    "varlen_types": dict(varlen_types={pd.StringDtype()}, fillna={"S": "none"}),
    "fillna": dict(fillna={"f64": -1.5, "I": 7, "S": "x", "B": True}),
    "timestamp": dict(sparse=True, timestamp=12345),
    "date_spec": dict(sparse=True, date_spec={"d": "%Y-%m"},
                      df=lambda: frame().assign(d=["2020-%02d" % (m + 1) for m in range(6)])),
    "numbers_as_strings": dict(column_types={"i64": str, "f64": bytes, "b": "ascii"}),
    "int_column_names": dict(df=lambda: pd.DataFrame({0: [1.5, 2.5], 1: ["a", "b"]},
                                                     index=pd.RangeIndex(2, name="k"))),
    "reversed_index": dict(df=lambda: frame().set_index(pd.Index([5, 4, 3, 2, 1, 0], name="k"))),
    "one_row": dict(sparse=True, df=lambda: frame(1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_from_pandas_equals_tiledb_py(tmp_path, case):
    kw = dict(CASES[case])
    df = kw.pop("df", frame)()
    theirs, ours = both(tmp_path, df, **kw)
    check(theirs, ours, rows=len(df))
    if "timestamp" in kw:
        with tilefmt.open(ours) as A:
            assert [f.timestamp_range for f in A.fragments] == list(tiledb.array_fragments(theirs).timestamp_range)


def test_duplicates(tmp_path):
    """Sparse arrays keep cells with equal coordinates (allows_duplicates is
    TileDB-Py's default). Their order among themselves is not TileDB's to
    keep: libtiledb's sort of an unordered write is not stable and tilefmt's
    keeps the written order, so ties are compared ordered by value."""
    df = pd.DataFrame({"v": [1, 2, 3, 4, 5, 6]}, index=pd.Index([1, 0, 1, 0, 2, 1], name="k"))
    theirs, ours = both(tmp_path, df, sparse=True)
    assert_schemas_equal(theirs, ours)
    frames = []
    for uri, lib in ((theirs, tiledb), (ours, tiledb), (ours, tilefmt)):
        with lib.open(uri) as A:
            if lib is tiledb:
                assert dict(A.meta) == {"__pandas_index_dims": '{"k": "int64"}'}
            frames.append(A.df[:].reset_index().sort_values(["k", "v"], ignore_index=True))
    for f in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], f)
    assert frames[0]["k"].tolist() == [0, 0, 1, 1, 1, 2]


def test_the_comparisons_compare(tmp_path):
    """A difference in each of schema, metadata and cells is seen."""
    df = frame()
    theirs, ours = both(tmp_path, df, sparse=True)
    other = str(tmp_path / "other")
    tilefmt.from_pandas(other, df, sparse=True, tile=2)
    with pytest.raises(AssertionError):
        check(theirs, other)
    with tilefmt.open(ours, "w") as A:
        A.meta["extra"] = 1
    with pytest.raises(AssertionError):
        check(theirs, ours)
    third = str(tmp_path / "third")
    tilefmt.from_pandas(third, df.assign(i64=df["i64"] + 1), sparse=True)
    with pytest.raises(AssertionError):
        check(theirs, third)


def test_schema_only(tmp_path):
    theirs, ours = both(tmp_path, frame(), mode="schema_only", sparse=True)
    assert check(theirs, ours).empty
    with tilefmt.open(ours) as A:
        assert A.fragments == ()


@pytest.mark.parametrize("kw", [dict(sparse=True, full_domain=True), dict(sparse=False)])
def test_append_rows(tmp_path, kw):
    theirs, ours = both(tmp_path, frame(4), **kw)
    more = frame(5, start=4)
    for uri, f in ((theirs, tiledb.from_pandas), (ours, tilefmt.from_pandas)):
        f(uri, more.copy(), mode="append", row_start_idx=4)
    check(theirs, ours, rows=9)


@pytest.mark.parametrize("kw", [dict(sparse=True, full_domain=True), dict(sparse=False),
                                dict(index_dims=["s", "i64"], full_domain=True)])
def test_append_to_a_tiledb_py_array(tmp_path, kw):
    """tilefmt appends to what TileDB-Py made as TileDB-Py appends."""
    theirs, ours = str(tmp_path / "theirs"), str(tmp_path / "ours")
    for uri in (theirs, ours):
        tiledb.from_pandas(uri, frame(4), **kw)
    more = frame(3, start=4)
    start = None if kw.get("sparse", True) else 4
    tiledb.from_pandas(theirs, more.copy(), mode="append", row_start_idx=start)
    tilefmt.from_pandas(ours, more.copy(), mode="append", row_start_idx=start)
    check(theirs, ours, rows=7)


def test_encrypted(tmp_path):
    key = "0123456789abcdeF0123456789abcdeF"
    ours = str(tmp_path / "ours")
    tilefmt.from_pandas(ours, frame(), sparse=True, key=key)
    cfg = tiledb.Config({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key})
    with tiledb.open(ours, ctx=tiledb.Ctx(cfg)) as A:
        assert dict(A.meta)["__pandas_index_dims"] == '{"row": "int64"}'
        want = A.df[:]
    assert len(want) == 6
    with tilefmt.open(ours, key=key) as B:
        pd.testing.assert_frame_equal(want, B.df[:])


def test_the_frame_is_left_as_it_was(tmp_path):
    df = pd.DataFrame({0: [1.5, 2.5], "c": ["a", "b"]}, index=pd.RangeIndex(2, name="k"))
    before = df.copy()
    tilefmt.from_pandas(str(tmp_path / "a"), df)
    pd.testing.assert_frame_equal(df, before)  # TileDB-Py renames the columns to str in place


def test_append_dimension_columns(tmp_path):
    kw = dict(index_dims=["i64", "s"], full_domain=True)
    theirs, ours = both(tmp_path, frame(3), **kw)
    more = frame(4, start=10).reset_index(drop=True)
    for uri, f in ((theirs, tiledb.from_pandas), (ours, tilefmt.from_pandas)):
        f(uri, more.copy(), mode="append")
    check(theirs, ours, rows=7)


def test_append_fit_to_df(tmp_path):
    df = frame(4).reset_index(drop=True).assign(k=np.arange(4))
    theirs, ours = both(tmp_path, df, index_dims=["k"], sparse=False)
    more = frame(3).reset_index(drop=True).assign(k=np.arange(10, 13))
    for uri, f in ((theirs, tiledb.from_pandas), (ours, tilefmt.from_pandas)):
        f(uri, more.copy(), mode="append", fit_to_df=True)
    # The rows between the two writes read as fill values, in both.
    check(theirs, ours, rows=13)


def test_dense_append_needs_a_start(tmp_path):
    theirs, ours = both(tmp_path, frame(3), sparse=False)
    with pytest.raises(tiledb.TileDBError):
        tiledb.from_pandas(theirs, frame(3), mode="append")
    with pytest.raises(ValueError, match="row_start_idx"):
        tilefmt.from_pandas(ours, frame(3), mode="append")


BOTH_REFUSE = {
    "dense_string_dim": (dict(index_dims=["s"], sparse=False), ValueError),
    "dense_mixed_dims": (dict(index_dims=["i64", "f64"], sparse=False), ValueError),
    "dense_float_dim": (dict(index_dims=["f64"]), ValueError),
    "int32_full_domain": (dict(index_dims=["i32"], sparse=True, full_domain=True), ValueError),
    "uint8_whole_range": (dict(index_dims=["u"], sparse=False), ValueError),
    "float_one_value": (dict(index_dims=["f"], sparse=True), ValueError),
    "bool_dim": (dict(index_dims=["b"], sparse=True), TypeError),
    "complex": (dict(df=pd.DataFrame({"c": [1j, 2j]}, index=pd.RangeIndex(2, name="k"))), NotImplementedError),
    "float16": (dict(df=pd.DataFrame({"h": np.ones(2, np.float16)}, index=pd.RangeIndex(2, name="k"))),
                NotImplementedError),
    "timedelta": (dict(df=pd.DataFrame({"d": pd.to_timedelta([1, 2], unit="s")}, index=pd.RangeIndex(2, name="k"))),
                  NotImplementedError),
    "datetime_seconds": (dict(df=pd.DataFrame({"d": pd.to_datetime(["2020-01-01"]).astype("M8[s]")},
                                              index=pd.RangeIndex(1, name="k"))), NotImplementedError),
    "mixed_objects": (dict(df=pd.DataFrame({"m": ["a", b"b"]}, index=pd.RangeIndex(2, name="k"))),
                      NotImplementedError),
    "none_in_strings": (dict(df=pd.DataFrame({"s": ["a", None]}, index=pd.RangeIndex(2, name="k"))), TypeError),
    "ints_as_strings": (dict(column_types={"v": str}, sparse=True,
                             df=pd.DataFrame({"v": [1, 2]}, index=pd.RangeIndex(2, name="k"))), TypeError),
    "var_ints": (dict(varlen_types={pd.Int64Dtype()},
                      df=pd.DataFrame({"v": pd.array([1, 2], dtype="Int64")}, index=pd.RangeIndex(2, name="k"))),
                 TypeError),
    "dense_too_small": (dict(df=pd.DataFrame({"v": [1, 2, 3]}, index=pd.Index([1, 0, 1], name="k"))), IndexError),
    "dense_datetime_dim": (dict(index_dims=["t"], df=pd.DataFrame({"t": pd.date_range("2020-01-01", periods=2),
                                                                    "v": [1, 2]})), IndexError),
    "dense_two_dims": (dict(index_dims=["i64", "w"], df=pd.DataFrame({"i64": [0, 1], "w": [5, 6], "v": [1, 2]})),
                       ValueError),
    "dense_index_past_zero": (dict(df=pd.DataFrame({"v": [1, 2]}, index=pd.Index([3, 4], name="k"))), IndexError),
    "tile_string": (dict(tile="2"), ValueError),
    "bad_mode": (dict(mode="write"), ValueError),
    "unknown_dim": (dict(index_dims=["nope"]), ValueError),
}


@pytest.mark.parametrize("case", sorted(BOTH_REFUSE))
def test_both_refuse(tmp_path, case):
    kw, error = BOTH_REFUSE[case]
    kw = dict(kw)
    df = kw.pop("df", None)
    if df is None:
        df = pd.DataFrame({"s": ["a", "b"], "i32": np.array([-2**31, 2**31 - 1], np.int32), "i64": [1, 2],
                           "f64": [0.5, 1.5], "u": np.array([0, 255], np.uint8), "f": [1.0, 1.0], "b": [True, False]},
                          index=pd.RangeIndex(2, name="k"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception):
            tiledb.from_pandas(str(tmp_path / "theirs"), df.copy(), **kw)
    with pytest.raises(error):
        tilefmt.from_pandas(str(tmp_path / "ours"), df.copy(), **kw)
    assert not os.path.exists(tmp_path / "ours")  # nothing made, where TileDB-Py may leave an empty array


def test_existing_array(tmp_path):
    theirs, ours = both(tmp_path, frame(2), sparse=True)
    with pytest.raises(tiledb.TileDBError, match="already exists"):
        tiledb.from_pandas(theirs, frame(2))
    with pytest.raises(FileExistsError, match="already exists"):
        tilefmt.from_pandas(ours, frame(2))


# ---- the names TileDB-Py gives: "__tiledb_rows" ----

@pytest.mark.parametrize("kw", [dict(), dict(sparse=True, full_domain=True), dict(sparse=False)])
def test_unnamed_index(tmp_path, kw):
    """An unnamed index makes the dimension "__tiledb_rows", which .df turns
    back into an unnamed index; appends shift its rows by row_start_idx."""
    df = frame(5, name=None)
    theirs, ours = both(tmp_path, df, **kw)
    with tiledb.open(ours) as B:
        assert B.schema.domain.dim(0).name == "__tiledb_rows"
    if kw:
        more = frame(3, start=5, name=None)
        if kw.get("sparse"):
            # A sparse append takes the index as the coordinates, plus row_start_idx.
            more = more.reset_index(drop=True)
        for uri, f in ((theirs, tiledb.from_pandas), (ours, tilefmt.from_pandas)):
            f(uri, more.copy(), mode="append", row_start_idx=5 if kw["sparse"] is False else 100)
    want = check(theirs, ours, rows=8 if kw else 5)
    assert want.index.name is None


def test_index_named_tiledb_rows(tmp_path):
    """An index called "__tiledb_rows" (from_csv's) makes a uint64 dimension."""
    theirs, ours = both(tmp_path, frame(4, name="__tiledb_rows"), sparse=True)
    with tiledb.open(ours) as B:
        assert B.schema.domain.dim(0).dtype == np.uint64
    check(theirs, ours, rows=4)


def test_attribute_names_starting_with_two_underscores(tmp_path):
    """TileDB keeps such attribute names for itself (dimensions may have
    them): both libraries refuse a column or attr_name "__x"."""
    df = pd.DataFrame({"__x": [1, 2]}, index=pd.RangeIndex(2, name="k"))
    refused = 'attribute names starting with "__" are TileDB\'s: __x'
    with pytest.raises(tiledb.TileDBError, match="reserved"):
        tiledb.from_pandas(str(tmp_path / "theirs_pd"), df.copy())
    with pytest.raises(ValueError, match=refused):
        tilefmt.from_pandas(str(tmp_path / "ours_pd"), df.copy())
    with pytest.raises(tiledb.TileDBError, match="reserved"):
        tiledb.from_numpy(str(tmp_path / "theirs_np"), np.arange(3.0), attr_name="__x")
    with pytest.raises(ValueError, match=refused):
        tilefmt.from_numpy(str(tmp_path / "ours_np"), np.arange(3.0), attr_name="__x")
    assert not os.path.exists(tmp_path / "ours_pd") and not os.path.exists(tmp_path / "ours_np")
    # A column made a dimension may keep the name.
    df = df.assign(v=[0.5, 1.5])
    theirs, ours = both(tmp_path, df, index_dims=["__x"], sparse=True)
    check(theirs, ours, rows=2)


# ---- from_numpy ----

NUMPY = {
    "1d_float": (np.linspace(0, 1, 11), {}),
    "2d_int32": (np.arange(12, dtype=np.int32).reshape(3, 4), {}),
    "3d_uint8_tile": (np.arange(60, dtype=np.uint8).reshape(3, 4, 5), dict(tile=2)),
    "2d_tiles": (np.arange(24, dtype=np.int16).reshape(4, 6), dict(tile=(3, 4))),
    "tile_over_shape": (np.arange(5.0), dict(tile=50)),
    "fortran": (np.asfortranarray(np.arange(12.0).reshape(3, 4)), {}),
    "bool": (np.array([True, False, True]), {}),
    "datetime": (np.arange(4).astype("M8[D]"), {}),
    "bytes1": (np.array([b"a", b"b"], dtype="S1"), {}),
    "object_str": (np.array(["a", "bb", "", "dddd"], dtype=object), {}),
    "object_bytes": (np.array([[b"a", b"bb"], [b"", b"c"]], dtype=object), {}),
    "named_int32_dims": (np.arange(6, dtype=np.int64).reshape(2, 3),
                         dict(attr_name="v", dim_dtype=np.int32, capacity=7, cell_order="col-major",
                              tile_order="col-major", offsets_filters=[("ZSTD", -1)],
                              validity_filters=[("RLE", None)])),
    "timestamp": (np.arange(3.0), dict(timestamp=777)),
}


def _numpy_both(tmp_path, array, **kw):
    theirs, ours = str(tmp_path / "theirs"), str(tmp_path / "ours")
    tiledb.from_numpy(theirs, array, **tdb_kwargs(kw)).close()
    tilefmt.from_numpy(ours, array, **kw).close()
    return theirs, ours


def _one(result, name):
    # A[...] of one attribute: an array when it is anonymous, else a dict.
    return result[name] if isinstance(result, dict) else result


def _numpy_check(theirs, ours):
    """check()'s comparisons, and A[...] over the written cells, which gives
    the array itself for the anonymous attribute."""
    check(theirs, ours, over_written=True)
    with tiledb.open(theirs) as A, tiledb.open(ours) as B:
        ned = A.nonempty_domain()
        assert ned == B.nonempty_domain()
        if ned is None:
            return
        region = tuple(slice(int(lo), int(hi) + 1) for lo, hi in ned)
        name = A.schema.attr(0).name
        want, got = _one(A[region], name), _one(B[region], name)
        np.testing.assert_array_equal(want, got)
        assert want.dtype == got.dtype
    with tilefmt.open(ours) as C:
        np.testing.assert_array_equal(want, _one(C[region], name))
    with pytest.raises(AssertionError):  # the comparison compares
        np.testing.assert_array_equal(want, np.zeros_like(want) if want.dtype != object else want[::-1])


@pytest.mark.parametrize("case", sorted(NUMPY))
def test_from_numpy_equals_tiledb_py(tmp_path, case):
    array, kw = NUMPY[case]
    theirs, ours = _numpy_both(tmp_path, array, **kw)
    _numpy_check(theirs, ours)
    if "timestamp" in kw:
        with tilefmt.open(ours) as A:
            assert [f.timestamp_range for f in A.fragments] == list(tiledb.array_fragments(theirs).timestamp_range)


def test_from_numpy_names(tmp_path):
    """TileDB-Py's names: "__dim_0", "__dim_1", ... and the anonymous attribute."""
    theirs, ours = _numpy_both(tmp_path, np.arange(6.0).reshape(2, 3))
    _numpy_check(theirs, ours)
    with tilefmt.open(ours) as C:
        assert [d.name for d in C.schema.domain.dims] == ["__dim_0", "__dim_1"]
        assert [a.name for a in C.schema.attrs] == [""]


@pytest.mark.parametrize("append", [dict(), dict(append_dim=1), dict(start_idx=4)])
def test_from_numpy_append(tmp_path, append):
    first = np.arange(6.0).reshape(2, 3)
    theirs, ours = _numpy_both(tmp_path, first, full_domain=True, dim_dtype=np.int64)
    more = np.arange(100.0, 106.0).reshape(3, 2).T if append.get("append_dim") else np.arange(100.0, 103.0)[None]
    tiledb.from_numpy(theirs, more, mode="append", **append).close()
    tilefmt.from_numpy(ours, more, mode="append", **append).close()
    _numpy_check(theirs, ours)


def test_from_numpy_full_uint64_domain(tmp_path):
    """TileDB-Py's whole-range uint64 dimensions: tilefmt's dense writer
    stops at INT64_MAX and says so (dim_dtype=np.int64 works, above)."""
    tiledb.from_numpy(str(tmp_path / "theirs"), np.arange(3.0), full_domain=True).close()
    with pytest.raises(ValueError, match="INT64_MAX"):
        tilefmt.from_numpy(str(tmp_path / "ours"), np.arange(3.0), full_domain=True)
    assert not os.path.exists(tmp_path / "ours")


def test_from_numpy_schema_only(tmp_path):
    theirs, ours = _numpy_both(tmp_path, np.zeros((3, 4), np.float32), mode="schema_only", tile=2)
    _numpy_check(theirs, ours)


@pytest.mark.parametrize("array, kw, error", [
    (np.array(["a", "bb"]), {}, TypeError),                         # TileDB-Py creates, then fails to write
    (np.arange(3.0), dict(sparse=True), ValueError),
    (np.arange(3.0), dict(mode="write"), ValueError),
    (np.arange(3.0), dict(dim_dtype=np.float64), ValueError),
    (np.arange(3.0), dict(allows_duplicates=True), ValueError),
    (np.arange(3.0), dict(start_idx=2), TypeError),
    (np.arange(6.0).reshape(2, 3), dict(tile=(1,)), ValueError),
    (np.ones(2, np.float16), {}, TypeError),
    ([1.0, 2.0], {}, TypeError),
])
def test_from_numpy_both_refuse(tmp_path, array, kw, error):
    with pytest.raises(Exception):
        tiledb.from_numpy(str(tmp_path / "theirs"), array, **kw)
    with pytest.raises(error):
        tilefmt.from_numpy(str(tmp_path / "ours"), array, **kw)
    assert not os.path.exists(tmp_path / "ours")


@pytest.mark.parametrize("array, kw", [
    (np.arange(3).astype(np.complex128), {}),
    (np.zeros(3, dtype=[("x", "f4"), ("y", "f4")]), {}),
    (np.array([b"ab", b"c"]), {}),
])
def test_from_numpy_what_tilefmt_cannot_write(tmp_path, array, kw):
    """TileDB-Py makes these (cells of several values); tilefmt raises and
    leaves nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiledb.from_numpy(str(tmp_path / "theirs"), array, **tdb_kwargs(kw)).close()
    with pytest.raises(NotImplementedError):
        tilefmt.from_numpy(str(tmp_path / "ours"), array, **kw)
    assert not os.path.exists(tmp_path / "ours")


# ---- the schema's own pipelines: coordinates, offsets, validity ----

@pytest.mark.parametrize("kw", [dict(coords_filters=[("LZ4", None)]), dict(coords_filters=None),
                                dict(offsets_filters=None), dict(offsets_filters=[("BZIP2", 4)])],
                         ids=["coords LZ4", "coords none", "offsets none", "offsets BZIP2"])
def test_from_pandas_schema_pipelines(tmp_path, kw):
    theirs, ours = both(tmp_path, frame(3), sparse=True, **kw)
    assert_schemas_equal(theirs, ours)


@pytest.mark.parametrize("kw", [dict(coords_filters=[("ZSTD", None)]), dict(offsets_filters=[("LZ4", None)]),
                                dict(validity_filters=[("RLE", None), ("ZSTD", 3)])],
                         ids=["coords", "offsets", "validity"])
def test_from_numpy_schema_pipelines(tmp_path, kw):
    theirs, ours = str(tmp_path / "theirs"), str(tmp_path / "ours")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiledb.from_numpy(theirs, np.arange(3.0), **tdb_kwargs(kw)).close()
    tilefmt.from_numpy(ours, np.arange(3.0), **kw).close()
    assert_schemas_equal(theirs, ours)


def test_schema_pipelines_declared_in_python(tmp_path):
    """tilefmt.Schema's coords_filters / offsets_filters / validity_filters
    (filter objects or tuples) stored as TileDB-Py stores the same schema
    (its coordinate filters replace every dimension's)."""
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    tilefmt.create(ours, tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("d", (0, 9), 10, np.int64), tilefmt.Dim("e", (0, 9), 10, np.int64,
                                                                                  filters=[("LZ4", None)])),
        attrs=[tilefmt.Attr("s", str, nullable=True)], sparse=True,
        coords_filters=[tilefmt.ZstdFilter(5)], offsets_filters=tilefmt.FilterList([tilefmt.LZ4Filter()]),
        validity_filters=[("RLE", None), ("GZIP", 2)]))
    tiledb.Array.create(theirs, tiledb.ArraySchema(
        domain=tiledb.Domain(tiledb.Dim("d", (0, 9), 10, dtype=np.int64),
                             tiledb.Dim("e", (0, 9), 10, dtype=np.int64, filters=[tiledb.LZ4Filter()])),
        attrs=[tiledb.Attr("s", dtype=str, nullable=True)], sparse=True,
        coords_filters=[tiledb.ZstdFilter(5)], offsets_filters=[tiledb.LZ4Filter()],
        validity_filters=[tiledb.RleFilter(), tiledb.GzipFilter(2)]))
    assert_schemas_equal(theirs, ours)
    with tilefmt.open(ours) as A:
        assert A.schema.coords_filters == () and A.schema.domain.dim("e").filters == (("ZSTD", 5),)
        assert [f[0] for f in A.schema.validity_filters] == ["RLE", "GZIP"]
