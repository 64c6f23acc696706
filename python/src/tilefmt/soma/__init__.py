"""The read side of the SOMA API (single-cell data as TileDB-SOMA stores
it) on tilefmt: code written for tiledbsoma's reads runs by changing the
import, without libtiledb.

    import tilefmt.soma as soma
    with soma.open("path/or/s3/uri/to/experiment") as exp:
        obs = exp.obs.read(column_names=["cell_type"], value_filter="tissue == 'lung'").concat()
        X = exp.ms["RNA"].X["data"].read((slice(0, 99),)).tables().concat()
        for csr, (cells, genes) in exp.ms["RNA"].X["data"].read().blockwise(axis=0).scipy(): ...
        with exp.axis_query("RNA", obs_query=soma.AxisQuery(value_filter="cell_type == 'B cell'")) as q:
            q.obs().concat(), q.X("data").tables().concat(), q.to_anndata(X_name="data")

Results are pyarrow Tables (pyarrow is needed here); `to_anndata` also
needs anndata and SciPy.
"""

from ._arrays import DataFrame, DenseNDArray, SparseNDArray, SparseNDArrayRead, TableReadIter
from ._blockwise import BlockwiseRead
from ._objects import (Collection, DoesNotExistError, Experiment, Measurement, SOMAError, SOMAObject,
                       SOMATileDBContext, open)
from ._query import AxisIndexer, AxisQuery, ExperimentAxisQuery


class ResultOrder:
    """SOMA's result orders (tiledbsoma's names: the strings work as well)."""

    AUTO = "auto"
    ROW_MAJOR = "row-major"
    COLUMN_MAJOR = "column-major"


__all__ = ["open", "SOMAObject", "Collection", "Experiment", "Measurement", "DataFrame", "SparseNDArray",
           "DenseNDArray", "SparseNDArrayRead", "BlockwiseRead", "TableReadIter", "AxisQuery", "ExperimentAxisQuery", "AxisIndexer",
           "ResultOrder", "SOMATileDBContext", "SOMAError", "DoesNotExistError"]
