#!/usr/bin/env python3
"""Reads one fixed-size attribute of a dense 1-D array with libtiledb's C API.

    python capi_read_column.py ARRAY ATTRIBUTE TYPE CELLS THREADS REPEATS

The stricter of bench/compare/compare_tiledb.py's two references: the libtiledb that
the installed TileDB-Py wheel bundles, called through ctypes
(tests/interop/libtiledb_c.py, with the few newer functions a 2.4+ release
needs declared here), reading cells [0, CELLS) of the int64 dimension in
row-major order straight into one numpy buffer allocated before the first
read. No Python object is built per read, so the time is libtiledb's own.
TileDB-Py itself is not imported: only its wheel's library folder is used.

TYPE is int32, int64, float32 or float64. sm.compute_concurrency_level and
sm.io_concurrency_level are set to THREADS. Each of REPEATS reads allocates
a query, sets the subarray and the buffer, submits it and finalizes it; that
whole span is timed. Prints the JSON object bench-read-column prints: best
and median seconds, the bytes read, the peak resident memory added (VmHWM
minus the resident size before the buffer was allocated), the least CPU time
of one read (all threads) and the digest of the values (timing.digest).
"""
import ctypes as C
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "interop"))
import libtiledb_c as tl  # noqa: E402
from timing import digest  # noqa: E402

NUMPY = {"int32": "int32", "int64": "int64", "float32": "float32", "float64": "float64"}


def wheel_library_folder():
    """The folder of libtiledb inside the installed TileDB-Py wheel
    (site-packages/tiledb.libs, beside the tiledb package)."""
    spec = importlib.util.find_spec("tiledb")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("capi_read_column: TileDB-Py is not installed in this Python")
    folder = os.path.join(os.path.dirname(list(spec.submodule_search_locations)[0]), "tiledb.libs")
    if not os.path.isdir(folder):
        raise SystemExit("capi_read_column: no %s (a TileDB-Py wheel bundles its libtiledb there)" % folder)
    return folder


class ConfiguredCtx(tl.Ctx):
    """A context made with a configuration (libtiledb_c's Ctx takes none)."""

    def __init__(self, lib, settings):
        self.lib = lib
        cfg = self.config(settings)
        self.ptr = C.c_void_p()
        if lib.fn("tiledb_ctx_alloc")(cfg, C.byref(self.ptr)) != 0:
            raise tl.TileDBError("tiledb_ctx_alloc failed")
        lib.fn("tiledb_config_free")(C.byref(cfg))


def read_once(ctx, array, attr, lo_hi, out, size):
    """One read of the subarray `lo_hi` (two int64) into `out` (a numpy
    array); `size` (c_uint64) receives the bytes libtiledb wrote."""
    q = array.query(tl.QUERY_READ, "row-major")
    try:
        # Subarray objects and data buffers: the forms of 2.4 on (2.30 has
        # dropped tiledb_query_set_subarray and tiledb_query_set_buffer).
        sub = ctx.alloc("tiledb_subarray_alloc", array.ptr)
        try:
            ctx.call("tiledb_subarray_set_subarray", sub, lo_hi)
            ctx.call("tiledb_query_set_subarray_t", q.ptr, sub)
        finally:
            ctx.lib.fn("tiledb_subarray_free")(C.byref(sub))
        size.value = out.nbytes
        ctx.call("tiledb_query_set_data_buffer", q.ptr, attr.encode(), C.c_void_p(out.ctypes.data), C.byref(size))
        q.submit()
    finally:
        q.free()


def main():
    if len(sys.argv) != 7 or sys.argv[3] not in NUMPY:
        raise SystemExit("usage: capi_read_column.py ARRAY ATTRIBUTE int32|int64|float32|float64 CELLS THREADS "
                         "REPEATS")
    path, attr, type_name = sys.argv[1], sys.argv[2], sys.argv[3]
    cells, threads, repeats = int(sys.argv[4]), int(sys.argv[5]), max(1, int(sys.argv[6]))
    import numpy as np

    lib = tl.Lib(wheel_library_folder())
    ctx = ConfiguredCtx(lib, {"sm.compute_concurrency_level": threads, "sm.io_concurrency_level": threads})

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    before = rss()
    out = np.empty(cells, dtype=NUMPY[type_name])
    lo_hi = (C.c_int64 * 2)(0, cells - 1)
    size = C.c_uint64()
    times, cpu = [], []
    with ctx.open(path, tl.QUERY_READ) as array:
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            read_once(ctx, array, attr, lo_hi, out, size)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            if size.value != out.nbytes:
                raise SystemExit("capi_read_column: libtiledb read %d bytes, expected %d" % (size.value, out.nbytes))
    times.sort()
    peak = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
    print(json.dumps({"best_s": times[0], "median_s": times[len(times) // 2], "bytes": size.value,
                      "peak_added_bytes": max(0, peak - before), "best_cpu_s": min(cpu), "digest": digest(np, out),
                      "libtiledb": ".".join(map(str, lib.version))}))


if __name__ == "__main__":
    main()
