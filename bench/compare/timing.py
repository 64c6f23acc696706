"""Shared by the drivers that time tilefmt beside TileDB-Py
(compare_tiledb.py, compare_query.py): the TileDB-Py reader each runs in a
process of its own, the page-cache warm-up, and reading a reader's JSON."""
import json
import os
import subprocess
import time

# A TileDB-Py reader: argv is PATH THREADS REPEATS [ARGS...]; READ is an
# expression of `A` and `args` (the extra arguments) giving the numpy result.
_READER = r"""
import json, os, sys, time
import tiledb
path, threads, repeats, args = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def status(field):  # a kB field of /proc/self/status, in bytes
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before, before_private = rss(), status("RssAnon")
cfg = tiledb.Config({"sm.compute_concurrency_level": str(threads),
                     "sm.io_concurrency_level": str(threads)})
ctx = tiledb.Ctx(cfg)
times, cpu = [], []
with tiledb.open(path, ctx=ctx) as A:
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        v = READ
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        nbytes = v.nbytes
        values = [int(x) for x in v.ravel()] if v.size <= 4 else None
        del v
times.sort()
peak = status("VmHWM")  # reset by exec, unlike ru_maxrss, which keeps the parent's peak
# The private part: less the file-backed and shared pages resident now (as in process_memory.hpp).
shared = status("RssFile") + status("RssShmem")
print(json.dumps({"best_s": times[0], "median_s": times[len(times) // 2], "bytes": nbytes,
                  "peak_added_bytes": max(0, peak - before),
                  "peak_private_added_bytes": max(0, peak - shared - before_private),
                  "values": values, "best_cpu_s": min(cpu)}))
"""


def tiledb_reader(read):
    """The reader script with `read` as its read expression."""
    return _READER.replace("READ", read)


def reader_row(ours, theirs, result_bytes, **fields):
    """A comparison row of two readers' JSON (tilefmt's, TileDB-Py's) that
    read the same values (`ours["bytes"]` of them; `result_bytes` with the
    coordinates): `fields`, then MiB of values, both throughputs, their
    ratio and each one's peak memory over the result, all of it and the
    private part."""
    mib = ours["bytes"] / (1 << 20)
    return dict(fields, **{
        "mib": mib, "tilefmt_mib_s": mib / ours["best_s"], "tiledb_py_mib_s": mib / theirs["best_s"],
        "ratio": theirs["best_s"] / ours["best_s"],
        "tilefmt_peak_over_result": ours["peak_added_bytes"] / result_bytes,
        "tiledb_py_peak_over_result": theirs["peak_added_bytes"] / result_bytes,
        "tilefmt_private_peak_over_result": ours["peak_private_added_bytes"] / result_bytes,
        "tiledb_py_private_peak_over_result": theirs["peak_private_added_bytes"] / result_bytes,
    })


def made(path, what, create):
    """Calls create() unless `path` exists, saying what it writes and how long it took."""
    if os.path.isdir(path):
        return
    t0 = time.time()
    print(f"writing {path} ({what})...", flush=True)
    create()
    print(f"  written in {time.time() - t0:.1f} s", flush=True)


def memory_ratios(r):
    """A comparison row's peak memory over the result, all of it and the
    private part (without code and library pages), for both readers."""
    return (f"peak memory / result: tilefmt {r['tilefmt_peak_over_result']:.2f}, "
            f"TileDB-Py {r['tiledb_py_peak_over_result']:.2f}; private: tilefmt "
            f"{r['tilefmt_private_peak_over_result']:.2f}, TileDB-Py {r['tiledb_py_private_peak_over_result']:.2f}")


def warm(path):
    """Reads every file under `path`, so that both readers read from memory."""
    for root, _, files in os.walk(path):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                while fh.read(1 << 24):
                    pass


def run_json(cmd):
    """Runs `cmd`; its last line of output, as JSON. A failure ends the run
    with the command's error output."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(str(c) for c in cmd[:4]), out.stderr))
    return json.loads(out.stdout.strip().splitlines()[-1])


def parse_comparison_args(doc, reader, extra=(), repeats=3, program="--reader"):
    """The command line every comparison script shares (--reader, or
    `program` for the program timed, --dir,
    --repeats, --threads, --json) plus `extra` (argparse add_argument
    argument tuples: (args, kwargs)); returns the arguments and the thread
    counts to run (default: 1 and all cores)."""
    import argparse
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(program, required=True, help="path of " + reader)
    ap.add_argument("--dir", default=os.path.join("build", "bench", "arrays"), help="where the arrays live")
    for a, kw in extra:
        ap.add_argument(*a, **kw)
    ap.add_argument("--repeats", type=int, default=repeats)
    ap.add_argument("--threads", default=None, help="comma-separated thread counts (default: 1 and all cores)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    threads = [int(t) for t in args.threads.split(",")] if args.threads else sorted({1, cores})
    return args, threads


def digest(np, values):
    """The digest bench-read-column prints: the sum over cells i (from 0) of
    (i + 1) times the value's bit pattern as an unsigned integer, modulo
    2^64. Computed in slices, so it needs little memory beside `values`."""
    bits = values.reshape(-1).view({4: np.uint32, 8: np.uint64}[values.dtype.itemsize])
    total, step = 0, 1 << 20
    for start in range(0, bits.size, step):
        part = bits[start:start + step].astype(np.uint64)
        index = np.arange(start + 1, start + 1 + part.size, dtype=np.uint64)
        total = (total + int(np.multiply(part, index).sum(dtype=np.uint64))) % (1 << 64)
    return total



def run_script(script, *args):
    """Runs Python `script` (its argv: `args`) in a fresh process of this
    interpreter (run_json)."""
    import sys
    return run_json([sys.executable, "-c", script] + [str(a) for a in args])
