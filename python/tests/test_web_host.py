"""Arrays and groups on a static web host: http:// and https:// URLs opened
as local paths are, their files known from the listing documents
``tilefmt.web.write_listing`` writes beside them, served by web/serve.py (in
a process of its own, on 127.0.0.1) over HTTP and over HTTPS with a
certificate a test authority signs."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tilefmt
import tilefmt.web
from conftest import certificates, free_port, wait_until_serving

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(REPO, "tests", "data")
ARRAYS = ("tiledb/dense_1d_int32/array", "tiledb/sparse_string_dim/array", "tiledb/nullable_dense/array")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    for a in ARRAYS:
        shutil.copytree(os.path.join(DATA, a), root / a)
        tilefmt.web.write_listing(str(root / a))
    shutil.copytree(os.path.join(DATA, "groups", "experiment"), root / "groups" / "experiment")
    tilefmt.web.write_listing(str(root / "groups" / "experiment"))
    return root


def serve(root, tls=None):
    """web/serve.py on a free port; yields its URL."""
    port = free_port()
    args = [sys.executable, os.path.join(REPO, "web", "serve.py"), "--port", str(port), str(root)]
    if tls:
        args += ["--cert", tls["server.pem"], "--key", tls["server.key"]]
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = "%s://127.0.0.1:%d" % ("https" if tls else "http", port)
    wait_until_serving(url + "/", tls["ca.pem"] if tls else None)
    return server, url


@pytest.fixture(scope="module")
def web(site):
    server, url = serve(site)
    yield url
    server.terminate()
    server.wait()


@pytest.fixture(scope="module")
def web_tls(site, tmp_path_factory):
    pytest.importorskip("cryptography")
    pem = certificates(tmp_path_factory.mktemp("tls"))
    server, url = serve(site, pem)
    yield url, pem
    server.terminate()
    server.wait()


def same(a, b):
    """Results equal field by field: masks, then each cell (var-size cells
    are arrays, floats may be NaN) by its text."""
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        np.testing.assert_array_equal(np.ma.getmaskarray(x), np.ma.getmaskarray(y))
        cell = lambda v: repr(v.tolist() if hasattr(v, "tolist") else v)  # noqa: E731
        assert [cell(v) for v in np.ma.getdata(x).ravel()] == [cell(v) for v in np.ma.getdata(y).ravel()], k


@pytest.mark.parametrize("name", ARRAYS)
def test_arrays_read_as_from_disk(web, name):
    with tilefmt.open(f"{web}/{name}") as remote, tilefmt.open(os.path.join(DATA, name)) as local:
        assert repr(remote.schema) == repr(local.schema)  # (a NaN fill value is not equal to itself)
        assert remote.nonempty_domain() == local.nonempty_domain()
        same(remote.query()[:] if remote.schema.sparse else remote[:],
             local.query()[:] if local.schema.sparse else local[:])
        assert dict(remote.meta) == dict(local.meta)


def test_group_and_members(web):
    with tilefmt.Group(f"{web}/groups/experiment") as g:
        assert sorted(m.name for m in g) == ["image", "more", "points"]
        assert g.meta["title"] == "tilefmt browser test"
    with tilefmt.open(f"{web}/groups/experiment/image") as A:  # by its own URL: the group's listing covers it
        assert A[:]["v"].shape == (48, 64)


def test_no_listing_is_named(web):
    with pytest.raises(OSError, match="listing"):
        tilefmt.open(f"{web}/tiledb/not_here")


def test_https_with_the_authority(web_tls):
    url, pem = web_tls
    name = ARRAYS[0]
    with tilefmt.open(f"{url}/{name}", config={"ca_file": pem["ca.pem"]}) as remote, \
            tilefmt.open(os.path.join(DATA, name)) as local:
        same(remote[:], local[:])


def test_https_refuses_an_unknown_authority_unless_told(web_tls):
    url, _ = web_tls
    with pytest.raises(OSError, match="(?i)certificate|SSL|TLS"):
        tilefmt.open(f"{url}/{ARRAYS[0]}", config={"retries": 0})
    with tilefmt.open(f"{url}/{ARRAYS[0]}", config={"verify_tls": False}) as A:
        assert A[:]["a"].size == 100
