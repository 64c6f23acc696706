"""Round trips to an object store: an open and a query of an array of eight
fragments, dense and sparse, written by TileDB-Py to a local S3 server
(moto) and read by tilefmt through a proxy that holds each request back
250 ms (bench/compare/compare_latency.py's DelayProxy, which counts the
requests that waited on an answer before them). The open and a 1% box, and
the open and the whole array, each take at most 6 round trips (the open 4:
the array folder, its TileDB folders together, the schema, every
fragment's metadata together); the values are TileDB-Py's. Counted, not
timed: the waves of requests are told apart by the delay (a request
starting 200 ms after its wave's first starts a new one), many times the
time between requests sent together even on a loaded machine (at 50 ms
a CI run beside a compiler once counted 7)."""

import importlib.util
import os

import numpy as np
import pytest

import tilefmt
from conftest import TEST_AWS, environment, moto_server

tiledb = pytest.importorskip("tiledb")
pytest.importorskip("moto")
pytest.importorskip("boto3")

_BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "compare", "compare_latency.py")
_spec = importlib.util.spec_from_file_location("compare_latency", _BENCH)
latency = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(latency)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import boto3

    with environment(**TEST_AWS), moto_server(tmp_path_factory.mktemp("moto")) as endpoint:
        port = int(endpoint.rsplit(":", 1)[1])
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket="trips")
        for kind in ("dense", "sparse"):
            latency.make_array("s3://trips/" + kind, port, 8, kind == "sparse")
        proxy = latency.DelayProxy(port)
        yield port, proxy
        proxy.close()


@pytest.mark.parametrize("kind", ["dense", "sparse"])
@pytest.mark.parametrize("box", [latency.N // 10, latency.N], ids=["1% box", "whole"])
def test_open_and_query_in_at_most_six_round_trips(store, kind, box):
    moto_port, proxy = store
    uri = "s3://trips/" + kind
    with tiledb.open(uri, ctx=tiledb.Ctx(tiledb.Config(latency.tiledb_config(moto_port)))) as T:
        want = T[0:box, 0:box]["a"]
    cfg = {"endpoint": "http://127.0.0.1:%d" % proxy.port, "region": "us-east-1", "access_key_id": "testing",
           "secret_access_key": "testing", "path_style": True}
    proxy.reset(0.25)
    with tilefmt.open(uri, config=cfg) as A:
        opened = proxy.round_trips
        got = A[0:box, 0:box]["a"]
    trips, requests = proxy.round_trips, proxy.requests
    proxy.reset(0)
    if kind == "dense":
        np.testing.assert_array_equal(got, want)
    else:  # the same cells; TileDB-Py's order is row-major too
        np.testing.assert_array_equal(np.sort(got), np.sort(want))
    assert opened <= 4, (opened, requests)
    assert trips <= 6, (trips, requests)


def test_no_sign_request_reads_unsigned(store):
    # The Census is read with TileDB's {"vfs.s3.region": ..., "vfs.s3.no_sign_request": "true"}.
    moto_port, proxy = store
    cfg = {"vfs.s3.endpoint_override": "127.0.0.1:%d" % proxy.port, "vfs.s3.scheme": "http",
           "vfs.s3.use_virtual_addressing": "false", "vfs.s3.region": "us-east-1", "vfs.s3.no_sign_request": "true"}
    with tiledb.open("s3://trips/dense", ctx=tiledb.Ctx(tiledb.Config(latency.tiledb_config(moto_port)))) as T:
        want = T[0:10, 0:10]["a"]
    proxy.reset(0)
    with tilefmt.open("s3://trips/dense", config=cfg) as A:  # the environment's keys are set, and not used
        got = A[0:10, 0:10]["a"]
    assert proxy.requests > 0 and proxy.signed == 0
    np.testing.assert_array_equal(got, want)
    proxy.reset(0)
    with tilefmt.open("s3://trips/dense", config=dict(cfg, **{"vfs.s3.no_sign_request": "false"})) as A:
        A[0:10, 0:10]
    assert proxy.signed == proxy.requests > 0


def test_s3_settings_by_tileDB_names(store):
    """TileDB's names for server-side encryption, requester pays, a role
    assumed through STS and the multipart part size: an array written with
    them (its data file in three parts) is encrypted with the KMS key named
    (every object, as the server keeps it) and reads back.
    (tests/storage/test_s3.cpp checks the role's credentials against a
    server that enforces them, and the requester-pays header.)"""
    import boto3

    moto_port, _ = store
    endpoint = "http://127.0.0.1:%d" % moto_port
    with environment(**TEST_AWS):
        kms_key = boto3.client("kms", endpoint_url=endpoint, region_name="us-east-1").create_key()["KeyMetadata"]["KeyId"]
        role = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1").create_role(
            RoleName="writer", AssumeRolePolicyDocument='{"Version": "2012-10-17", "Statement": []}')["Role"]["Arn"]
        cfg = {"vfs.s3.endpoint_override": "127.0.0.1:%d" % moto_port, "vfs.s3.scheme": "http",
               "vfs.s3.use_virtual_addressing": "false", "vfs.s3.sse": "kms", "vfs.s3.sse_kms_key_id": kms_key,
               "vfs.s3.requester_pays": "true", "vfs.s3.aws_role_arn": role, "vfs.s3.aws_session_name": "settings",
               "vfs.s3.aws_load_frequency": "900", "vfs.s3.multipart_part_size": str(5 << 20)}
        # 12 MB of attribute data: a file of three parts, a multipart upload.
        data = np.arange(3_000_000, dtype=np.int32).reshape(1000, 3000)
        tilefmt.from_numpy("s3://trips/settings", data, config=cfg)
        with tilefmt.open("s3://trips/settings", config=cfg) as A:
            np.testing.assert_array_equal(A[:], data)
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket="trips", Prefix="settings/")["Contents"]]
        assert len(keys) >= 3
        sizes = {o["Key"]: o["Size"] for o in s3.list_objects_v2(Bucket="trips", Prefix="settings/")["Contents"]}
        assert max(sizes.values()) > 2 * (5 << 20)  # three parts
        for k in keys:
            head = s3.head_object(Bucket="trips", Key=k)
            assert head.get("ServerSideEncryption") == "aws:kms" and head.get("SSEKMSKeyId") == kms_key, (k, head)
        with pytest.raises(ValueError, match="sse must be"):
            tilefmt.open("s3://trips/settings", config=dict(cfg, **{"vfs.s3.sse": "rot13"}))
