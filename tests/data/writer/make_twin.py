#!/usr/bin/env python3
"""Writes the TileDB-Py twin of the array tests/array/test_writer.cpp writes.

    make_twin.py OUTDIR        (run with TileDB-Py 0.36.1 / libtiledb 2.30)

A 2D dense array, int32 dimensions rows [1, 8] (extent 4) and cols [1, 6]
(extent 3), two attributes:
  a  INT32    [BYTESHUFFLE, ZSTD(1)]
  b  FLOAT64  [BITSHUFFLE, LZ4]
and one fragment over rows 1..4, cols 1..6 (two whole space tiles) written at
a fixed timestamp. Values: a = 10 * row + col - 3 * (row * col % 5),
b = row + col / 8 (row-major over the subarray). The test reads the schema
name and fragment name off this twin, writes the same array with tilefmt
under those names and compares every file byte for byte.
"""

import os
import shutil
import sys

import numpy as np
import tiledb

FRAGMENT_TIMESTAMP = 1700000000123


def main():
    out = sys.argv[1]
    uri = os.path.join(out, "twin")
    if os.path.exists(uri):
        shutil.rmtree(uri)
    dom = tiledb.Domain(
        tiledb.Dim("rows", domain=(1, 8), tile=4, dtype=np.int32),
        tiledb.Dim("cols", domain=(1, 6), tile=3, dtype=np.int32),
    )
    attrs = [
        tiledb.Attr("a", dtype=np.int32,
                    filters=tiledb.FilterList([tiledb.ByteShuffleFilter(), tiledb.ZstdFilter(level=1)])),
        tiledb.Attr("b", dtype=np.float64,
                    filters=tiledb.FilterList([tiledb.BitShuffleFilter(), tiledb.LZ4Filter()])),
    ]
    schema = tiledb.ArraySchema(domain=dom, attrs=attrs, sparse=False,
                                cell_order="row-major", tile_order="row-major")
    tiledb.Array.create(uri, schema)
    rows = np.arange(1, 5, dtype=np.int64)[:, None]
    cols = np.arange(1, 7, dtype=np.int64)[None, :]
    a = (10 * rows + cols - 3 * (rows * cols % 5)).astype(np.int32)
    b = (rows + cols / 8.0).astype(np.float64)
    with tiledb.open(uri, "w", timestamp=FRAGMENT_TIMESTAMP) as A:
        A[1:5, 1:7] = {"a": a, "b": b}
    with open(os.path.join(out, "TILEDB_VERSION.txt"), "w") as f:
        f.write("libtiledb %s, TileDB-Py %s\n" % (".".join(map(str, tiledb.libtiledb.version())), tiledb.__version__))


if __name__ == "__main__":
    main()
