"""TileDB-Py's ways of selecting cells of an open array (``A[...]``,
``A.multi_index[...]``, ``A.query``, aggregates) and the turning of the
extension's raw results into NumPy arrays."""

from collections import OrderedDict

import numpy as np

from . import _arrow, _condition, _core, _types
from ._schema import Attr


def _dense_default_order(schema):
    return "U" if schema.sparse else "C"


class Query:
    """A configured read of an array (see `Array.query`)."""

    def __init__(self, array, attrs=None, cond=None, order=None, dims=None, coords=None, return_raw=False,
                 return_arrow=False):
        schema = array.schema
        self.array = array
        self.attrs = tuple(a.name for a in schema.attrs) if attrs is None else tuple(attrs)
        for a in self.attrs:
            if not schema.has_attr(a):
                raise KeyError("tilefmt: the array has no attribute %r" % a)
        self.cond = cond
        self.order = order or _dense_default_order(schema)
        if self.order not in ("C", "F", "G", "U"):
            raise ValueError("order must be 'C', 'F', 'G' or 'U'")
        if dims is None and coords is not None:
            dims = [d.name for d in schema.domain.dims] if coords is True else (list(coords) if coords else [])
        if dims is None:
            dims = [d.name for d in schema.domain.dims] if schema.sparse else []
        elif dims is True:
            dims = [d.name for d in schema.domain.dims]
        self.dims = tuple(dims)
        self.return_raw = return_raw
        self.return_arrow = return_arrow
        self._tree = None if not cond else _condition.parse(cond, schema)

    @property
    def multi_index(self):
        """`.multi_index[...]` with this query's options."""
        return _MultiIndexer(self)

    def __getitem__(self, selection):
        return self._getitem(selection)

    def label_index(self, labels):
        """`multi_index` with label ranges on the dimensions of `labels`
        (see Array.label_index)."""
        from ._dimension_labels import LabelIndexer

        return LabelIndexer(self, labels)

    @property
    def df(self):
        """TileDB-Py's `.df[...]`: multi_index selection, a pandas DataFrame
        (a pyarrow Table with `return_arrow=True`)."""
        return _arrow.DataFrameIndexer(self)

    @property
    def arrow(self):
        """`.arrow[...]`: multi_index selection, an ArrowResult that
        pyarrow, Polars and DuckDB read through the Arrow PyCapsule
        interface (no pyarrow needed)."""
        return _arrow.DataFrameIndexer(self, arrow_only=True)

    def __arrow_c_stream__(self, requested_schema=None):
        """Everything the query selects, as an Arrow C stream."""
        return _arrow.whole(self).__arrow_c_stream__(requested_schema)

    def agg(self, aggs):
        """Aggregates with TileDB-Py's forms: "sum", ["count", "mean"] or
        {"a": ["min", "max"]}; index the result with `[...]` or
        `.multi_index[...]`. One attribute and one operation give a value,
        one attribute a dict by operation, else a dict by attribute."""
        if isinstance(aggs, dict):
            what = {a: ((ops,) if isinstance(ops, str) else tuple(ops)) for a, ops in aggs.items()}
        elif isinstance(aggs, str):
            what = {a: (aggs,) for a in self.attrs}
        else:
            what = {a: tuple(aggs) for a in self.attrs}
        return _Aggregation(self, what)

    # -- running --

    def _read(self, ranges, style, shape=None, drop_axes=(), steps=None):
        """Runs the query on `ranges` and shapes the result as TileDB-Py
        does for `style`: "getitem" (A[...]: sparse attributes before
        coordinates; dense fields shaped as the region, then stepped and
        squeezed) or "multi" (multi_index: coordinates first)."""
        schema = self.array.schema
        core = self.array._reader()
        # A dense array's coordinates are made by the reader from the
        # subarray and the layout (C or F), as TileDB makes them.
        dense_coords = bool(self.dims) and not schema.sparse
        fields, cells = core.read(ranges, list(self.attrs), self.order, self._tree, dense_coords)
        by_name = {f[0]: f for f in fields}
        dims = OrderedDict()
        for n in self.dims:
            dims[n] = self._column(schema.domain.dim(n), by_name[n], cells)
        attrs = OrderedDict()
        for a in self.attrs:
            attrs[a] = self._column(schema.attr(a), by_name[a], cells, labels=style == "multi",
                                    empty_typed=schema.sparse or style == "multi")
        out = OrderedDict()
        first, second = (attrs, dims) if schema.sparse and style == "getitem" else (dims, attrs)
        out.update(first)
        out.update(second)
        if not schema.sparse and shape is not None:
            for k, v in out.items():
                if isinstance(v, tuple):  # raw var-size buffers keep their form
                    continue
                v = self._shape(v, shape, v.dtype == object)
                if steps is not None:
                    v = v[steps]
                if drop_axes:
                    v = v.squeeze(axis=drop_axes)
                out[k] = v
        return out

    def _shape(self, v, shape, var):
        mask = np.ma.getmask(v)
        if isinstance(v, np.ma.MaskedArray):
            v = v.data
        v = self._shape_data(v, shape, var)
        if mask is not np.ma.nomask:
            return np.ma.array(v, mask=mask.reshape(v.shape))
        return v

    def _shape_data(self, v, shape, var):
        # As TileDB-Py: var-size (object) results take the shape in C order
        # whatever the layout; fixed-size ones in C and F orders only.
        if self.order == "C" or var:
            return v.reshape(shape)
        if self.order == "F":
            # TileDB-Py gives the buffer the shape in C order, then a Fortran
            # layout: matched, so that results compare equal.
            return np.asfortranarray(v.reshape(shape))
        return v

    def _column(self, f, raw, cells, labels=False, empty_typed=True):
        name, var, values, offsets, validity = raw
        if var and empty_typed and len(offsets) == 0 and not self.return_raw:
            # No cells: TileDB-Py gives the field's dtype ('U1' for strings),
            # not an object array (except dense A[...]).
            dt = f.dtype
            col = np.zeros(0, dtype=np.dtype((dt.kind, 1)) if dt.kind in "SU" else dt)
            return col if validity is None else np.ma.array(col, mask=np.zeros(0, dtype=bool))
        if var:
            if self.return_raw:
                data = values.view(_types.base_dtype(f.tiledb_type))
                col = (offsets, data)
                return col if validity is None else (offsets, data, validity)
            col = _unpack_var(f.tiledb_type, values, offsets)
        elif isinstance(f, Attr) and f.tiledb_type in ("BLOB", "GEOM_WKB", "GEOM_WKT") and f.cell_val_num == 1:
            col = values.view("S1")
        else:
            dt = f.dtype if isinstance(f, Attr) else f.dtype
            if dt.kind == "U":
                # Fixed UTF-8 cells: TileDB-Py decodes each cell.
                n = dt.itemsize // 4 or 1
                b = values.view("S%d" % n)
                col = np.array([x.decode("utf-8", "surrogateescape") for x in b], dtype=object)
            elif dt.kind == "S" and dt.itemsize == 0:
                col = values.view("S1")
            else:
                col = values.view(dt)
        if labels and isinstance(f, Attr) and f.enumeration and not self.return_raw:
            # multi_index gives an enumerated attribute's labels, as TileDB-Py does.
            col = _labels(self.array, f, col)
        if validity is not None:
            return np.ma.array(col, mask=validity == 0)
        return col

    def _ranges_of_slices(self, idx):
        """TileDB-Py's dense/sparse `A[...]` index to ranges and the result
        shape (array.py index_domain_subarray)."""
        schema = self.array.schema
        ndim = schema.ndim
        idx = _replace_ellipsis(ndim, idx if isinstance(idx, tuple) else (idx,))
        new_idx, drop = [], []
        for i, (d, s) in enumerate(zip(schema.domain.dims, idx)):
            if np.isscalar(s):
                drop.append(i)
                if isinstance(s, (int, np.integer)):
                    start = int(s)
                    if start < 0:
                        start += int(d.domain[1]) + 1
                    s = slice(start, start + 1)
                else:
                    s = slice(s, s)
            new_idx.append(s)
        ranges, shape = [], []
        current = schema.current_domain
        for i, (d, s) in enumerate(zip(schema.domain.dims, new_idx)):
            if isinstance(s, (list, np.ndarray)):
                vals = list(s)
                ranges.append([(v, v) for v in vals])
                shape.append(len(vals))
                continue
            if not isinstance(s, slice):
                raise IndexError("invalid index type: %r" % type(s))
            if s.step and schema.sparse:
                raise IndexError("steps are not supported for sparse arrays")
            lb, ub = d.domain
            if current is not None:
                if s.start is None:
                    lb = current[i][0]
                if s.stop is None:
                    ub = current[i][1]
            if d.var:
                ned = self.array.nonempty_domain()
                lo = s.start if s.start is not None else (ned[i][0] if ned else None)
                hi = s.stop if s.stop is not None else (ned[i][1] if ned else None)
                ranges.append([] if lo is None else [(lo, hi)])
                shape.append(0)
                continue
            floating = d.dtype.kind in "fmM"
            datetime = d.dtype.kind in "mM"
            start, stop = s.start, s.stop
            # TileDB-Py's rules, negative values counted from the end even
            # on floating-point dimensions (array.py, index_domain_subarray).
            if start is None:
                start = lb
            else:
                if not floating and isinstance(start, (float, np.floating)):
                    raise IndexError("cannot index integral domain dimension with floating point slice")
                if not datetime and start < 0:
                    start += int(ub) + 1
                if start < lb:
                    raise IndexError("index out of bounds")
            if stop is None:
                stop = ub if floating else int(ub) + 1
            else:
                if not datetime and stop < 0:
                    stop = stop + ub
                if stop > ub:
                    stop = ub if datetime else int(ub) + 1
            if floating or isinstance(stop, (float, np.floating)):
                ranges.append([(start, stop)])
                shape.append(0)
            else:
                ranges.append([(int(start), int(stop) - 1)])
                shape.append(max(0, int(stop) - int(start)))
        steps = None
        if any(isinstance(s, slice) and s.step for s in new_idx):
            steps = tuple(slice(None, None, s.step) if isinstance(s, slice) else slice(None) for s in new_idx)
        return ranges, tuple(shape), tuple(drop), steps

    def _getitem(self, selection):
        schema = self.array.schema
        ranges, shape, drop, steps = self._ranges_of_slices(selection)
        out = self._read(_encode_ranges(schema, ranges), "getitem", None if schema.sparse else shape, drop, steps)
        if not schema.sparse and not self.dims and len(self.attrs) == 1 and self.attrs[0] == "":
            return out[""]
        return out

    def _multi_ranges(self, idx):
        """TileDB-Py's multi_index selection to inclusive ranges per dimension."""
        schema = self.array.schema
        ned = self.array.nonempty_domain()
        current = schema.current_domain
        sel = idx if isinstance(idx, tuple) else (idx,)
        if len(sel) > schema.ndim:
            raise IndexError("too many indices for array")
        ranges = [[] for _ in range(schema.ndim)]
        for i, s in enumerate(sel):
            items = s if isinstance(s, list) else [s]
            for it in items:
                if isinstance(it, slice):
                    if it.step is not None:
                        raise ValueError("Stepped slice ranges are not supported")
                    lo, hi = it.start, it.stop
                    nd = ned[i] if ned else None
                    cd = current[i] if current else None
                    if lo is None:
                        lo = max(cd[0], nd[0]) if cd and nd else (cd[0] if cd else (nd[0] if nd else None))
                    if hi is None:
                        hi = min(cd[1], nd[1]) if cd and nd else (cd[1] if cd else (nd[1] if nd else None))
                    if schema.sparse and it.start is None and it.stop is None:
                        continue
                    if lo is None or hi is None:
                        continue
                    ranges[i].append((lo, hi))
                elif isinstance(it, tuple):
                    ranges[i].append((it[0], it[1]))
                elif isinstance(it, np.ndarray) and it.ndim == 1:
                    ranges[i].extend((v, v) for v in it.tolist())
                else:
                    v = it[()] if isinstance(it, np.ndarray) else it
                    ranges[i].append((v, v))
        return ranges

    def _multi_index(self, idx):
        schema = self.array.schema
        ranges = self._multi_ranges(idx)
        shape = None
        if not schema.sparse and schema.ndim > 1:
            shape = tuple(sum(int(hi) - int(lo) + 1 for lo, hi in rs) if rs else n
                          for rs, n in zip(ranges, schema.shape))
        out = self._read(_encode_ranges(schema, ranges), "multi")
        if shape is not None:
            # TileDB-Py gives every field the shape in C order, whatever the layout.
            for k, v in out.items():
                if not isinstance(v, tuple):
                    out[k] = v.reshape(shape)
        return out


def _replace_ellipsis(ndim, idx):
    n_ell = sum(1 for i in idx if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ell == 1:
        n = len(idx)
        if n - 1 >= ndim:
            idx = tuple(i for i in idx if i is not Ellipsis)
        else:
            left = idx.index(Ellipsis)
            right = n - (left + 1)
            new = idx[:left] + (slice(None),) * (ndim - (n - 1))
            if right:
                new += idx[-right:]
            idx = new
    if len(idx) < ndim:
        idx += (slice(None),) * (ndim - len(idx))
    if len(idx) > ndim:
        raise IndexError("too many indices for array")
    return idx


def _bound(dim, v):
    if dim.var:
        if isinstance(v, str):
            return v.encode("utf-8")
        return bytes(v)
    if isinstance(v, np.datetime64):
        return int(v.astype(dim.dtype).astype("<i8"))
    if isinstance(v, np.generic):
        v = v.item()
    if dim.dtype.kind == "f":
        return float(v)
    if isinstance(v, float):
        if v != int(v):
            raise IndexError("cannot index integral domain dimension with floating point values")
    return int(v)


def _encode_ranges(schema, ranges):
    return [[(_bound(d, lo), _bound(d, hi)) for lo, hi in rs] for d, rs in zip(schema.domain.dims, ranges)]


def _unpack_var(tiledb_type, values, offsets):
    """Var-size cells as an object array: str for UTF-8, bytes for other
    characters, NumPy arrays for numbers. UTF-8 and ASCII strings lose
    their trailing NULs, as they do through TileDB-Py's NumPy strings;
    CHAR and BLOB bytes keep them, as in TileDB-Py."""
    n = len(offsets)
    if tiledb_type in ("STRING_UTF8", "STRING_ASCII") or _types.is_string(tiledb_type):
        kind = 0 if tiledb_type == "STRING_UTF8" else 1 if tiledb_type == "STRING_ASCII" else 2
        return _core.unpack_strings(np.ascontiguousarray(values).view(np.uint8),
                                    np.ascontiguousarray(offsets, dtype=np.uint64), kind)
    out = np.empty(n, dtype=object)
    ends = np.empty(n, dtype=np.uint64)
    if n:
        ends[:-1] = offsets[1:]
        ends[-1] = values.nbytes
    starts = offsets.tolist()
    stops = ends.tolist()
    dt = _types.base_dtype(tiledb_type)
    typed = values.view(dt)
    k = dt.itemsize
    for i in range(n):
        out[i] = typed[starts[i] // k:stops[i] // k]
    return out


def _labels(array, attr, col):
    """An enumerated attribute's values as its labels (an index without a
    label, such as a fill value, raises IndexError as in TileDB-Py)."""
    values = array.enum(attr.enumeration).values()
    mask = np.ma.getmask(col)
    data = col.data if isinstance(col, np.ma.MaskedArray) else col
    if data.ndim == 0:
        out = np.array(values[int(data)])
    else:
        out = np.array([values[i] for i in data])
    return out if mask is np.ma.nomask else np.ma.array(out, mask=mask)


class _MultiIndexer:
    def __init__(self, query):
        self.query = query

    def __getitem__(self, idx):
        return self.query._multi_index(idx)


_NAN_ON_NULL = "fc"


class _Aggregation:
    """The result of `Query.agg`: index it to compute."""

    def __init__(self, query, what):
        self.query = query
        self.what = what

    @property
    def multi_index(self):
        return _AggIndexer(self, multi=True)

    def __getitem__(self, selection):
        return _AggIndexer(self, multi=False)[selection]

    def _run(self, ranges):
        schema = self.query.array.schema
        pairs = []
        for a, ops in self.what.items():
            for op in ops:
                pairs.append((op, "" if op == "count" else a))
        values = self.query.array._reader().aggregate(_encode_ranges(schema, ranges), self.query._tree, pairs)
        out = OrderedDict()
        it = iter(values)
        for a, ops in self.what.items():
            res = OrderedDict()
            attr = schema.attr(a)
            for op in ops:
                v = next(it)
                if v is None and op in ("min", "max", "sum", "mean") and attr.dtype.kind in _NAN_ON_NULL:
                    v = float("nan")
                if isinstance(v, bytes):
                    v = v.decode("utf-8", "surrogateescape") if attr.tiledb_type == "STRING_UTF8" else v
                res[op] = v
            out[a] = res
        if len(out) == 1:
            out = next(iter(out.values()))
            if len(out) == 1:
                out = next(iter(out.values()))
        return out


class _AggIndexer:
    def __init__(self, agg, multi):
        self.agg = agg
        self.multi = multi

    def __getitem__(self, idx):
        q = self.agg.query
        if self.multi:
            return self.agg._run(q._multi_ranges(idx))
        ranges, _, _, _ = q._ranges_of_slices(idx)
        return self.agg._run(ranges)
