"""tilefmt: read TileDB arrays without libtiledb.

    import tilefmt
    with tilefmt.open("path/to/array") as A:
        A.schema, A.nonempty_domain(), A.fragments, dict(A.meta)
        A[1:11]                                   # TileDB-Py's slicing
        A.multi_index[1:10, [(2, 3), 7]]          # inclusive ranges
        A.query(attrs=["a"], cond="a > 5", order="F").multi_index[:]
        A.query(attrs=["a"]).agg(["sum", "max"])[:]

    tilefmt.create("new", tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (1, 100), 10, np.int32)),
                                         attrs=[tilefmt.Attr("a", np.float64)]))
    with tilefmt.open("new", "w") as A:
        A[1:51] = {"a": np.arange(50.0)}
        A.meta["unit"] = "m"

    tilefmt.from_pandas("frame", df, index_dims=["id"])   # as tiledb.from_pandas
    tilefmt.consolidate("new"); tilefmt.vacuum("new")      # as tiledb.consolidate / vacuum

    with tilefmt.Group("path/to/experiment") as G:   # members, metadata
        [(m.name, m.type, m.uri) for m in G]
    tilefmt.walk("path", lambda uri, kind: print(uri, kind))
"""

from ._array import Array, Attr, Dim, Domain, Fragment, Metadata, Query, Schema
from ._schema import Enumeration
from ._dimension_labels import DimLabel, DimLabelSchema
from ._arrow import ArrowResult
from ._dataframe import from_numpy, from_pandas
from ._filters import (BitShuffleFilter, BitWidthReductionFilter, ByteShuffleFilter, Bzip2Filter, ChecksumMD5Filter,
                       ChecksumSHA256Filter, DeltaFilter, DictionaryFilter, DoubleDeltaFilter, Filter, FilterList,
                       FloatScaleFilter, GzipFilter, LZ4Filter, NoOpFilter, PositiveDeltaFilter, RleFilter, WebpFilter,
                       XORFilter, ZstdFilter)
from ._fragments import FragmentInfo, FragmentInfoList, array_exists, array_fragments
from ._group import Group, Object, ls, object_type, walk
from ._maintain import ArrayDeleter, ArraySchemaEvolution, consolidate, vacuum
from ._open import open
from ._write import ArrayWriter, create

__all__ = ["open", "create", "Array", "ArrayWriter", "Query", "ArrowResult", "Schema", "Domain", "Dim", "Attr",
           "Enumeration", "DimLabel", "DimLabelSchema", "Fragment", "Metadata", "Group", "Object", "object_type",
           "ls", "walk", "from_pandas", "from_numpy", "array_exists", "array_fragments", "FragmentInfo",
           "FragmentInfoList", "consolidate", "vacuum", "ArrayDeleter", "ArraySchemaEvolution", "ArraySchema",
           "Filter", "FilterList", "NoOpFilter", "GzipFilter", "ZstdFilter", "LZ4Filter", "Bzip2Filter", "RleFilter",
           "DictionaryFilter", "DeltaFilter", "DoubleDeltaFilter", "BitWidthReductionFilter", "PositiveDeltaFilter",
           "FloatScaleFilter", "WebpFilter", "BitShuffleFilter", "ByteShuffleFilter", "ChecksumMD5Filter",
           "ChecksumSHA256Filter", "XORFilter"]
# TileDB-Py's name of the schema class.
ArraySchema = Schema
__version__ = "0.1.0"
