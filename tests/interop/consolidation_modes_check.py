#!/usr/bin/env python3
"""TileDB-Py reads what tilefmt-consolidate writes, for every operation of
the consolidation-mode stages in tests/data/consolidation_modes
(export_consolidation_modes.py): commits consolidation and vacuum, fragment
metadata consolidation and vacuum, fragments in steps and their vacuum.

For each operation, tilefmt-consolidate repeats it on a copy of the stage
before (the same flags TileDB was configured with); then
- the files must be TileDB's stage after, byte for byte, once the labels of
  the names each added are set aside (TileDB draws them at random), and
- TileDB-Py must read tilefmt's result as it reads TileDB's, value for
  value, at several timestamps (before, between and after the writes).

    consolidation_modes_check.py TILEFMT_CONSOLIDATE DATA_DIR

Run with a TileDB-Py interpreter; exits 77 (skip) when tiledb is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import tiledb
except ImportError:
    print("tiledb is not installed: skipped")
    sys.exit(77)

LABEL = re.compile(rb"__\d+_\d+_([0-9a-f]{32})")
TIMES = [999, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 7000, None]

FLAGS = {
    "sm.consolidation.steps": "--steps",
    "sm.consolidation.step_min_frags": "--step-min-frags",
    "sm.consolidation.step_max_frags": "--step-max-frags",
    "sm.consolidation.step_size_ratio": "--step-size-ratio",
    "sm.consolidation.buffer_size": "--buffer-size",
    "sm.consolidation.amplification": "--amplification",
}


def files(root, before):
    """{relative path: bytes}, with the labels of names new since `before` masked."""
    old = set()
    for d, dirs, fs in os.walk(before):
        old.update(dirs + fs)
    new = set()
    for d, dirs, fs in os.walk(root):
        for n in dirs + fs:
            m = LABEL.match(n.encode())
            if n not in old and m:
                new.add(m.group(1))
    out = {}
    for d, dirs, fs in os.walk(root):
        for n in fs:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root).encode()
            with open(p, "rb") as f:
                data = f.read()
            for label in new:
                rel = rel.replace(label, b"*")
                data = data.replace(label, b"*")
            out[rel] = data
    return out


def cells(uri, t):
    """Every cell a read at [0, t] returns, as sorted rows."""
    with tiledb.open(uri, timestamp=(0, t) if t is not None else None) as A:
        data = A[:] if A.schema.sparse else A[A.schema.domain.dim(0).domain[0]:A.schema.domain.dim(0).domain[1] + 1]
        names = [A.schema.domain.dim(i).name for i in range(A.schema.ndim)] + [a.name for a in A.schema]
        sparse = A.schema.sparse
    if not sparse:
        n = len(data[names[-1]])
        data = dict(data, **{names[0]: np.arange(n)})
    rows = list(zip(*[[repr(v) for v in data[k]] for k in names]))
    return sorted(rows)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    exe, data = argv[1], argv[2]
    with open(os.path.join(data, "manifest.json")) as f:
        manifest = json.load(f)
    failures = 0
    checked = 0
    work = tempfile.mkdtemp(prefix="tilefmt-modes-check-")
    try:
        for case in manifest["cases"]:
            stages = case["stages"]
            for k in range(1, len(stages)):
                s = stages[k]
                if s["op"] == "write":
                    continue
                what = "%s stage %d (%s %s)" % (case["name"], k, s["op"], s["mode"])
                before = os.path.join(data, case["name"], str(k - 1))
                theirs = os.path.join(data, case["name"], str(k))
                ours = os.path.join(work, "%s-%d" % (case["name"], k))
                shutil.copytree(before, ours)
                mode = {"fragment_meta": "fragment_meta", "commits": "commits", "fragments": "fragments"}[s["mode"]]
                cmd = [exe, ours, "--mode", mode]
                if s["op"] == "vacuum":
                    cmd.append("--vacuum-only")
                for key, value in s.get("config", {}).items():
                    if key in FLAGS:
                        cmd += [FLAGS[key], value]
                run = subprocess.run(cmd, capture_output=True, text=True)
                if run.returncode != 0:
                    print("FAIL %s: %s exited %d: %s" % (what, " ".join(cmd), run.returncode, run.stderr.strip()))
                    failures += 1
                    continue
                failed = failures
                a, b = files(ours, before), files(theirs, before)
                if a != b:
                    diff = sorted(set(a) ^ set(b)) or sorted(p for p in a if a[p] != b[p])
                    print("FAIL %s: files differ from TileDB's: %s" % (what, [p.decode() for p in diff]))
                    failures += 1
                for t in TIMES:
                    if cells(ours, t) != cells(theirs, t):
                        print("FAIL %s: TileDB-Py reads tilefmt's result at [0, %s] differently" % (what, t))
                        failures += 1
                checked += 1
                if failures == failed:
                    print("ok %s: files as TileDB's, %d reads equal" % (what, len(TIMES)))
    finally:
        shutil.rmtree(work)
    print("%d operations checked with TileDB-Py %s, %d failures" % (checked, tiledb.__version__, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
