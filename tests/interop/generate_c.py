#!/usr/bin/env python3
"""Generate interop corpus cases with an old libtiledb through its C API.

    python3 generate_c.py --lib FOLDER --wheel VERSION --out DIR

FOLDER holds the libtiledb*.so* of a TileDB-Py wheel (scripts/interop.sh
extracts it); VERSION is that wheel's TileDB-Py version, recorded in the
manifest. Writes DIR/arrays/<case>/, DIR/expected/... and DIR/manifest.json in
the format of generate.py (README.md), so interop-check reads both alike.

Each write is read back at once through the same libtiledb, in global order
over the fragment's box, before the next write: the cases are built so that
this box holds only the new fragment's cells (dense writes cover whole tiles,
sparse fragments occupy disjoint boxes). Fragment facts (name, timestamps,
format version, cell count, non-empty domain) are those of the writes and
the folder libtiledb made. A feature the release lacks (a function it does
not export, a filter it rejects) skips that part of the case with the
library's reason. Needs only the Python standard library.
"""

import argparse
import hashlib
import json
import os
import shutil
import struct
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import libtiledb_c as tl  # noqa: E402

TEST_KEY = b"0123456789abcdeF0123456789abcdeF"


def pack(type_name, values):
    return struct.pack("<%d%s" % (len(values), tl.STRUCT_CODE[type_name]), *values)


class Field:
    """Values of one field for one write: fixed (a list of numbers, several
    per cell when cell_val_num > 1) or var (a list of bytes per cell)."""

    def __init__(self, type_name, values, var=False, validity=None):
        self.type = type_name
        self.values = values
        self.var = var
        self.validity = validity

    def buffers(self):
        if self.var:
            offs, pos = [], 0
            for v in self.values:
                offs.append(pos)
                pos += len(v)
            return b"".join(self.values), offs, self.validity
        return pack(self.type, self.values), None, self.validity


class Builder:
    def __init__(self, lib, name, root, description, features, key=None):
        self.lib = lib
        self.ctx = lib.ctx()
        self.name = name
        self.root = root
        self.uri = os.path.join(root, "arrays", name)
        self.description = description
        self.features = features
        self.key = key
        self.spec = None
        self.fragments = []
        self.skips = []
        self.metadata = None
        self.last_ts = 0
        self.global_read_agrees = None

    def skip(self, what, reason):
        self.skips.append({"what": what, "reason": reason})

    def tick(self):
        # Fragments are ordered by their millisecond timestamp: keep two
        # writes out of the same millisecond.
        while int(time.time() * 1000) <= self.last_ts + 1:
            time.sleep(0.001)
        self.last_ts = int(time.time() * 1000)

    def create(self, spec):
        self.spec = spec
        self.ctx.create(self.uri, spec, self.key)

    # -- fragments on disk
    def _fragment_dirs(self):
        out = set()
        for parent in (self.uri, os.path.join(self.uri, "__fragments")):
            if not os.path.isdir(parent):
                continue
            for d in os.listdir(parent):
                p = os.path.join(parent, d)
                if d.startswith("__") and os.path.isfile(os.path.join(p, "__fragment_metadata.tdb")):
                    out.add(p)
        return out

    def _new_fragment(self, before):
        new = self._fragment_dirs() - before
        if len(new) != 1:
            raise tl.TileDBError("expected one new fragment, found %d" % len(new))
        return new.pop()

    # -- writes
    def write_dense(self, box, fields, layout="row-major"):
        """box: [[lo, hi]] per dimension, whole tiles; fields: {name: Field}
        in `layout` over the box."""
        before = self._fragment_dirs()
        self.tick()
        dim_type = self.spec["dims"][0]["type"]
        with self.ctx.open(self.uri, tl.QUERY_WRITE, self.key) as arr:
            q = arr.query(tl.QUERY_WRITE, layout, box, dim_type)
            for name, f in fields.items():
                data, offs, val = f.buffers()
                q.buffer(name, data, offs, val)
            q.submit()
            q.free()
        cells = 1
        for lo, hi in box:
            cells *= hi - lo + 1
        self._record(self._new_fragment(before), box, cells, sparse=False)

    def write_sparse(self, coords, fields):
        """coords: {dim name: [values]}; fields: {name: Field}, unordered."""
        before = self._fragment_dirs()
        self.tick()
        dims = self.spec["dims"]
        with self.ctx.open(self.uri, tl.QUERY_WRITE, self.key) as arr:
            q = arr.query(tl.QUERY_WRITE, "unordered")
            if self.lib.version[0] < 2:  # coordinates zipped in one buffer before 2.0
                zipped = [c[d["name"]] for c in [coords] for d in dims]
                cells = list(zip(*zipped))
                q.buffer("__coords", pack(dims[0]["type"], [v for cell in cells for v in cell]))
            else:
                for d in dims:
                    q.buffer(d["name"], pack(d["type"], coords[d["name"]]))
            for name, f in fields.items():
                data, offs, val = f.buffers()
                q.buffer(name, data, offs, val)
            q.submit()
            q.free()
        ned = [[min(coords[d["name"]]), max(coords[d["name"]])] for d in dims]
        self._record(self._new_fragment(before), ned, len(coords[dims[0]["name"]]), sparse=True)

    def consolidate_fragment_metadata(self):
        """Consolidates the fragments' footers into one `.meta` file."""
        self.tick()
        self.ctx.consolidate(self.uri, self.key, {"sm.consolidation.mode": "fragment_meta"})
        for f in self.fragments:
            f["has_consolidated_metadata"] = True

    def evolve_add_attribute(self, spec):
        self.tick()
        self.ctx.evolve_add_attribute(self.uri, spec)
        self.spec["attrs"].append(spec)

    def consolidate(self):
        """Consolidates the fragments (vacuuming them where the release has
        a separate vacuum), and records the result as the only fragment."""
        before = self._fragment_dirs()
        self.tick()
        self.ctx.consolidate(self.uri, self.key)
        if self.lib.has("tiledb_array_vacuum"):
            self.ctx.vacuum(self.uri)
        new = self._fragment_dirs() - before
        if len(new) != 1:
            raise tl.TileDBError("consolidation made %d fragments" % len(new))
        sparse = self.spec["array_type"] == "sparse"
        dims = self.spec["dims"]
        ned = [[min(f["non_empty_domain"][i][0] for f in self.fragments),
                max(f["non_empty_domain"][i][1] for f in self.fragments)] for i in range(len(dims))]
        cells = sum(f["cell_num"] for f in self.fragments) if sparse else _box_cells(ned)
        self.fragments = []
        self._record(new.pop(), ned, cells, sparse)

    def put_metadata(self, entries):
        """entries: {key: (type name, [values])}; recorded as libtiledb
        reads them back."""
        self.tick()
        with self.ctx.open(self.uri, tl.QUERY_WRITE, self.key) as arr:
            for k, (t, vals) in entries.items():
                arr.put_metadata(k, t, len(vals), pack(t, vals))
        out = {}
        with self.ctx.open(self.uri, tl.QUERY_READ, self.key) as arr:
            for k in entries:
                t, n, raw = arr.get_metadata(k)
                out[k] = {"type": t, "count": n, "hex": raw.hex()}
        self.metadata = {"entries": out, "deleted_keys": []}

    # -- read back
    def _record(self, path, ned, cell_num, sparse):
        name = os.path.basename(path)
        with open(os.path.join(path, "__fragment_metadata.tdb"), "rb") as f:
            fmt = struct.unpack("<I", f.read(4))[0]
        ts = _timestamps(name)
        form = "global" if sparse else "tiles"
        fields = self._read_back(ned, sparse)
        reldir = os.path.join("expected", self.name, name, form)
        entry_fields = {}
        for fname, (facts, data, offs, val) in fields.items():
            exp = {"cells": len(offs) if facts["var"] else len(data) // facts["cell_size"],
                   "data": self._put(os.path.join(reldir, fname + ".data"), data)}
            if facts["var"]:
                exp["offsets"] = self._put(os.path.join(reldir, fname + ".offsets"), pack("UINT64", offs))
            if facts["nullable"]:
                exp["validity"] = self._put(os.path.join(reldir, fname + ".validity"), val)
            entry_fields[fname] = dict(facts, expected={form: exp})
        schema_dir = os.path.join(self.uri, "__schema")
        schemas = sorted(os.listdir(schema_dir)) if os.path.isdir(schema_dir) else []
        self.fragments.append({
            "name": name, "timestamp_range": list(ts), "format_version": fmt, "sparse": sparse,
            "cell_num": cell_num, "non_empty_domain": ned,
            "array_schema_name": schemas[-1] if schemas else None,  # the newest: names sort by timestamp
            "has_consolidated_metadata": False, "primary": form, "fields": entry_fields,
            "tiledb_global_read_agrees": None if sparse else {"tiles": self.global_read_agrees},
            "to_vacuum": False, "listed_by_tiledb": True,
        })

    def _read_back(self, box, sparse):
        """{field: (facts, data, offsets, validity)} of the cells in `box`,
        in global order. Dense: a row-major read put in global order here,
        compared with libtiledb's own global-order read (which 2.8 to 2.12
        get wrong for column-major cells); the outcome is kept in
        self.global_read_agrees."""
        if sparse:
            return self._read(box, "global", sparse=True)
        rowmajor = self._read(box, "row-major", sparse=False)
        order = global_order(box, [d["tile_extent"] for d in self.spec["dims"]], self.spec["tile_order"],
                             self.spec["cell_order"])
        fields = {name: (facts,) + permute(facts, data, offs, val, order)
                  for name, (facts, data, offs, val) in rowmajor.items()}
        self.global_read_agrees = self._read(box, "global", sparse=False) == fields
        return fields

    def _read(self, box, layout, sparse):
        dims = self.spec["dims"]
        fields = {}
        big = 1 << 20  # bytes of data; offsets and validity sized so that no buffer is the smaller
        with self.ctx.open(self.uri, tl.QUERY_READ, self.key) as arr:
            q = arr.query(tl.QUERY_READ, layout, box, dims[0]["type"])
            zipped = sparse and self.lib.version[0] < 2
            if zipped:
                q.buffer("__coords", capacity=(big, 0))
            elif sparse:
                for d in dims:
                    q.buffer(d["name"], capacity=(big, 0))
            for a in self.spec["attrs"]:
                var = a["cell_val_num"] == tl.VAR_NUM
                q.buffer(a["name"], offsets=[] if var else None, validity=[] if a["nullable"] else None,
                         capacity=(big, big))
            q.submit()
            if zipped:
                raw, _, _ = q.result("__coords")
                size = tl.TYPE_SIZE[dims[0]["type"]]
                step = size * len(dims)
                for i, d in enumerate(dims):
                    data = b"".join(raw[k + i * size:k + (i + 1) * size] for k in range(0, len(raw), step))
                    fields[d["name"]] = (_facts(d, "dimension"), data, None, None)
            elif sparse:
                for d in dims:
                    data, _, _ = q.result(d["name"])
                    fields[d["name"]] = (_facts(d, "dimension"), data, None, None)
            for a in self.spec["attrs"]:
                data, offs, val = q.result(a["name"])
                fields[a["name"]] = (_facts(a, "attribute"), data, offs, val)
            q.free()
        return fields

    def _put(self, relpath, payload):
        path = os.path.join(self.root, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(payload)
        return {"file": relpath, "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}

    def entry(self):
        s = self.spec
        facts = {
            "array_type": s["array_type"], "cell_order": s["cell_order"], "tile_order": s["tile_order"],
            "capacity": s["capacity"], "allows_duplicates": bool(s.get("allows_duplicates")),
            "dims": [{"name": d["name"], "type": d["type"], "var": False, "domain": d["domain"],
                      "tile_extent": d["tile_extent"], "filters": _filters(d.get("filter_list"))}
                     for d in s["dims"]],
            "attrs": [{"name": a["name"], "type": a["type"], "cell_val_num": a["cell_val_num"],
                       "var": a["cell_val_num"] == tl.VAR_NUM, "nullable": a["nullable"],
                       "filters": _filters(a.get("filter_list")), "fill_value_hex": None}
                      for a in s["attrs"]],
        }
        files = []
        for dirpath, _, names in os.walk(self.uri):
            for n in names:
                p = os.path.join(dirpath, n)
                files.append({"path": os.path.relpath(p, self.uri), "bytes": os.path.getsize(p)})
        versions = ".".join(map(str, self.lib.version))
        return {
            "name": self.name, "path": os.path.join("arrays", self.name), "description": self.description,
            "features": self.features, "libtiledb_version": versions,
            "format_version": self.fragments[0]["format_version"] if self.fragments else None,
            "array_type": s["array_type"],
            "encryption": None if self.key is None else {"type": "AES_256_GCM", "key": self.key.decode()},
            "schema": facts, "schema_files": [], "metadata": self.metadata, "fragments": self.fragments,
            "files": sorted(files, key=lambda f: f["path"]), "skipped": self.skips, "notes": [],
        }


def global_order(box, extents, tile_order, cell_order):
    """Row-major positions in a tile-aligned box of its cells in global
    order: tiles in tile order, cells in cell order inside each."""
    shape = [hi - lo + 1 for lo, hi in box]
    tiles = [n // e for n, e in zip(shape, extents)]

    def walk(counts, col_major):
        idx = [0] * len(counts)
        total = 1
        for c in counts:
            total *= c
        dims = list(range(len(counts)))
        fastest_first = dims if col_major else dims[::-1]
        for _ in range(total):
            yield list(idx)
            for d in fastest_first:
                idx[d] += 1
                if idx[d] < counts[d]:
                    break
                idx[d] = 0

    out = []
    for t in walk(tiles, tile_order == "col-major"):
        for c in walk(extents, cell_order == "col-major"):
            pos = 0
            for d in range(len(shape)):
                pos = pos * shape[d] + t[d] * extents[d] + c[d]
            out.append(pos)
    return out


def permute(facts, data, offsets, validity, order):
    """(data, offsets, validity) of a field's cells taken in `order`."""
    if facts["var"]:
        ends = offsets[1:] + [len(data)]
        cells = [data[offsets[i]:ends[i]] for i in range(len(offsets))]
    else:
        n = facts["cell_size"]
        cells = [data[i:i + n] for i in range(0, len(data), n)]
    picked = [cells[i] for i in order]
    new_offsets = None
    if facts["var"]:
        new_offsets, pos = [], 0
        for c in picked:
            new_offsets.append(pos)
            pos += len(c)
    new_validity = bytes(validity[i] for i in order) if validity is not None else None
    return b"".join(picked), new_offsets, new_validity


def _box_cells(box):
    n = 1
    for lo, hi in box:
        n *= hi - lo + 1
    return n


def _facts(f, kind):
    var = f.get("cell_val_num", 1) == tl.VAR_NUM
    size = tl.TYPE_SIZE[f["type"]]
    return {"kind": kind, "datatype": f["type"], "cell_val_num": f.get("cell_val_num", 1), "var": var,
            "nullable": bool(f.get("nullable")), "cell_size": None if var else size * f.get("cell_val_num", 1)}


def _filters(fl):
    return {"max_chunk_size": 65536,
            "filters": [{"type": n, "options": {} if lv is None else {"level": lv}} for n, lv in (fl or [])]}


def _timestamps(name):
    """A fragment folder's timestamp range, from its name in any version's
    form: __<t1>_<t2>_<uuid>[_<v>] (1.7 on), __<uuid>_<t> or, consolidated,
    __<uuid>_<t0>_<t> (before; t0 is when the consolidation ran)."""
    parts = name[2:].split("_")
    if len(parts) >= 3 and parts[0].isdigit() and parts[1].isdigit():
        return int(parts[0]), int(parts[1])
    if len(parts) == 2 and parts[1].isdigit():
        return int(parts[1]), int(parts[1])
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[2]), int(parts[2])  # consolidated before 1.7: __<uuid>_<ran at>_<t>
    raise tl.TileDBError("fragment name %s: no timestamps" % name)


# ---------------------------------------------------------------- cases


def dim(name, type_name, lo, hi, extent):
    return {"name": name, "type": type_name, "domain": [lo, hi], "tile_extent": extent}


def attr(name, type_name, cell_val_num=1, nullable=False, filters=None):
    return {"name": name, "type": type_name, "cell_val_num": cell_val_num, "nullable": nullable,
            "filter_list": filters or []}


def schema(array_type, dims, attrs, cell_order="row-major", tile_order="row-major", capacity=10000, dups=False):
    return {"array_type": array_type, "dims": dims, "attrs": attrs, "cell_order": cell_order,
            "tile_order": tile_order, "capacity": capacity, "allows_duplicates": dups}


def case_dense_1d(b):
    b.create(schema("dense", [dim("d", "INT32", 1, 100, 10)], [attr("a", "INT32")]))
    b.write_dense([[1, 100]], {"a": Field("INT32", list(range(100)))})
    b.write_dense([[11, 40]], {"a": Field("INT32", [1000 + i for i in range(30)])})


def case_dense_2d(order):
    def run(b):
        tile, cell = order
        b.create(schema("dense", [dim("r", "INT64", 0, 15, 4), dim("c", "INT64", 0, 11, 3)],
                        [attr("a", "FLOAT64"), attr("b", "UINT16", cell_val_num=2)], cell, tile))
        b.write_dense([[0, 15], [0, 11]], {"a": Field("FLOAT64", [i * 0.5 for i in range(192)]),
                                           "b": Field("UINT16", list(range(384)))})
        b.write_dense([[4, 11], [3, 8]], {"a": Field("FLOAT64", [-1.0 - i for i in range(48)]),
                                          "b": Field("UINT16", [60000 + i for i in range(96)])})
    return run


def case_sparse_2d(b):
    b.create(schema("sparse", [dim("x", "INT64", 0, 999, 100), dim("y", "INT64", 0, 999, 100)],
                    [attr("v", "INT32"), attr("s", "CHAR", tl.VAR_NUM)], capacity=7))
    n = 40
    xs = [(i * 37) % 100 for i in range(n)]
    ys = [(i * 11) % 50 for i in range(n)]
    # non-empty: libtiledb 1.5 takes only strictly ascending offsets
    words = [("w%d" % i * (1 + i % 4)).encode() for i in range(n)]
    b.write_sparse({"x": xs, "y": ys}, {"v": Field("INT32", list(range(n))), "s": Field("CHAR", words, var=True)})
    b.write_sparse({"x": [500 + x for x in xs], "y": [600 + y for y in ys]},
                   {"v": Field("INT32", [-i for i in range(n)]), "s": Field("CHAR", words[::-1], var=True)})


def case_types(b):
    types = ["INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "FLOAT32", "FLOAT64"]
    b.create(schema("dense", [dim("d", "UINT64", 0, 63, 16)], [attr("a_" + t.lower(), t) for t in types]))
    vals = {}
    for t in types:
        if t.startswith("FLOAT"):
            vals[t] = [i / 3.0 - 7 for i in range(64)]
        elif t.startswith("UINT"):
            vals[t] = [(i * 7) % 200 for i in range(64)]
        else:
            vals[t] = [((i * 7) % 200) - 100 for i in range(64)]
    b.write_dense([[0, 63]], {"a_" + t.lower(): Field(t, vals[t]) for t in types})


# (name, filters, values): "int" INT64, "float" FLOAT64, "str" var STRING_ASCII
FILTER_SETS = [
    ("gzip", [("GZIP", 6)], "int"), ("zstd", [("ZSTD", 3)], "int"), ("lz4", [("LZ4", None)], "int"),
    ("rle", [("RLE", None)], "int"), ("bzip2", [("BZIP2", 5)], "int"),
    ("double_delta", [("DOUBLE_DELTA", None)], "int"),
    ("bit_width_reduction", [("BIT_WIDTH_REDUCTION", None)], "int"), ("bitshuffle", [("BITSHUFFLE", None)], "int"),
    ("byteshuffle", [("BYTESHUFFLE", None)], "int"), ("positive_delta", [("POSITIVE_DELTA", None)], "int"),
    ("checksum_md5", [("CHECKSUM_MD5", None)], "int"), ("checksum_sha256", [("CHECKSUM_SHA256", None)], "int"),
    ("byteshuffle_zstd", [("BYTESHUFFLE", None), ("ZSTD", -1)], "int"),
    ("bitwidth_gzip", [("BIT_WIDTH_REDUCTION", None), ("GZIP", 1)], "int"),
    ("xor", [("XOR", None)], "int"), ("xor_float", [("XOR", None), ("ZSTD", 1)], "float"),
    ("float_scale", [("SCALE_FLOAT", None)], "float"),
    ("zstd_str", [("ZSTD", 1)], "str"), ("rle_str", [("RLE", None)], "str"),
    ("dictionary_str", [("DICTIONARY", None)], "str"),
]
KIND_TYPE = {"int": "INT64", "float": "FLOAT64", "str": "STRING_ASCII"}


def case_filters(array_type):
    """One attribute per filter pipeline the release accepts on that type;
    the others are skipped with libtiledb's reason."""
    def run(b):
        n = 2000
        dims = [dim("d", "INT64", 0, n - 1, 500)] if array_type == "dense" else [dim("d", "INT64", 0, 10 * n, 1000)]
        attrs = []
        for name, fl, kind in FILTER_SETS:
            a = attr("a_" + name, KIND_TYPE[kind], tl.VAR_NUM if kind == "str" else 1, filters=fl)
            try:  # a schema of that attribute alone: does this release take it?
                b.ctx.schema(schema(array_type, dims, [a]))
            except tl.TileDBError as e:
                b.skip("filter " + name, str(e))
                continue
            attrs.append(a)
        values = {
            "int": Field("INT64", [1000 + 7 * i + (i * i) % 7 for i in range(n)]),  # increasing: positive delta
            "float": Field("FLOAT64", [i / 8.0 + (i % 5) for i in range(n)]),
            "str": Field("STRING_ASCII", [("k%d" % (i % 13)).encode() * (1 + i % 3) for i in range(n)], var=True),
        }
        kinds = {"a_" + name: kind for name, _, kind in FILTER_SETS}
        fields = {a["name"]: values[kinds[a["name"]]] for a in attrs}
        if array_type == "dense":
            b.create(schema("dense", dims, attrs))
            b.write_dense([[0, n - 1]], fields)
        else:
            b.create(schema("sparse", dims, attrs, capacity=300))
            b.write_sparse({"d": [5 * i + i % 3 for i in range(n)]}, fields)
    return run


def case_duplicates(b):
    if not b.lib.has("tiledb_array_schema_set_allows_dups"):
        raise Unsupported("duplicates (tiledb_array_schema_set_allows_dups) came with libtiledb 2.0")
    b.create(schema("sparse", [dim("x", "INT32", 0, 99, 10), dim("y", "INT32", 0, 99, 10)], [attr("v", "UINT32")],
                    capacity=5, dups=True))
    xs = [i % 7 for i in range(30)]
    ys = [(i * 3) % 5 for i in range(30)]
    b.write_sparse({"x": xs, "y": ys}, {"v": Field("UINT32", list(range(30)))})
    b.write_sparse({"x": [50 + x for x in xs], "y": ys}, {"v": Field("UINT32", list(range(100, 130)))})


def case_hilbert(b):
    if b.lib.version < (2, 2, 0):
        raise Unsupported("the Hilbert cell order came with libtiledb 2.2")
    b.create(schema("sparse", [dim("x", "INT64", 0, 999, 100), dim("y", "INT64", -500, 499, 100)],
                    [attr("v", "FLOAT32"), attr("s", "CHAR", tl.VAR_NUM)], cell_order="hilbert", capacity=6))
    n = 50
    xs = [(i * 131) % 400 for i in range(n)]
    ys = [(i * 71) % 900 - 500 for i in range(n)]
    words = [("h%d" % i * (1 + i % 3)).encode() for i in range(n)]
    b.write_sparse({"x": xs, "y": ys}, {"v": Field("FLOAT32", [i * 0.5 for i in range(n)]), "s": Field("CHAR", words, var=True)})
    b.write_sparse({"x": [500 + x for x in xs], "y": ys},
                   {"v": Field("FLOAT32", [-i * 0.25 for i in range(n)]), "s": Field("CHAR", words[::-1], var=True)})


def case_schema_evolution(b):
    if not b.lib.has("tiledb_array_evolve"):
        raise Unsupported("schema evolution (tiledb_array_evolve) came with libtiledb 2.4")
    b.create(schema("dense", [dim("d", "INT32", 1, 40, 10)], [attr("a", "INT32")]))
    b.write_dense([[1, 40]], {"a": Field("INT32", list(range(40)))})
    b.evolve_add_attribute(attr("b", "FLOAT32"))
    b.write_dense([[11, 30]], {"a": Field("INT32", [100 + i for i in range(20)]),
                               "b": Field("FLOAT32", [i * 0.25 for i in range(20)])})


def case_consolidated_fragment_metadata(b):
    if b.lib.version < (2, 0, 0):
        raise Unsupported("fragment metadata consolidation (sm.consolidation.mode=fragment_meta) came with "
                          "libtiledb 2.0")
    case_sparse_2d(b)
    b.consolidate_fragment_metadata()


def case_nullable(b):
    if not b.lib.has("tiledb_attribute_set_nullable"):
        raise Unsupported("nullable attributes (tiledb_attribute_set_nullable) came with libtiledb 2.2")
    b.create(schema("dense", [dim("d", "INT32", 0, 39, 8)],
                    [attr("n", "INT32", nullable=True), attr("ns", "CHAR", tl.VAR_NUM, nullable=True)]))
    b.write_dense([[0, 39]], {"n": Field("INT32", list(range(40)), validity=[i % 3 != 0 for i in range(40)]),
                              "ns": Field("CHAR", [b"x" * (i % 5) for i in range(40)], var=True,
                                          validity=[i % 4 != 1 for i in range(40)])})


def case_metadata(b):
    if not b.lib.has("tiledb_array_put_metadata"):
        raise Unsupported("array metadata (tiledb_array_put_metadata) came with libtiledb 1.7")
    case_dense_1d(b)
    b.put_metadata({"int": ("INT64", [1, -2, 3]), "float": ("FLOAT64", [0.25]), "name": ("CHAR", [b"a", b"b"]),
                    "u8": ("UINT8", [7])})


def case_encrypted(array_type):
    def run(b):
        if array_type == "dense":
            case_dense_1d(b)
        else:
            case_sparse_2d(b)
    return run


def case_consolidated(b):
    b.create(schema("dense", [dim("d", "INT32", 1, 60, 10)], [attr("a", "INT32")]))
    b.write_dense([[1, 60]], {"a": Field("INT32", list(range(60)))})
    b.write_dense([[21, 40]], {"a": Field("INT32", [500 + i for i in range(20)])})
    b.consolidate()


def case_consolidated_sparse(b):
    b.create(schema("sparse", [dim("x", "INT32", 0, 99, 10)], [attr("v", "FLOAT32")], capacity=8))
    b.write_sparse({"x": list(range(0, 40, 2))}, {"v": Field("FLOAT32", [i * 1.5 for i in range(20)])})
    b.write_sparse({"x": list(range(41, 99, 3))}, {"v": Field("FLOAT32", [-i * 2.0 for i in range(20)])})
    b.consolidate()


class Unsupported(Exception):
    """A whole case needs a feature newer than the release."""


CASES = [
    ("c_dense_1d", case_dense_1d, "Dense 1D int32, a full write and a tile-aligned partial one", ["dense", "dim_1d"]),
    ("c_dense_2d_rowrow", case_dense_2d(("row-major", "row-major")), "Dense 2D int64 dims, float64 and uint16[2]",
     ["dense", "dim_2d"]),
    ("c_dense_2d_colcol", case_dense_2d(("col-major", "col-major")), "Dense 2D, column-major tiles and cells",
     ["dense", "dim_2d", "col_major"]),
    ("c_dense_2d_rowcol", case_dense_2d(("row-major", "col-major")), "Dense 2D, row-major tiles, col-major cells",
     ["dense", "dim_2d", "col_major"]),
    ("c_sparse_2d", case_sparse_2d, "Sparse 2D int64, int32 and var char, two disjoint fragments",
     ["sparse", "dim_2d", "var"]),
    ("c_types_dense", case_types, "Dense, one attribute per fixed numeric type", ["dense", "types"]),
    ("c_filters_dense", case_filters("dense"), "Dense int64 and var char, one attribute per filter pipeline",
     ["dense", "filters"]),
    ("c_filters_sparse", case_filters("sparse"), "Sparse int64 and var char, one attribute per filter pipeline",
     ["sparse", "filters"]),
    ("c_sparse_hilbert", case_hilbert, "Sparse 2D in Hilbert cell order, two fragments", ["sparse", "hilbert"]),
    ("c_sparse_duplicates", case_duplicates, "Sparse 2D with duplicates, two fragments", ["sparse", "duplicates"]),
    ("c_schema_evolution", case_schema_evolution, "Dense 1D, an attribute added between two writes",
     ["dense", "schema_evolution"]),
    ("c_consolidated_fragment_metadata", case_consolidated_fragment_metadata,
     "Sparse 2D, fragment footers consolidated into a .meta file", ["sparse", "consolidated_fragment_metadata"]),
    ("c_nullable_dense", case_nullable, "Dense nullable int32 and nullable var char", ["dense", "nullable"]),
    ("c_metadata", case_metadata, "Dense 1D with array metadata of several types", ["dense", "metadata"]),
    ("c_encrypted_dense", case_encrypted("dense"), "Dense 1D, AES-256-GCM", ["dense", "encryption"]),
    ("c_encrypted_sparse", case_encrypted("sparse"), "Sparse 2D with var char, AES-256-GCM", ["sparse", "encryption"]),
    ("c_consolidated_dense", case_consolidated, "Dense 1D, two writes consolidated", ["dense", "consolidated"]),
    ("c_consolidated_sparse", case_consolidated_sparse, "Sparse 1D, two writes consolidated",
     ["sparse", "consolidated"]),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only")
    args = ap.parse_args(argv)
    lib = tl.Lib(args.lib)
    version = ".".join(map(str, lib.version))
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(os.path.join(args.out, "arrays"))
    arrays, skipped, errors = [], [], []
    only = set(args.only.split(",")) if args.only else None
    for name, fn, description, features in CASES:
        if only and name not in only:
            continue
        key = TEST_KEY if "encryption" in features else None
        b = Builder(lib, name, args.out, description, features, key)
        try:
            fn(b)
            arrays.append(b.entry())
            print("  %-24s %d fragments%s" % (name, len(b.fragments),
                                              "".join("; skipped %s" % s["what"] for s in b.skips)))
        except Unsupported as e:
            skipped.append({"name": name, "reason": str(e)})
            print("  %-24s skipped: %s" % (name, e))
        except Exception as e:  # noqa: BLE001 - reported per case
            errors.append({"name": name, "error": "%s: %s" % (type(e).__name__, e),
                           "traceback": traceback.format_exc()})
            print("  %-24s ERROR %s: %s" % (name, type(e).__name__, e))
    formats = sorted({f["format_version"] for a in arrays for f in a["fragments"]})
    manifest = {"manifest_version": 1, "tiledb_py_version": args.wheel, "libtiledb_version": version,
                "numpy_version": None, "driver": "C API (generate_c.py)", "format_versions": formats,
                "arrays": arrays, "skipped": skipped, "errors": errors}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("libtiledb %s: %d arrays, format %s, %d skipped, %d errors" % (version, len(arrays), formats,
                                                                       len(skipped), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
