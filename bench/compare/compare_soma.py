#!/usr/bin/env python3
"""Single-cell axis queries: tilefmt.soma against tiledbsoma on the same experiment, in one run.

    python compare_soma.py [--dir D] [--cells N] [--genes G] [--repeat R] [--threads T,...]

Run it with the Python of scripts/python_test.sh's SOMA venv (tiledbsoma,
anndata, SciPy), tilefmt on its path (BUILD_DIR/python/soma-path):

    PYTHONPATH=build/python/soma-path build/python/soma-venv/bin/python bench/compare/compare_soma.py

The experiment, written with tiledbsoma.io.from_anndata if it is not there
yet: N cells (default 10^5) x G genes (default 2,000), X float32 counts at
5% density; obs with categorical cell_type and tissue (lung: ~5% of cells),
integer n_genes and a string donor column. Queries, each in a fresh process
per reader and thread count, R times (default 3): "fresh" is the time
from the process's start (imports, open, first query: what a script pays),
"best" the best of the R queries in the process.

  obs       the obs rows of tissue == 'lung' (all columns), as an Arrow table
  tables    X("data") of those cells, all genes, as an Arrow table
  csr       the same as a SciPy CSR matrix (rows and columns by position)
  anndata   to_anndata("data"): obs, var and X
  joinids   X("data") of 5,000 cells chosen by joinid (a random list)

Threads: tilefmt's `threads` (TileDB's sm.compute_concurrency_level) and
tiledbsoma's sm.compute_concurrency_level / sm.io_concurrency_level with a
thread pool of that size. Ratios are tiledbsoma's best over tilefmt's (above
1: tilefmt faster), of the fresh times and of the best; the process's peak
memory (MB, getrusage's maximum resident set) beside them. JSON on the last
line.
"""
import argparse
import json
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402


def create(path, cells, genes):
    import anndata as ad
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp
    import tiledbsoma.io

    rng = np.random.default_rng(3)
    x = sp.random(cells, genes, density=0.05, format="csr", random_state=4, dtype=np.float32)
    x.data = np.ceil(x.data * 30).astype(np.float32)
    tissues = np.array(["lung"] + ["tissue %d" % i for i in range(19)])
    obs = pd.DataFrame({
        "cell_type": pd.Categorical(rng.choice(["cell type %d" % i for i in range(40)], cells)),
        "tissue": pd.Categorical(tissues[rng.integers(0, 20, cells)]),
        "n_genes": np.diff(x.indptr).astype(np.int64),
        "donor": ["donor-%d" % (i % 97) for i in range(cells)],
    }, index=["c%07d" % i for i in range(cells)])
    var = pd.DataFrame({"mean": np.asarray(x.mean(axis=0)).ravel()}, index=["G%05d" % i for i in range(genes)])
    tiledbsoma.io.from_anndata(path, ad.AnnData(X=x, obs=obs, var=var), measurement_name="RNA")


RUN = r"""
import time
started = time.perf_counter()
import json, resource, sys
import numpy as np
reader, query, path, threads, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
config = {"sm.compute_concurrency_level": str(threads), "sm.io_concurrency_level": str(threads)}
if reader == "tilefmt":
    import tilefmt.soma as soma
    exp = soma.open(path, context=soma.SOMATileDBContext(tiledb_config=config))
else:
    from concurrent.futures import ThreadPoolExecutor
    import tiledbsoma as soma
    exp = soma.open(path, context=soma.SOMATileDBContext(tiledb_config=config,
                                                        threadpool=ThreadPoolExecutor(threads)))
LUNG = soma.AxisQuery(value_filter="tissue == 'lung'")
n_cells = exp.obs.count
picked = np.sort(np.random.default_rng(1).choice(n_cells, 5000, replace=False))
def q():
    if query == "obs":
        return exp.obs.read(value_filter="tissue == 'lung'").concat().num_rows
    if query == "joinids":
        return exp.ms["RNA"].X["data"].read((picked,)).tables().concat().num_rows
    with exp.axis_query("RNA", obs_query=LUNG) as aq:
        if query == "tables":
            return aq.X("data").tables().concat().num_rows
        if query == "csr":
            import scipy.sparse as sp
            t = aq.X("data").tables().concat()
            m = sp.csr_matrix((t["soma_data"].to_numpy(), (aq.indexer.by_obs(t["soma_dim_0"].to_numpy()),
                                                           aq.indexer.by_var(t["soma_dim_1"].to_numpy()))),
                              shape=(aq.n_obs, aq.n_vars))
            return m.nnz
        return aq.to_anndata("data").X.nnz
base = rss()
times, rows = [], None
for _ in range(repeat):
    t0 = time.perf_counter()
    rows = q()
    times.append(time.perf_counter() - t0)
    if len(times) == 1:
        fresh = time.perf_counter() - started
print(json.dumps({"times": times, "fresh": fresh, "rows": rows, "peak_mb": rss(), "query_mb": rss() - base}))
"""


def run(reader, query, path, threads, repeat):
    return timing.run_script(RUN, reader, query, path, threads, repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "tilefmt-compare-soma"))
    ap.add_argument("--cells", type=int, default=100_000)
    ap.add_argument("--genes", type=int, default=2_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", default="1,%d" % os.cpu_count())
    ap.add_argument("--only", default="obs,tables,csr,anndata,joinids")
    a = ap.parse_args()
    path = os.path.join(a.dir, "experiment_%d_%d" % (a.cells, a.genes))
    if not os.path.isdir(path):
        os.makedirs(a.dir, exist_ok=True)
        create(path, a.cells, a.genes)
    import tiledbsoma
    print("machine: %s, %d cores, Python %s, tiledbsoma %s" % (platform.processor() or platform.machine(),
                                                               os.cpu_count(), platform.python_version(),
                                                               tiledbsoma.__version__))
    results = []
    print("%-8s %7s %9s %9s %9s %9s %7s %7s %7s %7s" % ("query", "threads", "tf fresh", "tf best", "soma fr",
                                                        "soma best", "fresh", "best", "tf MB", "soma MB"))
    for threads in [int(t) for t in a.threads.split(",")]:
        for query in a.only.split(","):
            mine = run("tilefmt", query, path, threads, a.repeat)
            theirs = run("tiledbsoma", query, path, threads, a.repeat)
            if mine["rows"] != theirs["rows"]:
                raise SystemExit("%s: tilefmt %s rows, tiledbsoma %s" % (query, mine["rows"], theirs["rows"]))
            ratio = min(theirs["times"]) / min(mine["times"])
            fresh = theirs["fresh"] / mine["fresh"]
            print("%-8s %7d %9.3f %9.3f %9.3f %9.3f %6.2fx %6.2fx %7.0f %7.0f" % (
                query, threads, mine["fresh"], min(mine["times"]), theirs["fresh"], min(theirs["times"]), fresh,
                ratio, mine["peak_mb"], theirs["peak_mb"]))
            results.append({"query": query, "threads": threads, "tilefmt": mine, "tiledbsoma": theirs,
                            "ratio": ratio, "fresh_ratio": fresh})
    print(json.dumps({"cells": a.cells, "genes": a.genes, "results": results}))


if __name__ == "__main__":
    main()
