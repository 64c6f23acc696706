#!/usr/bin/env python3
"""Write, with TileDB-Py, the arrays behind the consolidation-mode twin tests:
small arrays taken through a sequence of writes, consolidations
(sm.consolidation.mode = commits, fragment_meta, fragments in steps) and
vacuums, with a copy of the array folder after every operation.

    export_consolidation_modes.py [DEST]      (DEST default: tests/data/consolidation_modes)

DEST/<case>/<k>/ is the array after operation k (0: as first written);
DEST/manifest.json lists, per case, each operation, the configuration
TileDB was given and what it added (new files and folders, in the order
written). tests/array/maintain/test_consolidate_modes.cpp repeats every operation
with tilefmt on a copy of the stage before and compares the files with the
stage after; tests/interop/consolidation_modes_check.py has TileDB-Py read
tilefmt's results at several timestamps. Timestamps are fixed, so that
each run writes the same cells; labels (and so names) are TileDB's random
ones, different every run.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tiledb

HERE = os.path.dirname(os.path.abspath(__file__))


def tree(root):
    """Relative paths of every file and folder under root, with mtimes."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = os.stat(p).st_mtime_ns
    return out


class Case:
    def __init__(self, dest, name, description):
        self.dir = os.path.join(dest, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.work = tempfile.mkdtemp(prefix="tilefmt-modes-")
        self.uri = os.path.join(self.work, "array")
        self.entry = {"name": name, "description": description, "stages": []}

    def stage(self, op, **extra):
        """Copies the array as it is now; records what op added."""
        k = len(self.entry["stages"])
        before = tree(os.path.join(self.dir, str(k - 1))) if k else {}
        shutil.copytree(self.uri, os.path.join(self.dir, str(k)))
        now = tree(self.uri)
        added = sorted((p for p in now if p not in before and p.count(os.sep) <= 1), key=lambda p: (now[p], p))
        self.entry["stages"].append(dict({"dir": str(k), "op": op, "added": added}, **extra))

    def consolidate(self, mode, **config):
        cfg = dict({"sm.consolidation.mode": mode}, **{k: str(v) for k, v in config.items()})
        tiledb.consolidate(self.uri, config=tiledb.Config(cfg))
        self.stage("consolidate", mode=mode, config=cfg)

    def vacuum(self, mode):
        tiledb.vacuum(self.uri, config=tiledb.Config({"sm.vacuum.mode": mode}))
        self.stage("vacuum", mode=mode)

    def done(self):
        shutil.rmtree(self.work)
        return self.entry


def sparse_schema():
    return tiledb.ArraySchema(
        domain=tiledb.Domain(tiledb.Dim("d", domain=(0, 999), tile=100, dtype=np.int32)),
        attrs=[tiledb.Attr("a", dtype=np.int64), tiledb.Attr("s", dtype="ascii", var=True)],
        sparse=True, capacity=8)


def write_sparse(uri, t, coords, seed):
    coords = np.array(coords, dtype=np.int32)
    with tiledb.open(uri, "w", timestamp=t) as A:
        A[coords] = {"a": np.arange(len(coords), dtype=np.int64) + 100 * seed,
                     "s": np.array(["%c" % (97 + seed) * (i % 3 + 1) for i in range(len(coords))], dtype=object)}


def dense_schema():
    return tiledb.ArraySchema(
        domain=tiledb.Domain(tiledb.Dim("r", domain=(1, 40), tile=4, dtype=np.int32)),
        attrs=[tiledb.Attr("a", dtype=np.int32), tiledb.Attr("u", dtype=str, var=True)], sparse=False)


def write_dense(uri, t, lo, hi, seed):
    n = hi - lo + 1
    with tiledb.open(uri, "w", timestamp=t) as A:
        A[lo:hi + 1] = {"a": np.arange(n, dtype=np.int32) + 1000 * seed,
                        "u": np.array(["é" * (i % 2) + "x%d" % seed for i in range(n)], dtype=object)}


def commits(dest):
    c = Case(dest, "commits", "Sparse: three writes; commits consolidated, then vacuumed; fragments consolidated and "
             "vacuumed (an ignore file for the commits the .con names); a fourth write; commits consolidated again "
             "and vacuumed (the older .con and the .ign go).")
    tiledb.Array.create(c.uri, sparse_schema())
    write_sparse(c.uri, 1000, [3, 50, 120], 0)
    write_sparse(c.uri, 2000, [7, 50, 400, 401], 1)
    write_sparse(c.uri, 3000, [9, 120, 999], 2)
    c.stage("write")
    c.consolidate("commits")
    c.vacuum("commits")
    c.consolidate("fragments")
    c.vacuum("fragments")
    write_sparse(c.uri, 4000, [11, 12], 3)
    c.stage("write")
    c.consolidate("commits")
    c.vacuum("commits")
    return c.done()


def commits_delete(dest):
    c = Case(dest, "commits_delete", "Sparse: two writes, a delete commit, a third write; commits consolidated (the "
             ".con embeds the delete commit's file); a fourth write, commits consolidated again (the delete copied from "
             "its file), then vacuumed (a .con holding a delete never counts as holding every commit: the older one "
             "stays). A consolidation after that vacuum fails in TileDB: the .del file is gone.")
    tiledb.Array.create(c.uri, sparse_schema())
    write_sparse(c.uri, 1000, [3, 50, 120], 0)
    write_sparse(c.uri, 2000, [7, 50, 400, 401], 1)
    with tiledb.open(c.uri, "d", timestamp=2500) as A:
        A.query(cond="a == 101").submit()
    write_sparse(c.uri, 3000, [9, 120, 999], 2)
    c.stage("write")
    c.consolidate("commits")
    write_sparse(c.uri, 4000, [11, 12], 3)
    c.stage("write")
    c.consolidate("commits")
    c.vacuum("commits")
    return c.done()


def commits_plain(dest):
    c = Case(dest, "commits_plain", "Sparse: three writes; commits consolidated and vacuumed, a fourth write, "
             "commits consolidated again and vacuumed (the first .con goes).")
    tiledb.Array.create(c.uri, sparse_schema())
    for k, t in enumerate((1000, 2000, 3000)):
        write_sparse(c.uri, t, [k, 10 + k, 500 + k], k)
    c.stage("write")
    c.consolidate("commits")
    c.vacuum("commits")
    write_sparse(c.uri, 4000, [900], 3)
    c.stage("write")
    c.consolidate("commits")
    c.vacuum("commits")
    return c.done()


def fragment_meta(dest, dense):
    kind = "dense" if dense else "sparse"
    c = Case(dest, "fragment_meta_" + kind, kind.capitalize() + ": three writes, fragment metadata consolidated; a "
             "fourth write, consolidated again; vacuumed (the older .meta goes).")
    tiledb.Array.create(c.uri, dense_schema() if dense else sparse_schema())
    for k, t in enumerate((1000, 2000, 3000)):
        if dense:
            write_dense(c.uri, t, 1 + 6 * k, 9 + 6 * k, k)
        else:
            write_sparse(c.uri, t, [k, 10 * k + 5, 500 + k], k)
    c.stage("write")
    c.consolidate("fragment_meta")
    if dense:
        write_dense(c.uri, 4000, 30, 33, 3)
    else:
        write_sparse(c.uri, 4000, [700, 701], 3)
    c.stage("write")
    c.consolidate("fragment_meta")
    c.vacuum("fragment_meta")
    return c.done()


def steps(dest, dense):
    kind = "dense" if dense else "sparse"
    c = Case(dest, "steps_" + kind, kind.capitalize() + ": fragments of mixed sizes consolidated in steps "
             "(step_min_frags 2, step_max_frags 3, step_size_ratio 0.4, two steps), then once more with "
             "TileDB's other defaults, and vacuumed.")
    tiledb.Array.create(c.uri, dense_schema() if dense else sparse_schema())
    if dense:
        # Row ranges: later fragments overlap earlier ones in places, which
        # makes some sets not consolidatable (are_consolidatable).
        for k, (lo, hi) in enumerate(((1, 16), (17, 20), (21, 24), (25, 28), (5, 8), (29, 40), (37, 40))):
            write_dense(c.uri, 1000 * (k + 1), lo, hi, k)
    else:
        for k, n in enumerate((40, 4, 5, 6, 30, 3, 3)):
            write_sparse(c.uri, 1000 * (k + 1), list(range(100 * k, 100 * k + n)), k)
    c.stage("write")
    c.consolidate("fragments", **{"sm.consolidation.steps": 2, "sm.consolidation.step_min_frags": 2,
                                  "sm.consolidation.step_max_frags": 3, "sm.consolidation.step_size_ratio": 0.4,
                                  "sm.consolidation.buffer_size": 1000})
    c.consolidate("fragments", **{"sm.consolidation.step_min_frags": 2, "sm.consolidation.step_max_frags": 2,
                                  "sm.consolidation.steps": 1, "sm.consolidation.amplification": 2.0})
    c.vacuum("fragments")
    return c.done()


def main(argv):
    dest = argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "data", "consolidation_modes")
    os.makedirs(dest, exist_ok=True)
    cases = [commits(dest), commits_delete(dest), commits_plain(dest), fragment_meta(dest, False), fragment_meta(dest, True),
             steps(dest, False), steps(dest, True)]
    manifest = {"tiledb_py_version": tiledb.__version__, "libtiledb_version": ".".join(map(str, tiledb.libtiledb.version())),
                "generator": "tests/interop/export_consolidation_modes.py", "cases": cases}
    with open(os.path.join(dest, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), dest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
