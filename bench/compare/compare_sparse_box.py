#!/usr/bin/env python3
"""Reads boxes of a two-dimensional sparse array with TileDB-Py and with a
tilefmt query, in one run: the general sparse reader (sorting the cells of
several fragments), where compare_sparse_query.py times the one-dimensional
path.

    python compare_sparse_box.py --reader build/bench/bench/compare/bench-read-query [--dir D] [--cells N]

Run it with a Python that has TileDB-Py and numpy installed. It writes, if it
is not there yet, a sparse array of int64 dimensions x and y in [0, 9999]
(space tiles of 1000 x 1000), duplicates allowed, capacity 100,000, with a
float64 attribute "a" under [byteshuffle, zstd(1)], as four fragments of N/4
cells (default N = 2 * 10^7) at uniformly random coordinates. Then it reads a
1% and a 10% box in the middle, row-major, from a warm page cache, with 1
thread and with every core: TileDB-Py as
`A.query(attrs=["a"], order="C")[x0:x1 + 1, y0:y1 + 1]["a"]`, tilefmt with
array::query (bench-read-query, which returns the coordinates too, as
TileDB-Py does). Each reader runs in its own process. Prints both
throughputs (MiB of "a" values a second), their ratio and each reader's peak
memory over the values and coordinates read (all of it, and its private
part); with --json, the same as JSON on stdout's last line.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import made, memory_ratios, parse_comparison_args, reader_row, run_json, tiledb_reader, warm  # noqa: E402

FRAGMENTS = 4
SIDE = 10_000


def create(path, cells):
    import numpy as np
    import tiledb

    dom = tiledb.Domain(tiledb.Dim(name="x", domain=(0, SIDE - 1), tile=1000, dtype=np.int64),
                        tiledb.Dim(name="y", domain=(0, SIDE - 1), tile=1000, dtype=np.int64))
    filters = tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])
    schema = tiledb.ArraySchema(domain=dom, sparse=True, capacity=100_000, allows_duplicates=True,
                                attrs=[tiledb.Attr(name="a", dtype=np.float64, filters=filters)])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(5)
    per = cells // FRAGMENTS
    for _ in range(FRAGMENTS):
        x, y = rng.integers(0, SIDE, per), rng.integers(0, SIDE, per)
        with tiledb.open(path, "w") as A:
            A[x, y] = {"a": rng.normal(0, 1, per)}


# args: x0 x1 y0 y1, inclusive.
TILEDB_READ = tiledb_reader('A.query(attrs=["a"], order="C")[int(args[0]):int(args[1]) + 1, '
                            'int(args[2]):int(args[3]) + 1]["a"]')


def main():
    args, thread_counts = parse_comparison_args(__doc__, "bench-read-query",
                                                [(("--cells",), {"type": int, "default": 2 * 10**7})])
    import tiledb
    path = os.path.join(args.dir, "sparse_box_%d" % args.cells)
    os.makedirs(args.dir, exist_ok=True)
    print(f"TileDB-Py {tiledb.__version__}, libtiledb {'.'.join(map(str, tiledb.libtiledb.version()))}, "
          f"{os.cpu_count() or 1} cores", flush=True)
    made(path, f"{args.cells} cells, {FRAGMENTS} fragments", lambda: create(path, args.cells))
    warm(path)
    results = []
    for label, fraction in (("1%", 0.01), ("10%", 0.10)):
        w = int(SIDE * fraction ** 0.5)
        lo = (SIDE - w) // 2
        box = [str(v) for v in (lo, lo + w - 1, lo, lo + w - 1)]
        for threads in thread_counts:
            ours = run_json([args.reader, path, "a", str(threads), str(args.repeats)] + box)
            theirs = run_json([sys.executable, "-c", TILEDB_READ, path, str(threads), str(args.repeats)] + box)
            if ours["bytes"] != theirs["bytes"]:
                raise SystemExit(f"{label}: tilefmt read {ours['bytes']} bytes, TileDB-Py {theirs['bytes']}")
            # The result: the values and two int64 coordinates.
            r = reader_row(ours, theirs, 3 * ours["bytes"], region=label, threads=threads, cells=ours["bytes"] // 8)
            results.append(r)
            print(f"{label:4} box ({r['cells']} cells) threads={threads}: tilefmt {r['tilefmt_mib_s']:7.1f} MiB/s, "
                  f"TileDB-Py {r['tiledb_py_mib_s']:7.1f} MiB/s, ratio {r['ratio']:.2f}x; {memory_ratios(r)}",
                  flush=True)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
