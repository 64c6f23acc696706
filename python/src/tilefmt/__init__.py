"""tilefmt: read TileDB arrays without libtiledb.

    import tilefmt
    with tilefmt.open("path/to/array") as A:
        A.schema, A.nonempty_domain(), A.fragments, dict(A.meta)
        A[1:11]                                   # TileDB-Py's slicing
        A.multi_index[1:10, [(2, 3), 7]]          # inclusive ranges
        A.query(attrs=["a"], cond="a > 5", order="F").multi_index[:]
        A.query(attrs=["a"]).agg(["sum", "max"])[:]
"""

from ._array import Array, Attr, Dim, Domain, Fragment, Metadata, Query, Schema, open

__all__ = ["open", "Array", "Query", "Schema", "Domain", "Dim", "Attr", "Fragment", "Metadata"]
__version__ = "0.1.0"
