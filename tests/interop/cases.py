"""The arrays of the interop corpus.

Each case is a function that receives a generate.Builder and makes one array.
Data comes from a numpy Generator seeded with the case name, so two runs with
the same TileDB-Py write the same cell values (fragment names, timestamps and
encrypted bytes differ between runs, as they do in TileDB itself).

Feature checks: a case that needs something this TileDB-Py release lacks
raises Skip (the whole array is skipped) or calls b.skip() for the part it
leaves out; both end up in the manifest.
"""

import zlib

import numpy as np
import tiledb

import tdbcompat as tc
from tdbcompat import Skip

_CASES = []


class Case:
    def __init__(self, name, fn, tags, doc):
        self.name = name
        self.fn = fn
        self.tags = tuple(tags)
        self.doc = doc


def case(name, *tags):
    def deco(fn):
        _CASES.append(Case(name, fn, tags, (fn.__doc__ or "").strip()))
        return fn
    return deco


def all_cases():
    return list(_CASES)


# ---------------------------------------------------------------- helpers


def rng_for(b):
    return np.random.default_rng(zlib.crc32(b.name.encode()))


def D(name, lo, hi, tile, dtype=np.int32, filters=None):
    kw = {"name": name, "domain": (lo, hi), "tile": tile, "dtype": dtype}
    if filters is not None:
        kw["filters"] = tiledb.FilterList(filters)
    return tiledb.Dim(**kw)


def SD(name, filters=None):
    """String (ASCII, var-size) dimension."""
    kw = {"name": name, "domain": (None, None), "tile": None, "dtype": "ascii"}
    if filters is not None:
        kw["filters"] = tiledb.FilterList(filters)
    return tiledb.Dim(**kw)


def A(name, dtype, filters=None, chunksize=None, **kw):
    if filters is not None:
        kw["filters"] = tiledb.FilterList(filters, chunksize=chunksize) if chunksize else tiledb.FilterList(filters)
    return tiledb.Attr(name=name, dtype=dtype, **kw)


def S(dims, attrs, sparse=False, **kw):
    return tiledb.ArraySchema(domain=tiledb.Domain(*dims), attrs=attrs, sparse=sparse, **kw)


def need_filter(cls_name):
    if not tc.has_filter(cls_name):
        raise Skip("TileDB-Py %s has no tiledb.%s" % (tc.py_version(), cls_name))
    return getattr(tiledb, cls_name)


def need(cond, reason):
    if not cond:
        raise Skip(reason)


def obj(values):
    values = list(values)
    a = np.empty(len(values), dtype=object)
    a[:] = values
    return a


ASCII_WORDS = [b"alpha", b"beta", b"gamma", b"d", b"epsilon", b"zeta-eta-theta", b"iota", b"kappa lambda", b"mu", b"nu"]
UTF8_WORDS = ["h\u00e9llo", "w\u00f6rld", "\u65e5\u672c\u8a9e", "plain", "\u00df", "caf\u00e9 cr\u00e8me", "\U0001f600 emoji", "\u0394elta", "x", ""]


def ascii_strings(rng, n, empty=False):
    """ASCII cells (bytes). No trailing NULs: TileDB-Py strips them on write."""
    words = ASCII_WORDS + ([b""] if empty else [])
    return obj(words[i] + (b"%d" % j if j % 3 == 0 else b"") for i, j in zip(rng.integers(0, len(words), n), range(n)))


def utf8_strings(rng, n):
    return obj(UTF8_WORDS[i] for i in rng.integers(0, len(UTF8_WORDS), n))


def blobs(rng, n, maxlen=12):
    return obj(bytes(rng.integers(0, 256, int(k), dtype=np.uint8)) + b"\x01" for k in rng.integers(0, maxlen, n))


def unique_coords(rng, lo, hi, n, dtype=np.int64):
    return (np.sort(rng.choice(hi - lo + 1, size=n, replace=False)).astype(np.int64) + lo).astype(dtype)


def numeric(rng, dtype, n):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind == "f":
        return (rng.standard_normal(n) * 1000).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
        return rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if dt.kind == "i" or dt.itemsize < 8 else np.uint64).astype(dt)
    if dt.kind in "mM":
        return rng.integers(-(10 ** 12), 10 ** 12, n).astype(dt)
    raise ValueError(dt)


def probe_attr(make_attr, values):
    """Try one attribute in a scratch dense array: None if TileDB-Py can
    create, write and read it back, else the error text."""
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="tilefmt-probe-")
    try:
        uri = d + "/a"
        tiledb.Array.create(uri, S([D("d", 0, len(values) - 1, len(values))], [make_attr()]))
        with tiledb.open(uri, "w") as arr:
            tc.write_dense(arr, slice(0, len(values)), {"x": values})
        with tiledb.open(uri) as arr:
            tc.raw_read(arr, arr.schema, ["x"], "C", [(0, len(values) - 1)])
            arr.schema.attr("x").dtype
        return None
    except Exception as e:
        return str(e).splitlines()[0] if str(e) else type(e).__name__
    finally:
        shutil.rmtree(d, ignore_errors=True)


def validity(rng, n, p=0.3):
    v = (rng.random(n) >= p).astype(np.uint8)
    v[0] = 1
    return v


# ---------------------------------------------------------------- dense layouts


@case("dense_1d_int32", "dense", "dim_1d", "int32", "multi_fragment", "partial_tile")
def dense_1d_int32(b):
    """Dense 1D int32, tile 10; a full write and a partial one not aligned to tiles."""
    r = rng_for(b)
    b.create(S([D("d", 1, 100, 10)], [A("a", np.int32)]))
    b.write({"a": numeric(r, np.int32, 100)}, subarray=[(1, 100)])
    b.write({"a": numeric(r, np.int32, 23)}, subarray=[(15, 37)])


@case("dense_1d_tile_past_domain", "dense", "dim_1d", "int64", "var", "utf8", "tile_exceeds_domain")
def dense_1d_tile_past_domain(b):
    """Dense 1D, domain 1..50 with tile 16: the last space tile reaches past the domain."""
    r = rng_for(b)
    b.create(S([D("d", 1, 50, 16, np.int64)], [A("a", np.int64), A("s", str)]))
    b.write({"a": numeric(r, np.int64, 11), "s": utf8_strings(r, 11)}, subarray=[(40, 50)])
    b.write({"a": numeric(r, np.int64, 50), "s": utf8_strings(r, 50)}, subarray=[(1, 50)])


def _dense_2d(b, tile_order, cell_order):
    r = rng_for(b)
    b.create(S([D("r", 1, 12, 4), D("c", 1, 15, 5)], [A("a", np.int32), A("f", np.float64)],
               tile_order=tile_order, cell_order=cell_order))
    b.write({"a": np.arange(180, dtype=np.int32), "f": numeric(r, np.float64, 180)}, subarray=[(1, 12), (1, 15)])
    b.write({"a": -np.arange(56, dtype=np.int32), "f": numeric(r, np.float64, 56)}, subarray=[(3, 9), (4, 11)])


for _t in ("row", "col"):
    for _c in ("row", "col"):
        def _mk(t=_t, c=_c):
            def fn(b):
                _dense_2d(b, t + "-major", c + "-major")
            fn.__doc__ = "Dense 2D 12x15, tiles 4x5, tile order %s-major, cell order %s-major; full + partial fragment." % (t, c)
            return fn
        case("dense_2d_tile%s_cell%s" % (_t, _c), "dense", "dim_2d", "int32", "float64", "multi_fragment",
             "partial_tile", "tile_order_" + _t, "cell_order_" + _c)(_mk())


@case("dense_2d_tiles_8x32", "dense", "dim_2d", "int16", "tile_extents")
def dense_2d_tiles_8x32(b):
    """Dense 2D 64x64 with 8x32 tiles; partial write."""
    r = rng_for(b)
    b.create(S([D("y", 0, 63, 8, np.uint16), D("x", 0, 63, 32, np.uint16)], [A("v", np.int16)]))
    b.write({"v": numeric(r, np.int16, 20 * 50)}, subarray=[(5, 24), (10, 59)])


@case("dense_2d_tiles_1x64", "dense", "dim_2d", "uint32", "tile_extents", "cell_order_col", "tile_order_col")
def dense_2d_tiles_1x64(b):
    """Dense 2D 16x64 with 1x64 tiles (one row per tile), column-major orders."""
    r = rng_for(b)
    b.create(S([D("y", 0, 15, 1, np.int64), D("x", 0, 63, 64, np.int64)], [A("v", np.uint32)],
               tile_order="col-major", cell_order="col-major"))
    b.write({"v": numeric(r, np.uint32, 6 * 40)}, subarray=[(3, 8), (12, 51)])


def _dense_3d(b, order):
    r = rng_for(b)
    b.create(S([D("z", 0, 3, 2), D("y", 0, 5, 3), D("x", 0, 9, 5)], [A("u", np.uint8), A("i", np.int32)],
               tile_order=order, cell_order=order))
    b.write({"u": numeric(r, np.uint8, 240), "i": np.arange(240, dtype=np.int32)}, subarray=[(0, 3), (0, 5), (0, 9)])
    b.write({"u": numeric(r, np.uint8, 2 * 3 * 6), "i": -np.arange(36, dtype=np.int32)}, subarray=[(1, 2), (2, 4), (3, 8)])


@case("dense_3d_row", "dense", "dim_3d", "uint8", "int32", "multi_fragment", "partial_tile", "tile_order_row", "cell_order_row")
def dense_3d_row(b):
    """Dense 3D 4x6x10, tiles 2x3x5, row-major; full + partial fragment."""
    _dense_3d(b, "row-major")


@case("dense_3d_col", "dense", "dim_3d", "uint8", "int32", "multi_fragment", "partial_tile", "tile_order_col", "cell_order_col")
def dense_3d_col(b):
    """Dense 3D 4x6x10, tiles 2x3x5, column-major; full + partial fragment."""
    _dense_3d(b, "col-major")


@case("dense_1d_int64_negative", "dense", "dim_1d", "float32")
def dense_1d_int64_negative(b):
    """Dense 1D over a negative int64 domain (-1000..999), tile 64."""
    r = rng_for(b)
    b.create(S([D("d", -1000, 999, 64, np.int64)], [A("f", np.float32)]))
    # TileDB-Py reads a negative slice start as an index from the end, so the
    # write starts above 0; the tile grid is still anchored at -1000.
    b.write({"f": numeric(r, np.float32, 300)}, subarray=[(5, 304)])


@case("dense_1d_uint8_dim", "dense", "dim_1d", "uint64", "custom_fill", "partial_tile")
def dense_1d_uint8_dim(b):
    """Dense 1D with a uint8 dimension (0..199), tile 25, and a custom fill value."""
    r = rng_for(b)
    b.create(S([D("d", 0, 199, 25, np.uint8)], [A("v", np.uint64, fill=12345)]))
    b.write({"v": numeric(r, np.uint64, 90)}, subarray=[(60, 149)])


# ---------------------------------------------------------------- sparse layouts


@case("sparse_1d_int64", "sparse", "dim_1d", "int64_dim", "var", "ascii", "multi_fragment", "no_duplicates")
def sparse_1d_int64(b):
    """Sparse 1D int64 dimension, capacity 20, two fragments, no duplicates."""
    r = rng_for(b)
    b.create(S([D("d", -10 ** 6, 10 ** 6, 1000, np.int64)], [A("a", np.int32), A("s", "ascii", var=True)],
               sparse=True, capacity=20))
    for n in (200, 37):
        c = unique_coords(r, -10 ** 6, 10 ** 6, n)
        r.shuffle(c)
        b.write({"a": numeric(r, np.int32, n), "s": ascii_strings(r, n)}, coords=[c])


@case("sparse_2d_duplicates", "sparse", "dim_2d", "duplicates", "nullable", "var", "utf8", "float32")
def sparse_2d_duplicates(b):
    """Sparse 2D int32 with duplicate coordinates allowed (and present), nullable fixed and var attributes."""
    r = rng_for(b)
    b.create(S([D("r", 0, 99, 10), D("c", 0, 99, 10)],
               [A("f", np.float32), A("n", np.int32, nullable=True), A("s", str, nullable=True)],
               sparse=True, capacity=16, allows_duplicates=True))
    n = 120
    rows = r.integers(0, 20, n).astype(np.int32)
    cols = r.integers(0, 20, n).astype(np.int32)
    rows[10:20] = rows[0]
    cols[10:20] = cols[0]
    b.write({"f": numeric(r, np.float32, n), "n": numeric(r, np.int32, n), "s": utf8_strings(r, n)},
            coords=[rows, cols], validity={"n": validity(r, n), "s": validity(r, n)})


@case("sparse_2d_colmajor", "sparse", "dim_2d", "no_duplicates", "tile_order_col", "cell_order_col", "uint16")
def sparse_2d_colmajor(b):
    """Sparse 2D uint64 dims, column-major tile and cell order, capacity 8."""
    r = rng_for(b)
    b.create(S([D("r", 0, 999, 100, np.uint64), D("c", 0, 999, 50, np.uint64)], [A("v", np.uint16)],
               sparse=True, capacity=8, tile_order="col-major", cell_order="col-major"))
    flat = unique_coords(r, 0, 999999, 90)
    b.write({"v": numeric(r, np.uint16, 90)}, coords=[(flat // 1000).astype(np.uint64), (flat % 1000).astype(np.uint64)])


@case("sparse_float_dims", "sparse", "dim_2d", "float_dims", "int64")
def sparse_float_dims(b):
    """Sparse with float64 and float32 dimensions (with tile extents)."""
    r = rng_for(b)
    b.create(S([D("x", -100.0, 100.0, 25.0, np.float64), D("y", 0.0, 1.0, 0.125, np.float32)], [A("v", np.int64)],
               sparse=True, capacity=10))
    n = 75
    b.write({"v": numeric(r, np.int64, n)},
            coords=[(r.random(n) * 200 - 100).astype(np.float64), r.random(n).astype(np.float32)])


@case("sparse_string_dim", "sparse", "string_dim", "dim_2d", "var", "utf8", "multi_fragment")
def sparse_string_dim(b):
    """Sparse with an ASCII string dimension and an int32 dimension; two fragments."""
    r = rng_for(b)
    b.create(S([SD("key"), D("k", 0, 1000, 100)], [A("v", np.int32), A("u", str)], sparse=True, capacity=12))
    for n in (60, 25):
        keys = obj(b"key-%05d" % x for x in r.integers(0, 400, n))
        k = r.integers(0, 1001, n).astype(np.int32)
        pairs = {}
        for kk, ii in zip(keys, k):
            pairs[(kk, int(ii))] = True
        keys = obj(p[0] for p in pairs)
        k = np.array([p[1] for p in pairs], dtype=np.int32)
        m = len(keys)
        b.write({"v": numeric(r, np.int32, m), "u": utf8_strings(r, m)}, coords=[keys, k])


@case("sparse_string_dim_duplicates", "sparse", "string_dim", "dim_1d", "duplicates", "blob", "var")
def sparse_string_dim_duplicates(b):
    """Sparse 1D string dimension with duplicates allowed; var blob attribute."""
    r = rng_for(b)
    need(tc.can_make_attr(name="x", dtype="blob", var=True), "no var BLOB attributes in this TileDB-Py")
    b.create(S([SD("key")], [A("b", "blob", var=True)], sparse=True, capacity=7, allows_duplicates=True))
    keys = obj([b"a", b"b", b"a", b"", b"zz", b"b", b"a"] * 5 + [b"m%d" % i for i in range(20)])
    b.write({"b": blobs(r, len(keys))}, coords=[keys])


@case("sparse_datetime_dim", "sparse", "datetime_dim", "dim_1d", "datetime")
def sparse_datetime_dim(b):
    """Sparse 1D datetime64[ns] dimension."""
    r = rng_for(b)
    lo, hi = np.datetime64("2000-01-01", "ns"), np.datetime64("2030-01-01", "ns")
    b.create(S([tiledb.Dim(name="t", domain=(lo, hi), tile=np.timedelta64(86400 * 10 ** 9 * 30, "ns"), dtype="datetime64[ns]")],
               [A("v", np.float64)], sparse=True, capacity=9))
    n = 50
    t = np.sort(r.integers(int(lo.astype(np.int64)), int(hi.astype(np.int64)), n)).astype("datetime64[ns]")
    b.write({"v": numeric(r, np.float64, n)}, coords=[t])


@case("sparse_hilbert", "sparse", "dim_2d", "hilbert", "int32")
def sparse_hilbert(b):
    """Sparse 2D with Hilbert cell order."""
    r = rng_for(b)
    b.create(S([D("x", 0, 1023, 64), D("y", 0, 1023, 64)], [A("v", np.int32)], sparse=True, capacity=16, cell_order="hilbert"))
    flat = unique_coords(r, 0, 1024 * 1024 - 1, 100)
    b.write({"v": numeric(r, np.int32, 100)}, coords=[(flat // 1024).astype(np.int32), (flat % 1024).astype(np.int32)])


@case("sparse_3d_mixed_dims", "sparse", "dim_3d", "string_dim", "float_dims", "int64_dim", "int8")
def sparse_3d_mixed_dims(b):
    """Sparse 3D with int64, float64 and string dimensions."""
    r = rng_for(b)
    b.create(S([D("i", 0, 10 ** 9, 10 ** 6, np.int64), D("f", -1.0, 1.0, 0.5, np.float64), SD("s")], [A("v", np.int8)],
               sparse=True, capacity=10))
    n = 40
    b.write({"v": numeric(r, np.int8, n)},
            coords=[unique_coords(r, 0, 10 ** 9, n), (r.random(n) * 2 - 1), obj(ASCII_WORDS[i] for i in r.integers(0, 10, n))])


# ---------------------------------------------------------------- datatypes


NUMERIC = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64]
DATETIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
TIME_UNITS = ["h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]


@case("types_fixed_dense", "dense", "types", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
      "float32", "float64", "bool", "char", "blob_fixed")
def types_fixed_dense(b):
    """Dense 1D with one attribute per fixed-size datatype: all integers, floats, BOOL, CHAR, fixed BLOB."""
    r = rng_for(b)
    n = 64
    attrs = [A(np.dtype(t).name, t) for t in NUMERIC] + [A("bool", np.bool_), A("char", "S1")]
    vals = {np.dtype(t).name: numeric(r, t, n) for t in NUMERIC}
    vals["bool"] = numeric(r, np.bool_, n)
    vals["char"] = np.array([bytes([c]) for c in r.integers(33, 127, n)], dtype="S1")
    if tc.can_make_attr(name="x", dtype="blob"):
        attrs.append(A("blob", "blob"))
        vals["blob"] = np.array([bytes([c]) for c in r.integers(1, 256, n)], dtype="S1")
    else:
        b.skip("blob_fixed", "no BLOB attributes in this TileDB-Py")
    b.create(S([D("d", 0, n - 1, 16, np.uint32)], attrs))
    b.write(vals, subarray=[(0, n - 1)])


@case("types_datetime_dense", "dense", "types", "datetime", "time")
def types_datetime_dense(b):
    """Dense 1D with one attribute per DATETIME_* and TIME_* unit."""
    r = rng_for(b)
    n = 40
    attrs, vals = [], {}
    for prefix, kind, units in (("dt_", "datetime64", DATETIME_UNITS), ("tm_", "timedelta64", TIME_UNITS)):
        for u in units:
            dt = "%s[%s]" % (kind, u)
            v = r.integers(-(10 ** 6), 10 ** 6, n).astype(dt)
            err = probe_attr(lambda: A("x", dt), v[:2])
            if err:
                b.skip(prefix + u, "TileDB-Py %s cannot store/read %s: %s" % (tc.py_version(), dt, err))
                continue
            attrs.append(A(prefix + u, dt))
            vals[prefix + u] = v
    need(attrs, "no datetime/time attribute works in this TileDB-Py")
    b.create(S([D("d", 1, n, 8)], attrs))
    b.write(vals, subarray=[(1, n)])


@case("types_var_sparse", "sparse", "types", "var", "ascii", "utf8", "blob", "char_var", "var_numeric")
def types_var_sparse(b):
    """Sparse 1D with var-size attributes: STRING_ASCII, STRING_UTF8, CHAR, BLOB, GEOM_WKB/WKT, int32, float64."""
    r = rng_for(b)
    n = 45
    attrs = [A("ascii", "ascii", var=True), A("utf8", str), A("char", np.bytes_, var=True)]
    vals = {"ascii": ascii_strings(r, n, empty=True), "utf8": utf8_strings(r, n), "char": ascii_strings(r, n)}
    if tc.can_make_attr(name="x", dtype="blob", var=True):
        attrs.append(A("blob", "blob", var=True))
        vals["blob"] = blobs(r, n)
    else:
        b.skip("blob", "no BLOB attributes in this TileDB-Py")
    for g in ("wkb", "wkt"):
        if tc.can_make_attr(name="x", dtype=g):
            attrs.append(A(g, g))
            vals[g] = blobs(r, n) if g == "wkb" else obj(b"POINT (%d %d)" % (i, j) for i, j in r.integers(0, 100, (n, 2)))
        else:
            b.skip("geom_" + g, "no GEOM_%s datatype in this TileDB-Py" % g.upper())
    attrs += [A("vi32", np.int32, var=True), A("vf64", np.float64, var=True)]
    vals["vi32"] = obj(numeric(r, np.int32, int(k)) for k in r.integers(1, 6, n))
    vals["vf64"] = obj(numeric(r, np.float64, int(k)) for k in r.integers(1, 4, n))
    b.create(S([D("d", 0, 10 ** 6, 1000, np.int64)], attrs, sparse=True, capacity=10))
    b.write(vals, coords=[unique_coords(r, 0, 10 ** 6, n)])


@case("types_multivalue", "dense", "types", "multi_value", "int32", "float64", "uint8")
def types_multivalue(b):
    """Dense 1D with fixed multi-value cells: 3 x int32, 3 x float64, 4 x uint8, 2 x int16."""
    r = rng_for(b)
    n = 30
    # (TileDB-Py reads 2 x float as complex, so the float case uses 3 values.)
    specs = {"i3": (np.int32, 3), "f3": (np.float64, 3), "u4": (np.uint8, 4), "s2": (np.int16, 2)}
    attrs, vals = [], {}
    for name, (t, k) in specs.items():
        dt = np.dtype([("", t)] * k)
        v = numeric(r, t, n * k).view(dt)
        err = probe_attr(lambda: A("x", dt), v[:2])
        if err:
            b.skip(name, "TileDB-Py %s cannot store/read %d x %s: %s" % (tc.py_version(), k, np.dtype(t).name, err))
            continue
        attrs.append(A(name, dt))
        vals[name] = v
    b.create(S([D("d", 0, n - 1, 10)], attrs))
    b.write(vals, subarray=[(0, n - 1)])


def _nullable_attrs():
    return [A("i32", np.int32, nullable=True), A("f64", np.float64, nullable=True), A("u8", np.uint8, nullable=True),
            A("utf8", str, nullable=True), A("ascii", "ascii", var=True, nullable=True),
            A("vi64", np.int64, var=True, nullable=True)]


def _nullable_vals(r, n):
    vals = {"i32": numeric(r, np.int32, n), "f64": numeric(r, np.float64, n), "u8": numeric(r, np.uint8, n),
            "utf8": utf8_strings(r, n), "ascii": ascii_strings(r, n),
            "vi64": obj(numeric(r, np.int64, int(k)) for k in r.integers(1, 4, n))}
    return vals, {k: validity(r, n) for k in vals}


@case("nullable_dense", "dense", "nullable", "var", "utf8", "ascii", "var_numeric", "partial_tile")
def nullable_dense(b):
    """Dense 1D nullable attributes (fixed, var strings, var int64); a partial write leaves fill cells."""
    r = rng_for(b)
    b.create(S([D("d", 1, 60, 12)], _nullable_attrs()))
    vals, valid = _nullable_vals(r, 40)
    b.write(vals, subarray=[(7, 46)], validity=valid)


@case("dense_fragments_custom_fill", "dense", "dim_2d", "nullable", "var", "utf8", "custom_fill", "partial_tile",
      "multi_fragment")
def dense_fragments_custom_fill(b):
    """Dense 2D (1..50 x 1..30, tiles 10x10), three overlapping partial writes,
    custom fill values on a var string ("N/A") and a nullable float (-1.5):
    space tiles written by one fragment whole or in part, by two, and by
    none (the cases TileDB aggregates from tile metadata, or not)."""
    r = rng_for(b)
    try:
        attrs = [A("i64", np.int64), A("s", str, var=True, fill="N/A"), A("f", np.float64, nullable=True, fill=-1.5)]
        schema = S([D("r", 1, 50, 10), D("c", 1, 30, 10)], attrs)
    except (tiledb.TileDBError, TypeError, ValueError) as e:
        raise Skip("TileDB-Py %s cannot set these fill values: %s" % (tc.py_version(), e))
    b.create(schema)
    for lo_r, hi_r, lo_c, hi_c in ((1, 20, 1, 30), (15, 25, 5, 14), (31, 40, 21, 30)):
        n = (hi_r - lo_r + 1) * (hi_c - lo_c + 1)
        vals = {"i64": numeric(r, np.int64, n), "s": utf8_strings(r, n), "f": numeric(r, np.float64, n)}
        b.write(vals, subarray=[(lo_r, hi_r), (lo_c, hi_c)], validity={"f": validity(r, n)})


@case("nullable_sparse", "sparse", "nullable", "var", "utf8", "ascii", "var_numeric")
def nullable_sparse(b):
    """Sparse 1D nullable attributes (fixed, var strings, var int64)."""
    r = rng_for(b)
    b.create(S([D("d", 0, 9999, 100)], _nullable_attrs(), sparse=True, capacity=16))
    vals, valid = _nullable_vals(r, 50)
    b.write(vals, coords=[unique_coords(r, 0, 9999, 50, np.int32)], validity=valid)


@case("enumeration", "dense", "enumeration", "utf8")
def enumeration(b):
    """Dense 1D attribute with an enumeration (categorical labels)."""
    need(hasattr(tiledb, "Enumeration"), "TileDB-Py %s has no enumerations" % tc.py_version())
    r = rng_for(b)
    enum = tiledb.Enumeration("colors", False, ["red", "green", "blue", "h\u00e9"])
    b.create(tiledb.ArraySchema(domain=tiledb.Domain(D("d", 0, 19, 10)), attrs=[A("c", np.uint8, enum_label="colors"), A("v", np.int32)],
                                enums=[enum]))
    b.write({"c": r.integers(0, 4, 20).astype(np.uint8), "v": numeric(r, np.int32, 20)}, subarray=[(0, 19)])


@case("enumeration_evolved", "sparse", "enumeration", "schema_evolution", "multiple_schemas", "current_domain", "utf8")
def enumeration_evolved(b):
    """Sparse 1D with an enumeration and a current domain: a write, then an evolution extending the enumeration and adding one with an attribute that uses it, then one expanding the current domain, then a write using the new labels."""
    need(hasattr(tiledb, "ArraySchemaEvolution") and hasattr(tiledb.ArraySchemaEvolution, "extend_enumeration")
         and hasattr(tiledb, "CurrentDomain"), "TileDB-Py %s cannot evolve enumerations and current domains" % tc.py_version())
    r = rng_for(b)
    colors = tiledb.Enumeration("colors", False, ["red", "green", "blue"])
    dom = tiledb.Domain(D("d", 0, 999, 100))
    cd = tiledb.CurrentDomain(tiledb.default_ctx())
    nd = tiledb.NDRectangle(tiledb.default_ctx(), dom)
    nd.set_range(0, 0, 99)
    cd.set_ndrectangle(nd)
    schema = tiledb.ArraySchema(domain=dom, attrs=[A("c", np.int8, enum_label="colors"), A("v", np.int32)], enums=[colors],
                                sparse=True, capacity=10)
    schema.set_current_domain(cd)
    b.create(schema)
    b.write({"c": r.integers(0, 3, 12).astype(np.int8), "v": numeric(r, np.int32, 12)}, coords=[unique_coords(r, 0, 99, 12, np.int32)])
    shapes = tiledb.Enumeration("shapes", True, ["circle", "square"])

    def extend(ev):
        ev.extend_enumeration(colors.extend(["teal", "h\u00e9"]))
        ev.add_enumeration(shapes)
        ev.add_attribute(A("s", np.uint16, enum_label="shapes"))
    b.evolve(extend)

    def grow(ev):
        cd2 = tiledb.CurrentDomain(tiledb.default_ctx())
        nd2 = tiledb.NDRectangle(tiledb.default_ctx(), dom)
        nd2.set_range(0, 0, 499)
        cd2.set_ndrectangle(nd2)
        ev.expand_current_domain(cd2)
    b.evolve(grow)
    b.write({"c": r.integers(0, 5, 8).astype(np.int8), "v": numeric(r, np.int32, 8), "s": r.integers(0, 2, 8).astype(np.uint16)},
            coords=[unique_coords(r, 100, 499, 8, np.int32)])


# ---------------------------------------------------------------- filters


def _filter_case(name, make_filters, dtype, data, tags, doc, n=2000, tile=1000, var=False, nullable=False, chunksize=None, requires=()):
    def fn(b):
        for cls in requires:
            need_filter(cls)
        r = rng_for(b)
        filters = make_filters()
        a = A("a", dtype, filters=filters, chunksize=chunksize, var=var or None, nullable=nullable)
        b.create(S([D("d", 1, n, tile, np.int64)], [a]))
        vals = data(r, n)
        valid = {"a": validity(r, n)} if nullable else None
        try:
            b.write({"a": vals}, subarray=[(1, n)], validity=valid)
        except tiledb.TileDBError as e:
            # e.g. libtiledb 2.13 applies DICTIONARY to STRING_ASCII only
            raise Skip("libtiledb %s rejects this pipeline: %s" % (tc.lib_version(), str(e).splitlines()[0]))
    fn.__doc__ = doc
    case(name, "dense", "filters", *tags)(fn)


def smooth_int(r, n, dtype, step=5):
    return np.cumsum(r.integers(-step, step + 1, n)).astype(dtype)


def increasing(r, n, dtype):
    return np.cumsum(r.integers(0, 50, n)).astype(dtype)


def runs(r, n, dtype):
    return np.repeat(r.integers(0, 5, n // 20 + 1), 20)[:n].astype(dtype)


def floats_rounded(r, n, dtype=np.float64):
    return (np.round(np.cumsum(r.standard_normal(n)) * 100) / 100).astype(dtype)


def few_strings(r, n, utf8):
    pool = UTF8_WORDS[:6] if utf8 else [b"red", b"green", b"blue", b"cyan", b""]
    return obj(pool[i] for i in r.integers(0, len(pool), n))


def run_strings(r, n, utf8):
    pool = UTF8_WORDS[:5] if utf8 else [b"aaa", b"bb", b"c", b"dddd"]
    return obj(pool[i] for i in np.repeat(r.integers(0, len(pool), n // 7 + 1), 7)[:n])


_F = tiledb
FILTER_CASES = [
    # name, filters, dtype, data, tags, doc, extra
    ("filter_gzip", lambda: [_F.GzipFilter(level=6)], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("gzip",), "GZIP level 6 on int32."),
    ("filter_zstd", lambda: [_F.ZstdFilter()], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("zstd",), "ZSTD default level on int32."),
    ("filter_zstd_level19", lambda: [_F.ZstdFilter(level=19)], np.float32, lambda r, n: floats_rounded(r, n, np.float32), ("zstd",), "ZSTD level 19 on float32."),
    ("filter_lz4", lambda: [_F.LZ4Filter()], np.int64, lambda r, n: smooth_int(r, n, np.int64), ("lz4",), "LZ4 on int64."),
    ("filter_bzip2", lambda: [_F.Bzip2Filter(level=9)], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("bzip2",), "BZIP2 level 9 on int32."),
    ("filter_rle", lambda: [_F.RleFilter()], np.int32, lambda r, n: runs(r, n, np.int32), ("rle",), "RLE on int32 runs."),
    ("filter_rle_multivalue", lambda: [_F.RleFilter()], np.dtype([("", np.int32)] * 3), lambda r, n: runs(r, 3 * n, np.int32).reshape(n, 3).copy().view(np.dtype([("", np.int32)] * 3)).reshape(n), ("rle", "multi_value"), "RLE on 3 x int32 cells (12-byte values)."),
    ("filter_double_delta", lambda: [_F.DoubleDeltaFilter()], np.int64, lambda r, n: increasing(r, n, np.int64), ("double_delta",), "DOUBLE_DELTA on int64."),
    ("filter_double_delta_int16", lambda: [_F.DoubleDeltaFilter()], np.int16, lambda r, n: smooth_int(r, n, np.int16, 2), ("double_delta",), "DOUBLE_DELTA on int16."),
    ("filter_delta", lambda: [_F.DeltaFilter()], np.int64, lambda r, n: smooth_int(r, n, np.int64), ("delta",), "DELTA on int64.", {"requires": ("DeltaFilter",)}),
    ("filter_bit_width_reduction", lambda: [_F.BitWidthReductionFilter(window=256)], np.int32, lambda r, n: r.integers(1000, 1200, n).astype(np.int32), ("bit_width_reduction",), "BIT_WIDTH_REDUCTION window 256 on int32."),
    ("filter_bitshuffle", lambda: [_F.BitShuffleFilter()], np.float32, lambda r, n: floats_rounded(r, n, np.float32), ("bitshuffle",), "BITSHUFFLE on float32."),
    ("filter_bitshuffle_int16", lambda: [_F.BitShuffleFilter(), _F.ZstdFilter()], np.int16, lambda r, n: smooth_int(r, n, np.int16), ("bitshuffle", "zstd"), "BITSHUFFLE then ZSTD on int16."),
    ("filter_byteshuffle", lambda: [_F.ByteShuffleFilter()], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("byteshuffle",), "BYTESHUFFLE on int32."),
    ("filter_positive_delta", lambda: [_F.PositiveDeltaFilter()], np.uint32, lambda r, n: increasing(r, n, np.uint32), ("positive_delta",), "POSITIVE_DELTA on uint32."),
    ("filter_checksum_md5", lambda: [_F.ChecksumMD5Filter()], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("checksum_md5",), "CHECKSUM_MD5 alone."),
    ("filter_checksum_sha256", lambda: [_F.ChecksumSHA256Filter()], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("checksum_sha256",), "CHECKSUM_SHA256 alone."),
    ("filter_xor", lambda: [_F.XORFilter()], np.float64, lambda r, n: floats_rounded(r, n), ("xor",), "XOR on float64.", {"requires": ("XORFilter",)}),
    ("filter_float_scale", lambda: [_F.FloatScaleFilter(0.01, 0.0, 4)], np.float64, lambda r, n: floats_rounded(r, n), ("float_scale",), "SCALE_FLOAT (scale 0.01, offset 0, 4 bytes) on float64.", {"requires": ("FloatScaleFilter",)}),
    ("filter_noop", lambda: [_F.NoOpFilter()], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("noop",), "NONE filter."),
    # realistic combinations
    ("filter_byteshuffle_zstd", lambda: [_F.ByteShuffleFilter(), _F.ZstdFilter(level=3)], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("byteshuffle", "zstd", "combination"), "[BYTESHUFFLE, ZSTD(3)] on int32."),
    ("filter_bitwidth_gzip", lambda: [_F.BitWidthReductionFilter(), _F.GzipFilter()], np.int64, lambda r, n: r.integers(-300, 300, n).astype(np.int64), ("bit_width_reduction", "gzip", "combination"), "[BIT_WIDTH_REDUCTION, GZIP] on int64."),
    ("filter_positive_delta_lz4", lambda: [_F.PositiveDeltaFilter(), _F.LZ4Filter()], np.uint64, lambda r, n: increasing(r, n, np.uint64), ("positive_delta", "lz4", "combination"), "[POSITIVE_DELTA, LZ4] on uint64."),
    ("filter_positive_delta_bitwidth_zstd", lambda: [_F.PositiveDeltaFilter(), _F.BitWidthReductionFilter(), _F.ZstdFilter()], np.int64, lambda r, n: increasing(r, n, np.int64), ("positive_delta", "bit_width_reduction", "zstd", "combination"), "[POSITIVE_DELTA, BIT_WIDTH_REDUCTION, ZSTD] on int64."),
    ("filter_delta_zstd", lambda: [_F.DeltaFilter(), _F.ZstdFilter()], np.int64, lambda r, n: smooth_int(r, n, np.int64), ("delta", "zstd", "combination"), "[DELTA, ZSTD] on int64.", {"requires": ("DeltaFilter",)}),
    ("filter_xor_zstd", lambda: [_F.XORFilter(), _F.ZstdFilter()], np.float64, lambda r, n: floats_rounded(r, n), ("xor", "zstd", "combination"), "[XOR, ZSTD] on float64.", {"requires": ("XORFilter",)}),
    ("filter_float_scale_zstd", lambda: [_F.FloatScaleFilter(0.01, 0.0, 2), _F.ZstdFilter()], np.float32, lambda r, n: floats_rounded(r, n, np.float32), ("float_scale", "zstd", "combination"), "[SCALE_FLOAT(0.01, 0, 2 bytes), ZSTD] on float32.", {"requires": ("FloatScaleFilter",)}),
    ("filter_checksum_sha256_zstd_md5", lambda: [_F.ChecksumSHA256Filter(), _F.ZstdFilter(), _F.ChecksumMD5Filter()], np.int32, lambda r, n: smooth_int(r, n, np.int32), ("checksum_sha256", "checksum_md5", "zstd", "combination"), "[CHECKSUM_SHA256, ZSTD, CHECKSUM_MD5] on int32."),
    ("filter_zstd_small_chunks", lambda: [_F.ZstdFilter()], np.int64, lambda r, n: smooth_int(r, n, np.int64), ("zstd", "max_chunk_size"), "ZSTD with max_chunk_size 4096 (several chunks per tile).", {"chunksize": 4096}),
    # strings
    ("filter_dictionary_ascii", lambda: [_F.DictionaryFilter()], "ascii", lambda r, n: few_strings(r, n, False), ("dictionary", "ascii", "var"), "DICTIONARY on var STRING_ASCII.", {"var": True, "requires": ("DictionaryFilter",)}),
    ("filter_dictionary_utf8", lambda: [_F.DictionaryFilter(), _F.ZstdFilter()], str, lambda r, n: few_strings(r, n, True), ("dictionary", "utf8", "var", "zstd", "combination"), "[DICTIONARY, ZSTD] on var STRING_UTF8.", {"var": True, "requires": ("DictionaryFilter",)}),
    ("filter_rle_ascii", lambda: [_F.RleFilter()], "ascii", lambda r, n: run_strings(r, n, False), ("rle", "ascii", "var"), "RLE on var STRING_ASCII.", {"var": True}),
    ("filter_rle_utf8", lambda: [_F.RleFilter(), _F.GzipFilter()], str, lambda r, n: run_strings(r, n, True), ("rle", "utf8", "var", "gzip", "combination"), "[RLE, GZIP] on var STRING_UTF8.", {"var": True}),
    ("filter_zstd_utf8", lambda: [_F.ZstdFilter()], str, lambda r, n: utf8_strings(r, n), ("zstd", "utf8", "var"), "ZSTD on var STRING_UTF8.", {"var": True}),
    ("filter_lz4_nullable", lambda: [_F.LZ4Filter()], np.float64, lambda r, n: floats_rounded(r, n), ("lz4", "nullable"), "LZ4 on a nullable float64 attribute.", {"nullable": True}),
]

for _spec in FILTER_CASES:
    _extra = _spec[6] if len(_spec) > 6 else {}
    _filter_case(_spec[0], _spec[1], _spec[2], _spec[3], _spec[4], _spec[5], **_extra)


@case("filter_webp", "dense", "filters", "webp", "uint8", "dim_2d")
def filter_webp(b):
    """WEBP (lossless, RGB) on a uint8 image: dims y (rows) and x (bytes = 3 x pixels)."""
    WebpFilter = need_filter("WebpFilter")
    r = rng_for(b)
    h, w = 32, 48
    fmt = None
    for mod in ("tiledb.libtiledb", "tiledb.cc"):
        try:
            m = __import__(mod, fromlist=["WebpInputFormat"])
            fmt = m.WebpInputFormat.WEBP_RGB
            break
        except Exception:
            continue
    flt = WebpFilter(input_format=fmt, quality=100.0, lossless=True)
    try:
        b.create(S([D("y", 1, h, h), D("x", 1, w * 3, w * 3)], [A("rgb", np.uint8, filters=[flt])]))
        yy, xx = np.mgrid[0:h, 0:w * 3]
        img = ((yy * 7 + xx * 3) % 256).astype(np.uint8)
        img[::5, ::7] = r.integers(0, 256, img[::5, ::7].shape).astype(np.uint8)
        b.write({"rgb": img.reshape(-1)}, subarray=[(1, h), (1, w * 3)])
    except tiledb.TileDBError as e:
        if "webp" in str(e).lower() or "WebP" in str(e):
            raise Skip("this libtiledb build has no WebP: %s" % str(e).splitlines()[0])
        raise


@case("filter_schema_pipelines", "sparse", "filters", "coords_filters", "offsets_filters", "validity_filters", "dim_filters", "nullable", "var")
def filter_schema_pipelines(b):
    """Sparse array with non-default coords, offsets and validity pipelines and per-dimension filters."""
    r = rng_for(b)
    sch = S([D("x", 0, 99999, 1000, np.int64, filters=[tiledb.DoubleDeltaFilter(), tiledb.ZstdFilter()]), D("y", 0, 9, 10, np.uint8)],
            [A("s", str, nullable=True), A("v", np.float32, filters=[tiledb.ByteShuffleFilter(), tiledb.LZ4Filter()])],
            sparse=True, capacity=64,
            coords_filters=tiledb.FilterList([tiledb.BitWidthReductionFilter(), tiledb.GzipFilter(level=1)]),
            offsets_filters=tiledb.FilterList([tiledb.PositiveDeltaFilter(), tiledb.BitWidthReductionFilter(), tiledb.ZstdFilter(level=5)]),
            validity_filters=tiledb.FilterList([tiledb.GzipFilter(level=9)]))
    b.create(sch)
    n = 300
    flat = unique_coords(r, 0, 999999, n)
    b.write({"s": utf8_strings(r, n), "v": numeric(r, np.float32, n)}, coords=[(flat // 10).astype(np.int64), (flat % 10).astype(np.uint8)],
            validity={"s": validity(r, n)})


# ---------------------------------------------------------------- metadata


def _meta_values():
    vals = {
        "int": 42, "float": -2.5, "str": "h\u00e9llo metadata", "bytes": b"\x00\x01\x02\xff",
        "int_tuple": (1, 2, 3, -4), "float_tuple": (0.5, 1.5), "empty": (),
    }
    for t in NUMERIC:
        vals["np_" + np.dtype(t).name] = np.array([1, 2, 3], dtype=t) * (1 if np.dtype(t).kind == "u" else -1)
    vals["np_bool"] = np.array([True, False, True])
    vals["np_datetime_ms"] = np.array([0, 1700000000000], dtype="datetime64[ms]")
    vals["np_char"] = np.bytes_(b"chars")
    vals["np_matrix"] = np.arange(6, dtype=np.int16).reshape(2, 3)
    return vals


def _put_meta(b, vals, t_skip=True):
    ok = {}
    for k, v in vals.items():
        try:
            b.meta(put={k: v})
            ok[k] = v
        except Exception as e:
            b.skip("metadata_" + k, "TileDB-Py %s cannot store %r: %s" % (tc.py_version(), type(v).__name__, e))
    return ok


@case("metadata_all_types", "dense", "metadata", "metadata_deleted_key")
def metadata_all_types(b):
    """Array metadata of every value type TileDB-Py can store (one __meta file per put), then a key deleted."""
    b.create(S([D("d", 0, 9, 10)], [A("a", np.int32)]))
    b.write({"a": np.arange(10, dtype=np.int32)}, subarray=[(0, 9)])
    _put_meta(b, _meta_values())
    b.meta(put={"to_delete": 7})
    b.meta(delete=["to_delete"])


@case("metadata_consolidated", "dense", "metadata", "metadata_deleted_key", "metadata_consolidated")
def metadata_consolidated(b):
    """Several metadata writes (one overwriting a key, one deleting a key) and consolidated array metadata (not vacuumed)."""
    b.create(S([D("d", 0, 9, 10)], [A("a", np.int32)]))
    b.meta(put={"a": 1, "b": "first", "c": (1.0, 2.0)})
    b.meta(put={"b": "second", "d": np.array([9, 8, 7], dtype=np.uint16)})
    b.meta(delete=["a"])
    b.consolidate("array_meta")


# ---------------------------------------------------------------- evolution, consolidation


@case("schema_evolution_dense", "dense", "schema_evolution", "multi_fragment", "multiple_schemas")
def schema_evolution_dense(b):
    """Dense 1D: a fragment, then an attribute added (schema evolution), then a fragment with both attributes."""
    r = rng_for(b)
    b.create(S([D("d", 1, 40, 10)], [A("a", np.int32)]))
    b.write({"a": numeric(r, np.int32, 40)}, subarray=[(1, 40)])
    b.evolve_add_attr(A("added", np.float64))
    b.write({"a": numeric(r, np.int32, 15), "added": numeric(r, np.float64, 15)}, subarray=[(11, 25)])


@case("schema_evolution_sparse", "sparse", "schema_evolution", "multi_fragment", "multiple_schemas", "var", "utf8")
def schema_evolution_sparse(b):
    """Sparse 1D: a fragment, then a var UTF-8 attribute added, then a fragment with both attributes."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.int32)], sparse=True, capacity=10))
    b.write({"a": numeric(r, np.int32, 30)}, coords=[unique_coords(r, 0, 999, 30, np.int32)])
    b.evolve_add_attr(A("added", str))
    b.write({"a": numeric(r, np.int32, 20), "added": utf8_strings(r, 20)}, coords=[unique_coords(r, 0, 999, 20, np.int32)])


def _three_dense_fragments(b, r):
    b.create(S([D("d", 1, 100, 10)], [A("a", np.int32), A("s", str)]))
    for lo, hi in ((1, 40), (31, 70), (66, 100)):
        n = hi - lo + 1
        b.write({"a": numeric(r, np.int32, n), "s": utf8_strings(r, n)}, subarray=[(lo, hi)])


def _three_sparse_fragments(b, r, dups):
    b.create(S([D("d", 0, 9999, 500)], [A("a", np.int64), A("s", "ascii", var=True)], sparse=True, capacity=25, allows_duplicates=dups))
    for n in (40, 60, 30):
        b.write({"a": numeric(r, np.int64, n), "s": ascii_strings(r, n)}, coords=[unique_coords(r, 0, 9999, n, np.int32)])


@case("consolidated_fragment_metadata", "dense", "consolidated_fragment_metadata", "multi_fragment", "var", "utf8")
def consolidated_fragment_metadata(b):
    """Three dense fragments and their consolidated fragment metadata (__fragment_meta/*.meta)."""
    _three_dense_fragments(b, rng_for(b))
    b.consolidate("fragment_meta")


@case("consolidated_fragment_metadata_sparse", "sparse", "consolidated_fragment_metadata", "multi_fragment", "var", "ascii")
def consolidated_fragment_metadata_sparse(b):
    """Three sparse fragments and their consolidated fragment metadata."""
    _three_sparse_fragments(b, rng_for(b), False)
    b.consolidate("fragment_meta")


@case("consolidated_dense", "dense", "consolidated_fragments", "multi_fragment", "var", "utf8")
def consolidated_dense(b):
    """Three dense fragments consolidated into one, not vacuumed: the originals and the .vac file stay."""
    _three_dense_fragments(b, rng_for(b))
    b.snapshot()
    b.consolidate("fragments")


@case("consolidated_dense_vacuumed", "dense", "consolidated_fragments", "vacuumed", "multi_fragment", "var", "utf8")
def consolidated_dense_vacuumed(b):
    """Three dense fragments consolidated into one, then vacuumed."""
    _three_dense_fragments(b, rng_for(b))
    b.snapshot()
    b.consolidate("fragments")
    b.vacuum("fragments")


@case("consolidated_sparse_vacuumed", "sparse", "consolidated_fragments", "vacuumed", "multi_fragment", "duplicates", "var", "ascii")
def consolidated_sparse_vacuumed(b):
    """Three sparse fragments (duplicates allowed) consolidated and vacuumed, plus consolidated fragment metadata."""
    _three_sparse_fragments(b, rng_for(b), True)
    b.snapshot()
    b.consolidate("fragments")
    b.vacuum("fragments")
    b.consolidate("fragment_meta")


@case("consolidated_dense_few_tiles", "dense", "consolidated_fragments", "multi_fragment", "var", "utf8", "ascii")
def consolidated_dense_few_tiles(b):
    """Three dense fragments of an array with more attributes (three, two var-size) than space tiles (two), consolidated, not vacuumed: the consolidation's global-order writer stores var-size tile min/max where TileDB's other dense writer moves them."""
    r = rng_for(b)
    b.create(S([D("d", 1, 8, 4)], [A("a", np.int32), A("s", str), A("t", "ascii", var=True)]))
    for lo, hi in ((1, 8), (3, 6), (5, 8)):
        n = hi - lo + 1
        b.write({"a": numeric(r, np.int32, n), "s": utf8_strings(r, n), "t": ascii_strings(r, n)}, subarray=[(lo, hi)])
    b.snapshot()
    b.consolidate("fragments")


@case("consolidated_sparse", "sparse", "consolidated_fragments", "multi_fragment", "duplicates", "nullable", "var", "ascii")
def consolidated_sparse(b):
    """Three sparse 2D fragments (duplicates allowed, coordinates repeated within and across them) consolidated, not vacuumed: the originals and the .vac file stay; the new fragment keeps every cell with its timestamp."""
    r = rng_for(b)
    b.create(S([D("x", 0, 999, 100), D("y", -50, 49, 25)], [A("a", np.int64), A("n", np.float64, nullable=True), A("s", "ascii", var=True)],
               sparse=True, capacity=9, allows_duplicates=True))
    xs = unique_coords(r, 0, 999, 12, np.int32)
    ys = unique_coords(r, -50, 49, 12, np.int32)
    for k, n in enumerate((20, 15, 11)):
        pick = r.integers(0, 12, n)
        valid = (r.random(n) > 0.25).astype(np.uint8)
        b.write({"a": numeric(r, np.int64, n), "n": numeric(r, np.float64, n), "s": ascii_strings(r, n)},
                coords=[xs[pick], ys[pick]], validity={"n": valid})
    b.snapshot()
    b.consolidate("fragments")


@case("consolidated_sparse_overwrites", "sparse", "consolidated_fragments", "multi_fragment", "var", "utf8")
def consolidated_sparse_overwrites(b):
    """Three sparse fragments without duplicates, the later ones rewriting cells of the earlier, consolidated, not vacuumed: reads at each fragment's time still see the values of then."""
    r = rng_for(b)
    b.create(S([D("d", 0, 9999, 500)], [A("a", np.int32), A("s", str)], sparse=True, capacity=6))
    first = unique_coords(r, 0, 9999, 25, np.int32)
    b.write({"a": numeric(r, np.int32, 25), "s": utf8_strings(r, 25)}, coords=[first])
    again = first[::2]
    b.write({"a": numeric(r, np.int32, len(again)), "s": utf8_strings(r, len(again))}, coords=[again])
    more = np.concatenate([first[::5], unique_coords(r, 0, 9999, 6, np.int32)])
    more = np.unique(more)
    b.write({"a": numeric(r, np.int32, len(more)), "s": utf8_strings(r, len(more))}, coords=[more])
    b.snapshot()
    b.consolidate("fragments")


@case("consolidated_commits_vacuumed", "sparse", "consolidated_commits", "ignore_file", "consolidated_fragments", "vacuumed", "multi_fragment")
def consolidated_commits_vacuumed(b):
    """Three sparse fragments whose commits are consolidated (.con), then the fragments consolidated and vacuumed: TileDB writes an ignore file (.ign) for the commits the .con still names."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.int64)], sparse=True, capacity=10))
    for n in (12, 9, 15):
        b.write({"a": numeric(r, np.int64, n)}, coords=[unique_coords(r, 0, 999, n, np.int32)])
    b.snapshot()
    b.consolidate("commits")
    b.vacuum("commits")
    b.consolidate("fragments")
    b.vacuum("fragments")


@case("sparse_deletes_consolidated", "sparse", "deletes", "duplicates", "consolidated_fragments", "vacuumed", "multi_fragment")
def sparse_deletes_consolidated(b):
    """Sparse with duplicates: two writes, a delete commit (a < 0), a third write, then consolidated (per-cell timestamps, delete timestamps and condition index: t, dt, dci) and vacuumed."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.int64)], sparse=True, capacity=10, allows_duplicates=True))
    for n in (14, 11):
        b.write({"a": numeric(r, np.int64, n)}, coords=[unique_coords(r, 0, 999, n, np.int32)])
    b.delete("a < 0")
    b.write({"a": numeric(r, np.int64, 9)}, coords=[unique_coords(r, 0, 999, 9, np.int32)])
    b.snapshot()
    b.consolidate("fragments")
    b.vacuum("fragments")


@case("consolidated_sparse_deletes", "sparse", "deletes", "consolidated_fragments", "multi_fragment", "var", "ascii")
def consolidated_sparse_deletes(b):
    """Sparse without duplicates: a write, a delete commit (a < 0), a write rewriting some cells, a second delete (s == 'beta'), then consolidated, not vacuumed: the deleted cells stay with their delete timestamps and condition indices (dt, dci), the delete commits stay."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.int64), A("s", "ascii", var=True)], sparse=True, capacity=8))
    first = unique_coords(r, 0, 999, 30, np.int32)
    b.write({"a": numeric(r, np.int64, 30), "s": ascii_strings(r, 30)}, coords=[first])
    b.delete("a < 0")
    again = first[::3]
    b.write({"a": numeric(r, np.int64, len(again)), "s": ascii_strings(r, len(again))}, coords=[again])
    b.delete("s == 'beta'")
    b.snapshot()
    b.consolidate("fragments")


@case("sparse_deletes", "sparse", "deletes", "multi_fragment", "ascii", "var")
def sparse_deletes(b):
    """Sparse without duplicates: two writes (the second rewrites a third of the first's cells), delete commits (a < 0, then s == 'beta'), a third write; not consolidated, so readers apply the delete conditions."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.int64), A("s", "ascii", var=True)], sparse=True, capacity=10))
    first = unique_coords(r, 0, 999, 40, np.int32)
    b.write({"a": numeric(r, np.int64, 40), "s": ascii_strings(r, 40)}, coords=[first])
    again = first[::3]
    b.write({"a": numeric(r, np.int64, len(again)), "s": ascii_strings(r, len(again))}, coords=[again])
    b.delete("a < 0")
    b.delete("s == 'beta'")
    later = unique_coords(r, 0, 999, 12, np.int32)
    b.write({"a": numeric(r, np.int64, 12), "s": ascii_strings(r, 12)}, coords=[later])


@case("sparse_updates", "sparse", "deletes", "updates", "multi_fragment")
def sparse_updates(b):
    """Sparse without duplicates: a write, an update commit (where a < 0, set a = 0: libtiledb's experimental update query, __commits/*.upd), a write rewriting some cells. TileDB's readers take an update commit's condition as a delete commit's and leave its values unused: the cells it matches, written before it, are left out of reads."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.int64)], sparse=True, capacity=10))
    first = unique_coords(r, 0, 999, 30, np.int32)
    b.write({"a": numeric(r, np.int64, 30)}, coords=[first])
    b.update(("a", "<", "INT64", 0), {"a": ("INT64", 0)})
    again = first[::4]
    b.write({"a": numeric(r, np.int64, len(again))}, coords=[again])


# ---------------------------------------------------------------- encryption, empty, large


@case("encrypted_dense", "dense", "encryption", "multi_fragment", "metadata", "var", "utf8")
def encrypted_dense(b):
    """AES-256-GCM encrypted dense array (key 0123456789abcdeF0123456789abcdeF): two fragments and metadata."""
    r = rng_for(b)
    b.create(S([D("d", 1, 50, 10)], [A("a", np.int32, filters=[tiledb.ZstdFilter()]), A("s", str)]))
    b.write({"a": numeric(r, np.int32, 50), "s": utf8_strings(r, 50)}, subarray=[(1, 50)])
    b.write({"a": numeric(r, np.int32, 12), "s": utf8_strings(r, 12)}, subarray=[(5, 16)])
    b.meta(put={"secret": "encrypted metadata", "n": 3})


@case("encrypted_sparse", "sparse", "encryption", "var", "ascii")
def encrypted_sparse(b):
    """AES-256-GCM encrypted sparse array."""
    r = rng_for(b)
    b.create(S([D("d", 0, 999, 100)], [A("a", np.float64), A("s", "ascii", var=True)], sparse=True, capacity=10))
    b.write({"a": numeric(r, np.float64, 35), "s": ascii_strings(r, 35)}, coords=[unique_coords(r, 0, 999, 35, np.int32)])


@case("empty_dense", "dense", "empty_array", "dim_2d")
def empty_dense(b):
    """Dense 2D array with a schema and nothing else."""
    b.create(S([D("y", 0, 9, 5), D("x", 0, 9, 5)], [A("a", np.int32), A("s", str, nullable=True)]))


@case("empty_sparse", "sparse", "empty_array", "string_dim")
def empty_sparse(b):
    """Sparse array (string dimension) with a schema and nothing else."""
    b.create(S([SD("k")], [A("a", np.float32)], sparse=True))


@case("large_dense_fixed", "dense", "large_tiles", "multi_tile", "dim_2d", "int32", "partial_tile")
def large_dense_fixed(b):
    """Dense 2D int32 with 100x200 tiles (80 000 bytes per tile, more than one 64 KiB chunk); a fragment over 2 tiles."""
    r = rng_for(b)
    b.create(S([D("y", 1, 200, 100), D("x", 1, 400, 200)], [A("v", np.int32, filters=[tiledb.ByteShuffleFilter(), tiledb.ZstdFilter()])]))
    b.write({"v": smooth_int(r, 100 * 400, np.int32, 3)}, subarray=[(1, 100), (1, 400)])


@case("large_sparse_var", "sparse", "large_tiles", "multi_tile", "var", "utf8", "float64")
def large_sparse_var(b):
    """Sparse 1D, capacity 9000: a var UTF-8 tile of ~75 KB and a float64 tile of 72 000 bytes (more than one 64 KiB chunk each)."""
    r = rng_for(b)
    b.create(S([D("d", 0, 10 ** 9, 10 ** 6, np.int64)], [A("s", str, filters=[tiledb.ZstdFilter()]), A("f", np.float64)],
               sparse=True, capacity=9000))
    n = 9500
    s = utf8_strings(r, n)
    b.write({"s": s, "f": floats_rounded(r, n)}, coords=[unique_coords(r, 0, 10 ** 9, n)])


@case("many_tiles_sparse", "sparse", "multi_tile", "dim_2d", "var", "ascii", "nullable")
def many_tiles_sparse(b):
    """Sparse 2D, capacity 50, 600 cells: every field (dimensions, fixed, var, nullable) spans 12 tiles."""
    r = rng_for(b)
    b.create(S([D("y", 0, 999, 100), D("x", 0, 999, 100)],
               [A("i", np.int32), A("s", "ascii", var=True), A("f", np.float32, nullable=True)], sparse=True, capacity=50))
    n = 600
    flat = unique_coords(r, 0, 999999, n)
    b.write({"i": numeric(r, np.int32, n), "s": ascii_strings(r, n), "f": numeric(r, np.float32, n)},
            coords=[(flat // 1000).astype(np.int32), (flat % 1000).astype(np.int32)], validity={"f": validity(r, n)})
