#!/usr/bin/env python3
"""Record what TileDB-Py returns for a seeded set of queries on the dense
arrays committed under tests/data (tiledb/, time_travel/), so that
tests/array/test_query.cpp can run the same queries through tilefmt without
Python. Run it in a TileDB-Py environment (scripts/interop.sh makes them):

    build/interop/venv/tiledb-0.36.1/bin/python tests/interop/record_queries.py [OUT]

OUT defaults to tests/data/queries/dense.txt. Its format, one record per
query, every number decimal, every byte string hex:

    query <array folder, relative to tests/data> <C|F|G> <lo:hi,lo:hi,...>
    attr <name> <cells> <values>                  fixed-size attributes
    attr <name> <cells> <values> <offsets>        var-size: offsets in bytes, comma-separated
    validity <name> <one byte per cell>           nullable attributes
    end

C, F and G are TileDB's row-major, column-major and global order. Values are
the result buffers as TileDB's C API returns them: for order F, TileDB-Py
reshapes the column-major buffer in C order, so `ravel(order="C")` gives
it back (checked against the C-order result here).
"""

import json
import os
import random
import sys

import numpy as np
import tiledb

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
SEED = 20261123
BOXES = 5
MAX_CELLS = 200


def dense_arrays():
    for group in ("tiledb", "time_travel"):
        with open(os.path.join(DATA, group, "manifest.json")) as f:
            m = json.load(f)
        for a in m["arrays"]:
            if a["array_type"] != "dense":
                continue
            key = (a.get("encryption") or {}).get("key")
            yield group + "/" + a["path"], key


def cell_bytes(v):
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    return np.asarray(v).tobytes()


def raw(values):
    """The result buffer of one attribute, in the order TileDB returned it."""
    mask = None
    if isinstance(values, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(values).ravel(order="C")
        values = values.data
    flat = values.ravel(order="C")
    if flat.dtype == object:
        cells = [cell_bytes(x) for x in flat]
        offsets, at = [], 0
        for c in cells:
            offsets.append(at)
            at += len(c)
        out = {"cells": len(cells), "values": b"".join(cells), "offsets": offsets}
    else:
        out = {"cells": flat.size, "values": flat.tobytes()}
    if mask is not None:
        out["validity"] = bytes((0 if m else 1) for m in mask)
    return out


def cells(box):
    n = 1
    for lo, hi in box:
        n *= hi - lo + 1
    return n


def boxes(rng, domain, nonempty):
    """The whole domain and the non-empty domain (when small), then random
    boxes of at most MAX_CELLS cells, partly outside the non-empty domain."""
    for box in ([tuple(d) for d in domain], [tuple(d) for d in nonempty]):
        if cells(box) <= MAX_CELLS:
            yield box
    side = max(1, int(MAX_CELLS ** (1.0 / len(domain))))
    for _ in range(BOXES):
        box = []
        for lo, hi in domain:
            a = rng.randint(lo, hi)
            b = min(hi, a + rng.randint(0, side - 1))
            box.append((a, b))
        yield box


def main(argv):
    out_path = argv[1] if len(argv) > 1 else os.path.join(DATA, "queries", "dense.txt")
    rng = random.Random(SEED)
    lines = ["# Written by tests/interop/record_queries.py with TileDB-Py %s (libtiledb %s); format in its docstring."
             % (tiledb.__version__, ".".join(map(str, tiledb.libtiledb.version())))]
    queries = 0
    for rel, key in dense_arrays():
        path = os.path.join(DATA, rel)
        cfg = tiledb.Config({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key}) if key else None
        ctx = tiledb.Ctx(cfg) if cfg else None
        with tiledb.open(path, ctx=ctx) as A:
            dom = A.schema.domain
            domain = [tuple(int(x) for x in dom.dim(i).domain) for i in range(dom.ndim)]
            nonempty = [tuple(int(x) for x in r) for r in A.nonempty_domain()]
            for box in boxes(rng, domain, nonempty):
                index = tuple(slice(lo, hi + 1) for lo, hi in box)
                c_result = A.query(order="C")[index]
                for order in "CFG":
                    result = c_result if order == "C" else A.query(order=order)[index]
                    lines.append("query %s %s %s" % (rel, order, ",".join("%d:%d" % r for r in box)))
                    for name in [A.schema.attr(i).name for i in range(A.schema.nattr)]:
                        r = raw(result[name])
                        if order == "F":
                            # The column-major buffer, independently: the C-order cells in F order.
                            c = np.ma.getdata(c_result[name])
                            f_cells = c.ravel(order="F")
                            got = np.ma.getdata(result[name]).ravel(order="C")
                            assert all(cell_bytes(x) == cell_bytes(y) for x, y in zip(f_cells, got)), (rel, box, name)
                        line = "attr %s %d %s" % (name, r["cells"], r["values"].hex() or "-")
                        if "offsets" in r:
                            line += " " + (",".join(map(str, r["offsets"])) or "-")
                        lines.append(line)
                        if "validity" in r:
                            lines.append("validity %s %s" % (name, r["validity"].hex() or "-"))
                    lines.append("end")
                    queries += 1
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("record_queries: %d queries into %s" % (queries, out_path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
