"""Adapters over the differences between TileDB-Py releases 0.19 .. 0.36.

Everything version-specific that generate.py and reverse_check.py need lives
here: raw (byte-exact) reads, writes with explicit validity, the low-level
module name, metadata by index, feature probes.

Why raw reads: TileDB-Py's high-level readers unpack var-size cells into numpy
objects, which drops trailing NUL bytes of ASCII cells (the default dense fill
value of a var string is one NUL byte), and before 0.24 they do not return
validity at all. PyQuery.results() returns the buffers libtiledb filled.
"""

import numpy as np
import tiledb

import tiledb.libtiledb as _libtiledb

if hasattr(_libtiledb, "Context"):  # 0.33 on: the pybind11 module is tiledb.libtiledb
    lt = _libtiledb
else:  # before: tiledb.libtiledb is the Cython layer, the binding is tiledb.cc
    import tiledb.cc as lt

class Skip(Exception):
    """A case (or part of one) this TileDB-Py release cannot produce."""


LAYOUTS = "CFGU"  # index = libtiledb layout value: row, col, global, unordered


def py_version():
    return tiledb.__version__


def lib_version():
    return ".".join(str(x) for x in tiledb.libtiledb.version())


def version_tuple(s):
    out = []
    for part in s.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


# ---------------------------------------------------------------- configs


def encryption_config(key):
    cfg = {}
    if key is not None:
        cfg = {"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key}
    return cfg


def make_ctx(key=None, extra=None):
    cfg = dict(encryption_config(key))
    cfg.update(extra or {})
    return tiledb.Ctx(tiledb.Config(cfg))


def open_array(uri, mode="r", key=None, timestamp=None):
    # Passing the key through the context works on every release; the `key=`
    # argument was deprecated in the 0.2x series.
    return tiledb.open(uri, mode=mode, timestamp=timestamp, ctx=make_ctx(key))


# ---------------------------------------------------------------- writes


def write_dense(A, selection, values, validity=None):
    """Dense write of `values` (name -> flat array in row-major order of the
    selection) with explicit validity maps (name -> uint8, 1 = valid)."""
    A._setitem_impl(selection, values, {k: np.ascontiguousarray(v, np.uint8) for k, v in (validity or {}).items()})


def write_sparse(A, coords, values, validity=None):
    try:
        from tiledb.sparse_array import _setitem_impl_sparse as impl
    except ImportError:
        from tiledb.libtiledb import _setitem_impl_sparse as impl
    impl(A, coords, values, {k: np.ascontiguousarray(v, np.uint8) for k, v in (validity or {}).items()})


# ---------------------------------------------------------------- raw reads


class Buffers:
    """One field's result: bytes of values, uint64 offsets (var), uint8
    validity (nullable)."""

    def __init__(self, data, offsets=None, validity=None):
        self.data = bytes(data)
        self.offsets = None if offsets is None else np.asarray(offsets, dtype=np.uint64)
        self.validity = None if validity is None else np.asarray(validity, dtype=np.uint8)

    def cells(self, cell_size):
        """Number of cells (cell_size is the fixed cell size in bytes)."""
        if self.offsets is not None:
            return len(self.offsets)
        return len(self.data) // cell_size if cell_size else 0


def _pyquery(A, attrs, dims, order, ranges):
    from tiledb.main import PyQuery

    ctx = A._ctx_() if hasattr(A, "_ctx_") else A.ctx
    q = PyQuery(ctx, A, tuple(attrs), tuple(dims), LAYOUTS.index(order), False)
    rr = [[tuple(r)] for r in ranges]
    if hasattr(q, "set_ranges"):
        q.set_ranges(rr)
    else:
        sub = tiledb.Subarray(A)
        sub.add_ranges(rr)
        q.set_subarray(sub)
    q.submit()
    return q.results()


def raw_read(A, schema, names, order, ranges, uri=None, key=None, timestamp=None):
    """Read fields `names` of the open array A over `ranges` (one inclusive
    (lo, hi) per dimension) in layout `order`. Returns name -> Buffers."""
    dim_names = [schema.domain.dim(i).name for i in range(schema.domain.ndim)]
    attrs = [n for n in names if n not in dim_names]
    dims = [n for n in names if n in dim_names]
    res = _pyquery(A, attrs, dims, order, ranges)
    out = {}
    missing_validity = []
    for name in names:
        item = res[name]
        data = np.asarray(item[0]).tobytes()
        is_var = _is_var(schema, name)
        offsets = np.asarray(item[1], dtype=np.uint64) if is_var else None
        validity = None
        if _is_nullable(schema, name):
            if len(item) > 2:
                validity = np.asarray(item[2], dtype=np.uint8)
            else:
                missing_validity.append(name)
        out[name] = Buffers(data, offsets, validity)
    if missing_validity:
        # TileDB-Py < 0.20's PyQuery returns no validity buffer: repeat the
        # read through the thin C++ binding with buffers of the exact size.
        for name in missing_validity:
            out[name].validity = _lt_validity(uri, key, timestamp, schema, name, order, ranges, out[name])
    return out


def _is_var(schema, name):
    if schema.has_attr(name):
        return schema.attr(name).isvar
    return schema.domain.dim(name).isvar


def _is_nullable(schema, name):
    return schema.has_attr(name) and schema.attr(name).isnullable


_UINT_BY_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _set_buffer(setter, name, arr):
    try:
        setter(name, arr)
    except TypeError:  # later bindings take the element count too
        setter(name, arr, arr.size)


def _lt_validity(uri, key, timestamp, schema, name, order, ranges, got):
    cfg = lt.Config()
    for k, v in encryption_config(key).items():
        cfg.set(k, v)
    ctx = lt.Context(cfg)
    arr = lt.Array(ctx, uri, lt.QueryType.READ)
    if timestamp is not None:
        arr.set_open_timestamp_start(timestamp[0])
        arr.set_open_timestamp_end(timestamp[1])
        arr.reopen()
    q = lt.Query(ctx, arr, lt.QueryType.READ)
    q.layout = getattr(lt.LayoutType, {"C": "ROW_MAJOR", "F": "COL_MAJOR", "G": "GLOBAL_ORDER", "U": "UNORDERED"}[order])
    if hasattr(q, "add_range"):
        for i, r in enumerate(ranges):
            q.add_range(i, tuple(r))
    else:
        sub = lt.Subarray(ctx, arr)
        for i, r in enumerate(ranges):
            sub._add_dim_range(i, tuple(r))
        q.set_subarray(sub)
    attr = schema.attr(name)
    width = np.dtype(attr_base_dtype(attr)).itemsize
    ncells = got.cells(width * attr_cell_val_num(attr))
    data = np.zeros(max(1, len(got.data) // width), dtype=_UINT_BY_SIZE[width])
    _set_buffer(q.set_data_buffer, name, data)
    if attr.isvar:
        offs = np.zeros(max(1, ncells), dtype=np.uint64)
        _set_buffer(q.set_offsets_buffer, name, offs)
    val = np.zeros(max(1, ncells), dtype=np.uint8)
    _set_buffer(q.set_validity_buffer, name, val)
    q.submit()
    if data.tobytes()[: len(got.data)] != got.data:
        raise RuntimeError("validity re-read of %s returned different values" % name)
    arr.close()
    return val[:ncells].copy()


# ---------------------------------------------------------------- schema facts


def tdb_type_name(obj):
    t = getattr(obj, "_tiledb_dtype", None)
    if t is not None:
        return str(t).split(".")[-1]
    raise RuntimeError("cannot determine TileDB datatype of %r" % (obj,))


_TYPE_SIZE = {
    "INT32": 4, "INT64": 8, "FLOAT32": 4, "FLOAT64": 8, "CHAR": 1, "INT8": 1, "UINT8": 1,
    "INT16": 2, "UINT16": 2, "UINT32": 4, "UINT64": 8, "STRING_ASCII": 1, "STRING_UTF8": 1,
    "STRING_UTF16": 2, "STRING_UTF32": 4, "STRING_UCS2": 2, "STRING_UCS4": 4, "ANY": 1,
    "BLOB": 1, "BOOL": 1, "GEOM_WKB": 1, "GEOM_WKT": 1,
}


def type_size(name):
    if name.startswith("DATETIME_") or name.startswith("TIME_"):
        return 8
    return _TYPE_SIZE[name]


def attr_cell_val_num(attr):
    if attr.isvar:
        return 0xFFFFFFFF
    n = getattr(attr, "ncells", None)
    if n is None:
        n = 1
    return int(n)


def attr_base_dtype(attr):
    name = tdb_type_name(attr)
    size = type_size(name)
    if name.startswith("FLOAT"):
        return np.dtype("<f%d" % size)
    if name.startswith("UINT") or name in ("BOOL", "CHAR", "BLOB", "STRING_ASCII", "STRING_UTF8", "GEOM_WKB", "GEOM_WKT", "ANY"):
        return np.dtype("<u%d" % size)
    return np.dtype("<i%d" % size)


FILTER_NAMES = {
    "NoOpFilter": "NONE", "GzipFilter": "GZIP", "ZstdFilter": "ZSTD", "LZ4Filter": "LZ4",
    "RleFilter": "RLE", "Bzip2Filter": "BZIP2", "DoubleDeltaFilter": "DOUBLE_DELTA",
    "BitWidthReductionFilter": "BIT_WIDTH_REDUCTION", "BitShuffleFilter": "BITSHUFFLE",
    "ByteShuffleFilter": "BYTESHUFFLE", "PositiveDeltaFilter": "POSITIVE_DELTA",
    "ChecksumMD5Filter": "CHECKSUM_MD5", "ChecksumSHA256Filter": "CHECKSUM_SHA256",
    "DictionaryFilter": "DICTIONARY", "FloatScaleFilter": "SCALE_FLOAT", "XORFilter": "XOR",
    "WebpFilter": "WEBP", "DeltaFilter": "DELTA",
}


def _jsonable(v):
    if isinstance(v, (np.generic,)):
        return v.item()
    if hasattr(v, "name") and not isinstance(v, (str, bytes)):
        return str(v.name)
    if isinstance(v, np.dtype) or isinstance(v, type):
        return np.dtype(v).name
    return v


def describe_filters(fl):
    out = {"max_chunk_size": int(getattr(fl, "chunksize", 0) or 0), "filters": []}
    for f in fl:
        cls = type(f).__name__
        opts = {}
        for k in ("level", "window", "factor", "offset", "bytewidth", "quality", "input_format", "lossless", "reinterp_dtype"):
            if hasattr(f, k):
                try:
                    v = getattr(f, k)
                except Exception:
                    continue
                if v is None:
                    continue
                if k == "reinterp_dtype":
                    v = np.dtype(v).name if v is not None else None
                opts[k] = _jsonable(v)
        out["filters"].append({"type": FILTER_NAMES.get(cls, cls), "options": opts})
    return out


def filter_names(fl):
    return [FILTER_NAMES.get(type(f).__name__, type(f).__name__) for f in fl]


# ---------------------------------------------------------------- metadata


def read_metadata_raw(uri, key=None, timestamp=None, user_keys=()):
    """Array metadata as TileDB reads it: raw key -> (datatype name, bytes).

    Keys are the ones stored on disk (TileDB-Py stores numpy arrays under
    `__np_flat_<key>`, and their shape under `__np_shape_<key>`), in the
    order libtiledb enumerates them (sorted by key).
    """
    with open_array(uri, key=key, timestamp=timestamp) as A:
        user = {k: A.meta[k] for k in A.meta.keys()}
    cfg = lt.Config()
    for k, v in encryption_config(key).items():
        cfg.set(k, v)
    ctx = lt.Context(cfg)
    arr = lt.Array(ctx, uri, lt.QueryType.READ)
    if timestamp is not None:
        _call(arr, "set_open_timestamp_start", timestamp[0])
        _call(arr, "set_open_timestamp_end", timestamp[1])
        _call(arr, "reopen")
    num = _call(arr, "metadata_num")
    if hasattr(arr, "_get_key_from_index"):
        keys = [arr._get_key_from_index(i) for i in range(num)]
    else:
        keys = []
        for k in set(user_keys) | set(user):
            for cand in (k, "__np_flat_" + k, "__np_shape_" + k):
                h = _call(arr, "has_metadata", cand)
                if (h[0] if isinstance(h, tuple) else h):
                    keys.append(cand)
        keys = sorted(set(keys), key=lambda s: s.encode("utf-8"))
        if len(keys) != num:
            raise RuntimeError("metadata keys not recoverable: %r vs %d entries" % (keys, num))
    out = {}
    getter = getattr(arr, "get_metadata_from_index", None) or getattr(arr, "_get_metadata_from_index")
    for i, k in enumerate(keys):
        if k.startswith("__np_flat_"):
            value = user.get(k[len("__np_flat_"):])
        elif k.startswith("__np_shape_"):
            value = (1,)
        else:
            value = user.get(k)
        empty = value is not None and hasattr(value, "__len__") and len(value) == 0
        if hasattr(arr, "_get_metadata"):
            dtype = arr._get_metadata(k, k.startswith("__np_flat_"))[1]
        else:
            dtype = _call(arr, "has_metadata", k)[1]
        if empty:
            # libtiledb hands back a null pointer for a zero-length value;
            # TileDB-Py's by-index accessor dereferences it.
            out[k] = (str(dtype.name), b"")
            continue
        item = getter(i)
        raw = [x for x in item if isinstance(x, (bytes, memoryview))]
        out[k] = (str(dtype.name), bytes(raw[0]) if raw else b"")
    _call(arr, "close")
    return out


def _call(o, name, *args):
    f = getattr(o, name, None) or getattr(o, "_" + name)
    return f(*args)


# ---------------------------------------------------------------- features


def has_filter(name):
    return hasattr(tiledb, name)


def can_make_attr(**kw):
    try:
        tiledb.Attr(**kw)
        return True
    except Exception:
        return False


def fragment_info(uri, key=None):
    return tiledb.FragmentInfoList(uri, ctx=make_ctx(key))
