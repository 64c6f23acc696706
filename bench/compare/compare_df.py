#!/usr/bin/env python3
"""DataFrames and Arrow: tilefmt against TileDB-Py on the same array, in one run.

    python compare_df.py [--dir D] [--scale S] [--repeat R] [--threads T,...]

Run it with the Python of scripts/python_test.sh's venv (tilefmt, TileDB-Py,
pandas, pyarrow, Polars, DuckDB). The array, written with TileDB-Py if it is
not there yet: sparse, two int64 dimensions (row, col), attributes a
float64, n int32 and label (var-size UTF-8), 10^7 cells at S = 1, in 4
fragments. Queries, each in a fresh process per reader and per thread
count, R times (default 3; the first run and the best are printed):

  df        A.df[:]                                 TileDB-Py: B.df[:]
  arrow     pyarrow Table of the whole array          TileDB-Py: query(return_arrow=True).df[:]
  polars    Polars sum of `a` by `n % 100`            over tilefmt's stream / TileDB-Py's Arrow table
  duckdb    DuckDB sum(a) group by n % 100            the same

Threads: tilefmt's `threads` option and TileDB-Py's
sm.compute_concurrency_level / sm.io_concurrency_level (default: 1 and the
machine's cores). Ratios are TileDB-Py's best over tilefmt's (above 1:
tilefmt faster); the peak memory each query adds (MB, /proc's VmHWM less
the resident set after the open and after loading pandas, pyarrow and
the query's engine) is printed beside the result's own size
(frame MB: the DataFrame's columns and its distinct objects).
JSON on the last line.
"""
import argparse
import json
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402

CELLS = 10_000_000


def create(path, scale):
    import numpy as np
    import tiledb

    cells = max(10_000, int(CELLS * scale))
    side = int(cells ** 0.5 * 1.5)
    dims = [tiledb.Dim(name=n, domain=(0, side), tile=1000, dtype=np.int64) for n in ("row", "col")]
    schema = tiledb.ArraySchema(
        domain=tiledb.Domain(*dims), sparse=True, capacity=100_000,
        attrs=[tiledb.Attr(name="a", dtype=np.float64, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)])),
               tiledb.Attr(name="n", dtype=np.int32, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)])),
               tiledb.Attr(name="label", dtype=str, var=True, filters=tiledb.FilterList([tiledb.ZstdFilter(level=1)]))])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(11)
    flat = np.unique(rng.integers(0, (side + 1) ** 2, int(cells * 1.05)))[:cells]
    rng.shuffle(flat)
    labels = np.array(["cell type %d" % i for i in range(40)], dtype=object)
    for part in np.array_split(flat, 4):
        with tiledb.open(path, "w") as B:
            B[part // (side + 1), part % (side + 1)] = {
                "a": rng.random(len(part)), "n": rng.integers(0, 10_000, len(part)).astype(np.int32),
                "label": labels[rng.integers(0, 40, len(part))]}


RUN = r"""
import json, sys, time
reader, query, path, threads, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def status_mb(field):
    # /proc's figures of this program's own memory: getrusage's ru_maxrss
    # keeps the parent's peak across fork and exec (the parent that just
    # wrote the array is large).
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
times, rows, result_mb = [], None, None
if reader == "tilefmt":
    import tilefmt
    A = tilefmt.open(path, config={"threads": threads})
    def q():
        if query == "df":
            return A.df[:]
        if query == "arrow":
            import pyarrow as pa
            return pa.table(A.query().arrow[:]).num_rows
        if query == "polars":
            import polars as pl
            f = pl.DataFrame(A.query(attrs=["a", "n"]).arrow[:])
            return len(f.group_by(pl.col("n") % 100).agg(pl.col("a").sum()))
        import duckdb
        r = A.query(attrs=["a", "n"]).arrow[:]
        return len(duckdb.sql("select n % 100 as k, sum(a) from r group by k").fetchall())
else:
    import tiledb
    cfg = tiledb.Config({"sm.compute_concurrency_level": str(threads), "sm.io_concurrency_level": str(threads)})
    B = tiledb.open(path, ctx=tiledb.Ctx(cfg))
    def q():
        if query == "df": return len(B.df[:])
        if query == "arrow": return B.query(return_arrow=True).df[:].num_rows
        t = B.query(attrs=["a", "n"], return_arrow=True).df[:]
        if query == "polars":
            import polars as pl
            f = pl.from_arrow(t)
            return len(f.group_by(pl.col("n") % 100).agg(pl.col("a").sum()))
        import duckdb
        return len(duckdb.sql("select n % 100 as k, sum(a) from t group by k").fetchall())
# The modules a query uses are loaded before the base: the peak is the
# query's own memory, not the libraries' code (pandas and pyarrow add some
# 75 MB to a process, whatever the result's size).
import pandas, pyarrow
if query in ("polars", "duckdb"):
    __import__(query)
base = status_mb("VmRSS")
for _ in range(repeat):
    t0 = time.perf_counter()
    rows = q()
    times.append(time.perf_counter() - t0)
    if not isinstance(rows, int):  # tilefmt's frame: its own memory, its columns and each distinct object once
        objects = {id(o): o for c in rows.columns if rows[c].dtype == object for o in rows[c].to_numpy()}
        result_mb = (rows.memory_usage(index=True).sum() + sum(map(sys.getsizeof, objects.values()))) / 2**20
        rows = len(rows)
print(json.dumps({"times": times, "rows": rows, "peak_mb": status_mb("VmHWM") - base, "result_mb": result_mb}))
"""


def run(reader, query, path, threads, repeat):
    return timing.run_script(RUN, reader, query, path, threads, repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "tilefmt-compare-df"))
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", default="1,%d" % os.cpu_count())
    ap.add_argument("--only", default="df,arrow,polars,duckdb")
    a = ap.parse_args()
    path = os.path.join(a.dir, "sparse_%g" % a.scale)
    if not os.path.isdir(path):
        os.makedirs(a.dir, exist_ok=True)
        create(path, a.scale)
    print("machine: %s, %d cores, Python %s" % (platform.processor() or platform.machine(), os.cpu_count(),
                                               platform.python_version()))
    results = []
    print("%-8s %7s %12s %12s %12s %12s %7s %9s %9s %9s" % ("query", "threads", "tilefmt 1st", "tilefmt best",
                                                            "TileDB 1st", "TileDB best", "ratio", "tf MB", "TDB MB",
                                                            "frame MB"))
    for threads in [int(t) for t in a.threads.split(",")]:
        for query in a.only.split(","):
            mine = run("tilefmt", query, path, threads, a.repeat)
            theirs = run("tiledb", query, path, threads, a.repeat)
            if mine["rows"] != theirs["rows"]:
                raise SystemExit("%s: tilefmt %s rows, TileDB-Py %s" % (query, mine["rows"], theirs["rows"]))
            ratio = min(theirs["times"]) / min(mine["times"])
            frame = "%9.0f" % mine["result_mb"] if mine["result_mb"] else "%9s" % "-"
            print("%-8s %7d %12.3f %12.3f %12.3f %12.3f %6.2fx %9.0f %9.0f %s" % (
                query, threads, mine["times"][0], min(mine["times"]), theirs["times"][0], min(theirs["times"]),
                ratio, mine["peak_mb"], theirs["peak_mb"], frame))
            results.append({"query": query, "threads": threads, "tilefmt": mine, "tiledb": theirs, "ratio": ratio})
    print(json.dumps({"scale": a.scale, "results": results}))


if __name__ == "__main__":
    main()
