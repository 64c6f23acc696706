"""Query results as Arrow and as pandas DataFrames.

A query's cells leave the extension as an Arrow C stream (the C++ export of
include/tilefmt/arrow/: fixed-size columns handed over, not copied), in a
PyCapsule, the form Arrow's PyCapsule interface (``__arrow_c_stream__``)
gives to pyarrow, Polars, DuckDB and pandas. Nothing here needs pyarrow
except the conversions that return pyarrow or pandas objects.

    pa.table(A.query(attrs=["a"]).arrow[1:100])     # or pl.DataFrame(...), duckdb.sql("... from r")
    A.df[1:100]                                     # pandas, TileDB-Py's columns and dtypes
    A.query(return_arrow=True).df[1:100]            # a pyarrow Table
"""

#: What one batch of a stream holds at most, about (TileDB's incomplete
#: queries; the default of sm.memory_budget-like settings).
DEFAULT_BATCH_BYTES = 256 << 20

#: The batches a DataFrame is made from: each is converted and let go
#: before the next is read, so the frame's memory is the peak's most.
DF_BATCH_BYTES = 16 << 20


class ArrowResult:
    """The cells a query selects, as Arrow: read when a consumer pulls the
    stream, one batch of about `batch_bytes` at a time. Columns: a sparse
    array's dimensions, then the attributes."""

    def __init__(self, query, ranges, batch_bytes=DEFAULT_BATCH_BYTES):
        self._query = query
        self._ranges = ranges
        self._batch_bytes = int(batch_bytes)

    def __arrow_c_stream__(self, requested_schema=None):
        # requested_schema is a request, not a demand (the interface lets a
        # producer keep its own); the types are those of the C++ export.
        # A dense array's coordinates come when the query asks for dimensions.
        q = self._query
        coords = not q.array.schema.sparse and bool(q.dims)
        return q.array._reader().arrow_stream(self._ranges, list(q.attrs), q.order, q._tree, self._batch_bytes,
                                              coords)

    def to_arrow(self):
        """A pyarrow Table (needs pyarrow)."""
        import pyarrow as pa
        return pa.RecordBatchReader.from_stream(self).read_all()

    def to_pandas(self):
        """A pandas DataFrame as TileDB-Py's ``.df[]`` makes it."""
        return _to_pandas(self._query, self._ranges, self)

    def __repr__(self):
        return "tilefmt.ArrowResult(%r)" % self._query.array.uri


def _to_pandas(query, ranges, result, index_col=True):
    """TileDB-Py's frame (its DataFrameIndexer): the query's dimensions (a
    dense array's coordinates too), then its attributes; booleans as
    uint8, nullable integers as pandas' nullable integer types, enumerated
    attributes categorical; then the dtypes and index that TileDB-Py's
    from_pandas recorded in the array's metadata (`__pandas_attribute_repr`,
    `__pandas_index_dims`).

    The result is read in batches, each converted into the frame's columns
    and let go before the next is read: at no time are the whole result's
    Arrow buffers and the frame in memory together. The columns are sized
    ahead by the query's bound on its cells (no tile read for it)."""
    import json

    import pandas as pd
    import pyarrow as pa
    schema = query.array.schema
    names = list(query.dims) + list(query.attrs)
    stream = ArrowResult(query, ranges, min(result._batch_bytes, DF_BATCH_BYTES))
    reader = pa.RecordBatchReader.from_stream(stream)
    columns = None  # from the second batch on
    first = None
    for batch in reader:
        if columns is not None:
            columns.add_batch(schema, names, batch)
        elif first is None:
            first = _batch_frame(schema, names, pa.Table.from_batches([batch]))
        else:
            columns = _Columns(max(query.array._reader().max_cells(ranges), len(first) + batch.num_rows))
            columns.add(first)
            columns.add_batch(schema, names, batch)
            first = None
        del batch
    if columns is not None:
        frame = columns.frame()
    elif first is not None:
        frame = first  # one batch: its frame is the result
    else:
        frame = _batch_frame(schema, names, reader.schema.empty_table())
    for n in frame.columns:
        # TileDB-Py's frames hold an enumeration's labels unordered, ordered or not.
        if isinstance(frame[n].dtype, pd.CategoricalDtype) and frame[n].dtype.ordered:
            frame[n] = frame[n].cat.as_unordered()
    meta = query.array.meta
    dtypes = {}
    for key in ("__pandas_attribute_repr", "__pandas_index_dims"):
        if key in meta:
            dtypes.update({k: v for k, v in json.loads(meta[key]).items() if k in frame})
    if dtypes:
        frame = frame.astype(dtypes, copy=False)
    if index_col and "__pandas_index_dims" in meta:
        index = [c for c in json.loads(meta["__pandas_index_dims"]) if c in frame]
        if index:
            frame = frame.set_index(index)
            if "__tiledb_rows" in index:
                index[index.index("__tiledb_rows")] = None
                frame.index = frame.index.rename(index[0] if len(index) == 1 else index)
    return frame


def _batch_frame(schema, names, table):
    """One batch's frame: the columns `names` (those there), booleans as
    uint8, nullable integers as pandas' nullable integer arrays."""
    import pandas as pd
    import pyarrow as pa
    columns = {}
    nullable_ints = []
    for n in names:
        if n not in table.column_names:
            continue
        col = table.column(n)
        if pa.types.is_boolean(col.type):
            col = col.cast(pa.uint8())
        elif schema.has_attr(n) and schema.attr(n).nullable and pa.types.is_integer(col.type):
            nullable_ints.append(n)
        columns[n] = col
    table = pa.table(columns)
    frame = table.to_pandas()
    if nullable_ints:
        # pandas' nullable integers, not float64 with NaN (as TileDB-Py).
        mapping = {getattr(pa, t)(): getattr(pd, t.capitalize().replace("Ui", "UI") + "Dtype")()
                   for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}
        for n in nullable_ints:
            frame[n] = table.column(n).to_pandas(types_mapper=mapping.get)
    return frame


class _Columns:
    """A frame's columns filled batch by batch, sized ahead for `capacity`
    rows (grown if a batch goes past it): NumPy columns as arrays,
    categoricals as their codes, pandas' masked arrays as data and mask;
    other extension arrays are kept in pieces and put together at the end.
    A batch's numbers without nulls are copied straight from its Arrow
    buffers; its other columns go through pandas (`_batch_frame`)."""

    def __init__(self, capacity):
        self.capacity = int(capacity)
        self.rows = 0
        self.store = {}  # name -> (kind, parts)

    def add(self, piece):
        """A batch's frame (the first batch sets each column's kind)."""
        at = self._reserve(len(piece))
        for name in piece.columns:
            self._put(name, piece[name], at)
        self.rows = at.stop

    def add_batch(self, schema, names, batch):
        """A pyarrow RecordBatch of the columns `names` (those there)."""
        import numpy as np
        import pyarrow as pa
        at = self._reserve(batch.num_rows)
        slow = []
        for name in names:
            if name not in batch.schema.names:
                continue
            col = batch.column(name)
            kind, parts = self.store.get(name, (None, None))
            if kind in ("numpy", "masked") and col.null_count == 0 and \
                    (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)) and \
                    parts[0].dtype == np.dtype(col.type.to_pandas_dtype()):
                dtype = parts[0].dtype
                parts[0][at] = np.frombuffer(col.buffers()[1], dtype, count=len(col), offset=col.offset * dtype.itemsize)
                if kind == "masked":
                    parts[1][at] = False
            else:
                slow.append(name)
        if slow:
            piece = _batch_frame(schema, slow, pa.Table.from_batches([batch]).select(slow))
            for name in piece.columns:
                self._put(name, piece[name], at)
        self.rows = at.stop

    def _reserve(self, n):
        if self.rows + n > self.capacity:
            self._grow(max(2 * self.capacity, self.rows + n))
        return slice(self.rows, self.rows + n)

    def _put(self, name, series, at):
        import numpy as np
        import pandas as pd
        values = series.array
        kind, parts = self.store.get(name, (None, None))
        if kind is None:
            if isinstance(values, pd.Categorical):
                kind, parts = "cat", [np.empty(self.capacity, values.codes.dtype), values.categories, values.ordered]
            elif isinstance(values, (pd.arrays.IntegerArray, pd.arrays.BooleanArray, pd.arrays.FloatingArray)):
                kind, parts = "masked", [np.empty(self.capacity, values._data.dtype),
                                         np.empty(self.capacity, np.bool_), values.dtype]
            elif isinstance(series.dtype, np.dtype):  # datetimes too
                kind, parts = "numpy", [np.empty(self.capacity, series.dtype)]
            else:
                kind, parts = "pieces", []
            self.store[name] = (kind, parts)
        if kind == "cat":
            if not values.categories.equals(parts[1]):
                values = pd.Categorical(values, categories=parts[1], ordered=parts[2])
            parts[0][at] = values.codes
        elif kind == "masked":
            parts[0][at] = values._data
            parts[1][at] = values._mask
        elif kind == "pieces":
            parts.append(values)
        else:
            parts[0][at] = series.to_numpy()

    def _grow(self, capacity):
        import numpy as np
        for kind, parts in self.store.values():
            if kind == "pieces":
                continue
            for i, p in enumerate(parts):
                if isinstance(p, np.ndarray):
                    bigger = np.empty(capacity, p.dtype)
                    bigger[:self.rows] = p[:self.rows]
                    parts[i] = bigger
        self.capacity = capacity

    def frame(self):
        import pandas as pd
        out = {}
        n = self.rows
        for name, (kind, parts) in self.store.items():
            if kind == "cat":
                out[name] = pd.Categorical.from_codes(parts[0][:n], categories=parts[1], ordered=parts[2],
                                                      validate=False)
            elif kind == "masked":
                out[name] = parts[2].construct_array_type()(parts[0][:n], parts[1][:n])
            elif kind == "pieces":
                out[name] = type(parts[0])._concat_same_type(parts)
            else:
                out[name] = parts[0][:n]
        self.store.clear()
        return pd.DataFrame(out, copy=False)


class DataFrameIndexer:
    """``.df[...]``: TileDB-Py's multi_index selection (inclusive ranges),
    a pandas DataFrame, or a pyarrow Table with ``return_arrow``."""

    def __init__(self, query, arrow_only=False):
        self._query = query
        self._arrow_only = arrow_only

    def __getitem__(self, idx):
        from ._query import _encode_ranges
        q = self._query
        ranges = _encode_ranges(q.array.schema, q._multi_ranges(idx))
        result = ArrowResult(q, ranges)
        if self._arrow_only:
            return result
        if q.return_arrow:
            return result.to_arrow()
        return _to_pandas(q, ranges, result)


def whole(query):
    """The query over everything written (TileDB-Py's ``[:]``)."""
    from ._query import _encode_ranges
    return ArrowResult(query, _encode_ranges(query.array.schema, query._multi_ranges(slice(None))))

