#!/usr/bin/env python3
"""Writes the same cells into the same TileDB array with TileDB-Py and with
tilefmt, in one run, and checks that TileDB reads tilefmt's array back.

    python compare_write.py --writer build/bench/bench/compare/bench-write-array [--dir D] [--cases C,...]
    python compare_write.py --writer python [--repeats 1] ...   # tilefmt's Python package

With `--writer python`, tilefmt writes through its Python package in this
interpreter (`A[:] = {...}`, `A[x, y] = {...}`), as TileDB-Py does; with
`--repeats 1` every write is the first in its process (a fresh process:
nothing faulted in or allocated before).

Run it with a Python that has TileDB-Py and numpy installed. The cases:

  dense-row-major  a 1-D dense array of 32 Mi cells (tile extent 2^20),
                   attributes "a" int32 [byteshuffle, zstd(1)] (a slowly
                   increasing series) and "b" float64 [bitshuffle, lz4] (a
                   smooth signal with noise), written whole: TileDB-Py as
                   `A[:] = {...}`, tilefmt with cell_layout::row_major
  dense-storage    the same, tilefmt with cell_layout::storage
  dense-row-major-stream, dense-storage-stream
                   the same two, tilefmt's dense_writer::stream() writing
                   each tile to its data file as it is encoded (not run
                   unless asked for with --cases)
  sparse           a 2-D sparse array, int64 dimensions "x" in [0, 3999] and
                   "y" in [0, 2499] (space tiles of 500 x 500, capacity
                   100,000), 10 million cells (every cell of the domain) in a
                   random order, the same two attributes: TileDB-Py as
                   `A[x, y] = {...}` (an unordered write), tilefmt with
                   sparse_writer

With `--writer python` only (each package's own function on both sides):

  from-numpy       `from_numpy(uri, b)`: the float64 column of the dense
                   cases (256 MiB) as a new array (one tile, no filters)
  from-pandas      `from_pandas(uri, df)`: a DataFrame of the dense cases'
                   two columns (a new dense array, tiles of 10,000 rows,
                   ZSTD)
  strings          `A[:] = {"s": values}`: 2 x 10^6 short strings (a NumPy
                   object array of str) into a dense 1-D array (tiles of
                   100,000 cells, ZSTD); the input size counts each string's
                   bytes and an 8-byte offset

Each write goes into a fresh copy of an empty array (made by TileDB-Py), in
its own process, with 1 thread (both pinned to core 0 with taskset, TileDB-Py
with sm.compute_concurrency_level and sm.io_concurrency_level = 1) and with
every core. Best of --rounds rounds (default 3) of --repeats writes (default 2) each, the two
writers alternating from round to round. Throughput is the input size (every
field's values, coordinates included) over the wall time of opening the
array, setting the cells and committing; peak memory is the process's VmHWM
minus its resident size once the input is in memory, over the input size.
After the runs, TileDB-Py reads tilefmt's last array and TileDB-Py's own and
the two must hold the same cells; the script also says whether the data
files of the two fragments are byte for byte the same.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import parse_comparison_args, run_json  # noqa: E402

DENSE_CELLS = 1 << 25
DENSE_EXTENT = 1 << 20
SPARSE_SHAPE = (4000, 2500)
SPARSE_TILE = 500
SPARSE_CAPACITY = 100_000
STRING_CELLS = 2_000_000
STRING_FORM = "cell-%d"
STRING_EXTENT = 100_000
PYTHON_ONLY = ("from-numpy", "from-pandas", "strings")

# argv: TEMPLATE OUT KIND THREADS REPEATS DATA, as bench-write-array takes
# them, then the Python package to write with (tiledb or tilefmt).
_WRITER = r"""
import json, os, shutil, sys, time
import numpy as np
templ, out, kind, threads, repeats, data, lib = sys.argv[1:8]
threads, repeats = int(threads), int(repeats)
STRING_CELLS, STRING_FORM = @STRINGS@
if lib == "tilefmt":
    import tilefmt
    def opened():
        return tilefmt.open(out, "w", config={"threads": threads})
    from_config = {"config": {"threads": threads}}
else:
    import tiledb
    cfg = tiledb.Config({"sm.compute_concurrency_level": str(threads), "sm.io_concurrency_level": str(threads)})
    ctx = tiledb.Ctx(cfg)
    def opened():
        return tiledb.open(out, "w", ctx=ctx)
    from_config = {"ctx": ctx}
def load(name, dtype):
    return np.fromfile(os.path.join(data, name), dtype=dtype)
pkg = tilefmt if lib == "tilefmt" else tiledb
if kind == "strings":
    strings = np.array([STRING_FORM % (i * 7919 % 100003) for i in range(STRING_CELLS)], dtype=object)
    nbytes = sum(len(v) for v in strings) + 8 * len(strings)
else:
    a, b = load("a.bin", np.int32), load("b.bin", np.float64)
    x = load("x.bin", np.int64) if kind == "sparse" else None
    y = load("y.bin", np.int64) if kind == "sparse" else None
    nbytes = (b.nbytes if kind == "from-numpy" else a.nbytes + b.nbytes) + (x.nbytes + y.nbytes if x is not None else 0)
if kind == "from-pandas":
    import pandas as pd
    df = pd.DataFrame({"a": a, "b": b})
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
times = []
for r in range(repeats):
    shutil.rmtree(out, ignore_errors=True)
    if kind not in ("from-numpy", "from-pandas"):
        shutil.copytree(templ, out)
    t0 = time.perf_counter()
    if kind == "from-numpy":
        pkg.from_numpy(out, b, **from_config)
    elif kind == "from-pandas":
        pkg.from_pandas(out, df, **from_config)
    else:
        with opened() as A:
            if kind == "sparse":
                A[x, y] = {"a": a, "b": b}
            elif kind == "strings":
                A[:] = {"s": strings}
            else:
                A[:] = {"a": a, "b": b}
    times.append(time.perf_counter() - t0)
times.sort()
peak = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) * 1024
print(json.dumps({"best_s": times[0], "median_s": times[len(times) // 2], "bytes": nbytes,
                  "peak_added_bytes": max(0, peak - before)}))
"""

_WRITER = _WRITER.replace("@STRINGS@", repr((STRING_CELLS, STRING_FORM)))

# Reads both arrays with TileDB and compares them; argv: OURS THEIRS KIND.
_CHECK = r"""
import sys
import numpy as np
import tiledb
ours, theirs, kind = sys.argv[1:4]
with tiledb.open(ours) as A, tiledb.open(theirs) as B:
    if kind == "sparse":
        ra, rb = A.query(order="G")[:], B.query(order="G")[:]
    else:
        ra, rb = A[:], B[:]
    if not isinstance(ra, dict):
        ra, rb = {"": ra}, {"": rb}
    if sorted(ra) != sorted(rb):
        sys.exit("fields %s and %s" % (sorted(ra), sorted(rb)))
    for k in ra:
        if not np.array_equal(ra[k], rb[k]):
            sys.exit("field %s differs" % k)
    print(len(next(iter(ra.values()))))
"""


def make_data(np, kind, data):
    """The input files of `kind` in folder `data` (int32 a, float64 b, int64 x and y)."""
    rng = np.random.default_rng(42)
    if kind == "sparse":
        cells = SPARSE_SHAPE[0] * SPARSE_SHAPE[1]
        perm = rng.permutation(cells)
        (perm // SPARSE_SHAPE[1]).astype(np.int64).tofile(os.path.join(data, "x.bin"))
        (perm % SPARSE_SHAPE[1]).astype(np.int64).tofile(os.path.join(data, "y.bin"))
    else:
        cells = DENSE_CELLS
    step = rng.integers(0, 4, size=cells, dtype=np.int32)
    np.cumsum(step, dtype=np.int64).astype(np.int32).tofile(os.path.join(data, "a.bin"))
    t = np.arange(cells, dtype=np.float64)
    (np.sin(t / 5000.0) * 1000.0 + rng.normal(0.0, 0.01, size=cells)).tofile(os.path.join(data, "b.bin"))


def create_template(path, kind):
    import numpy as np
    import tiledb

    attrs = [
        tiledb.Attr(name="a", dtype=np.int32,
                    filters=tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])),
        tiledb.Attr(name="b", dtype=np.float64,
                    filters=tiledb.FilterList([tiledb.BitShuffleFilter(), tiledb.LZ4Filter()])),
    ]
    if kind == "strings":
        dom = tiledb.Domain(tiledb.Dim(name="i", domain=(0, STRING_CELLS - 1), tile=STRING_EXTENT, dtype=np.int64))
        attrs = [tiledb.Attr(name="s", dtype=str, filters=tiledb.FilterList([tiledb.ZstdFilter()]))]
        tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, sparse=False, attrs=attrs))
        return
    if kind == "sparse":
        dom = tiledb.Domain(
            tiledb.Dim(name="x", domain=(0, SPARSE_SHAPE[0] - 1), tile=SPARSE_TILE, dtype=np.int64),
            tiledb.Dim(name="y", domain=(0, SPARSE_SHAPE[1] - 1), tile=SPARSE_TILE, dtype=np.int64))
        schema = tiledb.ArraySchema(domain=dom, sparse=True, capacity=SPARSE_CAPACITY, attrs=attrs)
    else:
        dom = tiledb.Domain(tiledb.Dim(name="i", domain=(0, DENSE_CELLS - 1), tile=DENSE_EXTENT, dtype=np.int64))
        schema = tiledb.ArraySchema(domain=dom, sparse=False, attrs=attrs)
    tiledb.Array.create(path, schema)


def data_files(root):
    """The fragment's data files (name -> bytes), the fragment metadata left out (it names the fragment)."""
    [frag] = glob.glob(os.path.join(root, "__fragments", "*"))
    out = {}
    for f in sorted(os.listdir(frag)):
        if f.endswith(".tdb") and f != "__fragment_metadata.tdb":
            with open(os.path.join(frag, f), "rb") as fh:
                out[f] = fh.read()
    return out


def main():
    args, thread_counts = parse_comparison_args(
        __doc__, "bench-write-array",
        [(("--cases",), {"default": "dense-row-major,dense-storage,sparse"}),
         (("--rounds",), {"type": int, "default": 3, "help": "alternations of the two writers (each --repeats writes)"})],
        repeats=2, program="--writer")

    import numpy as np
    import tiledb
    cores = os.cpu_count() or 1
    root = os.path.join(args.dir, "write")
    os.makedirs(root, exist_ok=True)
    print(f"TileDB-Py {tiledb.__version__}, libtiledb {'.'.join(map(str, tiledb.libtiledb.version()))}, "
          f"{cores} cores", flush=True)

    results = []
    for kind in args.cases.split(","):
        if kind in PYTHON_ONLY and args.writer != "python":
            raise SystemExit(f"{kind}: a case of --writer python")
        shape = kind if kind in ("sparse", "strings") else "dense"
        data = os.path.join(root, "data_" + ("sparse" if kind == "sparse" else "dense"))
        if not os.path.isfile(os.path.join(data, "b.bin")):
            os.makedirs(data, exist_ok=True)
            make_data(np, "sparse" if kind == "sparse" else "dense", data)
        templ = os.path.join(root, "empty_" + shape)
        if not os.path.isdir(templ):
            create_template(templ, shape)
        ours_out, theirs_out = os.path.join(root, "tilefmt_" + kind), os.path.join(root, "tiledb_" + kind)
        for threads in thread_counts:
            pin = ["taskset", "-c", "0"] if threads == 1 else []
            common = [templ, None, kind, str(threads), str(args.repeats), data]
            # Rounds alternate the two writers, so that both meet the same
            # load from whatever else the machine runs; the best write counts.
            ours = theirs = None
            for _ in range(args.rounds):
                if args.writer == "python":
                    o = run_json(pin + [sys.executable, "-c", _WRITER] + [ours_out if c is None else c for c in common]
                                 + ["tilefmt"])
                else:
                    o = run_json(pin + [args.writer] + [ours_out if c is None else c for c in common])
                t = run_json(pin + [sys.executable, "-c", _WRITER] + [theirs_out if c is None else c for c in common]
                             + ["tiledb"])
                ours = o if ours is None or o["best_s"] < ours["best_s"] else ours
                theirs = t if theirs is None or t["best_s"] < theirs["best_s"] else theirs
            if ours["bytes"] != theirs["bytes"]:
                raise SystemExit(f"{kind}: tilefmt wrote {ours['bytes']} bytes, TileDB-Py {theirs['bytes']}")
            mib = ours["bytes"] / (1 << 20)
            r = {
                "case": kind, "threads": threads, "mib": mib,
                "tilefmt_mib_s": mib / ours["best_s"], "tiledb_py_mib_s": mib / theirs["best_s"],
                "ratio": theirs["best_s"] / ours["best_s"],
                "tilefmt_peak_over_input": ours["peak_added_bytes"] / ours["bytes"],
                "tiledb_py_peak_over_input": theirs["peak_added_bytes"] / theirs["bytes"],
            }
            results.append(r)
            print(f"{kind:16} threads={threads}: tilefmt {r['tilefmt_mib_s']:7.0f} MiB/s, "
                  f"TileDB-Py {r['tiledb_py_mib_s']:7.0f} MiB/s, ratio {r['ratio']:.2f}x; peak memory / input: "
                  f"tilefmt {r['tilefmt_peak_over_input']:.2f}, TileDB-Py {r['tiledb_py_peak_over_input']:.2f}",
                  flush=True)
        cells = subprocess.run([sys.executable, "-c", _CHECK, ours_out, theirs_out, shape], check=True,
                               capture_output=True, text=True).stdout.strip()
        ours_files, theirs_files = data_files(ours_out), data_files(theirs_out)
        same = ours_files == theirs_files
        print(f"{kind:16} TileDB read tilefmt's array: {cells} cells, the same as its own; data files "
              f"{'byte for byte the same' if same else 'DIFFER'} ({', '.join(ours_files)})", flush=True)
        if not same:
            raise SystemExit(f"{kind}: the data files differ from TileDB's")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
