"""Writes the WebP tiles of tests/filter/test_webp.cpp with real TileDB.

Usage: python generate.py OUT_DIR   (with TileDB-Py installed; the files here
were written by TileDB-Py 0.36.1 / libtiledb 2.30.0)

For each case, a dense 2-D uint8 array whose one tile is one image: y is the
row, x the byte within the row (pixels x 3 or 4). Writes
  <case>.tile      the attribute's data file (the one tile, as stored)
  <case>.input     the bytes written
  <case>.expected  the bytes TileDB reads back (differ from the input when lossy)
"""
import glob
import os
import shutil
import sys
import tempfile

import numpy as np
import tiledb
from tiledb.libtiledb import WebpInputFormat as F

# name, input format, quality, lossless, bytes per pixel, rows, pixels per row
CASES = [
    ("rgb_q75", F.WEBP_RGB, 75.0, False, 3, 24, 16),
    ("bgra_q30", F.WEBP_BGRA, 30.0, False, 4, 20, 12),
    ("rgba_lossless", F.WEBP_RGBA, 100.0, True, 4, 8, 8),
]


def main(out):
    work = tempfile.mkdtemp()
    try:
        for name, fmt, quality, lossless, depth, h, w in CASES:
            path = os.path.join(work, name)
            dom = tiledb.Domain(tiledb.Dim("y", (1, h), h, dtype=np.int32),
                                tiledb.Dim("x", (1, w * depth), w * depth, dtype=np.int32))
            flt = tiledb.WebpFilter(input_format=fmt, quality=quality, lossless=lossless)
            tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, attrs=[tiledb.Attr("px", np.uint8, filters=[flt])]))
            yy, xx = np.mgrid[0:h, 0:w * depth]
            noise = np.random.default_rng(7).integers(0, 32, (h, w * depth)).astype(np.uint8)
            img = ((yy * 11 + xx * 5) % 256).astype(np.uint8) ^ noise
            with tiledb.open(path, "w") as a:
                a[:] = img
            with tiledb.open(path) as a:
                back = a[:]["px"]
            with open(os.path.join(out, name + ".input"), "wb") as f:
                f.write(img.tobytes())
            with open(os.path.join(out, name + ".expected"), "wb") as f:
                f.write(np.ascontiguousarray(back).tobytes())
            shutil.copy(glob.glob(os.path.join(path, "__fragments", "*", "a0.tdb"))[0], os.path.join(out, name + ".tile"))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main(sys.argv[1])
