#!/usr/bin/env python3
"""Reads the same regions of a TileDB array with TileDB-Py and with a
tilefmt query, in one run.

    python compare_query.py --reader build/bench/bench/compare/bench-read-query [--dir D] [--side N]

Run it with a Python that has TileDB-Py and numpy installed (scripts/bench.sh
uses the newest interop virtual environment). It writes, if it is not there
yet, a 2-D dense int32 array of N x N cells (default 4096: 64 MiB; 16384
gives 1 GiB) with [byteshuffle, zstd(1)] and tiles of 512 x 512, as ten
fragments: the whole domain, then nine boxes of a quarter of it each,
overlapping. Then it reads a 1% box, a 10% box and the whole domain,
row-major, from a warm page cache, with 1 thread and with every core:
TileDB-Py as `A.query(attrs=["a"], order="C")[box]` with
sm.compute_concurrency_level and sm.io_concurrency_level set to the thread
count, tilefmt with array::query and open_options::threads. Each reader runs
in its own process, so its peak resident memory is its own. Prints both
throughputs, their ratio, and each reader's peak memory over the result size
(all of it, and its private part: without the pages of code and libraries);
with --json, the same as JSON on stdout's last line.

Then COUNT and SUM of the attribute over the whole domain: TileDB-Py as
`A.query(attrs=["a"]).agg(["count", "sum"])[...]`, tilefmt with
query::aggregate. Both answer the space tiles that one fragment wrote whole
from the tile metadata stored with them, and read the others. Then the same
over all but the first column, where no tile is whole and every cell is
read: the two times differ by what the metadata saves.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import made, memory_ratios, parse_comparison_args, reader_row, run_json, tiledb_reader, warm  # noqa: E402

TILE = 512


def create(path, side):
    import numpy as np
    import tiledb

    filters = tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])
    dom = tiledb.Domain(tiledb.Dim(name="r", domain=(0, side - 1), tile=TILE, dtype=np.int64),
                        tiledb.Dim(name="c", domain=(0, side - 1), tile=TILE, dtype=np.int64))
    schema = tiledb.ArraySchema(domain=dom, sparse=False, attrs=[tiledb.Attr(name="a", dtype=np.int32, filters=filters)])
    tiledb.Array.create(path, schema)
    rng = np.random.default_rng(7)
    boxes = [(0, side, 0, side)]
    for _ in range(9):
        r0, c0 = (int(x) for x in rng.integers(0, side // 2, 2))
        boxes.append((r0, r0 + side // 2, c0, c0 + side // 2))
    for k, (r0, r1, c0, c1) in enumerate(boxes):
        # A slowly varying surface per fragment: compressible, distinct per write.
        rows = np.arange(r0, r1, dtype=np.int64)[:, None]
        cols = np.arange(c0, c1, dtype=np.int64)[None, :]
        data = ((rows * 3 + cols * 5) // 7 + k * 1000).astype(np.int32)
        with tiledb.open(path, "w") as A:
            A[r0:r1, c0:c1] = data


# args: r0 r1 c0 c1, inclusive.
TILEDB_READ = tiledb_reader(
    'A.query(attrs=["a"], order="C")[int(args[0]):int(args[1]) + 1, int(args[2]):int(args[3]) + 1]["a"]')


TILEDB_AGGREGATE = tiledb_reader(
    '__import__("numpy").array([(lambda r: [int(r["count"]), int(r["sum"])])('
    'A.query(attrs=["a"]).agg(["count", "sum"])[int(args[0]):int(args[1]) + 1, int(args[2]):int(args[3]) + 1])])')


def main():
    args, thread_counts = parse_comparison_args(__doc__, "bench-read-query", [
        (("--side",), {"type": int, "default": 4096, "help": "cells per side (4096: 64 MiB; 16384: 1 GiB)"})])

    import tiledb
    cores = os.cpu_count() or 1
    side = args.side
    path = os.path.join(args.dir, "query_int32_%d" % side)
    os.makedirs(args.dir, exist_ok=True)
    print(f"TileDB-Py {tiledb.__version__}, libtiledb {'.'.join(map(str, tiledb.libtiledb.version()))}, "
          f"{cores} cores", flush=True)
    made(path, f"{side * side * 4 >> 20} MiB, 10 fragments, [byteshuffle, zstd(1)]", lambda: create(path, side))
    warm(path)
    def centred(fraction):
        w = max(1, int(side * fraction ** 0.5))
        lo = (side - w) // 2
        return (lo, lo + w - 1, lo, lo + w - 1)
    regions = [("1%", centred(0.01)), ("10%", centred(0.10)), ("whole", (0, side - 1, 0, side - 1))]
    results = []
    for label, box in regions:
        for threads in thread_counts:
            ours = run_json([args.reader, path, "a", str(threads), str(args.repeats)] + [str(x) for x in box])
            theirs = run_json([sys.executable, "-c", TILEDB_READ, path, str(threads), str(args.repeats)] +
                              [str(x) for x in box])
            if ours["bytes"] != theirs["bytes"]:
                raise SystemExit(f"{label}: tilefmt read {ours['bytes']} bytes, TileDB-Py {theirs['bytes']}")
            r = reader_row(ours, theirs, ours["bytes"], region=label, threads=threads)
            mib = r["mib"]
            results.append(r)
            print(f"{label:6} ({mib:7.1f} MiB) threads={threads}: tilefmt {r['tilefmt_mib_s']:8.0f} MiB/s, "
                  f"TileDB-Py {r['tiledb_py_mib_s']:8.0f} MiB/s, ratio {r['ratio']:.2f}x; {memory_ratios(r)}",
                  flush=True)
    # COUNT and SUM over the whole domain, with the tile metadata and with
    # every cell read (query::use_tile_metadata(false)): the difference is
    # what the metadata saves.
    box = regions[-1][1]
    for threads in thread_counts:
        for label, mode in (("whole", "--aggregate"), ("whole, cells", "--aggregate-cells")):
            ours = run_json([args.reader, mode, path, "a", str(threads), str(args.repeats)] +
                            [str(x) for x in box])
            theirs = run_json([sys.executable, "-c", TILEDB_AGGREGATE, path, str(threads), str(args.repeats)] +
                              [str(x) for x in box])
            ours_sum = ours["checksum"] - (1 << 64) if ours["checksum"] >= 1 << 63 else ours["checksum"]
            count = (box[1] - box[0] + 1) * (box[3] - box[2] + 1)
            if theirs["values"] != [count, ours_sum]:
                raise SystemExit(f"aggregate {label}: tilefmt COUNT {count} SUM {ours_sum}, "
                                 f"TileDB-Py {theirs['values']}")
            r = {"region": "COUNT+SUM " + label, "threads": threads, "tilefmt_s": ours["best_s"],
                 "tiledb_py_s": theirs["best_s"], "ratio": theirs["best_s"] / ours["best_s"]}
            results.append(r)
            print(f"COUNT+SUM {label:12} threads={threads}: tilefmt {ours['best_s'] * 1e3:8.1f} ms, TileDB-Py "
                  f"{theirs['best_s'] * 1e3:8.1f} ms, ratio {r['ratio']:.2f}x", flush=True)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
