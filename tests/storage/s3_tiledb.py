#!/usr/bin/env python3
"""TileDB-Py's side of the S3 test (s3_check.sh), against the same server.

    s3_tiledb.py write URI   # a dense array: int32 "a" = 3 * i at cell i, i in 0..99
    s3_tiledb.py check ROOT  # reads ROOT/arrays/dense and ROOT/arrays/sparse, which
                             # test_s3.cpp wrote with tilefmt's S3 backend

The server and credentials come from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY.
"""
import os
import sys
from urllib.parse import urlparse

import numpy as np
import tiledb


def context():
    endpoint = urlparse(os.environ["AWS_ENDPOINT_URL"])
    return tiledb.Ctx(tiledb.Config({
        "vfs.s3.endpoint_override": endpoint.netloc,
        "vfs.s3.scheme": endpoint.scheme,
        "vfs.s3.use_virtual_addressing": "false",
        "vfs.s3.region": os.environ.get("AWS_REGION", "us-east-1"),
        "vfs.s3.aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"],
        "vfs.s3.aws_secret_access_key": os.environ["AWS_SECRET_ACCESS_KEY"],
    }))


def write(uri):
    ctx = context()
    dom = tiledb.Domain(tiledb.Dim(name="d", domain=(0, 99), tile=10, dtype=np.int32, ctx=ctx), ctx=ctx)
    schema = tiledb.ArraySchema(domain=dom, sparse=False, ctx=ctx,
                                attrs=[tiledb.Attr(name="a", dtype=np.int32, ctx=ctx,
                                                   filters=tiledb.FilterList([tiledb.ZstdFilter()]))])
    tiledb.Array.create(uri, schema, ctx=ctx)
    with tiledb.open(uri, "w", ctx=ctx) as A:
        A[0:100] = {"a": 3 * np.arange(100, dtype=np.int32)}


# test_s3.cpp's writes: write w (timestamp 10 + w) covers rows 1 + 7w .. 16 + 7w,
# every column (dense) or every third from 1 (sparse), v = r * 1000 + c + w and
# s = "x" * ((r + c + w) % 5).
def expected(dense):
    cells = {}
    for w in range(3):
        for r in range(1 + 7 * w, 17 + 7 * w):
            for c in range(1, 41, 1 if dense else 3):
                cells[(r, c)] = (r * 1000 + c + w, "x" * ((r + c + w) % 5))
    return cells


def text(s):
    return s.decode() if isinstance(s, bytes) else str(s)  # STRING_ASCII reads as bytes


def check(root):
    ctx = context()
    failures = 0
    for name, dense in (("dense", True), ("sparse", False)):
        want = expected(dense)
        with tiledb.open(root + "/arrays/" + name, ctx=ctx) as A:
            got = {}
            if dense:
                res = A[1:41, 1:41]
                for r in range(1, 41):
                    for c in range(1, 41):
                        if (r, c) in want:
                            got[(r, c)] = (int(res["v"][r - 1, c - 1]), text(res["s"][r - 1, c - 1]))
            else:
                res = A[:]
                for r, c, v, s in zip(res["r"], res["c"], res["v"], res["s"]):
                    got[(int(r), int(c))] = (int(v), text(s))
        if got != want:
            failures += 1
            bad = [k for k in want if got.get(k) != want[k]][:5]
            print(f"{name}: {len(got)} cells read, {len(want)} expected; first differences: "
                  f"{[(k, got.get(k), want[k]) for k in bad]}")
        else:
            print(f"{name}: TileDB-Py {tiledb.__version__} read the {len(want)} cells tilefmt wrote to S3")
    return failures


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "check":
        sys.exit(1 if check(sys.argv[2]) else 0)
    else:
        sys.exit(__doc__)
