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
        q = self._query
        return q.array._reader().arrow_stream(self._ranges, list(q.attrs), q.order, q._tree, self._batch_bytes)

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
    `__pandas_index_dims`)."""
    import json

    import pandas as pd
    import pyarrow as pa
    schema = query.array.schema
    names = list(query.dims) + list(query.attrs)
    table = result.to_arrow()
    columns = {}
    if not schema.sparse and query.dims:
        coords = query._dense_coords(ranges, table.num_rows)
        for d, c in zip(schema.domain.dims, coords):
            if d.name in query.dims:
                columns[d.name] = pa.array(c)
    nullable_ints = []
    for n in table.column_names:
        if n not in names or n in columns:
            continue
        col = table.column(n)
        if pa.types.is_boolean(col.type):
            col = col.cast(pa.uint8())
        elif schema.has_attr(n) and schema.attr(n).nullable and pa.types.is_integer(col.type):
            nullable_ints.append(n)
        columns[n] = col
    table = pa.table({n: columns[n] for n in names if n in columns})
    columns.clear()
    frame = table.to_pandas()
    for n in frame.columns:
        # TileDB-Py's frames hold an enumeration's labels unordered, ordered or not.
        if isinstance(frame[n].dtype, pd.CategoricalDtype) and frame[n].dtype.ordered:
            frame[n] = frame[n].cat.as_unordered()
    if nullable_ints:
        # pandas' nullable integers, not float64 with NaN (as TileDB-Py).
        mapping = {getattr(pa, t)(): getattr(pd, t.capitalize().replace("Ui", "UI") + "Dtype")()
                   for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}
        for n in nullable_ints:
            frame[n] = table.column(n).to_pandas(types_mapper=mapping.get)
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

