"""Keeping arrays in shape from Python, side by side with TileDB-Py doing the
same to a twin of the array: consolidation and vacuuming in each mode,
deleting cells, fragments and whole arrays, schema evolution and
last_write_info. Each twin is then read by TileDB-Py (and by tilefmt) and
what is on disk compared file kind by file kind."""

import os
import re
import shutil
import time

import numpy as np
import pytest

import tilefmt

tiledb = pytest.importorskip("tiledb")


def _sparse(uri, sessions=4):
    """A sparse 2-D array written in `sessions` fragments at t = 1, 2, ...,
    with metadata put in each; both twins are copies of it."""
    schema = tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("r", (1, 20), 5, np.int32), tilefmt.Dim("c", (1, 20), 5, np.int32)),
        attrs=[tilefmt.Attr("v", np.int64), tilefmt.Attr("s", str)], sparse=True, capacity=4)
    tilefmt.create(uri, schema)
    for t in range(1, sessions + 1):
        r = np.arange(1, 9, dtype=np.int32)
        c = np.full(8, t, dtype=np.int32)
        with tilefmt.open(uri, "w", timestamp=t) as A:
            A[r, c] = {"v": r.astype(np.int64) * 10 + t, "s": np.array(["x" * int(i) for i in r], dtype=object)}
            A.meta["session"] = t


def _twins(tmp_path, sessions=4):
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    _sparse(ours, sessions)
    shutil.copytree(ours, theirs)
    return ours, theirs


def _shape_of_files(uri):
    """What is on disk, names without their random labels: (folder, kind,
    timestamps) for every file and fragment folder."""
    out = []
    for folder, dirs, files in os.walk(uri):
        rel = os.path.relpath(folder, uri)
        if rel.startswith("__fragments" + os.sep) or rel.startswith("__schema"):
            continue  # a fragment's inside / schema files: named by the writer
        for name in sorted(dirs) + sorted(files):
            m = re.match(r"__(\d+)_(\d+)_[0-9a-f]{32}(?:_\d+)?(\.\w+)?$", name)
            out.append((rel, m.groups() if m else name))
    return sorted(out, key=repr)


def _read(uri):
    with tiledb.open(uri) as T:
        d = T[:]
        order = np.lexsort((d["c"], d["r"]))
        return {k: np.asarray(v)[order].tolist() for k, v in d.items()}, dict(T.meta)


def _same_fragment_info(uri):
    """tilefmt.array_fragments(uri) as tiledb.array_fragments(uri): what each
    fragment is, which have their footers consolidated, what a vacuum would
    remove."""
    got, want = tilefmt.array_fragments(uri), tiledb.array_fragments(uri)
    for prop in ("uri", "timestamp_range", "cell_num", "sparse", "array_schema_name", "has_consolidated_metadata",
                 "unconsolidated_metadata_num", "to_vacuum"):
        g, w = getattr(got, prop), getattr(want, prop)
        assert (list(g) if isinstance(g, tuple) else g) == (list(w) if isinstance(w, (tuple, list)) else w), prop


def _same(ours, theirs):
    assert _read(ours) == _read(theirs)
    assert _shape_of_files(ours) == _shape_of_files(theirs)
    _same_fragment_info(ours)
    _same_fragment_info(theirs)
    with tilefmt.open(ours) as A, tiledb.open(ours) as T:
        assert len(A.fragments) == len(tiledb.array_fragments(ours))
        assert A.df[:].sort_values(["r", "c"]).reset_index(drop=True).equals(
            T.df[:].sort_values(["r", "c"]).reset_index(drop=True))


@pytest.mark.parametrize("mode", ["fragments", "commits", "fragment_meta", "array_meta"])
def test_consolidate_and_vacuum_each_mode(tmp_path, mode):
    ours, theirs = _twins(tmp_path)
    cfg = {"sm.consolidation.mode": mode, "sm.vacuum.mode": mode}
    assert tilefmt.consolidate(ours, config=cfg) == ours
    tiledb.consolidate(theirs, config=tiledb.Config(cfg))
    _same(ours, theirs)
    if mode == "fragments":  # consolidated, not vacuumed: the four to vacuum
        assert len(tilefmt.array_fragments(ours).to_vacuum) == 4
    if mode == "fragment_meta":
        assert tilefmt.array_fragments(ours).has_consolidated_metadata == (True,) * 4
    tilefmt.vacuum(ours, config=cfg)
    tiledb.vacuum(theirs, config=tiledb.Config(cfg))
    _same(ours, theirs)


def test_consolidate_a_time_range_and_steps(tmp_path):
    ours, theirs = _twins(tmp_path, sessions=5)
    tilefmt.consolidate(ours, timestamp=(2, 4))
    tiledb.consolidate(theirs, config=tiledb.Config({"sm.consolidation.timestamp_start": "2",
                                                     "sm.consolidation.timestamp_end": "4"}))
    _same(ours, theirs)
    ours2, theirs2 = str(tmp_path / "o2"), str(tmp_path / "t2")
    _sparse(ours2, 6)
    shutil.copytree(ours2, theirs2)
    steps = {"sm.consolidation.steps": 2, "sm.consolidation.step_min_frags": 2, "sm.consolidation.step_max_frags": 2}
    tilefmt.consolidate(ours2, config=steps)
    tiledb.consolidate(theirs2, config=tiledb.Config({k: str(v) for k, v in steps.items()}))
    _same(ours2, theirs2)


def test_delete_fragments(tmp_path):
    ours, theirs = _twins(tmp_path)
    tilefmt.Array.delete_fragments(ours, 2, 3)
    tiledb.Array.delete_fragments(theirs, 2, 3)
    _same(ours, theirs)
    # After commits were consolidated the deleted commits go to an ignore file.
    ours, theirs = str(tmp_path / "o2"), str(tmp_path / "t2")
    _sparse(ours)
    shutil.copytree(ours, theirs)
    cfg = {"sm.consolidation.mode": "commits", "sm.vacuum.mode": "commits"}
    for uri in (ours, theirs):
        tiledb.consolidate(uri, config=tiledb.Config(cfg))
        tiledb.vacuum(uri, config=tiledb.Config(cfg))
    tilefmt.Array.delete_fragments(ours, 1, 2)
    tiledb.Array.delete_fragments(theirs, 1, 2)
    _same(ours, theirs)
    assert any(f.endswith(".ign") for f in os.listdir(os.path.join(ours, "__commits")))


def test_delete_array(tmp_path):
    ours, theirs = _twins(tmp_path)
    tilefmt.Array.delete_array(ours)
    tiledb.Array.delete_array(theirs)
    assert not os.path.exists(ours) and not os.path.exists(theirs)
    assert not tiledb.array_exists(ours) and not tilefmt.array_exists(ours)
    ours, theirs = _twins(tmp_path / "kept")
    for uri in (ours, theirs):
        with open(os.path.join(uri, "notes.txt"), "w") as f:
            f.write("mine")
    tilefmt.Array.delete_array(ours)
    tiledb.Array.delete_array(theirs)
    assert os.listdir(ours) == os.listdir(theirs) == ["notes.txt"]


def test_delete_cells(tmp_path):
    ours, theirs = _twins(tmp_path)
    with tilefmt.open(ours, "d", timestamp=10) as A:
        assert A.mode == "d"
        A.query(cond="v < 40 or s == 'xxxxxxxx'").submit()
    with tiledb.open(theirs, "d", timestamp=10) as T:
        T.query(cond="v < 40 or s == 'xxxxxxxx'").submit()
    _same(ours, theirs)
    rows, _ = _read(ours)
    assert rows["v"] and min(rows["v"]) >= 40 and 8 not in rows["r"]
    # Bytes on disk: the same delete commit TileDB wrote.
    del_ours = [f for f in os.listdir(os.path.join(ours, "__commits")) if f.endswith(".del")]
    del_theirs = [f for f in os.listdir(os.path.join(theirs, "__commits")) if f.endswith(".del")]
    assert len(del_ours) == len(del_theirs) == 1
    with open(os.path.join(ours, "__commits", del_ours[0]), "rb") as a, \
            open(os.path.join(theirs, "__commits", del_theirs[0]), "rb") as b:
        assert a.read() == b.read()
    with pytest.raises(ValueError):
        with tilefmt.open(ours, "d") as A:
            A.query().submit()


def test_schema_evolution(tmp_path):
    ours, theirs = _twins(tmp_path)
    se = tilefmt.ArraySchemaEvolution()
    se.add_attribute(tilefmt.Attr("w", np.float32, fill=1.5))
    se.drop_attribute("s")
    # Just after the schema the array was created with (and before now).
    later = max(int(n.split("_")[2]) for n in os.listdir(os.path.join(ours, "__schema")) if n[2:3].isdigit()) + 1
    time.sleep(0.01)
    se.timestamp(later)
    se.array_evolve(ours)
    te = tiledb.ArraySchemaEvolution()
    te.add_attribute(tiledb.Attr("w", np.float32, fill=1.5))
    te.drop_attribute("s")
    te.timestamp(later)
    te.array_evolve(theirs)
    with tiledb.open(ours) as A, tiledb.open(theirs) as B:
        assert [a.name for a in A.schema] == [a.name for a in B.schema] == ["v", "w"]
        assert A.schema.attr("w").dtype == B.schema.attr("w").dtype
        assert A.schema.attr("w").fill == B.schema.attr("w").fill
        assert A[:]["w"].tolist() == B[:]["w"].tolist() == [1.5] * 32
    assert any(n.startswith("__%d_%d_" % (later, later)) for n in os.listdir(os.path.join(ours, "__schema")))
    with tilefmt.open(ours) as A:
        assert [a.name for a in A.schema.attrs] == ["v", "w"]
        assert A[:]["w"].tolist() == [1.5] * 32
    se = tilefmt.ArraySchemaEvolution()
    se.drop_attribute("nope")
    with pytest.raises(ValueError):
        se.array_evolve(ours)


def test_last_write_info(tmp_path):
    ours, theirs = _twins(tmp_path, sessions=1)
    with tilefmt.open(ours, "w", timestamp=7) as A, tiledb.open(theirs, "w", timestamp=7) as T:
        assert A.last_write_info == T.last_write_info == {}
        r = np.array([1, 2], dtype=np.int32)
        for X in (A, T):
            X[r, r] = {"v": np.array([1, 2]), "s": np.array(["a", "b"], dtype=object)}
        (a_uri, a_ts), = A.last_write_info.items()
        (t_uri, t_ts), = T.last_write_info.items()
    assert a_ts == t_ts == (7, 7)
    assert re.sub(r"[0-9a-f]{32}", "L", a_uri).replace("ours", "X") == re.sub(r"[0-9a-f]{32}", "L", t_uri).replace("theirs", "X")
    assert os.path.isdir(a_uri[len("file://"):])


def test_refused_with_clear_errors(tmp_path):
    ours, _ = _twins(tmp_path, sessions=2)
    with pytest.raises(NotImplementedError, match="fragment_uris"):
        tilefmt.consolidate(ours, fragment_uris=["x"])
    with pytest.raises(ValueError, match="sm.consolidation.mode"):
        tilefmt.consolidate(ours, config={"sm.consolidation.mode": "everything"})
    with pytest.raises(ValueError, match="unknown consolidation setting"):
        tilefmt.consolidate(ours, config={"sm.consolidation.nonsense": 1})
    with pytest.raises(NotImplementedError):
        tilefmt.vacuum(ours, timestamp=(1, 2))
    with pytest.raises(OSError):
        tilefmt.Array.delete_fragments(str(tmp_path / "none"), 0, 10)


def test_fragment_info_after_consolidations(tmp_path):
    """has_consolidated_metadata and unconsolidated_metadata_num once a
    fragment is written after the footers were consolidated; to_vacuum
    after a consolidation of fragments, of a time range, and after the
    vacuum; each as TileDB-Py reports it for the same array."""
    ours, _ = _twins(tmp_path)
    tilefmt.consolidate(ours, config={"sm.consolidation.mode": "fragment_meta"})
    with tilefmt.open(ours, "w", timestamp=9) as A:
        A[np.array([20], dtype=np.int32), np.array([20], dtype=np.int32)] = {"v": np.array([1]), "s": np.array(["y"], dtype=object)}
    info = tilefmt.array_fragments(ours)
    assert info.has_consolidated_metadata == (True, True, True, True, False)
    assert info.unconsolidated_metadata_num == 1
    _same_fragment_info(ours)
    tilefmt.consolidate(ours, timestamp=(2, 3))
    assert len(tilefmt.array_fragments(ours).to_vacuum) == 2
    _same_fragment_info(ours)
    # Opened before the consolidation's range ends, the vacuum file is not inside the range.
    assert tilefmt.array_fragments(ours, timestamp=(0, 2)).to_vacuum == ()
    tilefmt.vacuum(ours)
    assert tilefmt.array_fragments(ours).to_vacuum == ()
    _same_fragment_info(ours)
