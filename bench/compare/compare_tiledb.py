#!/usr/bin/env python3
"""Reads the same TileDB column with tilefmt, libtiledb's C API and TileDB-Py,
in one run.

    python compare_tiledb.py --reader build/bench/bench/compare/bench-read-column [--dir D] [--rounds N]

Run it with a Python that has TileDB-Py and numpy installed (scripts/bench.sh
uses the newest interop virtual environment). It writes two dense arrays with
one fragment each, if they are not there yet:

  int32_256mib    67,108,864 int32 cells, [byteshuffle, zstd(1)], a slowly
                  increasing series with noise
  float64_256mib  33,554,432 float64 cells, [bitshuffle, lz4], a smooth signal

then reads the attribute from a warm page cache with 1 thread and with every
core, three ways: tilefmt as `fragment.read<T>` with open_options::threads;
libtiledb's C API (the library in the TileDB-Py wheel, through ctypes:
capi_read_column.py) reading into one preallocated buffer; TileDB-Py as
`A[:]`. Both TileDB readers get sm.compute_concurrency_level and
sm.io_concurrency_level set to the thread count. Each reader runs in its own
process, so its peak resident memory is its own; the three processes run
one after the other --rounds times (each time best of --repeats reads) and
each reader's best round counts, so that load from other processes on the
machine hits all three alike. Besides wall time, each reports the least CPU
time (all its threads) one read took, which other processes disturb less;
its ratios are printed too. The C API's values must have the digest of
tilefmt's (timing.digest). Prints the throughputs, the ratios tilefmt / C API
and tilefmt / TileDB-Py, and peak memory over the decoded column size; with
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
CAPI_READ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capi_read_column.py")


def best_of(runs):
    """The run with the shortest best time, its median kept beside it."""
    return min(runs, key=lambda r: r["best_s"])


def main():
    args, thread_counts = parse_comparison_args(
        __doc__, "bench-read-column", repeats=5,
        extra=[(("--rounds",), {"type": int, "default": 1,
                                "help": "times each reader's process runs, alternating (best counts)"})])

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
            ours_runs, capi_runs, py_runs = [], [], []
            for _ in range(max(1, args.rounds)):
                ours_runs.append(run_json([args.reader, path, "a", rtype, str(threads), str(args.repeats)]))
                capi_runs.append(run_json([sys.executable, CAPI_READ, path, "a", rtype, str(cells), str(threads),
                                           str(args.repeats)]))
                py_runs.append(run_json([sys.executable, "-c", TILEDB_READ, path, str(threads), str(args.repeats)]))
            ours, capi, theirs = best_of(ours_runs), best_of(capi_runs), best_of(py_runs)
            if not ours["bytes"] == capi["bytes"] == theirs["bytes"]:
                raise SystemExit(f"{name}: tilefmt read {ours['bytes']} bytes, the C API {capi['bytes']}, "
                                 f"TileDB-Py {theirs['bytes']}")
            if any(r["digest"] != ours["digest"] for r in ours_runs + capi_runs):
                raise SystemExit(f"{name}: the values differ: digests tilefmt "
                                 f"{sorted({r['digest'] for r in ours_runs})}, C API "
                                 f"{sorted({r['digest'] for r in capi_runs})}")
            mib = ours["bytes"] / (1 << 20)
            r = {
                "array": name, "filters": filters, "threads": threads, "mib": mib, "rounds": len(ours_runs),
                "tilefmt_mib_s": mib / ours["best_s"], "capi_mib_s": mib / capi["best_s"],
                "tiledb_py_mib_s": mib / theirs["best_s"],
                "tilefmt_median_mib_s": mib / ours["median_s"], "capi_median_mib_s": mib / capi["median_s"],
                "tiledb_py_median_mib_s": mib / theirs["median_s"],
                "ratio_capi": capi["best_s"] / ours["best_s"],
                "ratio": theirs["best_s"] / ours["best_s"],
                "tilefmt_cpu_s": min(x["best_cpu_s"] for x in ours_runs),
                "capi_cpu_s": min(x["best_cpu_s"] for x in capi_runs),
                "tiledb_py_cpu_s": min(x["best_cpu_s"] for x in py_runs),
                "tilefmt_peak_over_column": ours["peak_added_bytes"] / ours["bytes"],
                "capi_peak_over_column": capi["peak_added_bytes"] / capi["bytes"],
                "tiledb_py_peak_over_column": theirs["peak_added_bytes"] / theirs["bytes"],
                "digest": ours["digest"],
            }
            r["cpu_ratio_capi"] = r["capi_cpu_s"] / r["tilefmt_cpu_s"]
            r["cpu_ratio"] = r["tiledb_py_cpu_s"] / r["tilefmt_cpu_s"]
            results.append(r)
            print(f"{name:15} [{filters:16}] threads={threads}: tilefmt {r['tilefmt_mib_s']:6.0f} MiB/s "
                  f"(median {r['tilefmt_median_mib_s']:.0f}), C API {r['capi_mib_s']:6.0f} "
                  f"({r['capi_median_mib_s']:.0f}), TileDB-Py {r['tiledb_py_mib_s']:6.0f} "
                  f"({r['tiledb_py_median_mib_s']:.0f}); tilefmt / C API {r['ratio_capi']:.2f}x, "
                  f"tilefmt / TileDB-Py {r['ratio']:.2f}x; in CPU time {r['cpu_ratio_capi']:.2f}x, "
                  f"{r['cpu_ratio']:.2f}x; peak memory / column: tilefmt "
                  f"{r['tilefmt_peak_over_column']:.2f}, C API {r['capi_peak_over_column']:.2f}, "
                  f"TileDB-Py {r['tiledb_py_peak_over_column']:.2f}", flush=True)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
