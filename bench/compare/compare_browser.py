#!/usr/bin/env python3
"""tilefmt's WebAssembly reader in headless Chromium against the native
reader (tilefmt's Python package) and TileDB-Py, on the same arrays, in one
run. The browser reads them over HTTP range requests from a server on
127.0.0.1 (web/serve.py); the native readers read the same files from disk.

    python compare_browser.py [--python VENV_PYTHON] [--dist build/wasm/dist] [--repeat 5]

Run it with the Python of scripts/web_test.sh's venv (selenium); --python
names one with tilefmt and TileDB-Py (scripts/python_test.sh's venv, the
default), which writes the arrays and times the native reads. Arrays:
dense 2048 x 2048 float64, 256 x 256 tiles, zstd (32 MiB of values); sparse
1024 x 1024 int32, one cell in 20 (52,429 cells), zstd. Reads: the whole
attribute, and a 1% box (205 x 205 cells dense, a 103 x 103 box sparse).
Printed per read: the best of R repeats in one process (browser: one page,
array opened once), the first read of a fresh process or page (opening
included), MB/s of values returned, the browser's requests per read, and
ratios (native time / browser time: above 1, the browser is faster). Then
the module's size, raw and gzipped. JSON on the last line.
"""
import argparse
import functools
import gzip
import http.server
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve = _load("tilefmt_serve", os.path.join(ROOT, "web", "serve.py"))
listing = _load("tilefmt_web", os.path.join(ROOT, "python", "src", "tilefmt", "web.py"))

MAKE = r"""
import sys
import numpy as np
import tiledb
dense, sparse = sys.argv[1], sys.argv[2]
z = tiledb.FilterList([tiledb.ZstdFilter()])
dom = tiledb.Domain(tiledb.Dim(name="y", domain=(0, 2047), tile=256, dtype=np.int64),
                    tiledb.Dim(name="x", domain=(0, 2047), tile=256, dtype=np.int64))
tiledb.Array.create(dense, tiledb.ArraySchema(domain=dom, attrs=[tiledb.Attr(name="a", dtype=np.float64, filters=z)]))
rng = np.random.default_rng(7)
with tiledb.open(dense, "w") as A:
    A[:] = {"a": np.round(rng.normal(size=(2048, 2048)), 3)}
dom = tiledb.Domain(tiledb.Dim(name="y", domain=(0, 1023), tile=128, dtype=np.int64),
                    tiledb.Dim(name="x", domain=(0, 1023), tile=128, dtype=np.int64))
tiledb.Array.create(sparse, tiledb.ArraySchema(domain=dom, sparse=True, capacity=10000,
                                               attrs=[tiledb.Attr(name="v", dtype=np.int32, filters=z)]))
cells = np.sort(rng.choice(1024 * 1024, size=1024 * 1024 // 20, replace=False))
with tiledb.open(sparse, "w") as A:
    A[cells // 1024, cells % 1024] = {"v": rng.integers(0, 1000, size=cells.size).astype(np.int32)}
"""

# READS: name -> (array, attribute, ranges per dimension or None for all).
READS = {
    "dense whole": ("dense", "a", None),
    "dense 1% box": ("dense", "a", [[1000, 1204], [600, 804]]),
    "sparse whole": ("sparse", "v", None),
    "sparse 1% box": ("sparse", "v", [[500, 602], [300, 402]]),
}

NATIVE = r"""
import json, sys, time
which, path, attr, ranges, repeats = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), int(sys.argv[5])
t_start = time.perf_counter()
if which == "tilefmt":
    import tilefmt as lib
    open_ = lambda: lib.open(path, config={"threads": "1"})
else:
    import tiledb as lib
    ctx = lib.Ctx(lib.Config({"sm.compute_concurrency_level": "1", "sm.io_concurrency_level": "1"}))
    open_ = lambda: lib.open(path, ctx=ctx)
times = []
with open_() as A:
    for i in range(repeats):
        t0 = time.perf_counter()
        if ranges is None:
            r = A.query(attrs=[attr])[:] if A.schema.sparse else A[:]
        else:
            r = A.multi_index[ranges[0][0]:ranges[0][1], ranges[1][0]:ranges[1][1]]
        n = r[attr].nbytes
        times.append(time.perf_counter() - t0)
        if i == 0:
            fresh = time.perf_counter() - t_start
print(json.dumps({"best_s": min(times), "fresh_s": fresh, "bytes": n}))
"""

PAGE = r"""
const [url, attr, ranges, repeats, done] = [arguments[0], arguments[1], arguments[2], arguments[3], arguments[arguments.length - 1]];
(async () => {
  const t_start = performance.now();
  const { open } = await import('/dist/tilefmt.mjs');
  const a = await open(url);
  const times = [];
  let fresh = 0, bytes = 0, requests = 0;
  for (let i = 0; i < repeats; ++i) {
    const before = await a.requests();
    const t0 = performance.now();
    const r = await a.query(ranges ? { ranges, attributes: [attr] } : { attributes: [attr] });
    times.push(performance.now() - t0);
    if (i === 0) fresh = performance.now() - t_start;
    bytes = r.fields[attr].values.byteLength;
    requests = (await a.requests()) - before;
  }
  await a.close();
  done({ best_s: Math.min(...times) / 1000, fresh_s: fresh / 1000, bytes, requests });
})().catch((e) => done({ error: e.name + ': ' + e.message }));
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--python", default=os.path.join(ROOT, "build", "python", "venv", "bin", "python"))
    p.add_argument("--dist", default=os.path.join(ROOT, "build", "wasm", "dist"))
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    work = tempfile.mkdtemp(prefix="tilefmt-browser-bench-")
    try:
        data = os.path.join(work, "data")
        os.makedirs(data)
        subprocess.run([args.python, "-c", MAKE, os.path.join(data, "dense"), os.path.join(data, "sparse")], check=True)
        for name in ("dense", "sparse"):
            listing.write_listing(os.path.join(data, name))
        os.symlink(os.path.abspath(args.dist), os.path.join(work, "dist"))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(serve.RangeHandler, directory=work))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{server.server_address[1]}"

        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
            options.add_argument(a)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                                  options=options)
        driver.set_script_timeout(600)
        results = {}
        try:
            for name, (array, attr, ranges) in READS.items():
                driver.get(f"{origin}/dist/index.html")  # a fresh page: the module loads again
                web = driver.execute_async_script(PAGE, f"{origin}/data/{array}", attr, ranges, args.repeat)
                if "error" in web:
                    raise RuntimeError(f"{name}: {web['error']}")
                native = {}
                for which in ("tilefmt", "tiledb"):
                    out = subprocess.run([args.python, "-c", NATIVE, which, os.path.join(data, array), attr,
                                          json.dumps(ranges), str(args.repeat)], check=True, capture_output=True, text=True)
                    native[which] = json.loads(out.stdout.strip().splitlines()[-1])
                results[name] = {"browser": web, **native}
        finally:
            driver.quit()
            server.shutdown()

        print(f"{'read':<15} {'browser':>9} {'MB/s':>7} {'req':>4} {'native':>9} {'TileDB-Py':>9} "
              f"{'nat/web':>8} {'py/web':>7}   fresh: {'browser':>8} {'native':>8} {'TileDB-Py':>9}")
        for name, r in results.items():
            w, n, t = r["browser"], r["tilefmt"], r["tiledb"]
            print(f"{name:<15} {w['best_s']:9.4f} {w['bytes'] / w['best_s'] / 1e6:7.0f} {w['requests']:4d} "
                  f"{n['best_s']:9.4f} {t['best_s']:9.4f} {n['best_s'] / w['best_s']:8.2f} {t['best_s'] / w['best_s']:7.2f}"
                  f"          {w['fresh_s']:8.3f} {n['fresh_s']:8.3f} {t['fresh_s']:9.3f}")
        sizes = {}
        for f in ("tilefmt_core.wasm", "tilefmt_core.js", "tilefmt_impl.js", "tilefmt.mjs", "tilefmt_worker.js"):
            raw = open(os.path.join(args.dist, f), "rb").read()
            sizes[f] = {"bytes": len(raw), "gzip_bytes": len(gzip.compress(raw, 9))}
        total, total_gz = sum(s["bytes"] for s in sizes.values()), sum(s["gzip_bytes"] for s in sizes.values())
        print(f"module + API: {total / 1e6:.2f} MB, {total_gz / 1e6:.2f} MB gzipped "
              f"(tilefmt_core.wasm {sizes['tilefmt_core.wasm']['gzip_bytes'] / 1e6:.2f} MB gzipped)")
        print(json.dumps({"reads": results, "sizes": sizes}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
