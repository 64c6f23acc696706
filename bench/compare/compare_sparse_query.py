#!/usr/bin/env python3
"""Reads a 1% time range of a sparse array with TileDB-Py and with a tilefmt
query, in one run.

    python compare_sparse_query.py --reader build/bench/bench/compare/bench-read-query [--dir D] [--cells N] [--where-gt X]

Run it with a Python that has TileDB-Py and numpy installed. It writes, if it
is not there yet, a sparse array of N cells (default 10^8) shaped like a
time series: an int64 dimension "t" (milliseconds, space tiles of 10^6),
a float64 attribute "a" under [byteshuffle, zstd(1)], capacity 100,000,
appended as ten fragments of N/10 cells whose time windows follow each other.
Then it reads the cells of a 1% window in the middle, row-major, from a warm
page cache, with 1 thread and with every core: TileDB-Py as
`A.query(attrs=["a"], order="C")[lo:hi + 1]["a"]`, tilefmt with array::query
(bench-read-query, which returns the coordinates too, as TileDB-Py does).
Each reader runs in its own process. Prints both throughputs (MiB of "a"
values a second), their ratio and each reader's peak memory over the size of
the values and coordinates read (all of it, and its private part: without
the pages of code and libraries); with --json, the same as JSON on stdout's
last line. With --where-gt X, both read only the cells with a > X (a query
condition, evaluated by each reader).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import made, memory_ratios, parse_comparison_args, reader_row, run_json, tiledb_reader, warm  # noqa: E402

FRAGMENTS = 10


def create(path, cells):
    import numpy as np
    import tiledb

    filters = tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])
    dom = tiledb.Domain(tiledb.Dim(name="t", domain=(0, 2**40), tile=10**6, dtype=np.int64))
    schema = tiledb.ArraySchema(domain=dom, sparse=True, capacity=100_000,
                                attrs=[tiledb.Attr(name="a", dtype=np.float64, filters=filters)])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(11)
    per = cells // FRAGMENTS
    # About one cell every 10 ms, each fragment's window after the last one's.
    window = per * 10
    for k in range(FRAGMENTS):
        t = np.sort(rng.choice(window, size=per, replace=False)).astype(np.int64) + k * window
        a = np.cumsum(rng.normal(0, 1, per)).astype(np.float64)
        with tiledb.open(path, "w") as A:
            A[t] = {"a": a}
    return window * FRAGMENTS


# args: lo hi, inclusive.
TILEDB_READ = tiledb_reader('A.query(attrs=["a"], order="C")[int(args[0]):int(args[1]) + 1]["a"]')
# args: lo hi x.
TILEDB_READ_WHERE = tiledb_reader('A.query(attrs=["a"], cond="a > " + args[2], order="C")[int(args[0]):int(args[1]) + 1]["a"]')


def main():
    args, thread_counts = parse_comparison_args(__doc__, "bench-read-query",
                                                [(("--cells",), {"type": int, "default": 10**8}),
                                                 (("--where-gt",), {"type": float, "default": None})])

    import tiledb
    cores = os.cpu_count() or 1
    path = os.path.join(args.dir, "sparse_series_%d" % args.cells)
    os.makedirs(args.dir, exist_ok=True)
    print(f"TileDB-Py {tiledb.__version__}, libtiledb {'.'.join(map(str, tiledb.libtiledb.version()))}, "
          f"{cores} cores", flush=True)
    span = args.cells // FRAGMENTS * 10 * FRAGMENTS
    made(path, f"{args.cells} cells, {FRAGMENTS} fragments, [byteshuffle, zstd(1)]", lambda: create(path, args.cells))
    warm(path)
    lo = span // 2
    hi = lo + span // 100 - 1
    results = []
    for threads in thread_counts:
        if args.where_gt is None:
            ours = run_json([args.reader, path, "a", str(threads), str(args.repeats), str(lo), str(hi)])
            theirs = run_json([sys.executable, "-c", TILEDB_READ, path, str(threads), str(args.repeats), str(lo), str(hi)])
        else:
            x = repr(args.where_gt)
            ours = run_json([args.reader, "--where-gt", x, path, "a", str(threads), str(args.repeats), str(lo), str(hi)])
            theirs = run_json([sys.executable, "-c", TILEDB_READ_WHERE, path, str(threads), str(args.repeats),
                               str(lo), str(hi), x])
        if ours["bytes"] != theirs["bytes"]:
            raise SystemExit(f"tilefmt read {ours['bytes']} bytes, TileDB-Py {theirs['bytes']}")
        # The result: the values and the int64 coordinates.
        r = reader_row(ours, theirs, 2 * ours["bytes"],
                       region="1% time" + ("" if args.where_gt is None else f", a > {args.where_gt}"),
                       threads=threads, cells=ours["bytes"] // 8)
        mib = r["mib"]
        results.append(r)
        print(f"{r['region']} ({r['cells']} cells, {mib:.1f} MiB of values) threads={threads}: tilefmt "
              f"{r['tilefmt_mib_s']:8.0f} MiB/s, TileDB-Py {r['tiledb_py_mib_s']:8.0f} MiB/s, ratio {r['ratio']:.2f}x; "
              f"{memory_ratios(r)}", flush=True)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
