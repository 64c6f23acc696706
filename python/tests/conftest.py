import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "data"))


def _keys(manifest, prefix=""):
    out = {}
    with open(manifest) as f:
        for a in json.load(f)["arrays"]:
            enc = a.get("encryption") or {}
            if enc.get("key"):
                out[prefix + a["path"]] = enc["key"]
    return out


@pytest.fixture(scope="session")
def data_dir():
    return DATA


@pytest.fixture(scope="session")
def data_keys():
    """Encryption keys of the committed arrays, by path relative to tests/data."""
    keys = {}
    for group in ("tiledb", "time_travel"):
        keys.update(_keys(os.path.join(DATA, group, "manifest.json"), group + "/"))
    return keys


# The credentials every test's local S3 server (moto) takes.
TEST_AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}


@contextlib.contextmanager
def environment(**values):
    """Environment variables set (None: unset) while the block runs, as
    they were afterwards."""
    saved = {k: os.environ.get(k) for k in values}

    def put(items):
        for k, v in items:
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    put(values.items())
    try:
        yield
    finally:
        put(saved.items())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def moto_server(log_dir, env=None, tls=None):
    """A moto S3 server on 127.0.0.1, in a process of its own (TileDB-Py's
    reads hold the GIL, which an in-process server would need to answer
    them), its log in `log_dir`. Yields its endpoint; stopped on exit.
    `tls`: (certificate, key, CA file) PEM paths: HTTPS with that
    certificate."""
    import ssl
    port = free_port()
    log = open(os.path.join(str(log_dir), "moto.log"), "w")
    args = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    if tls:
        args += ["-c", tls[0], "-k", tls[1]]
    server = subprocess.Popen(args, stdout=log, stderr=log, env=dict(os.environ, **(env or {})))
    try:
        endpoint = "%s://127.0.0.1:%d" % ("https" if tls else "http", port)
        context = ssl.create_default_context(cafile=tls[2]) if tls else None
        for _ in range(100):
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", context=context)
                break
            except OSError:
                time.sleep(0.1)
        yield endpoint
    finally:
        server.terminate()
        server.wait()
        log.close()
