"""SOMA's axis queries: the observations and variables of one measurement
chosen by value filters and coordinates, and the X, obsm, obsp, varm and
varp values where both axes are chosen; as Arrow, SciPy or AnnData."""

import json

import numpy as np

from ._arrays import SparseNDArray, _points


class AxisQuery:
    """The rows of one axis: those at `coords` (per index column, as
    DataFrame.read takes them) that `value_filter` keeps."""

    def __init__(self, *, value_filter=None, coords=()):
        if coords is None:
            coords = ()
        if not isinstance(coords, (tuple, list)):
            raise TypeError("coords must be a sequence with one entry per index column")
        self.value_filter = value_filter
        self.coords = tuple(coords)

    def __repr__(self):
        return "AxisQuery(value_filter=%r, coords=%r)" % (self.value_filter, self.coords)


class _Positions:
    """Joinids to their positions in a list of them (-1 where absent; the
    first place of one listed twice)."""

    def __init__(self, joinids):
        ids = np.asarray(joinids, dtype=np.int64)
        self._n = len(ids)
        self._first = ids[0] if len(ids) else 0
        # In order from the first to the last (an axis not filtered): a subtraction.
        self._step = len(ids) > 0 and int(ids[-1] - ids[0]) + 1 == len(ids) and bool(np.all(ids[1:] > ids[:-1]))
        if not self._step:
            # A search in the sorted distinct joinids, each with its first place.
            self._sorted, self._place = np.unique(ids, return_index=True)

    def __call__(self, coords):
        coords = np.asarray(_points(coords), dtype=np.int64)
        if self._step:
            pos = coords - self._first
            return np.where((pos >= 0) & (pos < self._n), pos, -1)
        if len(self._sorted) == 0:
            return np.full(len(coords), -1, dtype=np.int64)
        if len(coords) > 1024:
            # A matrix's cells come a row at a time: one search a run of equal joinids.
            change = np.flatnonzero(coords[1:] != coords[:-1]) + 1
            if len(change) * 4 < len(coords):
                starts = np.concatenate(([0], change))
                return np.repeat(self._search(coords[starts]), np.diff(np.append(starts, len(coords))))
        return self._search(coords)

    def _search(self, coords):
        at = np.minimum(np.searchsorted(self._sorted, coords), len(self._sorted) - 1)
        return np.where(self._sorted[at] == coords, self._place[at], -1)


class AxisIndexer:
    """``by_obs(joinids)`` / ``by_var(joinids)``: positions of joinids in
    the query's obs / var results (-1 where absent)."""

    def __init__(self, query):
        self._query = query
        self._obs = self._var = None

    def by_obs(self, coords):
        if self._obs is None:
            self._obs = _Positions(_points(self._query.obs_joinids()))
        return self._obs(coords)

    def by_var(self, coords):
        if self._var is None:
            self._var = _Positions(_points(self._query.var_joinids()))
        return self._var(coords)


def _index_frame(frame, meta, given, fallback):
    """As tiledbsoma's to_anndata names the index: `given`, else the
    column the frame's original index was written from (metadata), else
    `fallback` ("obs_id" / "var_id", unnamed), else pandas' default."""
    original = json.loads(meta["soma_dataframe_original_index_name"]) \
        if "soma_dataframe_original_index_name" in meta else None
    if original is not None and not isinstance(original, str):
        raise ValueError("invalid soma_dataframe_original_index_name metadata: %r" % (original,))
    name = given or original
    if name is not None:
        if name not in frame:
            raise ValueError("Requested ID column name %s not found in input: %s" % (name, list(frame.keys())))
        frame.set_index(name, inplace=True)
    elif fallback in frame:
        frame.set_index(fallback, inplace=True)
        frame.index.name = None
    return frame


class ExperimentAxisQuery:
    """The cells and features of measurement `measurement_name` that
    `obs_query` and `var_query` choose (Experiment.axis_query makes one)."""

    def __init__(self, experiment, measurement_name, *, obs_query=None, var_query=None):
        if measurement_name not in experiment.ms:
            raise ValueError("Measurement does not exist in the experiment")
        self.experiment = experiment
        self.measurement_name = measurement_name
        self._queries = {"obs": obs_query or AxisQuery(), "var": var_query or AxisQuery()}
        self._joinids = {}
        self.indexer = AxisIndexer(self)

    def _frame(self, axis):
        return self.experiment.obs if axis == "obs" else self.experiment.ms[self.measurement_name].var

    def _read_axis(self, axis, column_names=None, result_order="auto"):
        q = self._queries[axis]
        return self._frame(axis).read(q.coords, column_names, value_filter=q.value_filter, result_order=result_order)

    def obs(self, *, column_names=None, batch_size=None, partitions=None, result_order="auto",
            platform_config=None):
        """The chosen rows of obs, as a TableReadIter."""
        return self._read_axis("obs", column_names, result_order)

    def var(self, *, column_names=None, batch_size=None, partitions=None, result_order="auto",
            platform_config=None):
        """The chosen rows of the measurement's var, as a TableReadIter."""
        return self._read_axis("var", column_names, result_order)

    def _ids(self, axis):
        if axis not in self._joinids:
            table = self._read_axis(axis, ["soma_joinid"]).concat()
            self._joinids[axis] = table.column("soma_joinid").combine_chunks()
        return self._joinids[axis]

    def obs_joinids(self):
        """The chosen obs joinids (a pyarrow Int64Array)."""
        return self._ids("obs")

    def var_joinids(self):
        """The chosen var joinids (a pyarrow Int64Array)."""
        return self._ids("var")

    @property
    def n_obs(self):
        return len(self.obs_joinids())

    @property
    def n_vars(self):
        return len(self.var_joinids())

    @property
    def _ms(self):
        return self.experiment.ms[self.measurement_name]

    def _layer(self, collection, name):
        try:
            coll = self._ms[collection]
        except KeyError:
            raise ValueError("Measurement does not contain %r data." % collection) from None
        try:
            layer = coll[name]
        except KeyError:
            raise ValueError("layer %r is not available in %r." % (name, collection)) from None
        if not isinstance(layer, SparseNDArray):
            raise TypeError("Unexpected SOMA type %s stored in %r layer %r." % (type(layer).__name__, collection, name))
        return layer

    def X(self, layer_name, *, batch_size=None, partitions=None, result_order="auto", platform_config=None):
        """X layer `layer_name` at the chosen obs and var, as a SparseNDArrayRead."""
        try:
            layer = self._ms.X[layer_name]
        except KeyError as e:
            raise KeyError("%s is not present in X" % layer_name) from e
        if not isinstance(layer, SparseNDArray):
            raise TypeError("X layers may only be sparse arrays")
        return layer.read((self.obs_joinids(), self.var_joinids()), result_order=result_order)

    def obsp(self, layer):
        ids = self.obs_joinids()
        return self._layer("obsp", layer).read((ids, ids))

    def varp(self, layer):
        ids = self.var_joinids()
        return self._layer("varp", layer).read((ids, ids))

    def obsm(self, layer):
        return self._layer("obsm", layer).read((self.obs_joinids(),))

    def varm(self, layer):
        return self._layer("varm", layer).read((self.var_joinids(),))

    # -- AnnData --

    def _axis_frame(self, axis, column_names, id_name):
        """The chosen rows of `axis` as pandas, indexed as tiledbsoma does;
        their joinids kept for the matrices."""
        columns = None if column_names is None else list(column_names)
        added = columns is not None and "soma_joinid" not in columns
        table = self._read_axis(axis, ["soma_joinid"] + columns if added else columns).concat()
        if axis not in self._joinids:
            self._joinids[axis] = table.column("soma_joinid").combine_chunks()
        if added:
            table = table.drop(["soma_joinid"])
        return _index_frame(table.to_pandas(), self._frame(axis).metadata, id_name, axis + "_id")

    def _csr(self, layer, rows, cols, by_row, by_col):
        """`layer` at joinids rows x cols as a SciPy CSR matrix, rows and
        columns numbered by their positions in the query's results."""
        import scipy.sparse as sp
        table = layer.read((rows, cols)).tables().concat()
        n_rows, n_cols = len(rows), len(cols)
        index = np.int32 if max(n_rows, n_cols, table.num_rows) < np.iinfo(np.int32).max else np.int64
        r = by_row(_points(table.column("soma_dim_0"))).astype(index, copy=False)
        c = by_col(_points(table.column("soma_dim_1"))).astype(index, copy=False)
        data = np.array(_points(table.column("soma_data")))  # writable, as users scale X in place
        dr, dc = np.diff(r), np.diff(c)
        if np.all((dr > 0) | ((dr == 0) & (dc > 0))):
            # Row-major already (a read of one fragment, or in row-major
            # order): the CSR arrays without a sort.
            indptr = np.zeros(n_rows + 1, dtype=index)
            np.cumsum(np.bincount(r, minlength=n_rows), out=indptr[1:])
            return sp.csr_matrix((data, c, indptr), shape=(n_rows, n_cols))
        return sp.csr_matrix((data, (r, c)), shape=(n_rows, n_cols))

    def _dense_rows(self, layer, ids, by_id):
        """An obsm / varm layer at joinids `ids` as a dense (n, k) array."""
        table = layer.read((ids, slice(None))).tables().concat()
        dtype = layer.schema.field("soma_data").type.to_pandas_dtype()
        n_cols = layer.shape[1]
        out = np.zeros(len(ids) * n_cols, dtype=dtype)
        pos = by_id(table.column("soma_dim_0")) * n_cols + _points(table.column("soma_dim_1"))
        np.put(out, pos, _points(table.column("soma_data")))
        return out.reshape(len(ids), n_cols)

    def to_anndata(self, X_name=..., *, column_names=None, X_layers=(), obsm_layers=(), obsp_layers=(),
                   varm_layers=(), varp_layers=(), drop_levels=False, obs_id_name=None, var_id_name=None):
        """The query as an in-memory AnnData (needs anndata and SciPy), as
        tiledbsoma's: X from layer `X_name` ("data" when there is one and no
        name is given, none for None), obs and var indexed by their original
        index columns, the named extra layers."""
        import anndata

        column_names = column_names or {}
        xs = self._ms.X
        if X_name is None and X_layers:
            raise ValueError("If X_name is None, X_layers must not be provided")
        chosen = None
        if X_name is ...:
            chosen = "data" if "data" in xs else None
        elif X_name is not None:
            if not isinstance(X_name, str) or not X_name:
                raise ValueError("X layer names must be specified as a string.")
            if X_name not in xs:
                raise ValueError("X layer name '%s' not found in measurement" % X_name)
            chosen = X_name
        for name in X_layers:
            if not isinstance(name, str) or not name:
                raise ValueError("X layer names must be specified as a string.")
            if name not in xs:
                raise ValueError("Unknown X layer name")
        obs = self._axis_frame("obs", column_names.get("obs"), obs_id_name)
        var = self._axis_frame("var", column_names.get("var"), var_id_name)
        oids, vids = self.obs_joinids(), self.var_joinids()
        by_obs, by_var = self.indexer.by_obs, self.indexer.by_var

        def matrix(name):
            layer = xs[name]
            if not isinstance(layer, SparseNDArray):
                raise NotImplementedError("Dense array unsupported")
            return self._csr(layer, oids, vids, by_obs, by_var)

        X = matrix(chosen) if chosen is not None else None
        layers = {name: matrix(name) for name in X_layers}
        obsm = {k: self._dense_rows(self._layer("obsm", k), oids, by_obs) for k in obsm_layers}
        varm = {k: self._dense_rows(self._layer("varm", k), vids, by_var) for k in varm_layers}
        obsp = {k: self._csr(self._layer("obsp", k), oids, oids, by_obs, by_obs) for k in obsp_layers}
        varp = {k: self._csr(self._layer("varp", k), vids, vids, by_var, by_var) for k in varp_layers}
        if drop_levels:
            for frame in (obs, var):
                for name in frame:
                    if frame[name].dtype.name == "category":
                        frame[name] = frame[name].cat.remove_unused_categories()
        return anndata.AnnData(X=X, obs=obs, var=var, obsm=obsm or None, obsp=obsp or None, varm=varm or None,
                               varp=varp or None, layers=layers)

    def close(self):
        """Nothing to release: the experiment owns what was opened."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
