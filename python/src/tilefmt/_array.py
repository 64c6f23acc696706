"""Arrays opened for reading: schema, fragments, metadata, and TileDB-Py's
ways of selecting cells (``A[...]``, ``A.multi_index[...]``, ``A.query``;
the queries themselves are in _query.py, the schema classes in _schema.py)."""

from collections.abc import Mapping

import numpy as np

from . import _config, _dimension_labels, _types
from ._core import Array as _CoreArray
from ._query import Query, _MultiIndexer, _labels
from ._schema import Attr, Dim, Domain, Enumeration, Fragment, Schema, _range_values, _schema_of  # noqa: F401

_UINT64_MAX = (1 << 64) - 1


class Metadata(Mapping):
    """An array's metadata, read-only, with TileDB-Py's conventions: one
    integer or float is a NumPy scalar, several a tuple, UTF-8 a str,
    BLOB and CHAR bytes; NumPy arrays TileDB-Py stored (under
    "__np_flat_<key>", shaped by "__np_shape_<key>") come back as arrays."""

    _FLAT = "__np_flat_"
    _SHAPE = "__np_shape_"

    def __init__(self, raw):
        self._raw = raw

    def _decode(self, key, as_array=False):
        t, num, data = self._raw[key]
        if t == "STRING_UTF8":
            return data.decode("utf-8", "surrogateescape")
        if t in ("BLOB", "CHAR", "STRING_ASCII"):
            return data
        values = np.frombuffer(data, dtype=_types.base_dtype(t))
        if as_array:
            return values.copy()
        if num == 1 and values.dtype.kind in "if":
            return values[0]
        items = tuple(v.item() for v in values)
        return items[0] if len(items) == 1 else items

    def __getitem__(self, key):
        if not isinstance(key, str):
            raise TypeError("metadata keys are str, not %r" % type(key))
        if key in self._raw:
            return self._decode(key)
        if self._FLAT + key in self._raw:
            data = self._decode(self._FLAT + key, as_array=True)
            if self._SHAPE + key in self._raw:
                shape = self._decode(self._SHAPE + key)
                data = data.reshape(shape if isinstance(shape, tuple) else (int(shape),))
            return data
        raise KeyError(key)

    def __contains__(self, key):
        return key in self._raw or (self._FLAT + key) in self._raw

    def __iter__(self):
        for k in self._raw:
            if k.startswith(self._FLAT):
                yield k[len(self._FLAT):]
            elif not k.startswith(self._SHAPE):
                yield k

    def __len__(self):
        return sum(1 for _ in self)

    def get_type(self, key):
        """The TileDB type name of `key`'s values."""
        return self._raw[key if key in self._raw else self._FLAT + key][0]

    def __repr__(self):
        return "Metadata(%r)" % dict(self.items())


def _timestamps(timestamp):
    """(start, end) of an open: None (every write), an end time, or a
    (start, end) tuple whose None ends are open, as TileDB-Py takes them."""
    if timestamp is None:
        return 0, _UINT64_MAX
    if isinstance(timestamp, tuple) and len(timestamp) == 2:
        lo, hi = timestamp
        return (0 if lo is None else _time(lo)), (_UINT64_MAX if hi is None else _time(hi))
    if isinstance(timestamp, (tuple, list, str, bytes, float)):
        # TileDB-Py's own words for every other form.
        raise TypeError("Unexpected argument type for 'timestamp' keyword argument")
    return 0, _time(timestamp)


def _time(t):
    if isinstance(t, (bool, float)) or not isinstance(t, (int, np.integer)):
        raise TypeError("Unexpected argument type for 'timestamp' keyword argument")
    if t < 0:
        raise ValueError("tilefmt: timestamps are milliseconds since 1970, not negative: %r" % (t,))
    return int(t)


def _python(v):
    # TileDB-Py's nonempty_domain gives Python numbers (fragment information
    # NumPy scalars), dates and times as datetime64, strings as they are.
    return v.item() if isinstance(v, np.generic) and v.dtype.kind in "iuf" else v


class Array:
    """An array opened for reading (see `open`)."""

    def __init__(self, uri, key=None, timestamp=None, config=None):
        if isinstance(key, str):
            key = key.encode()
        t0, t1 = _timestamps(timestamp)
        self.uri = _config.path_of(uri)
        self.timestamp_range = (t0, t1)
        self.config = _config.normalize(config)
        self._key = key or b""
        self._core = _CoreArray(self.uri, self._key, t0, t1, self.config)
        self.schema = _schema_of(self._core.schema(), _config.uri_of(self.uri))
        self._meta = None
        self._fragments = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Releases the array; it cannot be read afterwards."""
        self._core = None

    @property
    def isopen(self):
        return self._core is not None

    def _reader(self):
        if self._core is None:
            raise RuntimeError("tilefmt: the array is closed")
        return self._core

    @property
    def mode(self):
        return "r"

    @staticmethod
    def delete_fragments(uri, timestamp_start, timestamp_end, config=None):
        """Deletes the fragments written within [timestamp_start,
        timestamp_end] (ms, inclusive), as TileDB-Py's."""
        from ._maintain import delete_fragments
        delete_fragments(uri, timestamp_start, timestamp_end, config=config)

    @staticmethod
    def delete_array(uri, config=None):
        """Deletes the array at `uri`, as TileDB-Py's."""
        from ._maintain import delete_array
        delete_array(uri, config=config)

    # TileDB-Py's shortcuts to the schema.
    @property
    def domain(self):
        return self.schema.domain

    @property
    def ndim(self):
        return self.schema.ndim

    @property
    def nattr(self):
        return self.schema.nattr

    @property
    def shape(self):
        """Cells per dimension (integer and datetime dimensions)."""
        return self.schema.shape

    def dim(self, key):
        """Dimension `key`: its index or its name."""
        return self.schema.domain.dim(key)

    def attr(self, key):
        """Attribute `key`: its index or its name."""
        return self.schema.attr(key)

    @property
    def meta(self):
        """The array metadata (a read-only mapping)."""
        if self._meta is None:
            self._meta = Metadata(self._reader().metadata())
        return self._meta

    @property
    def fragments(self):
        """The fragments read at the open timestamp, oldest first."""
        if self._fragments is None:
            dims = self.schema.domain.dims
            out = []
            for f in self._reader().fragments():
                ned = tuple(_range_values(d, r["lo"], r["hi"]) for d, r in zip(dims, f["nonempty_domain"]))
                out.append(Fragment(f["uri"], f["name"], tuple(f["timestamp_range"]), f["version"], f["sparse"],
                                    f["cell_num"], ned, f["array_schema_name"], f["has_consolidated_metadata"]))
            self._fragments = tuple(out)
        return self._fragments

    def nonempty_domain(self):
        """Per dimension, the smallest (lo, hi) holding every written cell;
        None when nothing is written."""
        frags = self.fragments
        if not frags:
            return None
        out = []
        for i in range(self.schema.ndim):
            out.append((_python(min(f.nonempty_domain[i][0] for f in frags)),
                        _python(max(f.nonempty_domain[i][1] for f in frags))))
        return tuple(out)

    def enum(self, name):
        """Enumeration `name` (a tilefmt.Enumeration, as TileDB-Py's
        ``A.enum``: `.values()` its labels, strings for string labels)."""
        t, cvn, data, offsets, ordered = self._reader().enumeration(name)
        if cvn == 0:
            ends = list(offsets[1:]) + [len(data)]
            cells = [data[b:e] for b, e in zip(offsets, ends)]
            if t == "STRING_UTF8" or t == "STRING_ASCII":
                return Enumeration(name, ordered, [c.decode("utf-8", "surrogateescape") for c in cells], np.str_)
            return Enumeration(name, ordered, cells, np.bytes_)
        values = np.frombuffer(data, dtype=_types.cell_dtype(t, cvn)).copy()
        return Enumeration(name, ordered, values, values.dtype)

    def query(self, attrs=None, cond=None, order=None, dims=None, coords=None, return_raw=False, return_arrow=False):
        """A query with TileDB-Py's options: `attrs` (names, default all),
        `cond` (a condition string, see tilefmt._condition), `order` ("C",
        "F", "G" or "U"; default "C" for dense, "U" for sparse), `dims`
        (dimension names to return; sparse arrays return all by default).
        With `return_raw`, fields come as the reader filled them: var-size
        ones as (offsets, data[, validity]) arrays instead of object arrays,
        enumerated attributes as indices rather than labels. Index it with `[...]` or
        `.multi_index[...]`, or call `.agg(...)`; `.df[...]` gives pandas (a pyarrow
        Table with `return_arrow`), `.arrow[...]` Arrow for any consumer."""
        return Query(self, attrs=attrs, cond=cond, order=order, dims=dims, coords=coords, return_raw=return_raw,
                     return_arrow=return_arrow)

    @property
    def df(self):
        """TileDB-Py's `A.df[...]`: the dimensions (a dense array's
        coordinates too) and attributes of a multi_index selection as a
        pandas DataFrame (through Arrow; needs pyarrow and pandas)."""
        return self.query(dims=True).df

    def __arrow_c_stream__(self, requested_schema=None):
        """Every written cell as an Arrow C stream (pyarrow.table(A),
        polars.DataFrame(A), DuckDB's `from A`)."""
        return self.query().__arrow_c_stream__(requested_schema)

    def __getitem__(self, selection):
        """Cells of a region, as TileDB-Py's `A[...]`: Python slices
        (half-open for integer dimensions, inclusive for floats), integers
        (that axis dropped, dense), `...`; a dict of NumPy arrays (dense:
        shaped as the region; a single anonymous attribute: the array)."""
        out = self.query()._getitem(selection)
        if isinstance(out, dict):
            # A[...] (not A.query()[...]) gives enumerated attributes' labels, as in TileDB-Py.
            for a in self.schema.attrs:
                if a.enumeration and a.name in out:
                    out[a.name] = _labels(self, a, out[a.name])
        return out

    @property
    def multi_index(self):
        """TileDB-Py's `A.multi_index[...]`: per dimension a scalar, an
        inclusive slice, or a list of them; a dict of NumPy arrays."""
        return _MultiIndexer(self.query())

    def label_index(self, labels):
        """TileDB-Py's `A.label_index(["label", ...])[...]`: a multi_index
        selection in which each named dimension label's dimension takes
        inclusive label ranges (a scalar, a slice, a (lo, hi) pair or a list
        of them); the labels' values come first in the result (dense arrays)."""
        return _dimension_labels.LabelIndexer(self.query(), labels)

    def __repr__(self):
        return "tilefmt.Array(%r)" % self.uri
