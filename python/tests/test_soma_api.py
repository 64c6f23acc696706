"""tilefmt.soma beside tiledbsoma: the same reads of experiments tiledbsoma
writes in the test (soma_make.py), compared result for result.

Runs in the SOMA venv (scripts/python_test.sh: python/requirements-soma.txt,
with tiledbsoma, anndata, SciPy and moto, and tilefmt put on its path);
skipped elsewhere. Every DataFrame read (all and chosen columns, value
filters over categorical, string, boolean, numeric and nullable columns,
joinid lists and slices), every sparse and dense read, every axis query
(obs and var chosen together) and to_anndata must equal tiledbsoma's:
Arrow tables equal with the same schema, pandas frames by
assert_frame_equal, sparse matrices element for element. Also: reading
as of a time before cells were appended, a second measurement, and the
Census' layout on a local S3 server (moto), read by both.
"""

import os

import numpy as np
import pytest

tiledbsoma = pytest.importorskip("tiledbsoma")
pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

import soma_make  # noqa: E402  (python/tests, beside this file)

import tilefmt  # noqa: E402
import tilefmt.soma as soma  # noqa: E402


@pytest.fixture(scope="module", params=[(300, 120, 50), (3000, 400, 200)], ids=["300 cells", "3200 cells"])
def experiment(tmp_path_factory, request):
    """Two sizes: one tile of everything, and X over more than one tile
    (tiledbsoma's tiles are 2,048 joinids a side)."""
    n_obs, n_var, appended = request.param
    uri = str(tmp_path_factory.mktemp("soma") / "experiment")
    before_append = soma_make.write_experiment(uri, n_obs, n_var, appended)
    return uri, before_append, n_obs


def sorted_table(t, keys):
    return t.sort_by([(k, "ascending") for k in keys]) if t.num_rows and keys else t


def assert_same_table(mine, theirs, keys):
    assert mine.schema == theirs.schema
    assert mine.num_rows == theirs.num_rows
    assert sorted_table(mine, keys).equals(sorted_table(theirs, keys))


def reference_context(**kw):
    """tiledbsoma's context with a pool of one thread: its to_anndata reads
    obs and var on two threads at once, where tiledbsoma 2.3.0's query
    conditions can abort the process (TileDB-SOMA#4437; seen here once, under
    load)."""
    from concurrent.futures import ThreadPoolExecutor
    return tiledbsoma.SOMATileDBContext(threadpool=ThreadPoolExecutor(1), **kw)


def both(uri, path="", **kw):
    return (soma.open(os.path.join(uri, path), **kw),
            tiledbsoma.open(os.path.join(uri, path), context=reference_context(), **kw))


def is_collection(obj):
    """Collections, experiments and measurements (tiledbsoma's Experiment is
    no tiledbsoma.Collection: they share a private base)."""
    return hasattr(obj, "items") and not hasattr(obj, "read")


def tree(obj, path=""):
    """(path, SOMA object) of every object below tiledbsoma's `obj`."""
    out = [(path, obj)]
    if is_collection(obj):
        for name in obj:
            out += tree(obj[name], name if not path else path + "/" + name)
    return out


def test_every_object_opens_as_its_soma_class(experiment):
    uri = experiment[0]
    with tiledbsoma.open(uri, context=reference_context()) as root:
        objects = tree(root)
        assert len(objects) >= 20
        for path, theirs in objects:
            with soma.open(os.path.join(uri, path)) as mine:
                assert type(mine).__name__ == type(theirs).__name__, path
                assert mine.soma_type == theirs.soma_type
                assert {k: v for k, v in mine.metadata.items()} == dict(theirs.metadata), path
                if is_collection(theirs):
                    assert sorted(mine) == sorted(theirs) and len(mine) == len(theirs)
                else:
                    assert mine.schema == theirs.schema, path
                    assert mine.non_empty_domain() == theirs.non_empty_domain(), path
                if isinstance(theirs, (tiledbsoma.SparseNDArray, tiledbsoma.DenseNDArray)):
                    assert mine.shape == theirs.shape and mine.ndim == theirs.ndim
                if isinstance(theirs, tiledbsoma.SparseNDArray):
                    assert mine.nnz == theirs.nnz
                if isinstance(theirs, tiledbsoma.DataFrame):
                    assert mine.count == theirs.count and mine.index_column_names == theirs.index_column_names
                    assert mine.domain == theirs.domain
    with soma.open(uri) as exp:  # members by attribute and item, opened once
        assert exp.ms["RNA"].X["data"] is exp.ms["RNA"].X["data"]
        assert isinstance(exp.obs, soma.DataFrame) and isinstance(exp.ms["RNA"].var, soma.DataFrame)
        assert isinstance(exp.ms["RNA"].obsm["X_pca"], soma.SparseNDArray)


OBS_READS = [
    ((), None, None),
    ((), ["cell_type", "n_genes"], "cell_type == 'B cell'"),
    ((), None, "cell_type in ['B cell', 'NK cell'] and n_genes > 8"),
    (([1, 5, 7, 200, 320],), None, None),
    ((slice(10, 40),), ["soma_joinid", "donor", "batch"], "is_primary == True"),
    ((np.arange(0, 350, 3),), None, "percent_mito < 0.5 or donor == 'donor-3'"),
    ((), ["obs_id", "n_umi"], "n_umi > 100"),
    ((), None, "batch == 'b1'"),
    ((slice(340, None),), None, None),
    ((slice(None, 5),), ["obs_id"], None),
    ((pa.array([3, 4, 5, 349], pa.int64()),), ["obs_id", "cell_type"], None),
    ((3,), None, None),
    (([],), None, None),
    ((), None, "n_genes > 100000"),
    ((), ["soma_joinid"], "cell_type != 'monocyte' and not (n_genes < 5)"),
]


@pytest.mark.parametrize("coords,columns,value_filter", OBS_READS)
def test_obs_reads(experiment, coords, columns, value_filter):
    mine, theirs = both(experiment[0], "obs")
    with mine, theirs:
        a = mine.read(coords, columns, value_filter=value_filter).concat()
        b = theirs.read(coords, columns, value_filter=value_filter).concat()
        keys = ["soma_joinid"] if "soma_joinid" in b.column_names else []
        assert_same_table(a, b, keys)
        if not keys:
            assert a.equals(b)  # the same row order
        assert a.to_pandas().equals(b.to_pandas())


@pytest.mark.parametrize("path,value_filter", [("ms/RNA/var", None), ("ms/RNA/var", "highly_variable == True"),
                                               ("ms/RNA/var", "mean > 0.25 and mean < 0.75"),
                                               ("ms/RNA/var", "n_cells > 100 or symbol == 'sym4'"),
                                               ("ms/ADT/var", "isotype == False"), ("ms/ADT/var", "protein == 'CD3'")])
def test_var_reads(experiment, path, value_filter):
    mine, theirs = both(experiment[0], path)
    with mine, theirs:
        assert_same_table(mine.read(value_filter=value_filter).concat(),
                          theirs.read(value_filter=value_filter).concat(), ["soma_joinid"])


SPARSE_READS = [
    (),
    ((slice(0, 49),)),
    ((None, slice(10, 20))),
    (([1, 2, 3, 300, 345], [0, 5, 77])),
    ((np.arange(0, 350, 2), None)),
    ((slice(100, 120), np.arange(0, 120, 5))),
    ((7, 3)),
    (([],)),
]


@pytest.mark.parametrize("path", ["ms/RNA/X/data", "ms/RNA/X/raw", "ms/ADT/X/counts", "ms/RNA/obsp/distances",
                                  "ms/RNA/obsm/X_pca", "ms/RNA/varm/PCs"])
@pytest.mark.parametrize("coords", SPARSE_READS, ids=range(len(SPARSE_READS)))
def test_sparse_reads(experiment, path, coords):
    mine, theirs = both(experiment[0], path)
    with mine, theirs:
        coords = tuple(coords) if isinstance(coords, tuple) else (coords,)
        try:
            b = theirs.read(coords).tables().concat()
        except Exception as e:  # coordinates outside the array's shape: an error in both
            with pytest.raises((ValueError, soma.SOMAError)) as mine_error:
                mine.read(coords).tables().concat()
            assert (type(e).__name__, type(mine_error.value).__name__) in [("ValueError", "ValueError"),
                                                                          ("SOMAError", "SOMAError")]
            return
        a = mine.read(coords).tables().concat()
        assert_same_table(a, b, ["soma_dim_0", "soma_dim_1"])
        ca = list(mine.read(coords).coos())
        assert sum(t.non_zero_length for t in ca) == b.num_rows
        assert all(t.shape == theirs.shape for t in ca)
        if b.num_rows:  # tiledbsoma fails on an empty read (pyarrow makes no empty tensor); tilefmt gives none
            cb = list(theirs.read(coords).coos())
            to_rows = lambda ts: sorted(tuple(c) + (float(d),) for t in ts for c, d in zip(t.to_numpy()[1],
                                                                                            t.to_numpy()[0].ravel()))
            assert to_rows(ca) == to_rows(cb)


@pytest.mark.parametrize("coords", [(), (slice(2, 3),), (slice(2, 3), 5), (None, slice(10, 29)), (19, 29)])
def test_dense_reads(experiment, coords):
    mine, theirs = both(experiment[0], "extras/grid")
    with mine, theirs:
        a, b = mine.read(coords).to_numpy(), theirs.read(coords).to_numpy()
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def assert_same_anndata(a, b):
    pd.testing.assert_frame_equal(a.obs, b.obs)
    pd.testing.assert_frame_equal(a.var, b.var)
    for x, y in [(a.X, b.X)] + [(a.layers[k], b.layers[k]) for k in b.layers] + \
                [(a.obsp[k], b.obsp[k]) for k in b.obsp]:
        assert x is None and y is None or (x.shape == y.shape and x.dtype == y.dtype and (x != y).nnz == 0)
        assert x is None or x.format == y.format
    assert sorted(a.layers) == sorted(b.layers) and sorted(a.obsm) == sorted(b.obsm)
    for k in b.obsm:
        np.testing.assert_array_equal(a.obsm[k], b.obsm[k])
    for k in b.varm:
        np.testing.assert_array_equal(a.varm[k], b.varm[k])


AXIS_QUERIES = [
    (None, None),
    (dict(value_filter="cell_type == 'B cell'"), None),
    (None, dict(value_filter="highly_variable == True")),
    (dict(value_filter="n_genes > 8", coords=(slice(0, 200),)), dict(coords=([1, 2, 3, 50, 60],))),
    (dict(coords=(np.arange(0, 350, 7),)), dict(value_filter="mean > 0.5")),
    (dict(value_filter="cell_type in ['T cell', 'monocyte'] and batch == 'b2'"), dict(coords=(slice(10, 90),))),
    (dict(value_filter="n_genes > 100000"), None),
]


@pytest.mark.parametrize("obs_query,var_query", AXIS_QUERIES, ids=range(len(AXIS_QUERIES)))
def test_axis_queries(experiment, obs_query, var_query):
    mine, theirs = both(experiment[0])
    with mine, theirs:
        q = mine.axis_query("RNA", obs_query=obs_query and soma.AxisQuery(**obs_query),
                            var_query=var_query and soma.AxisQuery(**var_query))
        r = theirs.axis_query("RNA", obs_query=obs_query and tiledbsoma.AxisQuery(**obs_query),
                              var_query=var_query and tiledbsoma.AxisQuery(**var_query))
        with q, r:
            assert q.obs_joinids().equals(r.obs_joinids()) and q.var_joinids().equals(r.var_joinids())
            assert (q.n_obs, q.n_vars) == (r.n_obs, r.n_vars)
            assert_same_table(q.obs().concat(), r.obs().concat(), ["soma_joinid"])
            assert_same_table(q.var(column_names=["var_id"]).concat(), r.var(column_names=["var_id"]).concat(), [])
            for layer in ("data", "raw"):
                assert_same_table(q.X(layer).tables().concat(), r.X(layer).tables().concat(),
                                  ["soma_dim_0", "soma_dim_1"])
            assert_same_table(q.obsm("X_pca").tables().concat(), r.obsm("X_pca").tables().concat(),
                              ["soma_dim_0", "soma_dim_1"])
            ids = np.ascontiguousarray(r.obs_joinids().to_numpy()[::3])  # tiledbsoma's indexer ignores strides
            np.testing.assert_array_equal(q.indexer.by_obs(ids), r.indexer.by_obs(ids))
            some = np.array([0, 5, 9999])
            np.testing.assert_array_equal(q.indexer.by_var(some), r.indexer.by_var(some))
            kw = dict(X_layers=["raw"], obsm_layers=["X_pca"], varm_layers=["PCs"], obsp_layers=["distances"])
            assert_same_anndata(q.to_anndata("data", **kw), r.to_anndata("data", **kw))
            cols = {"obs": ["cell_type", "n_umi"], "var": ["mean"]}
            assert_same_anndata(q.to_anndata("raw", column_names=cols, drop_levels=True),
                                r.to_anndata("raw", column_names=cols, drop_levels=True))
            assert_same_anndata(q.to_anndata(None, obs_id_name="obs_id"), r.to_anndata(None, obs_id_name="obs_id"))


def test_second_measurement(experiment):
    mine, theirs = both(experiment[0])
    with mine, theirs:
        q = mine.axis_query("ADT", obs_query=soma.AxisQuery(value_filter="donor == 'donor-2'"))
        r = theirs.axis_query("ADT", obs_query=tiledbsoma.AxisQuery(value_filter="donor == 'donor-2'"))
        assert_same_table(q.X("counts").tables().concat(), r.X("counts").tables().concat(),
                          ["soma_dim_0", "soma_dim_1"])
        assert_same_anndata(q.to_anndata("counts"), r.to_anndata("counts"))
        with pytest.raises(ValueError):
            mine.axis_query("ATAC")


def test_reading_before_the_append(experiment):
    uri, before, n_obs = experiment
    mine, theirs = both(uri, tiledb_timestamp=before)
    with mine, theirs:
        assert mine.obs.count == theirs.obs.count == n_obs
        assert sorted(mine.ms) == sorted(theirs.ms) == ["RNA"]  # ADT came later
        assert_same_table(mine.obs.read().concat(), theirs.obs.read().concat(), ["soma_joinid"])
        q = mine.axis_query("RNA", obs_query=soma.AxisQuery(value_filter="cell_type == 'NK cell'"))
        r = theirs.axis_query("RNA", obs_query=tiledbsoma.AxisQuery(value_filter="cell_type == 'NK cell'"))
        assert_same_anndata(q.to_anndata("data"), r.to_anndata("data"))
    with soma.open(uri, context=soma.SOMATileDBContext(timestamp=before)) as exp:
        assert exp.obs.count == n_obs
    with soma.open(uri) as exp:
        assert exp.obs.count > n_obs


def test_result_orders(experiment):
    mine, theirs = both(experiment[0], "ms/RNA/X/data")
    with mine, theirs:
        for order in ("row-major", "column-major", soma.ResultOrder.ROW_MAJOR):
            a = mine.read((slice(0, 99),), result_order=order).tables().concat()
            b = theirs.read((slice(0, 99),), result_order=getattr(order, "value", order)).tables().concat()
            assert a.equals(b), order  # the same rows in the same order


def test_errors(experiment, tmp_path):
    uri = experiment[0]
    with pytest.raises(soma.DoesNotExistError):
        soma.open(str(tmp_path / "nothing"))
    plain = str(tmp_path / "plain")
    tilefmt.create(plain, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 9), 10, np.int64)),
                                         attrs=[tilefmt.Attr("a", np.float64)], sparse=True))
    with pytest.raises(soma.SOMAError, match="soma_object_type"):
        soma.open(plain)
    with pytest.raises(ValueError, match="mode"):
        soma.open(uri, "w")
    with pytest.raises(TypeError, match="SOMAExperiment, not a SOMADataFrame"):
        soma.open(uri, soma_type=soma.DataFrame)
    assert isinstance(soma.open(uri, soma_type="SOMACollection"), soma.Experiment)  # an experiment is a collection
    with soma.open(uri) as exp:
        with pytest.raises(ValueError, match="no column 'nope'"):
            exp.obs.read(column_names=["nope"])
        with pytest.raises(ValueError, match="steps"):
            exp.obs.read((slice(0, 10, 2),))
        with pytest.raises(KeyError):
            exp.ms["nope"]
        with pytest.raises(KeyError):
            exp.axis_query("RNA").X("nope")
        obs = exp.obs
    with pytest.raises(soma.SOMAError, match="closed"):
        obs.read()


@pytest.fixture(scope="module")
def census_on_s3(tmp_path_factory):
    boto3 = pytest.importorskip("boto3")
    pytest.importorskip("moto")
    from conftest import TEST_AWS, environment, moto_server
    root = str(tmp_path_factory.mktemp("census") / "census")
    soma_make.write_census(root)
    with environment(**TEST_AWS), moto_server(tmp_path_factory.mktemp("moto")) as endpoint:
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        s3.create_bucket(Bucket="census")
        for folder, _, files in os.walk(root):
            for f in files:
                path = os.path.join(folder, f)
                s3.upload_file(path, "census", "v1/" + os.path.relpath(path, root))
        config = {"vfs.s3.endpoint_override": endpoint.replace("http://", ""), "vfs.s3.scheme": "http",
                  "vfs.s3.region": "us-east-1", "vfs.s3.use_virtual_addressing": "false"}
        yield "s3://census/v1", config, root


def test_census_shaped_experiment_on_s3(census_on_s3):
    uri, config, local = census_on_s3
    mine = soma.open(uri, context=soma.SOMATileDBContext(tiledb_config=config))
    theirs = tiledbsoma.open(uri, context=reference_context(tiledb_config=config))
    with mine, theirs:
        assert sorted(mine) == ["census_data", "census_info"]
        assert_same_table(mine["census_info"]["summary"].read().concat(),
                          theirs["census_info"]["summary"].read().concat(), ["soma_joinid"])
        hs, ths = mine["census_data"]["homo_sapiens"], theirs["census_data"]["homo_sapiens"]
        obs_filter = "tissue_general == 'lung' and is_primary_data == True"
        cols = ["assay", "cell_type", "tissue", "tissue_general", "suspension_type", "disease", "raw_sum"]
        assert_same_table(hs.obs.read(column_names=["soma_joinid"] + cols, value_filter=obs_filter).concat(),
                          ths.obs.read(column_names=["soma_joinid"] + cols, value_filter=obs_filter).concat(),
                          ["soma_joinid"])
        genes = "feature_name in ['G1', 'G5', 'G7', 'G42', 'G99']"
        q = hs.axis_query("RNA", obs_query=soma.AxisQuery(value_filter=obs_filter),
                          var_query=soma.AxisQuery(value_filter=genes))
        r = ths.axis_query("RNA", obs_query=tiledbsoma.AxisQuery(value_filter=obs_filter),
                           var_query=tiledbsoma.AxisQuery(value_filter=genes))
        assert q.n_vars == 5 and q.n_obs > 50
        assert_same_anndata(q.to_anndata("raw", X_layers=["normalized"], column_names={"obs": cols}),
                            r.to_anndata("raw", X_layers=["normalized"], column_names={"obs": cols}))
    with soma.open(local) as here:  # the bucket's copy reads as the local one
        q = here["census_data"]["homo_sapiens"].axis_query("RNA", obs_query=soma.AxisQuery(value_filter=obs_filter))
        assert q.n_obs == r.n_obs


BLOCKWISE = [
    dict(coords=(), axis=0, size=64),
    dict(coords=(slice(10, 200),), axis=0, size=50),
    dict(coords=([5, 3, 300, 7, 120],), axis=0, size=2),
    dict(coords=(None, slice(0, 59)), axis=1, size=16),
    dict(coords=(np.arange(0, 350, 3), [1, 9, 4, 60]), axis=0, size=40),
    dict(coords=(slice(0, 99),), axis=0, size=30, reindex_disable_on_axis=1),
    dict(coords=(slice(0, 99),), axis=1, size=30, reindex_disable_on_axis=[0]),
    dict(coords=(slice(0, 99),), axis=0, size=30, reindex_disable_on_axis=[0, 1]),
    dict(coords=(), axis=0),
]


@pytest.mark.parametrize("spec", BLOCKWISE, ids=range(len(BLOCKWISE)))
def test_blockwise_reads(experiment, spec):
    spec = dict(spec)
    coords = spec.pop("coords")
    mine, theirs = both(experiment[0], "ms/RNA/X/data")
    with mine, theirs:
        a = list(mine.read(coords).blockwise(**spec).tables())
        b = list(theirs.read(coords).blockwise(**spec).tables())
        assert len(a) == len(b)
        for (ta, ia), (tb, ib) in zip(a, b):
            assert all(x.equals(y) for x, y in zip(ia, ib))
            assert_same_table(ta, tb, ["soma_dim_0", "soma_dim_1"])
        for compress in (True, False):
            try:
                b = list(theirs.read(coords).blockwise(**spec).scipy(compress=compress))
            except tiledbsoma.SOMAError:  # CSR/CSC need the blocks' axis renumbered: an error in both
                with pytest.raises(soma.SOMAError):
                    list(mine.read(coords).blockwise(**spec).scipy(compress=compress))
                continue
            a = list(mine.read(coords).blockwise(**spec).scipy(compress=compress))
            assert len(a) == len(b)
            for (ma, ia), (mb, ib) in zip(a, b):
                assert ma.format == mb.format and ma.shape == mb.shape and ma.dtype == mb.dtype
                assert (ma != mb).nnz == 0
                assert all(np.array_equal(x, y) for x, y in zip(ia, ib))
        with pytest.raises(NotImplementedError):
            mine.read(coords).blockwise(**spec).tables().concat()
