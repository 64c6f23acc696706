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
        return _to_pandas(self._query, self._ranges, self.to_arrow())

    def __repr__(self):
        return "tilefmt.ArrowResult(%r)" % self._query.array.uri


def _to_pandas(query, ranges, table):
    """TileDB-Py's frame: the query's dimensions (a dense array's
    coordinates too), then its attributes; booleans as uint8, as its Arrow
    adapter gives them."""
    import pyarrow as pa
    schema = query.array.schema
    names = [d for d in query.dims] + list(query.attrs)
    columns = {}
    if not schema.sparse and query.dims:
        coords = query._dense_coords(ranges, table.num_rows)
        for n in query.dims:
            columns[n] = pa.array(coords[n])
    for n in table.column_names:
        if n in names and n not in columns:
            col = table.column(n)
            if pa.types.is_boolean(col.type):
                col = col.cast(pa.uint8())
            columns[n] = col
    frame = pa.table({n: columns[n] for n in names if n in columns}).to_pandas()
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
        return _to_pandas(q, ranges, result.to_arrow())


def whole(query):
    """The query over everything written (TileDB-Py's ``[:]``)."""
    from ._query import _encode_ranges
    return ArrowResult(query, _encode_ranges(query.array.schema, query._multi_ranges(slice(None))))

