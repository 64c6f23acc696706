import json
import os

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
