"""SOMA's arrays: DataFrame (a sparse array indexed by its index columns,
``soma_joinid`` by default), SparseNDArray and DenseNDArray (dimensions
``soma_dim_0``.., one attribute ``soma_data``). Reads go through tilefmt's
queries and leave as Arrow: the C++ export hands the columns over, and the
tables have the types tiledbsoma gives (large strings, dictionaries for
enumerated columns)."""

import numpy as np

from .._arrow import ArrowResult
from .._query import _bound
from ._objects import SOMAError, SOMAObject

#: SOMA's result orders, as tilefmt's query layouts.
_ORDERS = {"auto": "U", "row-major": "C", "column-major": "F"}


def _layout(result_order):
    name = getattr(result_order, "value", result_order)
    if name not in _ORDERS:
        raise ValueError("result_order must be 'auto', 'row-major' or 'column-major', not %r" % (result_order,))
    return _ORDERS[name]


def _points(values):
    """A 1-D NumPy array of the coordinates in `values` (NumPy, Arrow,
    pandas or a Python sequence)."""
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        try:
            values = values.to_numpy(zero_copy_only=False)
        except TypeError:
            values = values.to_numpy()
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError("coordinates of a dimension must be one-dimensional, not of shape %s" % (values.shape,))
    return values


def _integer_runs(values, lo, hi):
    """Sorted distinct integers as inclusive ranges, neighbours merged (a
    list of joinids becomes as few ranges as it has gaps), within [lo, hi]."""
    v = np.unique(values.astype(np.int64, copy=False))
    v = v[(v >= lo) & (v <= hi)]
    if len(v) == 0:
        return []
    breaks = np.flatnonzero(np.diff(v) != 1) + 1
    starts = v[np.concatenate(([0], breaks))]
    ends = v[np.concatenate((breaks - 1, [len(v) - 1]))]
    return list(zip(starts.tolist(), ends.tolist()))


def _dim_ranges(dim, bounds, sel):
    """TileDB's inclusive ranges on `dim` for one SOMA coordinate: [] for
    all, None for nothing. `bounds`: the dimension's current domain."""
    if sel is None:
        return []
    if isinstance(sel, slice):
        if sel.step is not None:
            raise ValueError("slice steps are not supported (SOMA slices are inclusive ranges)")
        if sel.start is None and sel.stop is None:
            return []
        lo = sel.start if sel.start is not None else bounds[0]
        hi = sel.stop if sel.stop is not None else bounds[1]
        if lo is None or hi is None:
            raise ValueError("a half-open slice of %r needs a domain" % dim.name)
        if dim.dtype.kind in "iu" and bounds[0] is not None:
            lo, hi = max(int(lo), int(bounds[0])), min(int(hi), int(bounds[1]))
            if lo > hi:
                return None
        return [(_bound(dim, lo), _bound(dim, hi))]
    if isinstance(sel, (str, bytes, int, float, np.generic)):
        sel = [sel]
    values = _points(sel)
    if len(values) == 0:
        return None
    if dim.dtype.kind in "iu" and values.dtype.kind in "iu":
        runs = _integer_runs(values, *(bounds if bounds[0] is not None else (np.iinfo(np.int64).min,
                                                                            np.iinfo(np.int64).max)))
        return runs or None
    return [(_bound(dim, v), _bound(dim, v)) for v in dict.fromkeys(values.tolist())]


def _bounds(array, i):
    """The current domain of dimension `i` (the domain without one)."""
    current = array.schema.current_domain
    if current:
        return current[i]
    dim = array.schema.domain.dims[i]
    return dim.domain if dim.domain is not None else (None, None)


def _ranges(array, coords):
    """Per dimension, TileDB's encoded ranges for SOMA `coords` (one entry
    per dimension, missing ones all), or None when they select no cell."""
    dims = array.schema.domain.dims
    if coords is None:
        coords = ()
    if not isinstance(coords, (tuple, list)):
        raise TypeError("coords must be a sequence with one entry per index column, not %s" % type(coords).__name__)
    if len(coords) > len(dims):
        raise ValueError("coords has %d entries, the array %d dimensions" % (len(coords), len(dims)))
    out = []
    for i, dim in enumerate(dims):
        r = _dim_ranges(dim, _bounds(array, i), coords[i] if i < len(coords) else None)
        if r is None:
            return None
        out.append(r)
    return out


class TableReadIter:
    """The Arrow tables of a read, one per batch of the query (at most
    about a memory budget each); `concat()` gives them as one table."""

    def __init__(self, result, columns, empty=False):
        import pyarrow as pa
        self._reader = pa.RecordBatchReader.from_stream(result)
        src = self._reader.schema
        self._index = [src.get_field_index(c) for c in columns]
        # TileDB's datatype rides in the export's field metadata; SOMA's
        # tables have none.
        self.schema = pa.schema([src.field(i).remove_metadata() for i in self._index])
        self._empty = empty

    def __iter__(self):
        return self

    def __next__(self):
        import pyarrow as pa
        if self._empty:
            raise StopIteration
        batch = self._reader.read_next_batch()
        return pa.Table.from_batches([pa.RecordBatch.from_arrays([batch.column(i) for i in self._index],
                                                                 schema=self.schema)])

    def concat(self):
        """Every remaining batch as one pyarrow Table."""
        import pyarrow as pa
        tables = list(self)
        return pa.concat_tables(tables) if tables else self.schema.empty_table()


class _SOMAArray(SOMAObject):
    """What SOMA's arrays share: the TileDB array, its schema as Arrow, its
    domains, and reading columns at coordinates."""

    @property
    def _array(self):
        if self._handle is None:
            raise SOMAError("%s is closed" % self.uri)
        return self._handle

    def close(self):
        if self._handle is not None:
            self._handle.close()
        super().close()

    @property
    def schema(self):
        """The Arrow schema of what reads return."""
        return self._read((), None, None, "auto", empty=True).schema

    def keys(self):
        """The column names."""
        return tuple(self.schema.names)

    @property
    def ndim(self):
        return self._array.schema.ndim

    def non_empty_domain(self):
        """Per dimension, the (lo, hi) of the cells written."""
        return self._array.nonempty_domain()

    def _count(self):
        A = self._array
        return int(A.query(attrs=[A.schema.attrs[0].name]).agg("count")[:])

    def _read(self, coords, column_names, value_filter, result_order, empty=False):
        A = self._array
        schema = A.schema
        dims = [d.name for d in schema.domain.dims]
        attrs = [a.name for a in schema.attrs]
        columns = dims + attrs if column_names is None else list(column_names)
        unknown = [c for c in columns if c not in dims and c not in attrs]
        if unknown:
            raise ValueError("%s has no column %s" % (self.uri, ", ".join(map(repr, unknown))))
        ranges = None if empty else _ranges(A, coords)
        query = A.query(attrs=[c for c in attrs if c in columns], cond=value_filter or None,
                        order=_layout(result_order))
        return TableReadIter(ArrowResult(query, ranges or [[] for _ in dims]), columns, empty=ranges is None)


class DataFrame(_SOMAArray):
    """A table of rows indexed by `index_column_names` (``soma_joinid``
    unless the DataFrame was made with others)."""

    soma_type = "SOMADataFrame"

    @property
    def index_column_names(self):
        return tuple(d.name for d in self._array.schema.domain.dims)

    @property
    def count(self):
        """The number of rows."""
        return self._count()

    def __len__(self):
        return self.count

    @property
    def domain(self):
        """Per index column, the (lo, hi) rows may take (its current domain)."""
        return tuple(_bounds(self._array, i) for i in range(self.ndim))

    def read(self, coords=(), column_names=None, *, result_order="auto", value_filter=None, batch_size=None,
             partitions=None, platform_config=None):
        """The rows at `coords` (per index column: None, a value, a list or
        array of values, or an inclusive slice) that `value_filter` (a
        TileDB query condition, e.g. ``"cell_type == 'B cell' and n_genes >
        500"``; enumerated columns compare their labels) keeps, with the
        columns `column_names` (all by default), as a TableReadIter."""
        del batch_size, platform_config
        if partitions is not None:
            raise ValueError("partitioned reads are not supported")
        return self._read(coords, column_names, value_filter, result_order)


class _NDArray(_SOMAArray):
    @property
    def shape(self):
        """Cells per dimension (the current domain's upper bounds + 1)."""
        return tuple(int(_bounds(self._array, i)[1]) + 1 for i in range(self.ndim))


class SparseNDArray(_NDArray):
    """A sparse matrix or tensor: dimensions ``soma_dim_0``.., values
    ``soma_data``."""

    soma_type = "SOMASparseNDArray"

    @property
    def nnz(self):
        """The number of stored values."""
        return self._count()

    def read(self, coords=(), *, result_order="auto", batch_size=None, partitions=None, platform_config=None):
        """The values at `coords` (per dimension: None, a value, a list or
        array of joinids, or an inclusive slice), as a SparseNDArrayRead."""
        del batch_size, platform_config
        if partitions is not None:
            raise ValueError("partitioned reads are not supported")
        return SparseNDArrayRead(self, coords, result_order)


class SparseNDArrayRead:
    """A read of a SparseNDArray, in the forms SOMA offers."""

    def __init__(self, array, coords, result_order):
        self.array = array
        self.coords = coords
        self.result_order = result_order

    def tables(self):
        """Arrow tables of soma_dim_0.., soma_data."""
        return self.array._read(self.coords, None, None, self.result_order)

    def coos(self, shape=None):
        """pyarrow SparseCOOTensors of the array's shape (or `shape`), one per batch."""
        import pyarrow as pa
        shape = tuple(shape) if shape is not None else self.array.shape
        if len(shape) != self.array.ndim:
            raise ValueError("shape must have %d entries" % self.array.ndim)
        dims = ["soma_dim_%d" % i for i in range(len(shape))]
        for t in self.tables():
            coords = np.column_stack([t.column(d).to_numpy() for d in dims]) if t.num_rows else \
                np.zeros((0, len(dims)), np.int64)
            data = t.column("soma_data").to_numpy()
            yield pa.SparseCOOTensor.from_numpy(data.reshape(-1, 1), coords, shape=shape, dim_names=dims)


class DenseNDArray(_NDArray):
    """A dense matrix or tensor: dimensions ``soma_dim_0``.., values ``soma_data``."""

    soma_type = "SOMADenseNDArray"

    def read(self, coords=(), *, result_order="auto", partitions=None, platform_config=None):
        """The values at `coords` (per dimension: None, a value or an
        inclusive slice), as a pyarrow Tensor of the selected region's
        shape, in row-major order ("column-major": Fortran order)."""
        import pyarrow as pa
        del platform_config
        if partitions is not None:
            raise ValueError("partitioned reads are not supported")
        order = _layout(result_order)
        A = self._array
        sel = []
        for i in range(self.ndim):
            c = coords[i] if i < len(coords or ()) else None
            lo, hi = _bounds(A, i)
            if c is None:
                sel.append(slice(int(lo), int(hi)))
            elif isinstance(c, slice):
                if c.step is not None:
                    raise ValueError("slice steps are not supported (SOMA slices are inclusive ranges)")
                sel.append(slice(int(lo) if c.start is None else int(c.start), int(hi) if c.stop is None else int(c.stop)))
            elif isinstance(c, (int, np.integer)):
                sel.append(slice(int(c), int(c)))
            else:
                raise TypeError("a DenseNDArray takes a value or a slice per dimension, not %s" % type(c).__name__)
        data = A.query(attrs=["soma_data"], order="C").multi_index[tuple(sel)]["soma_data"]
        return pa.Tensor.from_numpy(np.asfortranarray(data) if order == "F" else np.ascontiguousarray(data))
