#!/usr/bin/env python3
"""Dask over tilefmt against Dask over TileDB-Py, on one LocalCluster.

    python compare_dask.py [--dir D] [--side N] [--cells M] [--workers W] [--repeat R]

Run it with the Python of scripts/python_test.sh's venv (tilefmt, TileDB-Py,
dask, distributed, pandas). It writes with TileDB-Py, if they are not there
yet:
  - a dense N x N float64 array (default N = 11586: 1 GiB of values), tiles
    of 2048 x 2048, [byteshuffle, zstd(1)], values of a smooth function;
  - a sparse array of M cells (default 2 * 10^7), int64 dimension "t" in
    ten appended fragments, float64 attribute "a" uniform in [0, 1),
    [byteshuffle, zstd(1)], capacity 100,000.
Then, on a LocalCluster of W worker processes (default 2, one thread
each), it times (best and median of R runs, after one warm-up):
  - the mean of the dense array: tilefmt.dask.from_array against
    dask.array.from_tiledb, both chunked by the space tiles;
  - the count of sparse cells with a > 0.5: tilefmt.dask.from_sparse with
    the condition against the same partitions (first-dimension ranges)
    read by TileDB-Py in the workers (dask.array.from_tiledb cannot read
    sparse arrays), each partition a DataFrame, the condition pushed down
    to the reader on both sides; and tilefmt reading every cell with the
    condition applied by pandas in the workers.
Prints the figures and their ratios, and JSON on the last line.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time


def dense_create(path, side):
    import numpy as np
    import tiledb

    filters = tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])
    dom = tiledb.Domain(tiledb.Dim("r", domain=(0, side - 1), tile=2048, dtype=np.int64),
                        tiledb.Dim("c", domain=(0, side - 1), tile=2048, dtype=np.int64))
    tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, sparse=False,
                                                 attrs=[tiledb.Attr("a", dtype=np.float64, filters=filters)]))
    cols = np.arange(side)
    with tiledb.open(path, "w") as A:
        for r0 in range(0, side, 2048):
            r1 = min(r0 + 2048, side)
            rows = np.arange(r0, r1)[:, None]
            A[r0:r1, :] = {"a": np.sin(rows * 1e-3) * np.cos(cols * 1e-3) + rows * 1e-6}


def sparse_create(path, cells):
    import numpy as np
    import tiledb

    filters = tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])
    dom = tiledb.Domain(tiledb.Dim("t", domain=(0, 2**40), tile=10**6, dtype=np.int64))
    tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, sparse=True, capacity=100_000,
                                                 attrs=[tiledb.Attr("a", dtype=np.float64, filters=filters)]))
    rng = np.random.default_rng(3)
    per = cells // 10
    for f in range(10):
        t = np.arange(f * per, (f + 1) * per, dtype=np.int64) * 10
        with tiledb.open(path, "w", timestamp=f + 1) as A:
            A[t] = {"a": rng.random(per)}


def tiledb_partition_count(uri, lo, hi):
    """TileDB-Py's side of one partition: the cells with a > 0.5 over [lo, hi]."""
    import pandas as pd
    import tiledb

    with tiledb.open(uri) as A:
        r = A.query(attrs=["a"], cond="a > 0.5", order="U").multi_index[lo:hi]
    return pd.DataFrame({"t": r["t"], "a": r["a"]})


def settle(client):
    """Waits until the scheduler holds no task: a computation whose keys
    are all still there from the previous run would not be run again."""
    for _ in range(200):
        if client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0:
            return
        time.sleep(0.05)
    raise RuntimeError("the scheduler still holds tasks of the previous run")


def timed(client, fn, repeat):
    fn()  # warm-up: page cache, imports and opened arrays in the workers
    times = []
    value = None
    for _ in range(repeat):
        settle(client)
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return value, min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/tmp/tilefmt-bench-dask")
    ap.add_argument("--side", type=int, default=11586)
    ap.add_argument("--cells", type=int, default=20_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import dask
    import dask.array as da
    import dask.dataframe as dd
    import distributed
    import numpy as np
    import pandas as pd
    import tiledb

    import tilefmt
    import tilefmt.dask as tdask

    os.makedirs(args.dir, exist_ok=True)
    dense = os.path.join(args.dir, f"dense-{args.side}")
    sparse = os.path.join(args.dir, f"sparse-{args.cells}")
    if not os.path.exists(dense):
        t0 = time.perf_counter()
        dense_create(dense, args.side)
        print(f"wrote {dense} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if not os.path.exists(sparse):
        t0 = time.perf_counter()
        sparse_create(sparse, args.cells)
        print(f"wrote {sparse} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    out = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
           "load_average_before": os.getloadavg()[0],
           "versions": {"python": platform.python_version(), "tilefmt": tilefmt.__version__,
                        "tiledb-py": tiledb.__version__, "libtiledb": ".".join(map(str, tiledb.libtiledb.version())),
                        "dask": dask.__version__, "distributed": distributed.__version__, "pandas": pd.__version__,
                        "numpy": np.__version__},
           "dense": {"side": args.side, "bytes": args.side * args.side * 8},
           "sparse": {"cells": args.cells}, "workers": args.workers, "repeat": args.repeat}

    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        # Dense mean.
        x_t = tdask.from_array(dense, "a")
        x_d = da.from_tiledb(dense, attribute="a")
        assert x_t.chunks == x_d.chunks, (x_t.chunks, x_d.chunks)
        m_t, best_t, med_t = timed(client, lambda: float(x_t.mean().compute()), args.repeat)
        m_d, best_d, med_d = timed(client, lambda: float(x_d.mean().compute()), args.repeat)
        assert abs(m_t - m_d) <= 1e-9 * max(1.0, abs(m_d)), (m_t, m_d)
        out["dense"].update(chunks=len(x_t.chunks[0]) * len(x_t.chunks[1]), mean=m_t,
                            tilefmt_s={"best": best_t, "median": med_t},
                            from_tiledb_s={"best": best_d, "median": med_d},
                            speedup_best=best_d / best_t, speedup_median=med_d / med_t)

        # Sparse filtered count, on the same partitions.
        nparts = 4 * args.workers
        df_t = tdask.from_sparse(sparse, attrs=["a"], cond="a > 0.5", npartitions=nparts)
        ranges = tdask.partition_ranges(sparse, nparts)
        meta = pd.DataFrame({"t": np.empty(0, np.int64), "a": np.empty(0, np.float64)})
        df_d = dd.from_map(tiledb_partition_count, [sparse] * len(ranges), [r[0] for r in ranges],
                           [r[1] for r in ranges], meta=meta, enforce_metadata=False)
        c_t, best_t, med_t = timed(client, lambda: int(df_t.a.count().compute()), args.repeat)
        c_d, best_d, med_d = timed(client, lambda: int(df_d.a.count().compute()), args.repeat)
        assert c_t == c_d, (c_t, c_d)
        # tilefmt again, the condition applied by pandas in the workers
        # rather than by the reader.
        df_p = tdask.from_sparse(sparse, attrs=["a"], npartitions=nparts)
        c_p, best_p, med_p = timed(client, lambda: int((df_p.a > 0.5).sum().compute()), args.repeat)
        assert c_p == c_d, (c_p, c_d)
        out["sparse"].update(partitions=len(ranges), count=c_t,
                             tilefmt_s={"best": best_t, "median": med_t},
                             tiledb_py_s={"best": best_d, "median": med_d},
                             tilefmt_pandas_filter_s={"best": best_p, "median": med_p},
                             speedup_best=best_d / best_t, speedup_median=med_d / med_t)
    out["load_average_after"] = os.getloadavg()[0]

    d, s = out["dense"], out["sparse"]
    print(f"dense mean over {d['bytes'] / 2**30:.2f} GiB, {d['chunks']} chunks: tilefmt {d['tilefmt_s']['best']:.2f} s, "
          f"dask.array.from_tiledb {d['from_tiledb_s']['best']:.2f} s (best of {args.repeat}): "
          f"{d['speedup_best']:.2f}x (medians {d['speedup_median']:.2f}x)")
    print(f"sparse count of a > 0.5 over {s['cells']} cells, {s['partitions']} partitions: tilefmt "
          f"{s['tilefmt_s']['best']:.2f} s, TileDB-Py in the workers {s['tiledb_py_s']['best']:.2f} s: "
          f"{s['speedup_best']:.2f}x (medians {s['speedup_median']:.2f}x); tilefmt filtering in pandas "
          f"{s['tilefmt_pandas_filter_s']['best']:.2f} s")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
