#!/usr/bin/env python3
"""Reads the same TileDB column with TileDB-Py and with tilefmt, in one run.

    python compare_tiledb.py --reader build/bench/bench/bench-read-column [--dir D]

Run it with a Python that has TileDB-Py and numpy installed (scripts/bench.sh
uses the newest interop virtual environment). It writes two dense arrays with
one fragment each, if they are not there yet:

  int32_256mib    67,108,864 int32 cells, [byteshuffle, zstd(1)], a slowly
                  increasing series with noise
  float64_256mib  33,554,432 float64 cells, [bitshuffle, lz4], a smooth signal

then reads the attribute from a warm page cache with 1 thread and with every
core: TileDB-Py as `A[:]` with sm.compute_concurrency_level and
sm.io_concurrency_level set to the thread count, tilefmt as
`fragment.read<T>` with open_options::threads. Each reader runs in its own
process, so its peak resident memory is its own. Prints both throughputs,
their ratio and tilefmt's peak memory over the decoded column size; with
--json, the same as JSON on stdout's last line.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import parse_comparison_args, run_json, tiledb_reader, warm  # noqa: E402

CASES = [
    # name, numpy dtype, reader type, cells, tile extent, filters
    ("int32_256mib", "int32", "int32", 1 << 26, 1 << 20, "byteshuffle,zstd1"),
    ("float64_256mib", "float64", "float64", 1 << 25, 1 << 19, "bitshuffle,lz4"),
]


def make_filters(tiledb, spec):
    out = []
    for f in spec.split(","):
        if f == "byteshuffle":
            out.append(tiledb.ByteShuffleFilter())
        elif f == "bitshuffle":
            out.append(tiledb.BitShuffleFilter())
        elif f == "zstd1":
            out.append(tiledb.ZstdFilter(level=1))
        elif f == "lz4":
            out.append(tiledb.LZ4Filter())
        else:
            raise ValueError(f)
    return tiledb.FilterList(out)


def make_data(np, dtype, cells):
    rng = np.random.default_rng(42)
    if dtype == "int32":
        step = rng.integers(0, 4, size=cells, dtype=np.int32)
        return np.cumsum(step, dtype=np.int64).astype(np.int32)
    t = np.arange(cells, dtype=np.float64)
    return np.sin(t / 5000.0) * 1000.0 + rng.normal(0.0, 0.01, size=cells)


def create(path, dtype, cells, extent, filters):
    import numpy as np
    import tiledb

    dom = tiledb.Domain(tiledb.Dim(name="i", domain=(0, cells - 1), tile=extent, dtype=np.int64))
    schema = tiledb.ArraySchema(
        domain=dom, sparse=False,
        attrs=[tiledb.Attr(name="a", dtype=dtype, filters=make_filters(tiledb, filters))])
    tiledb.Array.create(path, schema)
    with tiledb.open(path, "w") as A:
        A[:] = make_data(np, dtype, cells)


# A[:] (a dict for arrays of several attributes).
TILEDB_READ = tiledb_reader('(lambda r: r["a"] if isinstance(r, dict) else r)(A[:])')


def main():
    args, thread_counts = parse_comparison_args(__doc__, "bench-read-column", repeats=5)

    import tiledb
    cores = os.cpu_count() or 1
    os.makedirs(args.dir, exist_ok=True)
    print(f"TileDB-Py {tiledb.__version__}, libtiledb {'.'.join(map(str, tiledb.libtiledb.version()))}, "
          f"{cores} cores", flush=True)

    results = []
    for name, dtype, rtype, cells, extent, filters in CASES:
        path = os.path.join(args.dir, name)
        if not os.path.isdir(path):
            t0 = time.time()
            print(f"writing {path} ({cells * (4 if dtype == 'int32' else 8) >> 20} MiB, [{filters}])...", flush=True)
            create(path, dtype, cells, extent, filters)
            print(f"  written in {time.time() - t0:.1f} s", flush=True)
        warm(path)
        for threads in thread_counts:
            ours = run_json([args.reader, path, "a", rtype, str(threads), str(args.repeats)])
            theirs = run_json([sys.executable, "-c", TILEDB_READ, path, str(threads), str(args.repeats)])
            if ours["bytes"] != theirs["bytes"]:
                raise SystemExit(f"{name}: tilefmt read {ours['bytes']} bytes, TileDB-Py {theirs['bytes']}")
            mib = ours["bytes"] / (1 << 20)
            r = {
                "array": name, "filters": filters, "threads": threads, "mib": mib,
                "tilefmt_mib_s": mib / ours["best_s"], "tiledb_py_mib_s": mib / theirs["best_s"],
                "ratio": theirs["best_s"] / ours["best_s"],
                "tilefmt_peak_over_column": ours["peak_added_bytes"] / ours["bytes"],
                "tiledb_py_peak_over_column": theirs["peak_added_bytes"] / theirs["bytes"],
            }
            results.append(r)
            print(f"{name:15} [{filters:16}] threads={threads}: tilefmt {r['tilefmt_mib_s']:8.0f} MiB/s, "
                  f"TileDB-Py {r['tiledb_py_mib_s']:8.0f} MiB/s, ratio {r['ratio']:.2f}x; peak memory / column: "
                  f"tilefmt {r['tilefmt_peak_over_column']:.2f}, TileDB-Py {r['tiledb_py_peak_over_column']:.2f}",
                  flush=True)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
