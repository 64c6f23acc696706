"""Google Cloud Storage (gs:// URIs) against gcp-storage-emulator, a server
in a process of its own on 127.0.0.1: tilefmt writes and reads arrays
there, by its own settings and TileDB's (vfs.gcs.endpoint), TileDB-Py reads
what tilefmt wrote and tilefmt what TileDB-Py wrote. (tests/storage/
test_gcs.cpp checks the backend's contract and a service account's sign-in.)
"""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import urllib.request

import numpy as np
import pytest

import tilefmt
from conftest import free_port, wait_until_serving

EMULATOR = shutil.which("gcp-storage-emulator", path=os.path.dirname(sys.executable))
pytestmark = pytest.mark.skipif(EMULATOR is None, reason="gcp-storage-emulator is not installed")


@contextlib.contextmanager
def emulator(log_dir):
    port = free_port()
    log = open(os.path.join(str(log_dir), "gcs.log"), "w")
    server = subprocess.Popen([EMULATOR, "start", "-H", "127.0.0.1", "--port", str(port), "--in-memory", "-q"],
                              stdout=log, stderr=log)
    try:
        endpoint = "http://127.0.0.1:%d" % port
        wait_until_serving(endpoint + "/")
        yield endpoint
    finally:
        server.terminate()
        server.wait()
        log.close()


@pytest.fixture(scope="module")
def gcs(tmp_path_factory):
    with emulator(tmp_path_factory.mktemp("gcs")) as endpoint:
        request = urllib.request.Request(endpoint + "/storage/v1/b?project=test", method="POST",
                                         data=json.dumps({"name": "arrays"}).encode(),
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
        yield endpoint


def test_write_and_read(gcs):
    data = np.arange(600, dtype=np.float64).reshape(20, 30)
    cfg = {"endpoint": gcs}
    tilefmt.from_numpy("gs://arrays/dense", data, config=cfg)
    with tilefmt.open("gs://arrays/dense", config=cfg) as A:
        np.testing.assert_array_equal(A[:], data)
        np.testing.assert_array_equal(A[3:5, 10:12], data[3:5, 10:12])
    # TileDB's names, and its gcs:// spelling of the scheme.
    with tilefmt.open("gcs://arrays/dense", config={"vfs.gcs.endpoint": gcs, "vfs.gcs.project_id": "test"}) as A:
        np.testing.assert_array_equal(A[:], data)
    assert tilefmt.object_type("gs://arrays/dense", config=cfg) == "array"
    assert tilefmt.object_type("gs://arrays/none", config=cfg) is None


def test_settings_for_other_stores_are_refused(gcs):
    with pytest.raises(ValueError, match="does not apply to gs://"):
        tilefmt.open("gs://arrays/dense", config={"endpoint": gcs, "requester_pays": "true"})


def test_tiledb_py_reads_what_tilefmt_wrote(gcs):
    """TileDB-Py reads through its own GCS client (google-cloud-cpp) what
    tilefmt wrote. (Its writes cannot be tried here: TileDB composes
    objects, and the emulator fails a compose request that names no
    destination, as google-cloud-cpp's do not.)"""
    tiledb = pytest.importorskip("tiledb")
    ctx = tiledb.Ctx(tiledb.Config({"vfs.gcs.endpoint": gcs, "vfs.gcs.project_id": "test"}))
    data = np.arange(100, dtype=np.int32).reshape(10, 10)
    tilefmt.from_numpy("gs://arrays/from_tilefmt", data * 2, config={"endpoint": gcs})
    with tiledb.open("gcs://arrays/from_tilefmt", ctx=ctx) as T:
        np.testing.assert_array_equal(T[:], data * 2)
    sparse = {"d": np.array([3, 7, 9], dtype=np.int64), "v": np.array([1.5, 2.5, 3.5])}
    pd = pytest.importorskip("pandas")
    tilefmt.from_pandas("gs://arrays/sparse", pd.DataFrame(sparse), sparse=True,
                        index_dims=["d"], config={"endpoint": gcs})
    with tiledb.open("gcs://arrays/sparse", ctx=ctx) as T:
        got = T[:]
    np.testing.assert_array_equal(got["d"], sparse["d"])
    np.testing.assert_array_equal(got["v"], sparse["v"])
