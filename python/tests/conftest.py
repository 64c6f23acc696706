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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def moto_server(log_dir, env=None):
    """A moto S3 server on 127.0.0.1, in a process of its own (TileDB-Py's
    reads hold the GIL, which an in-process server would need to answer
    them), its log in `log_dir`. Yields its endpoint; stopped on exit."""
    port = free_port()
    log = open(os.path.join(str(log_dir), "moto.log"), "w")
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-p", str(port)], stdout=log, stderr=log,
                              env=dict(os.environ, **(env or {})))
    try:
        endpoint = "http://127.0.0.1:%d" % port
        for _ in range(100):
            try:
                urllib.request.urlopen(endpoint + "/moto-api/")
                break
            except OSError:
                time.sleep(0.1)
        yield endpoint
    finally:
        server.terminate()
        server.wait()
        log.close()
