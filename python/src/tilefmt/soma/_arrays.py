"""SOMA's arrays: DataFrame (a sparse array indexed by its index columns,
``soma_joinid`` by default), SparseNDArray and DenseNDArray (dimensions
``soma_dim_0``.., one attribute ``soma_data``). Reads go through tilefmt's
queries and leave as Arrow: the C++ export hands the columns over, and the
tables have the types tiledbsoma gives (large strings, dictionaries for
enumerated columns)."""

import numpy as np

from .. import _condition
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


def _arrow_numbers(values):
    """The values of a pyarrow integer or float array without nulls, as
    NumPy, from its buffer (pyarrow's to_numpy imports pandas the first
    time: a fifth of a second a process); None for anything else."""
    chunks = getattr(values, "chunks", None)
    if chunks is not None:
        parts = [_arrow_numbers(c) for c in chunks]
        if any(p is None for p in parts):
            return None
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)
    kind = getattr(getattr(values, "type", None), "id", None)
    buffers = getattr(values, "buffers", None)
    if kind is None or buffers is None or values.null_count:
        return None
    try:
        dtype = np.dtype(values.type.to_pandas_dtype())
    except (NotImplementedError, TypeError):
        return None
    if dtype.kind not in "iuf":
        return None
    data = buffers()[1]
    return np.frombuffer(data, dtype=dtype, count=len(values), offset=values.offset * dtype.itemsize)


def _points(values):
    """A 1-D NumPy array of the coordinates in `values` (NumPy, Arrow,
    pandas or a Python sequence)."""
    numbers = _arrow_numbers(values) if not isinstance(values, np.ndarray) else None
    if numbers is not None:
        return numbers
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        try:
            values = values.to_numpy(zero_copy_only=False)
        except TypeError:
            values = values.to_numpy()
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError("coordinates of a dimension must be one-dimensional, not of shape %s" % (values.shape,))
    return values


def _integer_runs(values):
    """Sorted distinct integers as inclusive ranges, neighbours merged: a
    list of joinids becomes as few ranges as it has gaps."""
    v = np.unique(values.astype(np.int64, copy=False))
    breaks = np.flatnonzero(np.diff(v) != 1) + 1
    starts = v[np.concatenate(([0], breaks))]
    ends = v[np.concatenate((breaks - 1, [len(v) - 1]))]
    return list(zip(starts.tolist(), ends.tolist()))


def _dim_ranges(dim, bounds, sel):
    """TileDB's inclusive ranges on `dim` for one SOMA coordinate: [] for
    all, None for nothing. `bounds`: the dimension's current domain. As in
    tiledbsoma, a slice is cut to the domain (and is an error outside it),
    and a point outside it is an error."""
    lo_b, hi_b = bounds
    if sel is None:
        return []
    if isinstance(sel, slice):
        if sel.step is not None:
            raise ValueError("slice steps are not supported (SOMA slices are inclusive ranges)")
        if sel.start is None and sel.stop is None:
            return []
        lo = sel.start if sel.start is not None else lo_b
        hi = sel.stop if sel.stop is not None else hi_b
        if lo is None or hi is None:
            raise ValueError("a half-open slice of %r needs a domain" % dim.name)
        if dim.dtype.kind in "iu" and lo_b is not None:
            if int(lo) > int(hi_b) or int(hi) < int(lo_b):
                raise ValueError("slice [%s:%s] does not overlap [%s:%s]" % (lo, hi, lo_b, hi_b))
            lo, hi = max(int(lo), int(lo_b)), min(int(hi), int(hi_b))
        return [(_bound(dim, lo), _bound(dim, hi))]
    if isinstance(sel, (str, bytes, int, float, np.generic)):
        sel = [sel]
    values = _points(sel)
    if len(values) == 0:
        return None
    if dim.dtype.kind in "iu" and values.dtype.kind in "iu":
        if lo_b is not None:
            outside = values[(values < int(lo_b)) | (values > int(hi_b))]
            if len(outside):
                raise SOMAError("a coordinate of %r, %d, is outside the current domain [%s, %s]"
                                % (dim.name, outside[0], lo_b, hi_b))
        return _integer_runs(values)
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


def _condition_fields(tree, out):
    """The fields a parsed condition names, in the order it names them."""
    if tree is None:
        return out
    if tree[0] in ("and", "or"):
        for child in tree[1]:
            _condition_fields(child, out)
    elif tree[0] == "not":
        _condition_fields(tree[1], out)
    elif tree[1] not in out:
        out.append(tree[1])
    return out


class TableReadIter:
    """The Arrow tables of a read, one per batch of the query (at most
    about a memory budget each; an empty read gives one empty table);
    `concat()` gives them as one table."""

    def __init__(self, array, result, columns, empty=False):
        import pyarrow as pa
        self._array = array
        self._reader = pa.RecordBatchReader.from_stream(result)
        src = self._reader.schema
        self._index = [src.get_field_index(c) for c in columns]
        if -1 in self._index:
            raise SOMAError("the read gives no column %r" % columns[self._index.index(-1)])
        # TileDB's datatype rides in the export's field metadata; SOMA's
        # tables have none.
        self.schema = pa.schema([src.field(i).remove_metadata() for i in self._index])
        self._done = empty
        self._yielded = False

    def __iter__(self):
        return self

    def __next__(self):
        import pyarrow as pa
        try:
            if self._done:
                raise StopIteration
            batch = self._reader.read_next_batch()
        except StopIteration:
            self._done = True
            if self._yielded:
                raise
            self._yielded = True
            return self._empty()
        self._yielded = True
        return pa.Table.from_batches([pa.RecordBatch.from_arrays([batch.column(i) for i in self._index],
                                                                 schema=self.schema)])

    def _empty(self):
        """No rows, but dictionary columns with their whole enumeration (as
        a batch of rows has them, and tiledbsoma's empty tables)."""
        import pyarrow as pa
        columns = []
        for f in self.schema:
            if pa.types.is_dictionary(f.type):
                labels = self._array.enum(self._array.schema.attr(f.name).enumeration).values()
                values = pa.array(labels, f.type.value_type)
                columns.append(pa.DictionaryArray.from_arrays(pa.array([], f.type.index_type), values))
            else:
                columns.append(pa.array([], f.type))
        return pa.Table.from_arrays(columns, schema=self.schema)

    def concat(self):
        """Every remaining batch as one pyarrow Table."""
        import pyarrow as pa
        tables = list(self)
        return pa.concat_tables(tables) if tables else self._empty()


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
        if column_names is not None and value_filter:
            # tiledbsoma's tables also hold the columns the filter names.
            named = _condition_fields(_condition.parse(value_filter, schema), [])
            columns += [c for c in named if c not in columns]
        ranges = None if empty else _ranges(A, coords)
        query = A.query(attrs=[c for c in attrs if c in columns], cond=value_filter or None,
                        order=_layout(result_order))
        return TableReadIter(A, ArrowResult(query, ranges or [[] for _ in dims]), columns, empty=ranges is None)


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

    def blockwise(self, axis, *, size=None, reindex_disable_on_axis=None, eager=True):
        """The read a block of `size` coordinates of `axis` at a time (a
        BlockwiseRead: `.tables()`, `.scipy()`), coordinates renumbered by
        position except on the axes of `reindex_disable_on_axis`. `eager`
        (tiledbsoma's read-ahead) is taken and not needed."""
        from ._blockwise import BlockwiseRead
        del eager
        return BlockwiseRead(self.array, self.coords, axis, self.result_order, size, reindex_disable_on_axis)

    def coos(self, shape=None):
        """pyarrow SparseCOOTensors of the array's shape (or `shape`), one
        per batch of values (none for an empty read)."""
        import pyarrow as pa
        shape = tuple(shape) if shape is not None else self.array.shape
        if len(shape) != self.array.ndim:
            raise ValueError("shape must have %d entries" % self.array.ndim)
        dims = ["soma_dim_%d" % i for i in range(len(shape))]
        for t in self.tables():
            if t.num_rows == 0:
                continue  # pyarrow makes no empty SparseCOOTensor
            coords = np.column_stack([_points(t.column(d)) for d in dims])
            data = np.array(_points(t.column("soma_data")))
            yield pa.SparseCOOTensor.from_numpy(data.reshape(-1, 1), coords, shape=shape, dim_names=dims)


class DenseNDArray(_NDArray):
    """A dense matrix or tensor: dimensions ``soma_dim_0``.., values ``soma_data``."""

    soma_type = "SOMADenseNDArray"

    @property
    def schema(self):
        """The dimensions (int64) and soma_data, as SOMA names a dense array's columns."""
        import pyarrow as pa
        A = self._array
        whole = [[] for _ in A.schema.domain.dims]
        data = pa.RecordBatchReader.from_stream(ArrowResult(A.query(attrs=["soma_data"]), whole))
        dims = [pa.field(d.name, pa.int64(), nullable=False) for d in A.schema.domain.dims]
        return pa.schema(dims + [data.schema.field("soma_data").remove_metadata()])

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
                sel.append(slice(int(lo) if c.start is None else int(c.start),
                                 int(hi) if c.stop is None else int(c.stop)))
            elif isinstance(c, (int, np.integer)):
                sel.append(slice(int(c), int(c)))
            else:
                raise TypeError("a DenseNDArray takes a value or a slice per dimension, not %s" % type(c).__name__)
        data = A.query(attrs=["soma_data"], order="C").multi_index[tuple(sel)]["soma_data"]
        return pa.Tensor.from_numpy(np.asfortranarray(data) if order == "F" else np.ascontiguousarray(data))
