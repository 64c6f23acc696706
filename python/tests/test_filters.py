"""Filter lists as TileDB-Py shows them: a schema read from disk shows each
dimension's and attribute's filters with their options (the committed
arrays and, with TILEFMT_INTEROP_CORPUS, every array of the newest
release's corpus, against TileDB-Py's FilterList), and every filter the
writer has can be declared from Python: TileDB-Py reads the schema and the
cells back."""

import os

import numpy as np
import pytest

import tilefmt
from tilefmt import _types

tiledb = pytest.importorskip("tiledb")

from conftest import DATA
from test_arrow import _newest_corpus_arrays

_NAMES = {"GzipFilter": "GZIP", "ZstdFilter": "ZSTD", "LZ4Filter": "LZ4", "Bzip2Filter": "BZIP2", "RleFilter": "RLE",
          "DictionaryFilter": "DICTIONARY", "DeltaFilter": "DELTA", "DoubleDeltaFilter": "DOUBLE_DELTA",
          "BitShuffleFilter": "BITSHUFFLE", "ByteShuffleFilter": "BYTESHUFFLE",
          "BitWidthReductionFilter": "BIT_WIDTH_REDUCTION", "PositiveDeltaFilter": "POSITIVE_DELTA",
          "ChecksumMD5Filter": "CHECKSUM_MD5", "ChecksumSHA256Filter": "CHECKSUM_SHA256",
          "FloatScaleFilter": "SCALE_FLOAT", "XORFilter": "XOR", "WebpFilter": "WEBP", "NoOpFilter": "NONE"}
_WINDOW_DEFAULT = {"BIT_WIDTH_REDUCTION": 256, "POSITIVE_DELTA": 1024}


def theirs(f):
    """TileDB-Py's filter object in tilefmt's tuple form."""
    name = _NAMES[type(f).__name__]
    if name in ("GZIP", "ZSTD", "LZ4", "BZIP2", "RLE", "DICTIONARY"):
        return (name, f.level)
    if name in ("DELTA", "DOUBLE_DELTA"):
        as_type = f.reinterp_dtype
        if as_type is None:
            return (name, f.level)
        return (name, f.level, {"reinterpret_datatype": np.dtype(as_type)})
    if name in _WINDOW_DEFAULT:
        return (name, None) if f.window == _WINDOW_DEFAULT[name] else (name, None, {"max_window_size": f.window})
    if name == "SCALE_FLOAT":
        return (name, None, {"scale": f.factor, "offset": f.offset, "byte_width": f.bytewidth})
    if name == "WEBP":
        return (name, None, {"quality": f.quality, "format": int(f.input_format), "lossless": int(f.lossless)})
    return (name, None)


def ours(f):
    """tilefmt's tuple, reinterpret types as NumPy dtypes and WebP without
    the tile extents (TileDB-Py does not show them)."""
    if len(f) == 3:
        opts = dict(f[2])
        if "reinterpret_datatype" in opts:
            opts["reinterpret_datatype"] = _types.base_dtype(opts["reinterpret_datatype"])
        if f[0] == "WEBP":
            opts = {k: opts[k] for k in ("quality", "format", "lossless")}
        return (f[0], f[1], opts)
    return tuple(f)


def compare(uri, key=None):
    ctx = tiledb.Ctx({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key}) if key else None
    with tilefmt.open(uri, key=key) as A, tiledb.open(uri, ctx=ctx) as T:
        for d, t in zip(A.schema.domain.dims, T.schema.domain):
            assert [ours(f) for f in d.filters] == [theirs(f) for f in t.filters], (uri, d.name)
        for a, t in zip(A.schema.attrs, [T.schema.attr(i) for i in range(T.schema.nattr)]):
            assert [ours(f) for f in a.filters] == [theirs(f) for f in t.filters], (uri, a.name)


COMMITTED = sorted(n for n in os.listdir(os.path.join(DATA, "tiledb")) if os.path.isdir(os.path.join(DATA, "tiledb", n)))
KEY = "0123456789abcdeF0123456789abcdeF"


@pytest.mark.parametrize("name", COMMITTED)
def test_filters_of_committed_arrays(name):
    compare(os.path.join(DATA, "tiledb", name, "array"), KEY if name.startswith("encrypted") else None)


@pytest.mark.skipif(not _newest_corpus_arrays(), reason="no interop corpus (TILEFMT_INTEROP_CORPUS)")
def test_filters_of_the_corpus():
    for uri, key in _newest_corpus_arrays():
        compare(uri, key)


# Every filter with options, on attributes of the types it takes.
DECLARED = [
    ("i64", np.int64, [("DELTA", -1, {"reinterpret_datatype": "INT32"}), ("ZSTD", 5)]),
    ("i32", np.int32, [("DOUBLE_DELTA", 3), ("BIT_WIDTH_REDUCTION", None, {"max_window_size": 512})]),
    ("u16", np.uint16, [("POSITIVE_DELTA", None, {"max_window_size": 64}), ("RLE", -1), ("CHECKSUM_MD5", None)]),
    ("f64", np.float64, [("SCALE_FLOAT", None, {"scale": 0.5, "offset": 1.0, "byte_width": 4}), ("XOR", None),
                         ("BZIP2", 9), ("CHECKSUM_SHA256", None)]),
    ("f32", np.float32, [("BITSHUFFLE", None), ("LZ4", 2), ("GZIP", 6), ("NONE", None)]),
    ("s", str, [("DICTIONARY", -1), ("BYTESHUFFLE", None)]),
]


def test_every_filter_declared_from_python(tmp_path):
    uri = str(tmp_path / "a")
    schema = tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 999), 100, np.int64, filters=[("DELTA", 2)])),
                            attrs=[tilefmt.Attr(n, dt, filters=f) for n, dt, f in DECLARED])
    tilefmt.create(uri, schema)
    rng = np.random.default_rng(5)
    values = {"i64": np.cumsum(rng.integers(0, 100, 1000)).astype(np.int64),
              "i32": rng.integers(-50, 50, 1000).astype(np.int32),
              "u16": np.sort(rng.integers(0, 60000, 1000)).astype(np.uint16),
              "f64": rng.integers(0, 1000, 1000) * 0.5 + 1.0,
              "f32": rng.random(1000).astype(np.float32),
              "s": np.array(["label %d" % (i % 7) for i in range(1000)], dtype=object)}
    with tilefmt.open(uri, "w") as A:
        A[0:1000] = values
    with tilefmt.open(uri) as A:
        for (n, _, f), a in zip(DECLARED, A.schema.attrs):
            assert list(a.filters) == [x if len(x) == 3 or x[0] in ("DELTA", "DOUBLE_DELTA") or x[1] is not None
                                       else x for x in f], n
        assert list(A.schema.domain.dims[0].filters) == [("DELTA", 2)]
    compare(uri)
    with tiledb.open(uri) as T:
        got = T[:]
        for n in values:
            assert np.array_equal(got[n], values[n]), n


@pytest.mark.parametrize("bad", [("NOPE", None), ("ZSTD", None, {"window": 3}), ("BITSHUFFLE", 3),
                                 ("POSITIVE_DELTA", None, {"max_window": 3}), ("ZSTD",) * 4])
def test_bad_filters_are_refused(tmp_path, bad):
    schema = tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 9), 5, np.int64)),
                            attrs=[tilefmt.Attr("a", np.int64, filters=[bad])])
    with pytest.raises(ValueError):
        tilefmt.create(str(tmp_path / "a"), schema)
    assert not os.path.exists(str(tmp_path / "a"))


# Schemas print as TileDB-Py prints them.

def test_schema_repr_of_committed_arrays():
    differ = []
    for name in COMMITTED:
        uri, key = os.path.join(DATA, "tiledb", name, "array"), KEY if name.startswith("encrypted") else None
        ctx = tiledb.Ctx({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key}) if key else None
        with tilefmt.open(uri, key=key) as A, tiledb.open(uri, ctx=ctx) as T:
            if repr(A.schema) != repr(T.schema):
                differ.append((name, repr(A.schema), repr(T.schema)))
    assert not differ, differ[:3]


@pytest.mark.skipif(not _newest_corpus_arrays(), reason="no interop corpus (TILEFMT_INTEROP_CORPUS)")
def test_schema_repr_of_the_corpus():
    differ = []
    for uri, key in _newest_corpus_arrays():
        ctx = tiledb.Ctx({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key}) if key else None
        with tilefmt.open(uri, key=key) as A, tiledb.open(uri, ctx=ctx) as T:
            if repr(A.schema) != repr(T.schema):
                differ.append((uri, repr(A.schema), repr(T.schema)))
    assert not differ, differ[:3]


def _declared(lib):
    # The same TileDB-Py code, with either library as `lib`.
    dims = [lib.Dim(name="d", domain=(1, 100), tile=10, dtype="int32"),
            lib.Dim(name="s", domain=(None, None), tile=None, dtype="ascii",
                    filters=lib.FilterList([lib.ZstdFilter(level=3)])),
            lib.Dim(name="t", domain=(np.datetime64(0, "D"), np.datetime64(9, "D")), tile=np.timedelta64(2, "D"),
                    dtype="datetime64[D]"),
            lib.Dim(name="f", domain=(0.0, 1.0), tile=0.5, dtype=np.float64)]
    attrs = [lib.Attr(name="a", dtype="float64"),
             lib.Attr(name="b", dtype=str, nullable=True,
                      filters=lib.FilterList([lib.ByteShuffleFilter(), lib.ZstdFilter(level=5)])),
             lib.Attr(name="c", dtype="S3"),
             lib.Attr(name="p", dtype=np.int64, filters=[lib.PositiveDeltaFilter(window=512), lib.DeltaFilter(),
                                                         lib.DoubleDeltaFilter(reinterp_dtype=np.int32)]),
             lib.Attr(name="v", dtype=np.float32,
                      filters=[lib.GzipFilter(level=-1), lib.FloatScaleFilter(1.0, 0.0, 8), lib.BitWidthReductionFilter(),
                               lib.ChecksumMD5Filter(), lib.RleFilter(), lib.XORFilter(), lib.BitShuffleFilter(),
                               lib.Bzip2Filter(), lib.LZ4Filter(), lib.NoOpFilter(), lib.ChecksumSHA256Filter()]),
             lib.Attr(name="w", dtype=bytes)]
    return lib.ArraySchema(domain=lib.Domain(*dims), attrs=attrs, sparse=True, allows_duplicates=True, capacity=1234)


def test_schema_declared_as_in_tiledb_py(tmp_path):
    ours, theirs_schema = _declared(tilefmt), _declared(tiledb)
    assert repr(ours) == repr(theirs_schema)
    assert ours.attr("b").filters == (("BYTESHUFFLE", None), ("ZSTD", 5))
    # Created by tilefmt from the filter objects: TileDB-Py reads the same schema back.
    uri = str(tmp_path / "a")
    tilefmt.create(uri, ours)
    with tiledb.open(uri) as T, tilefmt.open(uri) as A:
        assert repr(T.schema) == repr(A.schema)
        assert repr(T.schema.attr("v").filters) == repr(tilefmt.FilterList(A.schema.attr("v").filters))
    dense = tilefmt.ArraySchema(domain=tilefmt.Domain(tilefmt.Dim(name="x", domain=(0, 9), tile=5, dtype=np.uint64)),
                                attrs=[tilefmt.Attr(name="v", dtype=np.float32)], cell_order="col-major",
                                tile_order="col-major")
    assert repr(dense) == repr(tiledb.ArraySchema(
        domain=tiledb.Domain(tiledb.Dim(name="x", domain=(0, 9), tile=5, dtype=np.uint64)),
        attrs=[tiledb.Attr(name="v", dtype=np.float32)], cell_order="col-major", tile_order="col-major"))
    assert repr(tilefmt.FilterList([tilefmt.ZstdFilter(level=3), tilefmt.BitShuffleFilter()])) == repr(
        tiledb.FilterList([tiledb.ZstdFilter(level=3), tiledb.BitShuffleFilter()]))
