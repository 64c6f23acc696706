#!/usr/bin/env python3
"""An older libtiledb reads arrays someone else wrote (tilefmt's twins of the
C API corpus, interop-rewrite) through its C API and must read what the
manifest says they hold.

    python3 reverse_check_c.py --libs DIR MANIFEST

DIR/<libtiledb version>/ holds each release's libtiledb (scripts/interop.sh
puts them in build/interop/libtiledb). Each array is read by the release that
wrote its original (the manifest's `libtiledb_version`), in a process of its
own per release; arrays of releases not under DIR are left to
reverse_check.py (TileDB-Py). A fragment is read as generate_c.py read it
back: the array opened at the fragment's timestamp, its box read row-major
and put in global order (dense) or read in global order (sparse); the C API
corpus is built so that this box holds the fragment's cells only.

One line per array, then `N passed, M failed`; exit 1 on any failure.
"""

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ctypes as C  # noqa: E402

import generate_c as gen  # noqa: E402
import libtiledb_c as tl  # noqa: E402


def _read_expected(root, rec):
    with open(os.path.join(root, rec["file"]), "rb") as f:
        return f.read()


def _key(entry):
    """The AES-256-GCM key of an encrypted array (bytes), or None."""
    enc = entry.get("encryption")
    return enc["key"].encode() if enc else None


def _read_fragment(ctx, lib, uri, spec, frag, key):
    """{field: (data, offsets, validity)} libtiledb reads for a fragment."""
    b = gen.Builder(lib, "", "", "", [], key)
    b.ctx, b.uri, b.spec = ctx, uri, spec
    t = frag["timestamp_range"][1]
    real_open = ctx.open

    def open_at(uri_, query_type, key=None):  # the array as it was when the fragment was written
        arr = ctx.alloc("tiledb_array_alloc", uri_.encode())
        if key is None:
            ctx.call("tiledb_array_open_at", arr, C.c_int(query_type), C.c_uint64(t))
        else:
            ctx.call("tiledb_array_open_at_with_key", arr, C.c_int(query_type), C.c_int(tl.AES_256_GCM), key,
                     C.c_uint32(len(key)), C.c_uint64(t))
        return tl.Array(ctx, arr)

    ctx.open = open_at
    try:
        fields = b._read_back(frag["non_empty_domain"], frag["sparse"])
    finally:
        ctx.open = real_open
    return {name: (data, offs, val) for name, (_, data, offs, val) in fields.items()}


def _spec(entry):
    s = entry["schema"]
    dims = [{"name": d["name"], "type": d["type"], "domain": d["domain"], "tile_extent": d["tile_extent"]}
            for d in s["dims"]]
    attrs = [{"name": a["name"], "type": a["type"], "cell_val_num": a["cell_val_num"], "nullable": a["nullable"]}
             for a in s["attrs"]]
    return {"array_type": s["array_type"], "dims": dims, "attrs": attrs, "cell_order": s["cell_order"],
            "tile_order": s["tile_order"]}


def check_array(lib, entry, root):
    ctx = lib.ctx()
    uri = os.path.join(root, entry["path"])
    spec = _spec(entry)
    problems = []
    if entry.get("metadata"):
        with ctx.open(uri, tl.QUERY_READ, _key(entry)) as arr:
            for key, want in entry["metadata"]["entries"].items():
                got = arr.get_metadata(key)
                if got is None:
                    problems.append("metadata %r: missing" % key)
                elif (got[0], got[2].hex()) != (want["type"], want["hex"]):
                    problems.append("metadata %r: expected %s %s, libtiledb has %s %s" % (
                        key, want["type"], want["hex"], got[0], got[2].hex()))
            for key in entry["metadata"].get("deleted_keys", []):
                if arr.get_metadata(key) is not None:
                    problems.append("metadata %r: deleted, but libtiledb still has it" % key)
    for frag in entry["fragments"]:
        # The attributes the fragment was written with (fewer than the
        # schema's before an evolution).
        frag_spec = dict(spec, attrs=[a for a in spec["attrs"] if a["name"] in frag["fields"]])
        got = _read_fragment(ctx, lib, uri, frag_spec, frag, _key(entry))
        for name, facts in frag["fields"].items():
            form = facts["expected"][frag["primary"]]
            data, offs, val = got[name]
            if data != _read_expected(root, form["data"]):
                problems.append("%s %s: values differ" % (frag["name"], name))
            if form.get("offsets") and gen.pack("UINT64", offs or []) != _read_expected(root, form["offsets"]):
                problems.append("%s %s: offsets differ" % (frag["name"], name))
            if form.get("validity") and val != _read_expected(root, form["validity"]):
                problems.append("%s %s: validity differs" % (frag["name"], name))
    return problems


def run_release(libdir, manifest_path, version):
    lib = tl.Lib(libdir)
    root = os.path.dirname(os.path.abspath(manifest_path))
    with open(manifest_path) as f:
        m = json.load(f)
    passed = failed = 0
    for entry in m["arrays"]:
        if entry["libtiledb_version"] != version:
            continue
        name = entry.get("twin_of", entry["name"])
        try:
            problems = check_array(lib, entry, root)
        except tl.TileDBError as e:
            problems = ["libtiledb: %s" % e]
        if problems:
            failed += 1
            print("FAIL    %s (libtiledb %s): %s" % (name, version, "; ".join(problems[:3])))
        else:
            passed += 1
            print("ok      %s (libtiledb %s)" % (name, version))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--libs", required=True)
    ap.add_argument("--release", help=argparse.SUPPRESS)  # the child's: one release
    ap.add_argument("manifest")
    args = ap.parse_args(argv)
    if args.release:
        return run_release(os.path.join(args.libs, args.release), args.manifest, args.release)
    with open(args.manifest) as f:
        m = json.load(f)
    by_release = defaultdict(int)
    for e in m["arrays"]:
        by_release[e["libtiledb_version"]] += 1
    passed = failed = 0
    for version in sorted(by_release, key=lambda v: [int(x) for x in v.split(".")]):
        if not os.path.isdir(os.path.join(args.libs, version)):
            continue
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--libs", args.libs, "--release", version,
                              args.manifest], capture_output=True, text=True)
        lines = out.stdout.splitlines()
        for line in lines[:-1]:
            if not line.startswith("ok"):
                print(line)
        tail = lines[-1] if lines else ""
        if out.returncode not in (0, 1) or not tail.endswith("failed"):
            print("FAIL    libtiledb %s: the reader died (%d): %s" % (version, out.returncode, out.stderr[-500:]))
            failed += by_release[version]
            continue
        p, f = int(tail.split()[0]), int(tail.split()[2])
        print("libtiledb %s: %d arrays read as written, %d not" % (version, p, f))
        passed += p
        failed += f
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
