"""SparseNDArray reads a block of one axis at a time (``read(...)
.blockwise(axis, size=...)``), as tiledbsoma gives them: each block is the
cells of `size` consecutive coordinates of the axis (of those the read
chose), with the coordinates renumbered by position ("reindexed": the
block's own on the axis, the read's on the others) unless told not to,
as Arrow tables or SciPy matrices beside the joinids they number."""

import numpy as np

from ._arrays import _points
from ._objects import SOMAError


def _strides(coords, length, stride):
    """The coordinates of one axis in steps of `stride` (tiledbsoma's
    order: a slice's in order, a list's as given)."""
    if coords is None or (isinstance(coords, slice) and coords == slice(None)):
        coords = slice(0, length - 1)
    elif isinstance(coords, (int, np.integer)):
        coords = np.array([coords], dtype=np.int64)
    elif not isinstance(coords, slice):
        coords = np.asarray(_points(coords)).astype(np.int64, copy=False)
    if isinstance(coords, slice):
        if coords.step not in (None, 1):
            raise ValueError("slice steps are not supported (SOMA slices are inclusive ranges)")
        start, stop, _ = coords.indices(length - 1)
        for i in range(start, stop + 1, stride):
            yield np.arange(i, min(i + stride, stop + 1), dtype=np.int64)
        return
    for i in range(0, len(coords), stride):
        yield coords[i:i + stride]


class BlockwiseIter:
    """The blocks, one per step; no concat (a block is renumbered on its
    own, so blocks do not join)."""

    def __init__(self, blocks):
        self._blocks = blocks

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._blocks)

    def concat(self):
        raise NotImplementedError("Blockwise iterators do not support concat operation")


class BlockwiseRead:
    """A SparseNDArrayRead in blocks along `axis` (SparseNDArrayRead.blockwise)."""

    def __init__(self, array, coords, axis, result_order, size=None, reindex_disable_on_axis=None):
        shape = array.shape
        ndim = len(shape)
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if reindex_disable_on_axis is None:
            disabled = []
        elif isinstance(reindex_disable_on_axis, int):
            disabled = [reindex_disable_on_axis]
        elif isinstance(reindex_disable_on_axis, (list, tuple)):
            disabled = list(reindex_disable_on_axis)
        else:
            raise TypeError("reindex_disable_on_axis must be None, int or Sequence[int]")
        if len(axes) != 1:
            raise NotImplementedError("Multi-dimension blockwise iterators not implemented")
        if not all(0 <= d < ndim for d in axes):
            raise ValueError("blockwise `axis` value must be in range [0, ndim)")
        if not all(0 <= d < ndim for d in disabled):
            raise ValueError("blockwise `reindex_disable_on_axis` value must be in range [0, ndim)")
        # tiledbsoma's defaults: many rows (cells), few columns a step.
        default = (2 ** 16,) + (2 ** 8,) * (ndim - 1)
        if size is None:
            size = default[axes[0]]
        elif isinstance(size, (list, tuple)):
            size = size[0] if size else default[axes[0]]
        elif not isinstance(size, (int, np.integer)):
            raise TypeError("blockwise iterator `size` must be None, int or Sequence[int]")
        self.array = array
        self.shape = shape
        self.major = axes[0]
        self.size = int(size)
        self.result_order = result_order
        self.coords = list(coords or ()) + [None] * (ndim - len(coords or ()))
        self.reindexed = set(range(ndim)) - set(disabled)
        self.disabled = disabled
        self.joinids = [np.concatenate(list(_strides(self.coords[d], shape[d], shape[d])))
                        if d != self.major else np.zeros(0, np.int64) for d in range(ndim)]

    def _blocks(self):
        """(table, joinids per axis) a step, as read."""
        import pyarrow as pa
        for chunk in _strides(self.coords[self.major], self.shape[self.major], self.size):
            step = list(self.coords)
            step[self.major] = chunk
            table = self.array.read(tuple(step), result_order=self.result_order).tables().concat()
            ids = [pa.array(j, pa.int64()) for j in self.joinids]
            ids[self.major] = pa.array(chunk, pa.int64())
            yield table, tuple(ids)

    def _renumbered(self):
        import pyarrow as pa

        from ._query import _Positions
        minor = {d: _Positions(self.joinids[d]) for d in self.reindexed if d != self.major}
        for table, ids in self._blocks():
            if not self.reindexed:
                yield table, ids
                continue
            columns = {}
            for d in range(len(self.shape)):
                col = table.column("soma_dim_%d" % d)
                if d == self.major and d in self.reindexed:
                    col = _Positions(_points(ids[d]))(col)
                elif d in minor:
                    col = minor[d](col)
                columns["soma_dim_%d" % d] = col
            columns["soma_data"] = table.column("soma_data")
            yield pa.Table.from_pydict(columns), ids

    def tables(self):
        """(Arrow table, joinids per axis as Arrow arrays) a block."""
        return BlockwiseIter(self._renumbered())

    def scipy(self, compress=True):
        """(SciPy matrix, joinids per axis as NumPy arrays) a block: CSR
        for blocks of rows (axis 0), CSC for blocks of columns, COO with
        `compress=False`. Two-dimensional arrays only."""
        if len(self.shape) != 2 or self.major not in (0, 1):
            raise SOMAError("SciPy sparse matrix iterator compatible only with 2D arrays")
        if compress and self.major in self.disabled:
            raise SOMAError("Unable to disable reindexing of coordinates on CSC/CSR major axis")
        return BlockwiseIter(self._matrices(compress))

    def _matrices(self, compress):
        import scipy.sparse as sp
        major, minor = self.major, 1 - self.major
        for table, ids in self._renumbered():
            i, j = (np.asarray(_points(table.column(c))) for c in ("soma_dim_0", "soma_dim_1"))
            data = np.array(_points(table.column("soma_data")))
            by = (i, j)
            order = np.lexsort((by[minor], by[major]))
            i, j, data = i[order], j[order], data[order]
            ids = (np.asarray(_points(ids[0])), np.asarray(_points(ids[1])))
            shape = list(self.shape)
            for d in (major, minor):
                if d not in self.disabled:
                    shape[d] = len(ids[d])
            if compress:
                make = sp.csr_matrix if major == 0 else sp.csc_matrix
                yield make((data, (i, j)), shape=tuple(shape)), ids
            else:
                m = sp.coo_matrix((data, (i, j)), shape=tuple(shape))
                if getattr(self.result_order, "value", self.result_order) == "row-major":
                    m.has_canonical_format = True
                yield m, ids
