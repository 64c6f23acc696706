#!/usr/bin/env python3
"""The read shapes users have beyond dense boxes, through the Python
packages: tilefmt against TileDB-Py on the same arrays, in one run.

    python compare_shapes.py [--dir D] [--scale S] [--repeat R] [--threads T,...] [--only NAME]

Run it with the Python of scripts/python_test.sh's venv (tilefmt, TileDB-Py,
numpy). It writes with TileDB-Py, if they are not there yet:
  - soma_x: the matrix tiledbsoma writes for an X layer: 2-D sparse, int64
    dimensions over [0, 2^63 - 2050] with tile extents 2048, capacity
    100,000, no duplicates, dimensions ZSTD(3), a float32 attribute
    ZSTD(-1); 100,000 x 2,000 at 5% density (10^7 cells) at S = 1;
  - soma_x4: the same matrix written in 4 sessions of consecutive rows (4
    fragments, merged by the reader);
  - strings: sparse, one ASCII string dimension of 10^6 random keys, an
    int64 attribute;
  - var_text: dense 1-D, 2 x 10^6 var-size UTF-8 strings under ZSTD;
  - dups: sparse 1-D with duplicates, 5 x 10^6 cells.
Every count scales with S (default 1; 0.1 for a quick look). Each query
runs in a fresh process per reader, R times (default 3): the first run
(a fresh process: opening, first touches) and the best are printed, with
the ratio of TileDB-Py's best to tilefmt's (above 1: tilefmt faster), and
the number of cells both returned (they must agree), and the peak memory
the queries added to each process (MB: /proc's VmHWM after the queries
less VmRSS after the open; Linux). Threads (default: 1 and the machine's cores):
tilefmt's `threads` option, TileDB-Py's sm.compute_concurrency_level and
sm.io_concurrency_level. JSON on the last line.
"""
import argparse
import json
import os
import platform
import subprocess
import sys

SOMA_ROWS, SOMA_COLS = 100_000, 2_000


def create_soma_x(path, scale, parts=1):
    import numpy as np
    import tiledb

    rows = max(1000, int(SOMA_ROWS * scale))
    top = 2**63 - 2050
    dims = [tiledb.Dim(name=n, domain=(0, top), tile=2048, dtype=np.int64,
                       filters=tiledb.FilterList([tiledb.ZstdFilter(level=3)]))
            for n in ("soma_dim_0", "soma_dim_1")]
    schema = tiledb.ArraySchema(domain=tiledb.Domain(*dims), sparse=True, capacity=100_000,
                                attrs=[tiledb.Attr(name="soma_data", dtype=np.float32,
                                                   filters=tiledb.FilterList([tiledb.ZstdFilter(level=-1)]))])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(3)
    cells = rows * SOMA_COLS // 20
    flat = np.unique(rng.integers(0, rows * SOMA_COLS, cells))
    values = rng.random(len(flat), dtype=np.float32)
    # `parts` writes of consecutive rows, as an ingestion appends them.
    for part, data in zip(np.array_split(flat, parts), np.array_split(values, parts)):
        with tiledb.open(path, "w") as A:
            A[part // SOMA_COLS, part % SOMA_COLS] = {"soma_data": data}
    return rows


def create_strings(path, scale):
    import numpy as np
    import tiledb

    n = max(1000, int(1_000_000 * scale))
    dom = tiledb.Domain(tiledb.Dim(name="key", domain=(None, None), tile=None, dtype="ascii"))
    schema = tiledb.ArraySchema(domain=dom, sparse=True, capacity=10_000,
                                attrs=[tiledb.Attr(name="v", dtype=np.int64)])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(4)
    keys = np.array(["k%012d" % k for k in rng.choice(10**12, n, replace=False)])
    with tiledb.open(path, "w") as A:
        A[keys] = {"v": np.arange(n, dtype=np.int64)}


def create_var_text(path, scale):
    import numpy as np
    import tiledb

    n = max(1000, int(2_000_000 * scale))
    dom = tiledb.Domain(tiledb.Dim(name="i", domain=(0, n - 1), tile=min(n, 100_000), dtype=np.int64))
    schema = tiledb.ArraySchema(domain=dom, sparse=False,
                                attrs=[tiledb.Attr(name="s", dtype=str, var=True,
                                                   filters=tiledb.FilterList([tiledb.ZstdFilter(level=3)]))])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(5)
    words = np.array(["w%d" % i * int(k) for i, k in enumerate(rng.integers(1, 4, 1000))], dtype=object)
    with tiledb.open(path, "w") as A:
        A[0:n] = {"s": words[rng.integers(0, 1000, n)]}


def create_dups(path, scale):
    import numpy as np
    import tiledb

    n = max(1000, int(5_000_000 * scale))
    dom = tiledb.Domain(tiledb.Dim(name="t", domain=(0, 10**9), tile=10**6, dtype=np.int64))
    schema = tiledb.ArraySchema(domain=dom, sparse=True, capacity=100_000, allows_duplicates=True,
                                attrs=[tiledb.Attr(name="a", dtype=np.float64)])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(6)
    with tiledb.open(path, "w") as A:
        A[rng.integers(0, n // 4, n)] = {"a": rng.random(n)}


# name -> (array, TileDB-Py expression, tilefmt expression) of `A` (the open
# array), `np` and the array's scale-dependent `rows` / `n`.
def queries(rows):
    # The rows of one cell type out of 20 (what a SOMA axis query sends):
    # 5% of the rows at random, as runs of consecutive rows.
    picked = "np.sort(np.random.default_rng(9).choice(%d, %d, replace=False))" % (rows, rows // 20)
    runs = ("[slice(int(r[0]), int(r[-1])) for r in np.split(P, np.flatnonzero(np.diff(P) != 1) + 1)]"
            .replace("P", picked))
    genes = "list(np.random.default_rng(8).choice(%d, 50, replace=False))" % SOMA_COLS
    return {
        "soma_x whole, global order": ("soma_x", 'A.query(order="G")[:]["soma_data"]'),
        "soma_x whole, unordered": ("soma_x", 'A.query(order="U")[:]["soma_data"]'),
        "soma_x 50 gene columns, unordered": ("soma_x", 'A.query(order="U").multi_index[:, %s]["soma_data"]' % genes),
        "soma_x rows 0-999, unordered": ("soma_x", 'A.query(order="U").multi_index[0:999, :]["soma_data"]'),
        "soma_x 5% of rows as runs, unordered": ("soma_x", 'A.query(order="U").multi_index[%s, :]["soma_data"]' % runs),
        "soma_x whole, row-major": ("soma_x", 'A.query(order="C")[:]["soma_data"]'),
        "soma_x4 whole, unordered (4 fragments)": ("soma_x4", 'A.query(order="U")[:]["soma_data"]'),
        "soma_x4 5% of rows as runs (4 fragments)": ("soma_x4", 'A.query(order="U").multi_index[%s, :]["soma_data"]' % runs),
        "strings whole, unordered": ("strings", 'A.query(order="U")[:]["v"]'),
        "strings 200 keys as points": ("strings", 'A.query(order="U").multi_index[[(k, k) for k in KEYS]]["v"]'),
        "strings a 10% key range": ("strings", 'A.query(order="U").multi_index["k1":"k1~"]["v"]'),
        "var_text whole": ("var_text", 'A[:]["s"]'),
        "var_text 10%": ("var_text", 'A[0:A.schema.domain.dim(0).domain[1] // 10]["s"]'),
        "dups whole, unordered": ("dups", 'A.query(order="U")[:]["a"]'),
        "dups 1%, global order": ("dups", 'A.query(order="G")[0:A.nonempty_domain()[0][1] // 100]["a"]'),
    }


_RUN = r"""
import json, sys, time
import numpy as np
lib, path, repeat, expr, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
if lib == "tiledb":
    import tiledb
    cfg = tiledb.Config({"sm.compute_concurrency_level": str(threads), "sm.io_concurrency_level": str(threads)})
    opener = lambda p: tiledb.open(p, ctx=tiledb.Ctx(cfg))
else:
    import tilefmt
    opener = lambda p: tilefmt.open(p, config={"threads": threads})
KEYS = None
if "KEYS" in expr:
    import tiledb
    with tiledb.open(path) as B:
        all_keys = B.query(order="U", attrs=[])[:]["key"]
    KEYS = [k.decode() if isinstance(k, bytes) else k for k in np.random.default_rng(7).choice(all_keys, 200, replace=False)]
def status_kb(field):
    # /proc's peak of this program's own memory: getrusage's ru_maxrss keeps
    # the parent's peak across fork and exec, so a large parent hid it.
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
times, cells = [], None
t_open = time.perf_counter()
with opener(path) as A:
    opened = time.perf_counter() - t_open
    # Peak memory the queries add to the opened array (kB).
    rss_before = status_kb("VmRSS")
    for _ in range(repeat):
        t0 = time.perf_counter()
        v = eval(expr)
        times.append(time.perf_counter() - t0)
        cells = len(v)
        del v
peak_mb = (status_kb("VmHWM") - rss_before) / 1024
print(json.dumps({"first_s": times[0] + opened, "best_s": min(times), "cells": cells, "peak_mb": peak_mb}))
"""


def run(lib, path, repeat, expr, threads):
    out = subprocess.run([sys.executable, "-c", _RUN, lib, path, str(repeat), expr, str(threads)], capture_output=True,
                         text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "exit %d" % out.returncode}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="build/bench/shapes")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", default="1,%d" % os.cpu_count())
    ap.add_argument("--only", default=None, help="run the queries whose name contains this")
    args = ap.parse_args()
    base = os.path.join(args.dir, "scale-%g" % args.scale)
    os.makedirs(base, exist_ok=True)
    makers = {"soma_x": create_soma_x, "soma_x4": lambda p, s: create_soma_x(p, s, parts=4), "strings": create_strings, "var_text": create_var_text, "dups": create_dups}
    rows = max(1000, int(SOMA_ROWS * args.scale))
    rows_out = []
    print("machine: %s, %d cores, Python %s" % (platform.processor() or platform.machine(), os.cpu_count(),
                                                 platform.python_version()))
    print("%-42s %7s %10s %10s %10s %10s %7s %10s %8s %8s" % ("query", "threads", "py first", "py best", "tf first",
                                                              "tf best", "ratio", "cells", "py MB", "tf MB"))
    plan = [(name, arr, expr, int(t)) for t in args.threads.split(",") for name, (arr, expr) in queries(rows).items()
            if not args.only or args.only in name]
    for name, arr, expr, threads in plan:
        path = os.path.join(base, arr)
        if not os.path.exists(path):
            makers[arr](path, args.scale)
        theirs = run("tiledb", path, args.repeat, expr, threads)
        ours = run("tilefmt", path, args.repeat, expr, threads)
        row = {"query": name, "threads": threads, "tiledb": theirs, "tilefmt": ours}
        if "error" in theirs or "error" in ours:
            print("%-42s %7d %s" % (name, threads, theirs.get("error") or ours.get("error")))
        else:
            row["ratio"] = theirs["best_s"] / ours["best_s"]
            agree = "" if theirs["cells"] == ours["cells"] else "  (TileDB-Py %d)" % theirs["cells"]
            print("%-42s %7d %10.3f %10.3f %10.3f %10.3f %7.2f %10d %8.0f %8.0f%s" % (
                name, threads, theirs["first_s"], theirs["best_s"], ours["first_s"], ours["best_s"], row["ratio"],
                ours["cells"], theirs["peak_mb"], ours["peak_mb"], agree))
        rows_out.append(row)
    print(json.dumps({"scale": args.scale, "rows": rows_out}))


if __name__ == "__main__":
    main()
