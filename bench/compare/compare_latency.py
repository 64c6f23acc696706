#!/usr/bin/env python3
"""Reading from an object store at its latency: tilefmt against TileDB-Py,
both through the Python packages, on an S3 server (moto) behind a proxy
that holds each request back `delay` ms, as an object store's first byte
does. In one run:

    python compare_latency.py [--delays 0,30,100] [--repeat R] [--fragments F] [--sparse]

With --sparse the array is sparse, a cell in 20 written (about 210,000),
the same tiles. Run it with the Python of scripts/python_test.sh's venv (tilefmt, TileDB-Py,
moto). Both servers listen on 127.0.0.1 and stop with the script. The array
(written by TileDB-Py straight to moto, not through the proxy): dense
2048 x 2048 float64, 256 x 256 tiles, zstd, F fragments (default 8) of
2048 / F rows each. Each read runs in a fresh process (opening included,
as a script or a Dask task meets it), R times (default 3); printed: the
best time, the ratio of TileDB-Py's to tilefmt's (above 1: tilefmt faster),
and the requests, bytes and round trips (requests one after another, see
DelayProxy) the proxy saw for that best run. JSON on the last line.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

METHODS = (b"GET ", b"PUT ", b"HEAD ", b"POST ", b"DELETE ")
N, TILE = 2048, 256


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DelayProxy:
    """A TCP forwarder to `target` that waits `delay` seconds before passing
    on each request (a chunk from the client that starts with an HTTP
    method), and counts requests and response bytes. Round trips: the
    requests in waves, a wave starting with the first request that starts
    at least 0.8 x `delay` after the current wave's first (one that waited
    on an answer), so that requests in flight together count once."""

    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.delay = 0.0
        self.requests = 0
        self.bytes = 0
        self.wave_start = None
        self.round_trips = 0
        self.signed = 0  # requests with an Authorization header
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self, delay):
        with self.lock:
            self.delay, self.requests, self.bytes = delay, 0, 0
            self.wave_start, self.round_trips, self.signed = None, 0, 0

    def close(self):
        """Stops accepting; connections open stay until their ends close."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:  # closed
                return
            server = socket.create_connection(self.target)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src, dst, upstream):
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                if upstream and data.startswith(METHODS):
                    with self.lock:
                        self.requests += 1
                        self.signed += b"\r\nauthorization:" in data.lower()
                        delay = self.delay
                        now = time.monotonic()
                        if self.wave_start is None or now - self.wave_start >= 0.8 * delay:
                            self.wave_start = now
                            self.round_trips += 1
                    if delay:
                        time.sleep(delay)
                elif not upstream:
                    with self.lock:
                        self.bytes += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def tiledb_config(port):
    return {"vfs.s3.endpoint_override": "127.0.0.1:%d" % port, "vfs.s3.scheme": "http", "vfs.s3.region": "us-east-1",
            "vfs.s3.aws_access_key_id": "testing", "vfs.s3.aws_secret_access_key": "testing",
            "vfs.s3.use_virtual_addressing": "false"}


def make_array(uri, port, fragments, sparse):
    import numpy as np
    import tiledb

    ctx = tiledb.Ctx(tiledb.Config(tiledb_config(port)))
    dims = [tiledb.Dim(name=n, domain=(0, N - 1), tile=TILE, dtype=np.int64) for n in ("r", "c")]
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=tiledb.Domain(*dims), sparse=sparse, attrs=[
        tiledb.Attr(name="a", dtype=np.float64, filters=tiledb.FilterList([tiledb.ZstdFilter(level=3)]))]), ctx=ctx)
    rng = np.random.default_rng(5)
    step = N // fragments
    for f in range(fragments):
        with tiledb.open(uri, "w", ctx=ctx) as A:
            if not sparse:
                A[f * step:(f + 1) * step, :] = {"a": rng.random((step, N))}
                continue
            # A cell in 20 (a single-cell matrix's density), rows in this fragment's band.
            cells = rng.choice(step * N, size=step * N // 20, replace=False)
            A[f * step + cells // N, cells % N] = {"a": rng.random(cells.size)}


_RUN = r"""
import json, sys, time
lib, uri, cfg, box = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
t0 = time.perf_counter()
if lib == "tiledb":
    import tiledb
    A = tiledb.open(uri, ctx=tiledb.Ctx(tiledb.Config(cfg)))
else:
    import tilefmt
    A = tilefmt.open(uri, config=cfg)
t_open = time.perf_counter()
v = A[0:box, 0:box]["a"]
t1 = time.perf_counter()
import numpy as np  # unwritten cells read as NaN, the fill value
print(json.dumps({"open_s": t_open - t0, "total_s": t1 - t0, "sum": float(np.nansum(v))}))
"""


def run(proxy, delay, lib, uri, cfg, box):
    # Timed from before the imports, as a script meets it; they make no
    # request, so the proxy counts the open's and the read's alone.
    proxy.reset(delay)
    out = subprocess.run([sys.executable, "-c", _RUN, lib, uri, json.dumps(cfg), str(box)], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (lib, out.stderr.strip().splitlines()[-1]))
    r = json.loads(out.stdout.strip().splitlines()[-1])
    with proxy.lock:
        r["requests"], r["bytes"], r["round_trips"] = proxy.requests, proxy.bytes, proxy.round_trips
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delays", default="0,30,100", help="ms per request, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fragments", type=int, default=8)
    ap.add_argument("--sparse", action="store_true", help="a sparse array, a cell in 20 written")
    args = ap.parse_args()

    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # a line per request otherwise

    moto_port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=moto_port, verbose=False)
    server.start()
    os.environ.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"})
    try:
        import boto3

        boto3.client("s3", endpoint_url="http://127.0.0.1:%d" % moto_port, region_name="us-east-1").create_bucket(
            Bucket="bench")
        uri = "s3://bench/" + ("sparse" if args.sparse else "dense")
        make_array(uri, moto_port, args.fragments, args.sparse)
        proxy = DelayProxy(moto_port)
        theirs_cfg = tiledb_config(proxy.port)
        ours_cfg = {"endpoint": "http://127.0.0.1:%d" % proxy.port, "region": "us-east-1", "access_key_id": "testing",
                    "secret_access_key": "testing", "path_style": True}
        reads = {"whole": N, "1% box": int(N * 0.1)}
        print("array: %s %d x %d float64, %d x %d tiles, zstd, %d fragments, on moto behind a delaying proxy"
              % ("sparse (5% of cells)" if args.sparse else "dense", N, N, TILE, TILE, args.fragments))
        print("%-8s %6s %10s %10s %7s %14s %14s %10s" % ("read", "delay", "TileDB-Py", "tilefmt", "ratio",
                                                        "req/MB TDB-Py", "req/MB tilefmt", "trips T/t"))
        rows = []
        for delay_ms in [int(d) for d in args.delays.split(",")]:
            for name, box in reads.items():
                best = {}
                for lib, cfg in (("tiledb", theirs_cfg), ("tilefmt", ours_cfg)):
                    runs = [run(proxy, delay_ms / 1000, lib, uri, cfg, box) for _ in range(args.repeat)]
                    best[lib] = min(runs, key=lambda r: r["total_s"])
                t, o = best["tiledb"], best["tilefmt"]
                assert abs(t["sum"] - o["sum"]) <= 1e-6 * max(1.0, abs(t["sum"])), (t["sum"], o["sum"])
                ratio = t["total_s"] / o["total_s"]
                # Round trips only mean something where requests wait.
                trips = "%4d / %-3d" % (t["round_trips"], o["round_trips"]) if delay_ms else ""
                print("%-8s %4d ms %8.3f s %8.3f s %6.2fx %6d / %5.1f %6d / %5.1f %10s" % (
                    name, delay_ms, t["total_s"], o["total_s"], ratio, t["requests"], t["bytes"] / 2**20,
                    o["requests"], o["bytes"] / 2**20, trips))
                rows.append({"read": name, "delay_ms": delay_ms, "tiledb": t, "tilefmt": o, "ratio": ratio})
        print(json.dumps({"fragments": args.fragments, "sparse": args.sparse, "rows": rows}))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
