#!/usr/bin/env python3
"""Write tests/data/groups/experiment: a small TileDB group, made by TileDB-Py,
that the browser tests (web/tests/test_browser.py) open in the inspector page.

    build/interop/venv/tiledb-0.36.1/bin/python tests/interop/make_web_group.py [OUT]

The group holds metadata, a dense 2-D float64 array ("image", 48 x 64 cells of
a smooth pattern, zstd, whose heatmap the test checks pixel by pixel), a
sparse array ("points") and a nested group ("more") with one more array; all
members are stored by relative URI, so the folder can be moved or served.
"""

import os
import shutil
import sys

import numpy as np
import tiledb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "data", "groups", "experiment")


def image(uri):
    dom = tiledb.Domain(tiledb.Dim("y", domain=(1, 48), tile=16, dtype=np.int32),
                        tiledb.Dim("x", domain=(1, 64), tile=16, dtype=np.int32))
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=dom, attrs=[
        tiledb.Attr("v", dtype=np.float64, filters=tiledb.FilterList([tiledb.ZstdFilter()]))]))
    y, x = np.mgrid[1:49, 1:65]
    with tiledb.open(uri, "w", timestamp=1) as A:
        A[:] = {"v": np.sin(x / 9.0) * np.cos(y / 7.0) + y / 48.0}
        A.meta["units"] = "arbitrary"


def points(uri):
    dom = tiledb.Domain(tiledb.Dim("i", domain=(0, 999), tile=100, dtype=np.int64))
    tiledb.Array.create(uri, tiledb.ArraySchema(domain=dom, sparse=True, attrs=[
        tiledb.Attr("label", dtype=str, var=True), tiledb.Attr("w", dtype=np.int32)]))
    with tiledb.open(uri, "w", timestamp=1) as A:
        i = np.arange(0, 1000, 37)
        A[i] = {"label": np.array([f"p{k}" for k in i], dtype=object), "w": (i * 3).astype(np.int32)}


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    tiledb.Group.create(OUT)
    image(os.path.join(OUT, "image"))
    points(os.path.join(OUT, "points"))
    more = os.path.join(OUT, "more")
    tiledb.Group.create(more)
    points(os.path.join(more, "points"))
    with tiledb.Group(more, "w") as g:
        g.add("points", name="points", relative=True)
    with tiledb.Group(OUT, "w") as g:
        g.add("image", name="image", relative=True)
        g.add("points", name="points", relative=True)
        g.add("more", name="more", relative=True)
        g.meta["title"] = "tilefmt browser test"
        g.meta["cells"] = 48 * 64
    with open(os.path.join(os.path.dirname(OUT), "TILEDB_VERSION.txt"), "w") as f:
        f.write(f"TileDB-Py {tiledb.__version__} (libtiledb {'.'.join(map(str, tiledb.libtiledb.version()))})\n")


if __name__ == "__main__":
    main()
