#!/usr/bin/env python3
"""Record what TileDB-Py returns for a seeded set of queries on the arrays
committed under tests/data (tiledb/, time_travel/), so that
tests/array/read/test_query.cpp can run the same queries through tilefmt without
Python. Run it in a TileDB-Py environment (scripts/interop.sh makes them):

    build/interop/venv/tiledb-0.36.1/bin/python tests/interop/record_queries.py [OUT_DIR]

OUT_DIR defaults to tests/data/queries; the dense arrays' queries go to
dense.txt, the sparse arrays' to sparse.txt. The format, one record per
query, every number decimal, every byte string hex:

    query <array folder, relative to tests/data> <C|F|G|U|A> <ranges>
    where <field> <op> <value>                    a condition, if any (several: joined by and)
    label <field> <op> <value>                    the same, the value an enumeration label
    agg <field> <op> <value>                      order A: aggregates (a number, or null)
    dim <name> <cells> <coordinates>              sparse arrays: each dimension
    attr <name> <cells> <values>                  fixed-size attributes
    attr <name> <cells> <values> <offsets>        var-size: offsets in bytes, comma-separated
    validity <name> <one byte per cell>           nullable attributes
    end

<ranges> has the dimensions' ranges separated by ",", the ranges of one
dimension by "|", each range "lo:hi" (inclusive); e.g. "1:4|8:9,2:3". A
bound is an integer in decimal (dates and times: their int64 count), a
float as "f" and Python's float.hex(), a string as "s" and its bytes in hex.
C, F, G and U are TileDB's row-major, column-major, global order and
unordered. Values, offsets and validity are the result buffers exactly as
libtiledb filled them (see _keep_buffers). A query TileDB refuses is
recorded as `query ...`, `error`, `end`.
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
# Sparse arrays hold few of their domain's cells: larger boxes.
SPARSE_MAX_CELLS = 5000


def arrays():
    for group in ("tiledb", "time_travel"):
        with open(os.path.join(DATA, group, "manifest.json")) as f:
            m = json.load(f)
        for a in m["arrays"]:
            key = (a.get("encryption") or {}).get("key")
            yield group + "/" + a["path"], a["array_type"], key


def cell_bytes(v):
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    return np.asarray(v).tobytes()


# TileDB's result buffers as libtiledb filled them, before TileDB-Py turns
# them into numpy values (which loses, among other things, the trailing NUL
# bytes of strings: a fill value of "\0" would read ""): multi_index hands
# them to _get_pyquery_results, kept here; slicing leaves them on the array.
_last_buffers = {}
_get_pyquery_results = tiledb.multirange_indexing._get_pyquery_results


def _keep_buffers(pyquery, array):
    _last_buffers.clear()
    _last_buffers.update({k: tuple(np.array(x, copy=True) for x in v) for k, v in pyquery.results().items()})
    return _get_pyquery_results(pyquery, array)


tiledb.multirange_indexing._get_pyquery_results = _keep_buffers


def raw(buffers, values, cell_size):
    """One field's result buffers: data, offsets (var-size, in bytes),
    validity (nullable), and the cell count (from TileDB-Py's values, or
    from the bytes when there are none)."""
    # (TileDB-Py before 0.20 returns no validity buffer.)
    data, offsets = buffers[0], buffers[1]
    validity = buffers[2] if len(buffers) > 2 else ()
    out = {"values": np.asarray(data).tobytes()}
    if len(offsets) > 0:
        out["offsets"] = [int(o) for o in offsets]
        out["cells"] = len(offsets)
    elif values is None:
        out["cells"] = len(out["values"]) // cell_size
    else:
        out["cells"] = np.ma.getdata(values).size
    if len(validity) > 0:
        out["validity"] = np.asarray(validity, dtype=np.uint8).tobytes()
    return out


def cells(box):
    n = 1
    for lo, hi in box:
        n *= hi - lo + 1
    return n


def boxes(rng, domain, nonempty, max_cells):
    """The whole domain and the non-empty domain (when small), then random
    boxes of at most max_cells cells, partly outside the non-empty domain."""
    for box in ([tuple(d) for d in domain], [tuple(d) for d in nonempty]):
        if cells(box) <= max_cells:
            yield box
    side = max(1, int(max_cells ** (1.0 / len(domain))))
    for _ in range(BOXES):
        box = []
        for lo, hi in domain:
            a = rng.randint(lo, hi)
            b = min(hi, a + rng.randint(0, side - 1))
            box.append((a, b))
        yield box


def multi_ranges(rng, domain, max_cells):
    """Subarrays of two ranges per dimension, at most max_cells cells in all:
    apart, then overlapping (TileDB returns a cell once per range it is in)."""
    side = max(1, int((max_cells / 2 ** len(domain)) ** (1.0 / len(domain))))
    for overlap in (False, False, True):
        sub = []
        for lo, hi in domain:
            a = rng.randint(lo, hi)
            b = min(hi, a + rng.randint(0, side - 1))
            c = rng.randint(a, b) if overlap else rng.randint(lo, hi)
            d = min(hi, c + rng.randint(0, side - 1))
            sub.append([(a, b), (c, d)])
        yield sub


def bound_text(v):
    if isinstance(v, float):
        return "f" + v.hex()
    if isinstance(v, bytes):
        return "s" + v.hex()
    return "%d" % v


def spec(sub):
    return ",".join("|".join("%s:%s" % (bound_text(lo), bound_text(hi)) for lo, hi in ranges) for ranges in sub)


def dim_kind(dim):
    """'i' integers, 't' dates and times (int64 counts), 'f' floats, 's' strings."""
    if dim.dtype.kind in "SUO" or dim.isvar:
        return "s"
    if dim.dtype.kind == "M":
        return "t"
    return "f" if dim.dtype.kind == "f" else "i"


def as_bound(kind, v):
    """A coordinate as this script records it (int, float or bytes)."""
    if kind == "s":
        return v if isinstance(v, bytes) else str(v).encode("ascii")
    if kind == "t":
        return int(np.asarray(v).astype(np.int64))
    return float(v) if kind == "f" else int(v)


def to_tiledb(dim, kind, v):
    """A recorded bound as TileDB-Py takes it."""
    if kind == "t":
        return np.datetime64(v, np.datetime_data(dim.dtype)[0])
    if kind == "s":
        return v.decode("ascii")
    return v


def drawn_ranges(rng, A):
    """Sparse arrays with float, date or string dimensions: ranges between
    coordinates the array holds (and, for strings, a prefix of one, which
    sorts before it), then past the last. Yields subarrays."""
    dims = [A.schema.domain.dim(i) for i in range(A.schema.domain.ndim)]
    kinds = [dim_kind(d) for d in dims]
    everything = A.query(attrs=[])[:]
    coords = [sorted(set(as_bound(k, v) for v in np.asarray(everything[d.name]).ravel())) for d, k in zip(dims, kinds)]
    if any(not c for c in coords):
        return

    def one(k, c):
        i = rng.randrange(len(c))
        j = min(len(c) - 1, i + rng.randrange(max(1, len(c) // 3)))
        lo, hi = c[i], c[j]
        if k == "s" and len(lo) > 1 and rng.random() < 0.5:
            lo = lo[:-1]
        return (lo, hi)

    yield [[(c[0], c[-1])] for c in coords]
    for _ in range(BOXES):
        yield [[one(k, c)] for k, c in zip(kinds, coords)]
    for _ in range(2):
        yield [[one(k, c), one(k, c)] for k, c in zip(kinds, coords)]
    past = []
    for k, c in zip(kinds, coords):
        last = c[-1]
        past.append([(last + b"~", last + b"~~")] if k == "s" else [(last, last)])
    yield past


def condition_leaves(A):
    """A condition on the array's data: its first non-nullable fixed-size
    numeric attribute greater than its median, and its first var-size ASCII
    or UTF-8 attribute equal to one of its values, and its first attribute
    with an enumeration equal to one of its labels.
    [(field, op, bytes, text, is_label)]."""
    leaves = []
    everything = A.query()[:]
    for i in range(A.schema.nattr):
        at = A.schema.attr(i)
        if at.isnullable or at.isvar or getattr(at, "enum_label", None) or at.dtype.kind not in "iuf":
            continue
        if at.dtype.itemsize != np.dtype(at.dtype).itemsize or at.ncells != 1:
            continue
        values = np.sort(np.ma.getdata(everything[at.name]).ravel())
        if at.dtype.kind == "f":  # TileDB-Py's conditions cannot say nan or inf
            values = values[np.isfinite(values)]
        if values.size == 0:
            break
        v = values[values.size // 2]
        text = repr(int(v)) if at.dtype.kind in "iu" else repr(float(v))
        leaves.append((at.name, ">", np.asarray(v, dtype=at.dtype).tobytes(), text, False))
        break
    for i in range(A.schema.nattr):
        at = A.schema.attr(i)
        if at.isnullable or not at.isvar or getattr(at, "enum_label", None) or at.dtype.kind not in "SU":
            continue
        raw_values = np.ma.getdata(everything[at.name]).ravel()
        if any(isinstance(x, memoryview) for x in raw_values):  # BLOB: no string conditions
            continue
        values = [x if isinstance(x, str) else x.decode("ascii", "replace") for x in raw_values]
        plain = sorted(x for x in values if x and x.isascii() and x.isalnum())
        if plain:
            leaves.append((at.name, "==", plain[len(plain) // 2].encode("ascii"), repr(plain[len(plain) // 2]), False))
        break
    for i in range(A.schema.nattr):
        at = A.schema.attr(i)
        if not getattr(at, "enum_label", None):
            continue
        labels = [str(x) for x in A.enum(at.enum_label).values()]
        if labels:
            label = labels[len(labels) // 2]
            leaves.append((at.name, "==", label.encode("utf-8"), repr(label), True))
        break
    return leaves


def _record(lines, A, rel, sparse, sub, orders, cond=()):
    """One record per order: what A.query(order).multi_index[sub] returns
    (with `cond`, condition_leaves() joined by `and`)."""
    schema_dims = [A.schema.domain.dim(i) for i in range(A.schema.domain.ndim)]
    kinds = [dim_kind(d) for d in schema_dims]
    index = tuple([tuple(to_tiledb(d, k, x) for x in r) for r in ranges] for d, k, ranges in zip(schema_dims, kinds, sub))
    dims = [d.name for d in schema_dims]
    attrs = [A.schema.attr(i).name for i in range(A.schema.nattr)]
    if not sparse and any(len(ranges) > 1 for ranges in sub):
        # TileDB-Py 0.36.1 corrupts its heap ("realloc(): invalid old size",
        # "mremap_chunk(): invalid pointer") reading var-size attributes of a
        # dense array over several ranges: they are left out of such queries.
        attrs = [a for a in attrs if not A.schema.attr(a).isvar]
        if not attrs:
            return
    cond_text = " and ".join("%s %s %s" % (f, op, text) for f, op, _, text, _ in cond)
    for order in orders:
        lines.append("query %s %s %s" % (rel, order, spec(sub)))
        for f, op, value, _, is_label in cond:
            lines.append("%s %s %s %s" % ("label" if is_label else "where", f, op, value.hex()))
        enumerated = any(getattr(A.schema.attr(a), "enum_label", None) for a in attrs)
        try:
            q = A.query(order=order, attrs=attrs, cond=cond_text) if cond else A.query(order=order, attrs=attrs)
            # (TileDB-Py's slices are wrong below zero: [-10:-5] reads 4
            # cells of a dense array, and of a sparse one cells far outside;
            # multi_index reads the inclusive ranges as given.)
            if (all(len(ranges) == 1 for ranges in sub) and all(k == "i" for k in kinds) and not enumerated
                    and all(ranges[0][0] >= 0 for ranges in sub) and hasattr(A, "pyquery")):
                result = q[tuple(slice(r[0][0], r[0][1] + 1) for r in sub)]
                buffers = {k: tuple(v) for k, v in A.pyquery.results().items()}
            else:
                try:
                    result = q.multi_index[index]
                except IndexError:
                    # TileDB-Py turns an enumerated attribute's indices into
                    # labels after the read, and fails on the fill value
                    # (no label): the buffers were kept before that.
                    if not enumerated:
                        raise
                    result = None
                buffers = dict(_last_buffers)
        except tiledb.TileDBError:
            lines += ["error", "end"]
            continue
        for name in (dims if sparse else []) + attrs:
            # (No result only for arrays with enumerations: attributes of one
            # value a cell; dimensions of one coordinate, strings aside, which
            # have offsets.)
            field = A.schema.domain.dim(name) if name in dims else A.schema.attr(name)
            cell_size = np.dtype(field.dtype).itemsize or 1
            r = raw(buffers[name], None if result is None else result[name], cell_size)
            kind = "dim" if name in dims else "attr"
            line = "%s %s %d %s" % (kind, name, r["cells"], r["values"].hex() or "-")
            if "offsets" in r:
                line += " " + (",".join(map(str, r["offsets"])) or "-")
            lines.append(line)
            if "validity" in r:
                lines.append("validity %s %s" % (name, r["validity"].hex() or "-"))
        lines.append("end")


AGG_OPS = ["count", "sum", "min", "max", "mean"]
# Aggregates return a few numbers: their regions may be larger than MAX_CELLS.
AGG_MAX_CELLS = 1 << 20


def tile_aligned(dim, r):
    """[lo, hi] widened to the space tiles it touches, inside the domain."""
    lo, hi = (int(x) for x in dim.domain)
    e = int(dim.tile)
    a = lo + (r[0] - lo) // e * e
    b = lo + ((r[1] - lo) // e + 1) * e - 1
    return (max(lo, a), min(hi, b))


def _record_aggregates(lines, A, rel, sub, cond=()):
    """What A.query(cond=...).agg(...)[sub] returns for each numeric
    attribute (strings: TileDB 2.30 refuses their MIN and MAX)."""
    what = {}
    for i in range(A.schema.nattr):
        at = A.schema.attr(i)
        if at.isvar or getattr(at, "enum_label", None) or at.dtype.kind not in "iuf" or at.ncells != 1:
            continue
        what[at.name] = AGG_OPS + (["null_count"] if at.isnullable else [])
    if not what:
        return
    cond_text = " and ".join("%s %s %s" % (f, op, text) for f, op, _, text, _ in cond)
    q = A.query(cond=cond_text) if cond else A.query()
    if not hasattr(q, "agg"):  # TileDB-Py before aggregates
        return
    try:
        if all(r[0][0] >= 0 for r in sub):
            got = q.agg(what)[tuple(slice(r[0][0], r[0][1] + 1) for r in sub)]
        else:  # TileDB-Py's slices are wrong below zero (see record)
            got = q.agg(what).multi_index[tuple(slice(r[0][0], r[0][1]) for r in sub)]
    except tiledb.TileDBError:
        return
    lines.append("query %s A %s" % (rel, spec(sub)))
    for f, op, value, _, is_label in cond:
        lines.append("%s %s %s %s" % ("label" if is_label else "where", f, op, value.hex()))
    for name, ops in what.items():
        values = got[name] if len(what) > 1 or isinstance(got.get(name), dict) else got
        for op in ops:
            v = values[op]
            text = "null" if v is None else repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))
            lines.append("agg %s %s %s" % (name, op, text))
    lines.append("end")


def record_array(lines, rng, rel, path, array_type, key, skip=frozenset(), progress=None, stride=(1, 0)):
    """Every query of one array, appended to `lines`; `rel` names the array
    in the records. Each record() or record_aggregates() call is a numbered
    step: the steps in `skip` are left out (TileDB-Py crashed on them), and
    the step about to run is written to the file `progress` (so that a
    crash can be traced to it). `stride` (k, j): only the steps whose number
    is j modulo k run. Skipping a step draws no fewer random numbers: the
    regions are drawn outside the steps, so a step is the same query
    whichever steps run."""
    step = [0]

    def guarded(fn):
        def call(*args):
            step[0] += 1
            if step[0] in skip or step[0] % stride[0] != stride[1]:
                return
            if progress:
                with open(progress, "w") as f:
                    f.write("%s\t%d" % (rel, step[0]))
            fn(*args)
        return call

    record, record_aggregates = guarded(_record), guarded(_record_aggregates)
    cfg = tiledb.Config({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key}) if key else None
    ctx = tiledb.Ctx(cfg) if cfg else None
    sparse = array_type == "sparse"
    with tiledb.open(path, ctx=ctx) as A:
        dom = A.schema.domain
        if any(dim_kind(dom.dim(i)) != "i" for i in range(dom.ndim)):
            subs = list(drawn_ranges(rng, A))
            for sub in subs:
                record(lines, A, rel, sparse, sub, "CFGU")
            cond = condition_leaves(A)
            if cond and subs:
                record(lines, A, rel, sparse, subs[0], "CFGU", cond)
            return
        domain = [tuple(int(x) for x in dom.dim(i).domain) for i in range(dom.ndim)]
        if A.nonempty_domain() is None:  # nothing written: the whole domain only
            record(lines, A, rel, sparse, [[tuple(d)] for d in domain], "CFGU" if sparse else "CFG")
            return
        nonempty = [tuple(int(x) for x in r) for r in A.nonempty_domain()]
        max_cells = SPARSE_MAX_CELLS if sparse else MAX_CELLS
        orders = "CFGU" if sparse else "CFG"
        # Sparse arrays hold few cells of their domain: random ranges
        # are drawn around the non-empty domain, and one box lies past it.
        around = [(max(d[0], n[0] - 5), min(d[1], n[1] + 5)) for d, n in zip(domain, nonempty)]
        draw = around if sparse else domain
        for box in boxes(rng, draw, nonempty, max_cells):
            record(lines, A, rel, sparse, [[r] for r in box], orders)
        if sparse and any(n[1] < d[1] for d, n in zip(domain, nonempty)):
            past = [(n[1] + 1, d[1]) if n[1] < d[1] else tuple(n) for d, n in zip(domain, nonempty)]
            record(lines, A, rel, sparse, [[r] for r in past], orders)
        subs = list(multi_ranges(rng, draw, max_cells))
        for sub in subs:
            record(lines, A, rel, sparse, sub, orders)
        # Conditions: over the whole non-empty domain, and over ranges.
        cond = condition_leaves(A)
        if cond:
            record(lines, A, rel, sparse, [[r] for r in nonempty], orders, cond)
            record(lines, A, rel, sparse, subs[0], orders, cond)
        # Aggregates: the non-empty domain, a box, with and without the
        # condition; for dense arrays also the whole domain and the
        # non-empty domain widened to whole space tiles (TileDB answers
        # whole tiles from their metadata, and leaves out cells no
        # fragment wrote).
        box = next(iter(boxes(random.Random(SEED), draw, nonempty, max_cells)))
        regions = [[[r] for r in nonempty], [[r] for r in box]]
        if not sparse:
            tiled = [tile_aligned(dom.dim(i), n) for i, n in enumerate(nonempty)]
            for extra in (tiled, domain):
                cells = 1
                for lo, hi in extra:
                    cells *= hi - lo + 1
                if cells <= AGG_MAX_CELLS and [[r] for r in extra] not in regions:
                    regions.append([[r] for r in extra])
        for region in regions:
            record_aggregates(lines, A, rel, region)
            if cond:
                record_aggregates(lines, A, rel, region, cond)


def header():
    return ("# Written by tests/interop/record_queries.py with TileDB-Py %s (libtiledb %s); format in its docstring."
            % (tiledb.__version__, ".".join(map(str, tiledb.libtiledb.version()))))


def corpus_arrays(corpus):
    with open(os.path.join(corpus, "manifest.json")) as f:
        m = json.load(f)
    for a in m["arrays"]:
        yield a["path"], a["array_type"], (a.get("encryption") or {}).get("key")


# TileDB-Py 0.36.1 crashes on some queries of some arrays (a segmentation
# fault in libtiledb), some every time (aggregates over an evolved dense
# schema), some now and then (multi-range reads of a 3-D dense array).
DEATHS_BEFORE_SKIPPING = 3


def record_corpus(corpus, worker=False, stride=(1, 0)):
    """--corpus: every array of a corpus scripts/interop.sh generated, each
    with its own seed, into CORPUS/queries/ (with --stride K J, only the
    query steps numbered J modulo K): one file per array, then
    recorded.txt (all of them) and unrecorded.txt (what TileDB-Py could not
    answer, with the reason). The work runs in a child process that writes
    the array and query step it is at to `in_progress`; when the child dies
    a new one starts where it was. A step the child died on
    DEATHS_BEFORE_SKIPPING times is left out (listed in `skipped_steps` and
    unrecorded.txt); the array's other queries are still recorded."""
    out = os.path.join(corpus, "queries")
    parts = os.path.join(out, "arrays")
    os.makedirs(parts, exist_ok=True)
    progress = os.path.join(out, "in_progress")
    unrecorded = os.path.join(out, "unrecorded.txt")
    skipped_steps = os.path.join(out, "skipped_steps")
    if not worker:
        import subprocess
        for name in os.listdir(parts):
            os.remove(os.path.join(parts, name))
        open(unrecorded, "w").close()
        open(skipped_steps, "w").close()
        deaths = {}
        while True:
            if os.path.exists(progress):
                os.remove(progress)
            child = subprocess.run([sys.executable, os.path.abspath(__file__), "--corpus", corpus, "--worker",
                                    "--stride", str(stride[0]), str(stride[1])])
            if child.returncode == 0:
                break
            if not os.path.exists(progress):
                raise SystemExit("record_queries: the worker failed before any array (exit %d)" % child.returncode)
            with open(progress) as f:
                rel, _, step = f.read().strip().partition("\t")
            deaths[rel, step] = deaths.get((rel, step), 0) + 1
            if deaths[rel, step] < DEATHS_BEFORE_SKIPPING:
                continue  # not every crash repeats: try the array again
            with open(unrecorded, "a") as f:
                what = "query step %s" % step if step else "opening it"
                f.write("%s: TileDB-Py %s died on %s %d times (exit %d)\n"
                        % (rel, tiledb.__version__, what, deaths[rel, step], child.returncode))
            if step:
                with open(skipped_steps, "a") as f:
                    f.write("%s\t%s\n" % (rel, step))
            else:
                with open(os.path.join(parts, rel.replace("/", "__") + ".txt"), "w") as f:
                    pass  # done: nothing recorded
        lines = [header()]
        count = 0
        for rel, _, _ in corpus_arrays(corpus):
            part = os.path.join(parts, rel.replace("/", "__") + ".txt")
            with open(part) as f:
                text = f.read()
            count += sum(l.startswith("query ") for l in text.splitlines())
            lines.append(text.rstrip("\n")) if text.strip() else None
        with open(os.path.join(out, "recorded.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(unrecorded) as f:
            left_out = sum(1 for _ in f)
        print("record_queries: %d queries of %s into %s, %d arrays or steps unrecorded" % (count, corpus, out, left_out))
        return 0
    skip = {}
    with open(skipped_steps) as f:
        for line in f:
            rel, _, step = line.rstrip("\n").partition("\t")
            skip.setdefault(rel, set()).add(int(step))
    for rel, array_type, key in corpus_arrays(corpus):
        part = os.path.join(parts, rel.replace("/", "__") + ".txt")
        if os.path.exists(part):
            continue
        with open(progress, "w") as f:
            f.write(rel)
        lines = []
        try:
            record_array(lines, random.Random("%d %s" % (SEED, rel)), rel, os.path.join(corpus, rel), array_type, key,
                         frozenset(skip.get(rel, ())), progress, stride)
        except Exception as e:  # a TileDB-Py release without something the recorder uses
            lines = []
            with open(unrecorded, "a") as f:
                f.write("%s: %s: %s\n" % (rel, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        with open(part, "w") as f:
            f.write("\n".join(lines) + ("\n" if lines else ""))
    return 0


def main(argv):
    if "--corpus" in argv:
        stride = (1, 0)
        if "--stride" in argv:
            k = argv.index("--stride")
            stride = (max(1, int(argv[k + 1])), int(argv[k + 2]) % max(1, int(argv[k + 1])))
        return record_corpus(argv[argv.index("--corpus") + 1], "--worker" in argv, stride)
    out_dir = argv[1] if len(argv) > 1 else os.path.join(DATA, "queries")
    rng = random.Random(SEED)
    out = {"dense": [header()], "sparse": [header()]}
    for rel, array_type, key in arrays():
        record_array(out[array_type], rng, rel, os.path.join(DATA, rel), array_type, key)
    os.makedirs(out_dir, exist_ok=True)
    for kind, lines in out.items():
        path = os.path.join(out_dir, kind + ".txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("record_queries: %d queries into %s" % (sum(l.startswith("query ") for l in lines), path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
