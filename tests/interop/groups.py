#!/usr/bin/env python3
"""TileDB groups in the interop corpus, both ways.

    groups.py generate --out DIR [--lib FOLDER]   # this release writes groups, records how it reads them
    groups.py view --lib FOLDER DIR                # how a release reads the groups under DIR (JSON)
    groups.py compare EXPECTED.json ACTUAL.json    # the same view? (standard library only)
    groups.py check --lib FOLDER DIR               # a release reads DIR as DIR/intended.json says

`generate` runs inside a TileDB-Py environment (groups written with
tiledb.Group, as users write them) or, with --lib, drives an older
libtiledb's C API (libtiledb_c.py): releases before 2.8 make the groups of
their time (a folder with `__tiledb_group.tdb`, members found by listing),
2.8 on group-details files. Either way the groups are read back through the
same library's C API into DIR/groups/expected.json, the *view*:

    objects   every folder under the root (not `__*` ones): its tiledb_object_type
    ls        every group: tiledb_object_ls, in the order returned
    walk      the root and each case: tiledb_object_walk, pre- and post-order
    groups    every group (2.8 on): members (path, type, name) and metadata
              (key, datatype, value bytes in hex), each sorted

Paths are relative to DIR/groups. tilefmt prints the same view of the same
folder (interop-groups view) and `compare` must find them equal. The other
direction: interop-groups writes groups and their view as tilefmt reads them
(intended.json), and `check` has each release read them.
"""

import argparse
import ctypes as C
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import libtiledb_c as tl  # noqa: E402

OBJECT_TYPES = {0: "INVALID", 1: "GROUP", 2: "ARRAY"}
QUERY_READ, QUERY_WRITE = 0, 1
WALK_CB = C.CFUNCTYPE(C.c_int32, C.c_char_p, C.c_int, C.c_void_p)

# Metadata written in every case that has metadata: (key, datatype, values).
METADATA = [
    ("count", "INT64", [42]),
    ("ratio", "FLOAT64", [0.25]),
    ("title", "STRING_UTF8", "a group \u00e9crit"),
    ("shape", "INT32", [3, 4, 5]),
    ("flags", "UINT8", [1, 0, 1, 1]),
    ("letter", "CHAR", "x"),
]
# Every datatype TileDB stores metadata of (not ANY, which it refuses): name,
# code, bytes per value, the first libtiledb that has it.
METADATA_TYPES = (
    [(n, c, z, (1, 5, 0)) for n, c, z in [
        ("INT32", 0, 4), ("INT64", 1, 8), ("FLOAT32", 2, 4), ("FLOAT64", 3, 8), ("CHAR", 4, 1), ("INT8", 5, 1),
        ("UINT8", 6, 1), ("INT16", 7, 2), ("UINT16", 8, 2), ("UINT32", 9, 4), ("UINT64", 10, 8),
        ("STRING_ASCII", 11, 1), ("STRING_UTF8", 12, 1), ("STRING_UTF16", 13, 2), ("STRING_UTF32", 14, 4),
        ("STRING_UCS2", 15, 2), ("STRING_UCS4", 16, 4)]]
    + [("DATETIME_" + u, 18 + i, 8, (1, 7, 0))
       for i, u in enumerate(["YEAR", "MONTH", "WEEK", "DAY", "HR", "MIN", "SEC", "MS", "US", "NS", "PS", "FS", "AS"])]
    + [("TIME_" + u, 31 + i, 8, (2, 3, 0)) for i, u in enumerate(["HR", "MIN", "SEC", "MS", "US", "NS", "PS", "FS", "AS"])]
    + [("BLOB", 40, 1, (2, 7, 0)), ("BOOL", 41, 1, (2, 10, 0)), ("GEOM_WKB", 42, 1, (2, 21, 0)),
       ("GEOM_WKT", 43, 1, (2, 21, 0))])
TINY_ARRAY = {
    "array_type": "dense", "cell_order": "row-major", "tile_order": "row-major", "capacity": 0,
    "dims": [{"name": "d", "type": "INT32", "domain": [0, 3], "tile_extent": 4}],
    "attrs": [{"name": "a", "type": "INT32", "cell_val_num": 1, "nullable": False}],
}


class Skip(Exception):
    pass


# ---------------------------------------------------------------- reading (C API)


class Reader:
    """How one libtiledb reads groups, through its C API."""

    def __init__(self, lib):
        self.lib = lib
        self.ctx = lib.ctx()
        self.has_groups = lib.has("tiledb_group_alloc")
        lib.fn("tiledb_datatype_size").restype = C.c_uint64

    def object_type(self, path):
        t = C.c_int()
        self.ctx.call("tiledb_object_type", path.encode(), C.byref(t))
        return OBJECT_TYPES[t.value]

    def _collect(self, fn, path, *order):
        out = []

        def cb(p, t, _data):
            out.append((p.decode(), OBJECT_TYPES[t]))
            return 1

        keep = WALK_CB(cb)
        self.ctx.call(fn, path.encode(), *order, keep, None)
        return out

    def ls(self, path):
        return self._collect("tiledb_object_ls", path)

    def walk(self, path, post):
        return self._collect("tiledb_object_walk", path, C.c_int(1 if post else 0))

    def group(self, path):
        """(members, metadata) of the group at `path`."""
        g = self.ctx.alloc("tiledb_group_alloc", path.encode())
        self.ctx.call("tiledb_group_open", g, C.c_int(QUERY_READ))
        try:
            n = C.c_uint64()
            self.ctx.call("tiledb_group_get_member_count", g, C.byref(n))
            members = [self._member(g, i) for i in range(n.value)]
            self.ctx.call("tiledb_group_get_metadata_num", g, C.byref(n))
            meta = [self._meta(g, i) for i in range(n.value)]
        finally:
            self.ctx.call("tiledb_group_close", g)
            self.lib.fn("tiledb_group_free")(C.byref(g))
        return members, meta

    def _member(self, g, i):
        t = C.c_int()
        if self.lib.has("tiledb_group_get_member_by_index_v2"):
            uri, name = C.c_void_p(), C.c_void_p()
            self.ctx.call("tiledb_group_get_member_by_index_v2", g, C.c_uint64(i), C.byref(uri), C.byref(t),
                          C.byref(name))
            return self._string(uri), OBJECT_TYPES[t.value], self._string(name)
        uri, name = C.c_char_p(), C.c_char_p()
        self.ctx.call("tiledb_group_get_member_by_index", g, C.c_uint64(i), C.byref(uri), C.byref(t), C.byref(name))
        return uri.value.decode(), OBJECT_TYPES[t.value], name.value.decode() if name.value is not None else None

    def _string(self, s):
        if not s.value:
            return None
        data, size = C.c_char_p(), C.c_size_t()
        if self.lib.fn("tiledb_string_view")(s, C.byref(data), C.byref(size)) != 0:
            raise tl.TileDBError("tiledb_string_view failed")
        text = C.string_at(data, size.value).decode()
        self.lib.fn("tiledb_string_free")(C.byref(s))
        return text

    def _meta(self, g, i):
        key, key_len, t, num, value = C.c_char_p(), C.c_uint32(), C.c_int(), C.c_uint32(), C.c_void_p()
        self.ctx.call("tiledb_group_get_metadata_from_index", g, C.c_uint64(i), C.byref(key), C.byref(key_len),
                      C.byref(t), C.byref(num), C.byref(value))
        size = num.value * self.lib.fn("tiledb_datatype_size")(t)
        raw = C.string_at(value.value, size) if value.value and size else b""
        return C.string_at(key, key_len.value).decode(), t.value, raw.hex()


def _rel(root, uri):
    p = uri[len("file://"):] if uri.startswith("file://") else uri
    return os.path.relpath(os.path.normpath(p.rstrip("/")), root)


def view(reader, root):
    """The view of every object under `root` (see the module's text)."""
    root = os.path.realpath(root)
    out = {"objects": {}, "ls": {}, "walk": {}, "groups": {}}
    folders = []
    for here, dirs, _files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("__"))
        folders += [os.path.join(here, d) for d in dirs]
    for f in folders:
        rel = os.path.relpath(f, root)
        t = reader.object_type(f)
        out["objects"][rel] = t
        if t == "GROUP":
            out["ls"][rel] = [[_rel(root, p), tt] for p, tt in reader.ls(f)]
            if reader.has_groups:
                members, meta = reader.group(f)
                out["groups"][rel] = {"members": [[_rel(root, u), tt, n] for u, tt, n in members],
                                      "metadata": [[k, t2, v] for k, t2, v in meta]}
    for start in ["."] + [os.path.relpath(f, root) for f in folders if os.path.dirname(f) == root]:
        path = os.path.join(root, start)
        out["walk"][start] = {"pre": [[_rel(root, p), t] for p, t in reader.walk(path, False)],
                              "post": [[_rel(root, p), t] for p, t in reader.walk(path, True)]}
    return out


def _sorted_groups(groups):
    return {g: {"members": sorted(v["members"], key=lambda m: (m[0], m[1], m[2] or "")),
                "metadata": sorted(v["metadata"])} for g, v in groups.items()}


def compare(expected, actual, skip_groups=False):
    """The differences between two views, as lines (members and metadata in
    any order: TileDB's member order is that of a hash map)."""
    expected, actual = dict(expected), dict(actual)
    expected["groups"] = _sorted_groups(expected.get("groups", {}))
    actual["groups"] = _sorted_groups(actual.get("groups", {}))
    diffs = []
    for section in ("objects", "ls", "walk", "groups"):
        if skip_groups and section == "groups":
            continue
        e, a = expected.get(section, {}), actual.get(section, {})
        for key in sorted(set(e) | set(a)):
            if e.get(key) != a.get(key):
                diffs.append("%s[%s]: expected %s, got %s" % (section, key, json.dumps(e.get(key)),
                                                               json.dumps(a.get(key))))
    return diffs


# ---------------------------------------------------------------- writing


def pack(type_name, values):
    if isinstance(values, str):
        raw = values.encode()
        return len(raw), raw
    return len(values), tl._pack(tl.STRUCT_CODE[type_name], values)


class CWriter:
    """Groups written through a libtiledb's C API."""

    def __init__(self, lib):
        self.lib = lib
        self.ctx = lib.ctx()
        self.version = lib.version
        self.details = lib.has("tiledb_group_alloc")

    def create_group(self, path):
        self.ctx.call("tiledb_group_create", path.encode())

    def create_array(self, path):
        self.ctx.create(path, TINY_ARRAY)

    def session(self, path):
        return _CSession(self, path)

    def consolidate_metadata(self, path):
        if not self.lib.has("tiledb_group_consolidate_metadata"):
            raise Skip("libtiledb %s has no group metadata consolidation" % ".".join(map(str, self.version)))
        self.ctx.call("tiledb_group_consolidate_metadata", path.encode(), self._config())

    def vacuum_metadata(self, path):
        self.ctx.call("tiledb_group_vacuum_metadata", path.encode(), self._config())

    def _config(self):
        """An empty configuration: some releases refuse none."""
        cfg, err = C.c_void_p(), C.c_void_p()
        if self.lib.fn("tiledb_config_alloc")(C.byref(cfg), C.byref(err)) != 0:
            raise tl.TileDBError("tiledb_config_alloc failed")
        return cfg


class _CSession:
    def __init__(self, w, path):
        self.w, self.ctx = w, w.ctx
        self.g = self.ctx.alloc("tiledb_group_alloc", path.encode())
        self.ctx.call("tiledb_group_open", self.g, C.c_int(QUERY_WRITE))

    def add(self, uri, relative, name=None):
        self.ctx.call("tiledb_group_add_member", self.g, uri.encode(), C.c_uint8(relative),
                      name.encode() if name else None)

    def remove(self, key):
        self.ctx.call("tiledb_group_remove_member", self.g, key.encode())

    def put(self, key, type_name, values):
        num, raw = pack(type_name, values)
        buf = C.create_string_buffer(raw, len(raw))
        self.ctx.call("tiledb_group_put_metadata", self.g, key.encode(), C.c_int(tl.DATATYPES[type_name]),
                      C.c_uint32(num), buf)

    def put_raw(self, key, code, num, raw):
        buf = C.create_string_buffer(raw, max(len(raw), 1))
        self.ctx.call("tiledb_group_put_metadata", self.g, key.encode(), C.c_int(code), C.c_uint32(num), buf)

    def delete(self, key):
        self.ctx.call("tiledb_group_delete_metadata", self.g, key.encode())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.ctx.call("tiledb_group_close", self.g)
        self.w.lib.fn("tiledb_group_free")(C.byref(self.g))
        time.sleep(0.005)  # the next session gets a later millisecond


class PyWriter:
    """Groups written with TileDB-Py's tiledb.Group, as its users write them."""

    def __init__(self):
        import numpy as np
        import tiledb
        self.np, self.tiledb = np, tiledb
        self.details = True
        self.version = tiledb.libtiledb.version()

    def create_group(self, path):
        self.tiledb.Group.create(path)

    def create_array(self, path):
        t = self.tiledb
        dom = t.Domain(t.Dim(name="d", domain=(0, 3), tile=4, dtype=self.np.int32))
        t.Array.create(path, t.ArraySchema(domain=dom, attrs=[t.Attr(name="a", dtype=self.np.int32)]))

    def session(self, path):
        return _PySession(self, path)

    # Through the C API where this TileDB-Py has no Group.consolidate_metadata
    # (before 0.20): its libtiledb has it from 2.12.
    def consolidate_metadata(self, path):
        if hasattr(self.tiledb.Group, "consolidate_metadata"):
            self.tiledb.Group.consolidate_metadata(path)
        else:
            CWriter(tl.Lib(path=tl.loaded_library())).consolidate_metadata(path)

    def vacuum_metadata(self, path):
        if hasattr(self.tiledb.Group, "vacuum_metadata"):
            self.tiledb.Group.vacuum_metadata(path)
        else:
            CWriter(tl.Lib(path=tl.loaded_library())).vacuum_metadata(path)


class _PySession:
    def __init__(self, w, path):
        self.w = w
        self.g = w.tiledb.Group(path, "w")

    def add(self, uri, relative, name=None):
        self.g.add(uri, name=name, relative=relative)

    def remove(self, key):
        self.g.remove(key)

    def put(self, key, type_name, values):
        np = self.w.np
        if type_name == "INT64":
            v = int(values[0])
        elif type_name == "FLOAT64":
            v = float(values[0])
        elif type_name == "STRING_UTF8":
            v = values
        elif type_name == "CHAR":
            v = values.encode()  # bytes: TileDB-Py stores them as its release does (CHAR or BLOB)
        else:
            v = np.array(values, dtype={"INT32": np.int32, "UINT8": np.uint8}[type_name])
        self.g.meta[key] = v

    def delete(self, key):
        del self.g.meta[key]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.g.close()
        time.sleep(0.005)


# ---------------------------------------------------------------- cases


def _tree(w, g):
    """Group `g` holding array a and group sub, which holds array b."""
    w.create_group(g)
    w.create_array(os.path.join(g, "a"))
    w.create_group(os.path.join(g, "sub"))
    w.create_array(os.path.join(g, "sub", "b"))


def case_legacy(w, root):
    """A group tree as every release makes it with tiledb_group_create:
    before 2.8 a marker only, members found by listing (a plain folder in
    between hides what it holds from ls and walk)."""
    g = os.path.join(root, "legacy")
    _tree(w, g)
    os.makedirs(os.path.join(g, "plain"))
    w.create_array(os.path.join(g, "plain", "hidden"))


def case_nested(w, root):
    """Nested groups; relative and absolute members, named and unnamed;
    metadata of several types."""
    g = os.path.join(root, "nested")
    _tree(w, g)
    w.create_array(os.path.join(root, "outside"))
    with w.session(os.path.join(g, "sub")) as s:
        s.add("b", True)
        s.put("level", "INT64", [2])
    with w.session(g) as s:
        s.add("a", True, "a")
        s.add("sub", True, "sub")
        s.add("file://" + os.path.join(root, "outside"), False, "ext")
        for k, t, v in METADATA:
            s.put(k, t, v)


def case_sessions(w, root):
    """Members and metadata changed over three sessions: removed, re-added
    under another name, keys deleted and put again."""
    g = os.path.join(root, "sessions")
    w.create_group(g)
    for x in ("x", "y", "z"):
        w.create_array(os.path.join(g, x))
    with w.session(g) as s:
        s.add("x", True, "x")
        s.add("y", True, "y")
        s.put("k1", "INT64", [1])
        s.put("k2", "STRING_UTF8", "first")
    with w.session(g) as s:
        s.remove("y")
        s.add("z", True)
        s.delete("k1")
        s.put("k3", "FLOAT64", [1.5])
    with w.session(g) as s:
        s.add("y", True, "y2")
        s.put("k2", "STRING_UTF8", "second")


def _meta_sessions(w, g):
    w.create_group(g)
    w.create_array(os.path.join(g, "m"))
    with w.session(g) as s:
        s.add("m", True, "m")
        for k, t, v in METADATA[:3]:
            s.put(k, t, v)
    with w.session(g) as s:
        s.delete("count")
        s.put("ratio", "FLOAT64", [0.5])
    with w.session(g) as s:
        s.put("more", "INT32", [7, 8])


def case_consolidated(w, root):
    """Metadata of three sessions consolidated, not vacuumed."""
    g = os.path.join(root, "consolidated")
    _meta_sessions(w, g)
    w.consolidate_metadata(g)


def case_vacuumed(w, root):
    """Metadata of three sessions consolidated and vacuumed."""
    g = os.path.join(root, "vacuumed")
    _meta_sessions(w, g)
    w.consolidate_metadata(g)
    w.vacuum_metadata(g)


def case_types(w, root):
    """One metadata key of every datatype the release has, through its C API
    (TileDB-Py's meta writes a few): three values each (BOOL 1, 0, 1), and
    an empty value."""
    g = os.path.join(root, "types")
    cw = w if isinstance(w, CWriter) else CWriter(tl.Lib(path=tl.loaded_library()))
    cw.create_group(g)
    with cw.session(g) as s:
        for name, code, size, since in METADATA_TYPES:
            if tuple(cw.version) < since:
                continue
            raw = bytes([1, 0, 1]) if name == "BOOL" else bytes((7 * i + 1) % 256 for i in range(3 * size))
            s.put_raw(name.lower(), code, 3, raw)
        s.put_raw("empty", 0, 0, b"")


CASES = [case_legacy, case_nested, case_sessions, case_consolidated, case_vacuumed, case_types]


def generate(out, lib_folder=None):
    root = os.path.join(os.path.abspath(out), "groups")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    if lib_folder:
        lib = tl.Lib(folder=lib_folder)
        w = CWriter(lib)
    else:
        w = PyWriter()
        lib = tl.Lib(path=tl.loaded_library())
    made, skipped = [], []
    for fn in CASES:
        name = fn.__name__[len("case_"):]
        if not w.details and name != "legacy":
            skipped.append([name, "libtiledb before 2.8 has no group members or metadata"])
            continue
        try:
            fn(w, root)
            made.append(name)
        except (Skip, tl.Missing) as e:
            skipped.append([name, str(e)])
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    result = view(Reader(lib), root)
    result["cases"], result["skipped"] = made, skipped
    result["libtiledb"] = ".".join(map(str, lib.version))
    result["has_groups"] = w.details
    with open(os.path.join(root, "expected.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print("groups: %d cases (%s), %d skipped, %d groups read back" % (
        len(made), ", ".join(made), len(skipped), len(result["groups"]) or len(result["ls"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    g.add_argument("--lib")
    v = sub.add_parser("view")
    v.add_argument("--lib", required=True)
    v.add_argument("dir")
    c = sub.add_parser("compare")
    c.add_argument("expected")
    c.add_argument("actual")
    k = sub.add_parser("check")
    k.add_argument("--lib", required=True)
    k.add_argument("dir")
    a = ap.parse_args()
    if a.cmd == "generate":
        generate(a.out, a.lib)
    elif a.cmd == "view":
        json.dump(view(Reader(tl.Lib(folder=a.lib)), a.dir), sys.stdout, indent=1, sort_keys=True)
    elif a.cmd == "compare":
        with open(a.expected) as f:
            e = json.load(f)
        with open(a.actual) as f:
            x = json.load(f)
        diffs = compare(e, x, skip_groups=not e.get("has_groups", True))
        for d in diffs:
            print("  " + d)
        sys.exit(1 if diffs else 0)
    else:
        lib = tl.Lib(folder=a.lib)
        reader = Reader(lib)
        with open(os.path.join(a.dir, "intended.json")) as f:
            intended = json.load(f)
        diffs = []
        # tree -> [the oldest release that reads it, whether members and metadata count]
        for tree, (oldest, details) in intended["trees"].items():
            if lib.version < tuple(oldest):
                continue
            sub_view = view(reader, os.path.join(a.dir, tree))
            diffs += ["%s: %s" % (tree, d) for d in compare(intended["views"][tree], sub_view,
                                                            skip_groups=not (details and reader.has_groups))]
        for d in diffs:
            print("  " + d)
        print("libtiledb %s: %s" % (".".join(map(str, lib.version)), "reads tilefmt's groups as tilefmt does"
                                    if not diffs else "%d differences" % len(diffs)))
        sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
