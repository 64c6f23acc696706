#!/usr/bin/env python3
"""Writing to an object store at its latency: one sparse fragment (200,000
cells: two int64 dimensions, float64, int32 and a nullable var-size string
attribute: 9 files and the metadata), written by TileDB-Py and by tilefmt
(its uploads together, and one at a time: io_concurrency 1), each in a
fresh process, through compare_latency.py's delaying proxy in front of
moto. In one run:

    python compare_latency_write.py [--delays 0,30,100] [--repeat R]

Printed: the best time of R (default 3), TileDB-Py's over tilefmt's (above
1: tilefmt faster), and the requests and round trips (requests one after
another) the proxy saw. JSON on the last line. Run it with the Python of
scripts/python_test.sh's venv (tilefmt, TileDB-Py, moto, boto3).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

_spec = importlib.util.spec_from_file_location(
    "compare_latency", os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_latency.py"))
latency = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(latency)

CELLS = 200_000

_RUN = r"""
import json, sys, time
lib, uri, cfg, cells = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
import numpy as np
rng = np.random.default_rng(7)
r, c = rng.integers(0, 4096, cells), rng.integers(0, 4096, cells)
values = {"x": rng.random(cells), "n": rng.integers(0, 1000, cells, dtype=np.int32),
          "s": np.array(["cell-%d" % (i % 977) for i in range(cells)], dtype=object)}
t0 = time.perf_counter()
if lib == "tiledb":
    import tiledb
    with tiledb.open(uri, "w", ctx=tiledb.Ctx(tiledb.Config(cfg))) as A:
        A[r, c] = values
else:
    import tilefmt
    with tilefmt.open(uri, "w", config=cfg) as A:
        A[r, c] = values
print(json.dumps({"total_s": time.perf_counter() - t0}))
"""


def make_schema(uri, port):
    import numpy as np
    import tiledb

    ctx = tiledb.Ctx(tiledb.Config(latency.tiledb_config(port)))
    dims = [tiledb.Dim(name=n, domain=(0, 4095), tile=256, dtype=np.int64) for n in ("r", "c")]
    zstd = tiledb.FilterList([tiledb.ZstdFilter(level=3)])
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=tiledb.Domain(*dims), sparse=True, allows_duplicates=True,
                                                capacity=20_000, attrs=[
        tiledb.Attr(name="x", dtype=np.float64, filters=zstd),
        tiledb.Attr(name="n", dtype=np.int32, filters=zstd),
        tiledb.Attr(name="s", dtype=str, var=True, nullable=True, filters=zstd)]), ctx=ctx)


def run(proxy, delay, lib, uri, cfg):
    proxy.reset(delay)
    out = subprocess.run([sys.executable, "-c", _RUN, lib, uri, json.dumps(cfg), str(CELLS)], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (lib, out.stderr.strip().splitlines()[-1]))
    r = json.loads(out.stdout.strip().splitlines()[-1])
    with proxy.lock:
        r["requests"], r["round_trips"] = proxy.requests, proxy.round_trips
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delays", default="0,30,100", help="ms per request, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import logging

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    moto_port = latency.free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=moto_port, verbose=False)
    server.start()
    os.environ.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"})
    try:
        boto3.client("s3", endpoint_url="http://127.0.0.1:%d" % moto_port, region_name="us-east-1").create_bucket(
            Bucket="bench")
        uri = "s3://bench/writes"
        make_schema(uri, moto_port)
        proxy = latency.DelayProxy(moto_port)
        ours = {"endpoint": "http://127.0.0.1:%d" % proxy.port, "region": "us-east-1", "access_key_id": "testing",
                "secret_access_key": "testing", "path_style": True}
        libs = (("TileDB-Py", "tiledb", latency.tiledb_config(proxy.port)), ("tilefmt", "tilefmt", ours),
                ("tilefmt 1 at a time", "tilefmt", dict(ours, io_concurrency=1)))
        print("one sparse fragment of %d cells (9 data files + metadata + marker) to moto behind a delaying proxy"
              % CELLS)
        print("%6s  %-20s %9s %7s %9s %6s" % ("delay", "writer", "time", "ratio", "requests", "trips"))
        rows = []
        for delay_ms in [int(d) for d in args.delays.split(",")]:
            best = {}
            for label, lib, cfg in libs:
                best[label] = min((run(proxy, delay_ms / 1000, lib, uri, cfg) for _ in range(args.repeat)),
                                  key=lambda r: r["total_s"])
            for label, _, _ in libs:
                b = best[label]
                ratio = best["TileDB-Py"]["total_s"] / b["total_s"]
                print("%3d ms  %-20s %7.3f s %6.2fx %9d %6s" % (delay_ms, label, b["total_s"], ratio, b["requests"],
                                                               b["round_trips"] if delay_ms else ""))
                rows.append({"delay_ms": delay_ms, "writer": label, "ratio": ratio, **b})
        print(json.dumps({"cells": CELLS, "rows": rows}))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
