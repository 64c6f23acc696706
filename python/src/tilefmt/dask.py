"""TileDB arrays as Dask collections, read and written by tilefmt.

    import tilefmt.dask
    x = tilefmt.dask.from_array("s3://bucket/dense", "a")          # dask.array.Array
    df = tilefmt.dask.from_sparse("path/to/sparse", attrs=["v"])    # dask.dataframe.DataFrame
    tilefmt.dask.to_tilefmt(x * 2, "path/to/copy", attribute="a")  # one fragment per chunk

The task graphs hold only each task's URI, open options (timestamp, key,
storage config) and subarray: workers open the arrays themselves, through
a small per-process cache of opened arrays, so that nothing of an array is
pickled and any worker that can reach the storage can run any task.

Readers pin the fragments they read: the graph is built against the
array's fragments at that moment (its timestamp range is closed at the
newest fragment's time), so a write that lands while the graph runs is
seen by no task rather than by some.
"""

import math
import threading
import time
from collections import OrderedDict

import numpy as np

from . import _config
from ._array import Array, Attr, Dim, Domain, Schema
from ._write import ArrayWriter, create

__all__ = ["from_array", "from_sparse", "partition_ranges", "to_tilefmt"]

# ---------------------------------------------------------------------------
# Opened arrays, per worker process
# ---------------------------------------------------------------------------

_CACHE_SIZE = 16
_cache = OrderedDict()
_cache_lock = threading.Lock()


def _options(array, key, config):
    """What a task needs to open `array` as the graph saw it: the key, the
    timestamp range closed at the newest fragment, the storage config and
    the fragment count (a cached array with another count is stale)."""
    t0, t1 = array.timestamp_range
    frags = array.fragments
    if frags:
        t1 = min(t1, max(f.timestamp_range[1] for f in frags))
    if isinstance(key, str):
        key = key.encode()
    return (key or b"", t0, t1, tuple(sorted(_config.normalize(config).items())), len(frags))


def _open(uri, opts):
    """The array at `uri` opened with `opts` (from _options), from this
    process's cache when it is there."""
    cache_key = (uri, opts)
    with _cache_lock:
        a = _cache.get(cache_key)
        if a is not None:
            _cache.move_to_end(cache_key)
            return a
    key, t0, t1, config, nfrags = opts
    a = Array(uri, key=key or None, timestamp=(t0, t1), config=dict(config))
    if len(a.fragments) != nfrags:
        raise RuntimeError(f"tilefmt.dask: {uri} has {len(a.fragments)} fragments up to timestamp {t1} where the "
                           f"graph was built with {nfrags}: the array changed under the computation")
    with _cache_lock:
        _cache[cache_key] = a
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return a


# ---------------------------------------------------------------------------
# Dense arrays as dask.array
# ---------------------------------------------------------------------------

def _tile_aligned_chunks(lo, hi, dom_lo, tile):
    """Chunk sizes over [lo, hi] whose edges fall on the space tile edges
    (dom_lo + k * tile)."""
    out = []
    at = lo
    while at <= hi:
        end = min(dom_lo + ((at - dom_lo) // tile + 1) * tile - 1, hi)
        out.append(end - at + 1)
        at = end + 1
    return tuple(out)


def _read_block(uri, opts, attribute, subarray):
    a = _open(uri, opts)
    sel = tuple(slice(lo, hi + 1) for lo, hi in subarray)
    return a.query(attrs=[attribute], order="C")[sel][attribute]


def from_array(uri, attribute=None, chunks=None, *, subarray=None, timestamp=None, key=None, config=None,
               name=None):
    """A dense array's attribute as a dask.array.Array.

    The region read is the array's non-empty domain (the cells written so
    far) unless `subarray` gives one: ((lo, hi), ...) inclusive per
    dimension, e.g. the whole domain; cells inside it that were never
    written read as the attribute's fill value, as in TileDB. Index 0 of
    the result is the region's lower corner. Because the region is the
    non-empty domain, arrays whose domain is unbounded (the full int64
    range) work.

    `chunks`: as dask's (an int, a tuple per dimension, explicit sizes);
    by default the chunks follow the space tiles: edges at the domain's
    lower bound plus multiples of the tile extent, clipped to the region.
    `attribute`: the only attribute when None. `timestamp`, `key`,
    `config`: as for tilefmt.open.
    """
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    uri = str(uri)
    with Array(uri, key=key, timestamp=timestamp, config=config) as a:
        schema = a.schema
        if schema.sparse:
            raise ValueError(f"tilefmt.dask.from_array: {uri} is sparse (read it with from_sparse)")
        if attribute is None:
            if schema.nattr != 1:
                raise ValueError("tilefmt.dask.from_array: the array has several attributes, name one")
            attribute = schema.attrs[0].name
        attr = schema.attr(attribute)
        dims = schema.domain.dims
        if subarray is None:
            region = a.nonempty_domain()
            if region is None:
                raise ValueError(f"tilefmt.dask.from_array: nothing is written in {uri}; give a subarray")
        else:
            region = tuple(subarray)
            if len(region) != len(dims):
                raise ValueError("tilefmt.dask.from_array: one (lo, hi) per dimension")
        region = tuple((int(lo), int(hi)) for lo, hi in region)
        opts = _options(a, key, config)
    shape = tuple(hi - lo + 1 for lo, hi in region)
    if attr.var:
        dtype = np.dtype(object)
    else:
        dtype = attr.dtype
    if chunks is None:
        chunks = tuple(_tile_aligned_chunks(lo, hi, int(d.domain[0]), int(d.tile or (hi - lo + 1)))
                       for (lo, hi), d in zip(region, dims))
    chunks = da.core.normalize_chunks(chunks, shape, dtype=dtype)
    name = name or "tilefmt-" + tokenize(uri, attribute, region, chunks, opts)
    starts = [np.concatenate(([0], np.cumsum(c)))[:-1] for c in chunks]
    dsk = {}
    for index in np.ndindex(*(len(c) for c in chunks)):
        sub = tuple((region[d][0] + int(starts[d][i]), region[d][0] + int(starts[d][i]) + chunks[d][i] - 1)
                    for d, i in enumerate(index))
        dsk[(name,) + index] = (_read_block, uri, opts, attribute, sub)
    meta = np.ma.masked_array(np.empty((0,) * len(shape), dtype)) if attr.nullable else np.empty((0,) * len(shape), dtype)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=())
    return da.Array(graph, name, chunks, meta=meta)


# ---------------------------------------------------------------------------
# Sparse arrays as dask.dataframe
# ---------------------------------------------------------------------------

def _column(values):
    """A DataFrame column from what the reader returned: nullable
    attributes (masked arrays) become pandas' nullable arrays."""
    import pandas as pd
    if isinstance(values, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(values)
        data = np.ma.getdata(values)
        if data.dtype.kind in "iu":
            return pd.arrays.IntegerArray(data, mask)
        if data.dtype.kind == "f":
            return pd.arrays.FloatingArray(data, mask)
        if data.dtype.kind == "b":
            return pd.arrays.BooleanArray(data, mask)
        out = data.astype(object)
        out[mask] = None
        return out
    return values


def _frame(result, columns):
    import pandas as pd
    return pd.DataFrame({c: _column(result[c]) for c in columns})


def _read_partition(uri, opts, attrs, cond, order, dim_range):
    a = _open(uri, opts)
    q = a.query(attrs=attrs, cond=cond, order=order, dims=True)
    if dim_range is None:
        result = q.multi_index[:]
    else:
        result = q.multi_index[dim_range[0]:dim_range[1]]
    return _frame(result, [d.name for d in a.schema.domain.dims] + list(q.attrs))


def _pieces(a):
    """(lo, hi, cells) along the first dimension: one per data tile of each
    fragment (its R-tree leaf), or one per fragment when a fragment has no
    R-tree to read."""
    d0 = a.schema.domain.dims[0]
    out = []
    reader = a._reader()
    for i, f in enumerate(a.fragments):
        tiles = reader.tile_bounds(i)
        if tiles:
            lo = np.frombuffer(b"".join(t[0] for t in tiles), d0.dtype)
            hi = np.frombuffer(b"".join(t[1] for t in tiles), d0.dtype)
            out.extend(zip(lo.tolist(), hi.tolist(), (t[2] for t in tiles)))
        else:
            lo, hi = f.nonempty_domain[0]
            out.append((lo, hi, f.cell_num))
    return out


def _split(pieces, lo, hi, n, is_int):
    """Up to `n` disjoint inclusive ranges covering [lo, hi] with about the
    same number of cells each, the cells of a piece counted at its start."""
    pieces = sorted(pieces)
    total = sum(p[2] for p in pieces)
    bounds = []
    seen = 0
    k = 1
    for p_lo, _, cells in pieces:
        # A new range starts at this piece when the cells before it fill the k-th share.
        if k < n and seen >= k * total / n and p_lo > lo and (not bounds or p_lo > bounds[-1]):
            bounds.append(p_lo)
            while k < n and seen >= k * total / n:
                k += 1
        seen += cells
    starts = [lo] + bounds
    ranges = []
    for i, s in enumerate(starts):
        if i + 1 < len(starts):
            nxt = starts[i + 1]
            end = nxt - 1 if is_int else float(np.nextafter(nxt, -np.inf))
        else:
            end = hi
        ranges.append((s, end))
    return ranges


def from_sparse(uri, attrs=None, npartitions=None, *, cond=None, order="U", timestamp=None, key=None,
                config=None):
    """A sparse array as a dask.dataframe.DataFrame: the dimensions'
    coordinates and the attributes (`attrs`, all when None) as columns.

    Partitions are ranges of the first dimension, chosen from the data
    tiles' bounding rectangles (the fragments' R-trees) so that each holds
    about as many cells; `npartitions` (by default one per million cells)
    is an upper bound. Each partition is a query of the whole array over
    its range, so the newest fragment wins for a cell written more than
    once, as in TileDB. A first dimension of strings makes one partition.
    `cond`: a TileDB-Py condition applied in every partition (e.g. "v > 5").
    `order`: each partition's cell order ("U", the default, as TileDB-Py's
    sparse reads; "C", "F", "G"). `timestamp`, `key`, `config`: as for
    tilefmt.open.
    """
    import dask.dataframe as dd

    uri = str(uri)
    with Array(uri, key=key, timestamp=timestamp, config=config) as a:
        schema = a.schema
        if not schema.sparse:
            raise ValueError(f"tilefmt.dask.from_sparse: {uri} is dense (read it with from_array)")
        attrs = [x.name for x in schema.attrs] if attrs is None else list(attrs)
        opts = _options(a, key, config)
        meta = _meta(schema, attrs)
        ranges = _ranges(a, npartitions)
        if ranges is None:
            return dd.from_pandas(meta, npartitions=1)
    args = [(uri, opts, attrs, cond, order, r) for r in ranges]
    return dd.from_map(_read_partition_args, args, meta=meta, enforce_metadata=False)


def _ranges(a, npartitions):
    """The first-dimension ranges of from_sparse's partitions of opened
    array `a`: [None] (the whole array) when its first dimension is not a
    number, None when nothing is written."""
    d0 = a.schema.domain.dims[0]
    ned = a.nonempty_domain()
    if ned is None:
        return None
    if d0.var or d0.dtype.kind not in "iuf":
        return [None]
    pieces = _pieces(a)
    total = sum(p[2] for p in pieces)
    n = npartitions or max(1, math.ceil(total / 1_000_000))
    return _split(pieces, ned[0][0], ned[0][1], n, d0.dtype.kind in "iu")


def partition_ranges(uri, npartitions=None, *, timestamp=None, key=None, config=None):
    """The inclusive (lo, hi) ranges of the first dimension that
    from_sparse would read as partitions (with the same arguments), e.g.
    to split another computation the same way."""
    with Array(str(uri), key=key, timestamp=timestamp, config=config) as a:
        return _ranges(a, npartitions) or []


def _sample(field):
    """One value of `field` (a Dim or Attr) as the reader returns it."""
    if field.var:
        if field.tiledb_type in ("STRING_ASCII", "STRING_UTF8"):
            values = np.array(["x"], dtype=object)
        elif field.tiledb_type.startswith("STRING") or field.tiledb_type == "CHAR":
            values = np.array([b"x"], dtype=object)
        else:
            values = np.empty(1, dtype=object)
            values[0] = np.zeros(1, field.dtype)
    else:
        values = np.zeros(1, field.dtype)
    if getattr(field, "nullable", False):
        values = np.ma.masked_array(values, mask=[False])
    return values


def _meta(schema, attrs):
    """The partitions' columns and types, made the way partitions are made
    (pandas infers its string type from the values, not from a dtype)."""
    sample = {d.name: _sample(d) for d in schema.domain.dims}
    sample.update({n: _sample(schema.attr(n)) for n in attrs})
    return _frame(sample, [d.name for d in schema.domain.dims] + list(attrs)).iloc[:0]


def _read_partition_args(args):
    return _read_partition(*args)


# ---------------------------------------------------------------------------
# Writing a dask.array
# ---------------------------------------------------------------------------

def _write_block(block, uri, attribute, subarray, timestamp, config):
    with ArrayWriter(uri, timestamp=timestamp, config=dict(config)) as w:
        w[tuple(slice(lo, hi + 1) for lo, hi in subarray)] = {attribute: np.asarray(block)}
    return 1


def to_tilefmt(x, uri, attribute="a", *, origin=None, dim_names=None, filters=(), timestamp=None, config=None,
               compute=True):
    """Writes dask array `x` into the dense array at `uri`, one fragment
    per chunk, each written by the task that computes the chunk.

    When there is no array at `uri`, one is created: dimensions
    `dim_names` (d0, d1, ... by default) of int64 over [0, n - 1], space
    tiles the size of `x`'s first chunk along each dimension, one
    attribute `attribute` of `x`'s dtype with `filters` (("ZSTD", 3), ...).
    An existing array must have `attribute` as its only attribute; cell
    [0, ...] of `x` goes to `origin` (the domain's lower corner by
    default). Every fragment gets the same `timestamp` (ms since the epoch;
    the time of this call by default), so that the write reads as one
    version. With compute=False, a dask.delayed to compute instead.
    """
    import dask
    import dask.array as da

    uri = str(uri)
    x = da.asarray(x)
    cfg = _config.normalize(config)
    try:
        with Array(uri, config=cfg) as a:
            schema = a.schema
    except OSError:
        schema = None
    if schema is None:
        names = list(dim_names) if dim_names is not None else [f"d{i}" for i in range(x.ndim)]
        dims = [Dim(n, domain=(0, max(int(s), 1) - 1), tile=max(int(c[0]), 1), dtype=np.int64)
                for n, s, c in zip(names, x.shape, x.chunks)]
        schema = Schema(domain=Domain(*dims), attrs=[Attr(attribute, x.dtype, filters=tuple(filters))])
        create(uri, schema, config=cfg)
    if schema.sparse:
        raise ValueError(f"tilefmt.dask.to_tilefmt: {uri} is sparse")
    if [a.name for a in schema.attrs] != [attribute]:
        raise ValueError(f"tilefmt.dask.to_tilefmt: {uri} must have {attribute!r} as its only attribute")
    if schema.ndim != x.ndim:
        raise ValueError(f"tilefmt.dask.to_tilefmt: {uri} has {schema.ndim} dimensions, the array {x.ndim}")
    if origin is None:
        origin = tuple(int(d.domain[0]) for d in schema.domain.dims)
    if timestamp is None:
        timestamp = int(time.time() * 1000)
    starts = [np.concatenate(([0], np.cumsum(c)))[:-1] for c in x.chunks]
    blocks = x.to_delayed()
    writes = []
    for index in np.ndindex(*blocks.shape):
        sub = tuple((origin[d] + int(starts[d][i]), origin[d] + int(starts[d][i]) + x.chunks[d][i] - 1)
                    for d, i in enumerate(index))
        if any(hi < lo for lo, hi in sub):
            continue
        writes.append(dask.delayed(_write_block, pure=False)(blocks[index], uri, attribute, sub, timestamp,
                                                             tuple(sorted(cfg.items()))))
    total = dask.delayed(sum, pure=False)(writes)
    return total.compute() if compute else total
