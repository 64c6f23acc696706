"""tilefmt.dask on a dask.distributed cluster of two worker processes, and
s3:// from Python against a local S3 server (moto) that checks every
request's signature; the answers are compared with TileDB-Py's."""
import json
import os
import shutil

import numpy as np
import pytest

tiledb = pytest.importorskip("tiledb")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")
pd = pytest.importorskip("pandas")

import tilefmt
import tilefmt.dask as tdask
from conftest import moto_server


@pytest.fixture(scope="module")
def client():
    # Worker processes (not threads): every task opens its arrays in a
    # process that has seen nothing of them.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


# ---------------------------------------------------------------------------
# Dense
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dense_uri(tmp_path_factory):
    """A 100 x 60 array (tiles 10 x 12) written by TileDB-Py in two
    overlapping fragments over a part of the domain: the non-empty domain
    is [11, 70] x [5, 44]."""
    uri = str(tmp_path_factory.mktemp("dense") / "a")
    dom = tiledb.Domain(tiledb.Dim("r", domain=(1, 100), tile=10, dtype=np.int64),
                        tiledb.Dim("c", domain=(1, 60), tile=12, dtype=np.int64))
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=dom, sparse=False,
                                                attrs=[tiledb.Attr("a", dtype=np.float64)]))
    rng = np.random.default_rng(7)
    with tiledb.open(uri, "w", timestamp=1) as A:
        A[11:71, 5:45] = {"a": rng.standard_normal((60, 40))}
    with tiledb.open(uri, "w", timestamp=2) as A:
        A[30:51, 20:33] = {"a": rng.standard_normal((21, 13))}
    return uri


def _tiledb_dense(uri, region, attr="a"):
    with tiledb.open(uri) as A:
        return A[tuple(slice(lo, hi + 1) for lo, hi in region)][attr]


def test_dense_default_chunks_follow_space_tiles(client, dense_uri):
    x = tdask.from_array(dense_uri, "a")
    assert x.shape == (60, 40)
    # Rows 11..70 in tiles of 10 from 1; columns 5..44 in tiles of 12 from 1.
    assert x.chunks == ((10,) * 6, (8, 12, 12, 8))
    got = x.compute()
    np.testing.assert_array_equal(got, _tiledb_dense(dense_uri, ((11, 70), (5, 44))))


@pytest.mark.parametrize("chunks", [7, (25, 40), ((5, 55), (1, 39)), -1])
def test_dense_other_chunkings(client, dense_uri, chunks):
    x = tdask.from_array(dense_uri, "a", chunks=chunks)
    np.testing.assert_array_equal(x.compute(), _tiledb_dense(dense_uri, ((11, 70), (5, 44))))


def test_dense_whole_domain_and_reductions(client, dense_uri):
    # The whole domain: the cells never written read as the fill value.
    x = tdask.from_array(dense_uri, subarray=((1, 100), (1, 60)))
    want = _tiledb_dense(dense_uri, ((1, 100), (1, 60)))
    assert x.chunks == ((10,) * 10, (12,) * 5)
    np.testing.assert_array_equal(x.compute(), want)
    assert float(x[10:70, 4:44].sum().compute()) == pytest.approx(float(want[10:70, 4:44].sum()))
    # The workers opened the array themselves (their caches hold it); this
    # process only built the graph.
    def cached():
        import tilefmt.dask
        return sorted({k[0] for k in tilefmt.dask._cache})
    opened = client.run(cached)
    assert len(opened) == 2 and all(dense_uri in uris for uris in opened.values())
    assert dense_uri not in cached()


def test_dense_unbounded_domain(client, tmp_path):
    # A domain of almost all of int64: what dask.array.from_tiledb would
    # size its result by; from_array reads the non-empty domain.
    uri = str(tmp_path / "huge")
    lo, hi = -(2 ** 62), 2 ** 62
    lo -= lo % 1000  # space tiles on multiples of 1000
    dom = tiledb.Domain(tiledb.Dim("i", domain=(lo, hi), tile=1000, dtype=np.int64))
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=dom, sparse=False,
                                                attrs=[tiledb.Attr("v", dtype=np.int32)]))
    with tiledb.open(uri, "w") as A:
        A[5000:9500] = {"v": np.arange(4500, dtype=np.int32)}
    x = tdask.from_array(uri, "v")
    assert x.shape == (4500,)
    assert x.chunks == ((1000,) * 4 + (500,),)
    np.testing.assert_array_equal(x.compute(), np.arange(4500, dtype=np.int32))


# ---------------------------------------------------------------------------
# Sparse
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sparse_uri(tmp_path_factory):
    """A sparse array without duplicates, three fragments whose cells
    overlap (later writes rewrite cells of earlier ones), small tiles."""
    uri = str(tmp_path_factory.mktemp("sparse") / "s")
    dom = tiledb.Domain(tiledb.Dim("x", domain=(0, 9999), tile=100, dtype=np.int64),
                        tiledb.Dim("y", domain=(0, 99), tile=10, dtype=np.int32))
    tiledb.Array.create(uri, tiledb.ArraySchema(
        domain=dom, sparse=True, capacity=64, allows_duplicates=False,
        attrs=[tiledb.Attr("v", dtype=np.int64), tiledb.Attr("s", dtype=str)]))
    rng = np.random.default_rng(11)
    for t, (x0, x1, n) in enumerate([(0, 6000, 3000), (2000, 9000, 2500), (4000, 5000, 800)], start=1):
        cells = rng.choice((x1 - x0) * 100, size=n, replace=False)
        xs = (x0 + cells // 100).astype(np.int64)
        ys = (cells % 100).astype(np.int32)
        v = t * 1_000_000 + np.arange(n, dtype=np.int64)
        s = np.array([f"f{t}-{i % 13}" for i in range(n)], dtype=object)
        with tiledb.open(uri, "w", timestamp=t) as A:
            A[xs, ys] = {"v": v, "s": s}
    return uri


def _sorted(frame):
    return frame.sort_values(["x", "y"]).reset_index(drop=True)


def _tiledb_sparse(uri, cond=None):
    with tiledb.open(uri) as A:
        r = A.query(cond=cond).multi_index[:] if cond else A.multi_index[:]
    return _sorted(pd.DataFrame({k: r[k] for k in ("x", "y", "v", "s")}))


def test_sparse_overlapping_fragments_newest_wins(client, sparse_uri):
    df = tdask.from_sparse(sparse_uri, npartitions=5)
    assert list(df.columns) == ["x", "y", "v", "s"]
    assert 3 <= df.npartitions <= 5
    got = _sorted(df.compute())
    want = _tiledb_sparse(sparse_uri)
    # The fragments overlap: fewer cells than were written, and some of
    # the first fragment's cells read from later ones.
    assert len(want) < 3000 + 2500 + 800
    assert (want.v // 1_000_000).nunique() == 3
    pd.testing.assert_frame_equal(got[["x", "y", "v"]], want[["x", "y", "v"]], check_dtype=False)
    assert got.s.astype(object).tolist() == want.s.astype(object).tolist()
    # Each partition is a range of x of its own.
    parts = [p for p in df.partitions]
    bounds = [(int(p.x.min().compute()), int(p.x.max().compute())) for p in parts[:2]]
    assert bounds[0][1] < bounds[1][0]


def test_sparse_partitions_balance_cells(client, sparse_uri):
    sizes = tdask.from_sparse(sparse_uri, attrs=["v"], npartitions=4).map_partitions(len).compute().tolist()
    assert len(sizes) >= 3 and sum(sizes) == len(_tiledb_sparse(sparse_uri))
    assert max(sizes) < 2 * sum(sizes) / len(sizes)
    # The partitions are disjoint ranges of x covering the non-empty domain.
    ranges = tdask.partition_ranges(sparse_uri, 4)
    assert len(ranges) == len(sizes)
    with tiledb.open(sparse_uri) as A:
        lo, hi = A.nonempty_domain()[0]
    assert ranges[0][0] == lo and ranges[-1][1] == hi
    assert all(a[1] + 1 == b[0] for a, b in zip(ranges, ranges[1:]))


def test_sparse_condition_and_count(client, sparse_uri):
    df = tdask.from_sparse(sparse_uri, attrs=["v"], npartitions=3, cond="v >= 2000000")
    want = _tiledb_sparse(sparse_uri, cond="v >= 2000000")
    assert int(df.v.count().compute()) == len(want)
    assert len(want) > 0
    pd.testing.assert_frame_equal(_sorted(df.compute()), want[["x", "y", "v"]], check_dtype=False)


def test_sparse_nullable_and_string_columns(client, tmp_path):
    # Nullable attributes become pandas' nullable columns, masked cells NA.
    uri = str(tmp_path / "nullable")
    tilefmt.create(uri, tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("k", domain=(0, 99), tile=10, dtype=np.int64)), sparse=True,
        attrs=[tilefmt.Attr("n", np.int32, nullable=True), tilefmt.Attr("s", str, nullable=True)]))
    keys = np.arange(0, 100, 3, dtype=np.int64)
    mask = keys % 2 == 1
    with tilefmt.open(uri, "w") as A:
        A[keys] = {"n": np.ma.array(keys.astype(np.int32), mask=mask),
                   "s": np.ma.array([f"s{k}" for k in keys], dtype=object, mask=mask)}
    got = tdask.from_sparse(uri, npartitions=3).compute().sort_values("k").reset_index(drop=True)
    assert got.k.tolist() == keys.tolist()
    assert got.n.isna().tolist() == mask.tolist()
    assert got.n[~mask].tolist() == keys[~mask].tolist()
    assert got.s.isna().tolist() == mask.tolist()
    assert got.s[~mask].tolist() == [f"s{k}" for k in keys[~mask]]
    with tiledb.open(uri) as T:  # and TileDB-Py reads the same cells
        assert sorted(T.multi_index[:]["k"].tolist()) == keys.tolist()


def test_sparse_dask_from_tiledb_cannot_read_it(sparse_uri):
    # What from_sparse reads above, dask's own reader refuses.
    if not hasattr(da, "from_tiledb"):
        pytest.skip("this dask has no from_tiledb")
    with pytest.raises(ValueError, match="[Ss]parse"):
        da.from_tiledb(sparse_uri, attribute="v")


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def test_to_tilefmt_new_array_read_by_tiledb_py(client, tmp_path):
    uri = str(tmp_path / "out")
    x = (da.arange(60 * 50, chunks=500, dtype=np.float64).reshape(60, 50).rechunk((16, 20)) * 0.5)
    assert tdask.to_tilefmt(x, uri, attribute="a", dim_names=["r", "c"], filters=[("ZSTD", 3)]) == 12
    with tiledb.open(uri) as A:
        assert A.schema.domain.dim("r").tile == 16 and A.schema.domain.dim("c").tile == 20
        assert A.schema.domain.dim("r").domain == (0, 59)
        frags = tiledb.array_fragments(uri)
        assert len(frags) == 12
        # One write: every fragment has the same timestamp.
        assert len({f.timestamp_range for f in frags}) == 1
        np.testing.assert_array_equal(A[:, :]["a"], x.compute())
    # And back, chunked otherwise.
    np.testing.assert_array_equal(tdask.from_array(uri, "a", chunks=(25, 25)).compute(), x.compute())


def test_to_tilefmt_into_an_existing_array(client, dense_uri, tmp_path):
    uri = str(tmp_path / "copy")
    shutil.copytree(dense_uri, uri)
    y = tdask.from_array(uri, "a") + 1.0
    tdask.to_tilefmt(y[:20, :30].rechunk(10), uri, attribute="a", origin=(11, 5))
    want = _tiledb_dense(dense_uri, ((11, 70), (5, 44)))
    want[:20, :30] += 1.0
    np.testing.assert_array_equal(_tiledb_dense(uri, ((11, 70), (5, 44))), want)


# ---------------------------------------------------------------------------
# S3
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A moto server on 127.0.0.1 that checks signatures: the first four
    requests (an IAM user, its key, a policy, its attachment) go unsigned,
    all later ones must be signed with that user's key. Yields the
    TileDB-Py config for it (which tilefmt takes too) and the bucket."""
    pytest.importorskip("moto")
    boto3 = pytest.importorskip("boto3")
    with moto_server(tmp_path_factory.mktemp("moto"), {"INITIAL_NO_AUTH_ACTION_COUNT": "4"}) as endpoint:
        port = int(endpoint.rsplit(":", 1)[1])
        kw = dict(endpoint_url=endpoint, region_name="us-east-1")
        iam = boto3.client("iam", aws_access_key_id="setup", aws_secret_access_key="setup", **kw)
        iam.create_user(UserName="tilefmt")
        key = iam.create_access_key(UserName="tilefmt")["AccessKey"]
        policy = iam.create_policy(PolicyName="s3", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        iam.attach_user_policy(UserName="tilefmt", PolicyArn=policy["Policy"]["Arn"])
        boto3.client("s3", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"],
                     **kw).create_bucket(Bucket="tilefmt-test")
        config = {
            "vfs.s3.endpoint_override": f"127.0.0.1:{port}",
            "vfs.s3.scheme": "http",
            "vfs.s3.use_virtual_addressing": "false",
            "vfs.s3.region": "us-east-1",
            "vfs.s3.aws_access_key_id": key["AccessKeyId"],
            "vfs.s3.aws_secret_access_key": key["SecretAccessKey"],
        }
        yield config, "s3://tilefmt-test"


def test_storage_config_names():
    from tilefmt import _config
    # TileDB's names, as a tiledb.Config takes them, and tilefmt's own.
    assert _config.normalize({"vfs.s3.endpoint_override": "127.0.0.1:9000", "vfs.s3.scheme": "http",
                              "vfs.s3.use_virtual_addressing": "false", "vfs.s3.connect_max_tries": 3,
                              "region": "eu-west-1", "verify_tls": False}) == {
        "endpoint": "http://127.0.0.1:9000", "path_style": "true", "retries": "2", "region": "eu-west-1",
        "verify_tls": "false"}
    assert _config.normalize({"vfs.s3.max_parallel_ops": 32, "sm.compute_concurrency_level": 2}) == {
        "io_concurrency": "32", "threads": "2"}
    assert _config.normalize({"vfs.s3.endpoint_override": "minio:9000"})["endpoint"] == "https://minio:9000"
    with pytest.raises(ValueError, match="unknown storage option"):
        _config.normalize({"vfs.s3.no_such_thing": 1})
    with pytest.raises(ValueError, match="does not apply to gs://"):
        tilefmt.open("gcs://bucket/a", config={"region": "x"})
    with pytest.raises(ValueError, match="only local paths"):
        tilefmt.open("azure://bucket/a", config={"region": "x"})


def test_s3_python_writes_tiledb_py_reads(s3):
    config, bucket = s3
    uri = bucket + "/py/dense"
    schema = tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("d", domain=(1, 100), tile=10, dtype=np.int32)),
        attrs=[tilefmt.Attr("a", np.float64, filters=[("ZSTD", 3)]), tilefmt.Attr("s", str)])
    tilefmt.create(uri, schema, config=config)
    with tilefmt.open(uri, "w", config=config) as A:
        A[1:51] = {"a": np.arange(50.0), "s": np.array([f"s{i}" for i in range(50)], dtype=object)}
        A.meta["unit"] = "m"
    with tilefmt.open(uri, config=config) as A:
        np.testing.assert_array_equal(A[1:51]["a"], np.arange(50.0))
        assert A.meta["unit"] == "m"
    with tiledb.open(uri, ctx=tiledb.Ctx(tiledb.Config(config))) as T:
        r = T[1:51]
        np.testing.assert_array_equal(r["a"], np.arange(50.0))
        assert list(r["s"]) == [f"s{i}" for i in range(50)]
        assert T.meta["unit"] == "m"


def test_s3_tiledb_py_writes_python_reads(s3, monkeypatch):
    config, bucket = s3
    uri = bucket + "/tiledb/sparse"
    ctx = tiledb.Ctx(tiledb.Config(config))
    dom = tiledb.Domain(tiledb.Dim("x", domain=(0, 999), tile=100, dtype=np.int64, ctx=ctx), ctx=ctx)
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=dom, sparse=True, ctx=ctx,
                                                attrs=[tiledb.Attr("v", dtype=np.int32, ctx=ctx)]), ctx=ctx)
    for t, (xs, v) in enumerate([(np.arange(0, 500, 5), 1), (np.arange(0, 500, 10), 2)], start=1):
        with tiledb.open(uri, "w", timestamp=t, ctx=ctx) as A:
            A[xs] = {"v": np.full(len(xs), v, dtype=np.int32)}
    with tiledb.open(uri, ctx=ctx) as A:
        want = A.multi_index[:]
    # Configured by the AWS environment variables alone.
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://" + config["vfs.s3.endpoint_override"])
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", config["vfs.s3.aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", config["vfs.s3.aws_secret_access_key"])
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    with tilefmt.open(uri) as A:
        got = A.multi_index[:]
        assert len(A.fragments) == 2
    # The fragments' metadata fetched one at a time, and all at once, agree.
    for ops in (1, 64):
        with tilefmt.open(uri, config={"vfs.s3.max_parallel_ops": ops}) as A:
            again = A.multi_index[:]
        np.testing.assert_array_equal(np.sort(again["x"]), np.sort(got["x"]))
    order = np.argsort(got["x"])
    np.testing.assert_array_equal(got["x"][order], np.sort(want["x"]))
    np.testing.assert_array_equal(got["v"][order], want["v"][np.argsort(want["x"])])
    assert (got["v"] == 2).sum() == 50


def test_s3_wrong_secret_is_refused(s3):
    config, bucket = s3
    with pytest.raises(OSError, match="SignatureDoesNotMatch|403"):
        tilefmt.open(bucket + "/py/dense", config=dict(config, **{"vfs.s3.aws_secret_access_key": "wrong"}))


def test_s3_dask_read_and_write(client, s3, dense_uri):
    config, bucket = s3
    # The dense array, copied to the server by a Dask write, then read there by Dask.
    x = tdask.from_array(dense_uri, "a", subarray=((1, 100), (1, 60)))
    uri = bucket + "/dask/dense"
    tdask.to_tilefmt(x.rechunk((50, 30)), uri, attribute="a", config=config)
    y = tdask.from_array(uri, "a", config=config)
    assert y.chunks == ((50, 50), (30, 30))
    np.testing.assert_array_equal(y.compute(), x.compute())
    with tiledb.open(uri, ctx=tiledb.Ctx(tiledb.Config(config))) as T:
        np.testing.assert_array_equal(T[:, :]["a"], x.compute())
    # The cells never written are NaN, the float fill value, on both sides.
    assert float(da.nanmean(y).compute()) == pytest.approx(float(np.nanmean(x.compute())))
    assert int(da.isnan(y).sum().compute()) == 100 * 60 - 60 * 40


def test_s3_groups_both_ways(s3):
    """Groups on S3: TileDB-Py's read by tilefmt (members resolved on the
    same bucket, a member array read), tilefmt's read by TileDB-Py."""
    config, bucket = s3
    ctx = tiledb.Ctx(tiledb.Config(config))
    g = bucket + "/groups/theirs"
    tiledb.Group.create(g, ctx=ctx)
    dom = tiledb.Domain(tiledb.Dim("d", domain=(0, 9), tile=10, dtype=np.int64, ctx=ctx), ctx=ctx)
    tiledb.Array.create(g + "/arr", tiledb.ArraySchema(domain=dom, attrs=[tiledb.Attr("a", dtype=np.float64, ctx=ctx)],
                                                       ctx=ctx), ctx=ctx)
    with tiledb.open(g + "/arr", "w", ctx=ctx) as A:
        A[:] = np.arange(10.0)
    with tiledb.Group(g, "w", ctx=ctx) as T:
        T.add("arr", name="arr", relative=True)
        T.meta["title"] = "on s3"
    assert tilefmt.object_type(g, config=config) == "group"
    assert tilefmt.object_type(g + "/arr", config=config) == "array"
    with tilefmt.Group(g, config=config) as G:
        assert [(m.name, m.type, m.uri) for m in G] == [("arr", tilefmt.Array, g + "/arr")]
        assert G.meta["title"] == "on s3"
        with tilefmt.open(G["arr"].uri, config=config) as A:
            np.testing.assert_array_equal(A[:]["a"], np.arange(10.0))
    ours = bucket + "/groups/ours"
    tilefmt.Group.create(ours, config=config)
    with tilefmt.Group(ours, "w", config=config) as G:
        G.add(g + "/arr", name="shared")  # absolute, on the same bucket
        G.meta["n"] = 2
    with tiledb.Group(ours, ctx=ctx) as T:
        assert [(m.name, m.uri) for m in T] == [("shared", g + "/arr")]
        assert T.meta["n"] == 2
