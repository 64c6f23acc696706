"""A SOMA experiment as tiledbsoma writes it, read with tilefmt.

scripts/python_test.sh has tiledbsoma (in a virtual environment of its own,
python/requirements-soma.txt) write an experiment from an AnnData made in
soma_make.py and read every object back: TILEFMT_SOMA_DIR holds the
experiment, tiledbsoma's readings (Arrow IPC files) and a manifest. Here
tilefmt opens the experiment as a tree of groups and arrays (members,
metadata, object types, walk), and reads every array equal to what
tiledbsoma read and to what TileDB-Py reads.
"""

import json
import os

import numpy as np
import pytest

import tilefmt

SOMA = os.environ.get("TILEFMT_SOMA_DIR")
pytestmark = pytest.mark.skipif(not SOMA, reason="no SOMA experiment (scripts/python_test.sh makes one with tiledbsoma)")


@pytest.fixture(scope="module")
def manifest():
    with open(os.path.join(SOMA, "manifest.json")) as f:
        return json.load(f)


def path_of(rel):
    return os.path.join(SOMA, "experiment", rel) if rel else os.path.join(SOMA, "experiment")


def as_list(values):
    """Values with masked (null) cells as None, bytes as str."""
    out = []
    mask = np.ma.getmaskarray(values) if np.ma.isMaskedArray(values) else np.zeros(len(values), bool)
    for v, m in zip(np.ma.getdata(values), mask):
        if m:
            out.append(None)
        elif isinstance(v, bytes):
            out.append(v.decode())
        elif isinstance(v, np.generic):
            out.append(v.item())
        else:
            out.append(v)
    return out


def test_the_experiment_is_a_tree_of_groups_and_arrays(manifest):
    objects = manifest["objects"]
    assert len([o for o in objects if o["object_type"] == "array"]) >= 7
    for o in objects:
        assert tilefmt.object_type(path_of(o["path"])) == o["object_type"], o["path"]
    walked = []
    tilefmt.walk(path_of(""), lambda uri, kind: walked.append((os.path.relpath(uri.replace("file://", ""), path_of("")), kind)))
    assert sorted(walked) == sorted((o["path"], o["object_type"]) for o in objects if o["path"])
    for o in objects:
        if o["object_type"] != "group":
            continue
        with tilefmt.Group(path_of(o["path"])) as g:
            assert sorted(m.name for m in g) == o["members"], o["path"]
            for m in g:
                assert m.name in g
                kind = "group" if m.type is tilefmt.Group else "array"
                assert tilefmt.object_type(m.uri.replace("file://", "")) == kind
            assert {k: g.meta[k] for k in o["metadata"]} == o["metadata"]
            assert g.meta["soma_object_type"] == o["soma_type"]


def arrays(manifest):
    return [o for o in manifest["objects"] if o["object_type"] == "array"]


def read_reference(o):
    import pyarrow as pa
    with pa.OSFile(os.path.join(SOMA, "reference", o["reference"]), "rb") as f:
        return pa.ipc.open_file(f).read_all()


def sort_order(columns, keys):
    return np.lexsort([np.asarray(columns[k]) for k in reversed(keys)])


def test_every_array_reads_as_tiledbsoma_read_it(manifest):
    checked = 0
    for o in arrays(manifest):
        ref = read_reference(o)
        with tilefmt.open(path_of(o["path"])) as A:
            assert A.meta["soma_object_type"] == o["soma_type"]
            got = A[:]
        if o["soma_type"] == "SOMADenseNDArray":  # recorded as soma_data in row-major order
            np.testing.assert_array_equal(got["soma_data"].ravel(), ref.column("soma_data").to_numpy())
            checked += 1
            continue
        keys = ["soma_joinid"] if o["soma_type"] == "SOMADataFrame" else [n for n in ref.column_names if n.startswith("soma_dim_")]
        assert ref.num_rows == o["rows"] and len(got[keys[0]]) == ref.num_rows, o["path"]
        mine = sort_order(got, keys)
        theirs = sort_order({k: ref.column(k).to_numpy() for k in keys}, keys)
        for name in ref.column_names:
            expected = ref.column(name).to_pylist()
            expected = [expected[i] for i in theirs]
            actual = as_list(np.asarray(got[name])[mine] if not np.ma.isMaskedArray(got[name]) else got[name][mine])
            if ref.column(name).type in ("float", "double"):
                np.testing.assert_array_equal(np.array(actual, float), np.array(expected, float), err_msg=f"{o['path']}.{name}")
            else:
                assert actual == expected, f"{o['path']}.{name}"
        checked += 1
    assert checked == len(arrays(manifest))


def test_every_array_reads_as_tiledb_py_reads_it(manifest):
    tiledb = pytest.importorskip("tiledb")
    for o in arrays(manifest):
        with tilefmt.open(path_of(o["path"])) as A, tiledb.open(path_of(o["path"])) as B:
            mine, theirs = A[:], B[:]
            assert list(mine) == list(theirs), o["path"]
            for name in theirs:  # a dense array's values as one row-major list
                assert as_list(np.ravel(mine[name])) == as_list(np.ravel(theirs[name])), f"{o['path']}.{name}"
