#!/usr/bin/env python3
"""Corpus manifests: merge, verify, summarise. Needs only the standard library.

    manifest.py merge CORPUS            merge CORPUS/*/manifest.json into CORPUS/manifest.json
    manifest.py verify MANIFEST         check every listed file exists with its size and sha256
    manifest.py coverage MANIFEST       print the feature x format-version table (markdown)
    manifest.py summary MANIFEST        one line per TileDB version: arrays, skips, size
    manifest.py twins MANIFEST OUTDIR   OUTDIR/manifest.json for the twins interop-rewrite wrote there
"""

import copy
import hashlib
import json
import os
import sys

MANIFEST_VERSION = 1


def _walk_files(node):
    """Yield every {"file": ..., "bytes": ..., "sha256": ...} record."""
    if isinstance(node, dict):
        if "file" in node and "sha256" in node:
            yield node
        for v in node.values():
            yield from _walk_files(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk_files(v)


def _prefix_paths(entry, prefix):
    entry["path"] = prefix + "/" + entry["path"]
    seen = set()
    for rec in _walk_files(entry["fragments"]):
        if id(rec) in seen:  # a record shared by two forms
            continue
        seen.add(id(rec))
        rec["file"] = prefix + "/" + rec["file"]


def merge(corpus):
    parts = []
    for d in sorted(os.listdir(corpus)):
        p = os.path.join(corpus, d, "manifest.json")
        if os.path.isfile(p):
            with open(p) as f:
                parts.append((d, json.load(f)))
    if not parts:
        raise SystemExit("manifest: no */manifest.json under %s" % corpus)
    parts.sort(key=lambda x: [int(p) if p.isdigit() else p for p in x[1]["libtiledb_version"].split(".")])
    out = {"manifest_version": MANIFEST_VERSION, "versions": [], "arrays": []}
    for d, m in parts:
        out["versions"].append({
            "dir": d,
            "tiledb_py_version": m["tiledb_py_version"],
            "libtiledb_version": m["libtiledb_version"],
            "numpy_version": m.get("numpy_version"),
            "format_versions": m["format_versions"],
            "arrays": len(m["arrays"]),
            "skipped": m["skipped"],
            "errors": m["errors"],
        })
        for a in m["arrays"]:
            _prefix_paths(a, d)
            a["id"] = d + "/" + a["name"]
            out["arrays"].append(a)
    path = os.path.join(corpus, "manifest.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return out


def load(path):
    with open(path) as f:
        return json.load(f)


def verify(path):
    m = load(path)
    root = os.path.dirname(os.path.abspath(path))
    bad = 0
    n = 0
    for a in m["arrays"]:
        if not os.path.isdir(os.path.join(root, a["path"])):
            print("missing array %s" % a["path"])
            bad += 1
        for rec in _walk_files(a["fragments"]):
            n += 1
            p = os.path.join(root, rec["file"])
            try:
                with open(p, "rb") as f:
                    data = f.read()
            except OSError as e:
                print("missing %s (%s)" % (rec["file"], e))
                bad += 1
                continue
            if len(data) != rec["bytes"] or hashlib.sha256(data).hexdigest() != rec["sha256"]:
                print("mismatch %s" % rec["file"])
                bad += 1
    print("verify: %d arrays, %d expected-value files, %d problems" % (len(m["arrays"]), n, bad))
    return 1 if bad else 0


def _format_versions(m):
    if "versions" in m:
        return [(v["dir"], v["libtiledb_version"], v["format_versions"]) for v in m["versions"]]
    return [(".", m["libtiledb_version"], m["format_versions"])]


_TYPE_TAGS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
              "bool", "char", "ascii", "utf8", "blob", "blob_fixed", "char_var", "datetime", "time"}
_FILTER_TAGS = {"gzip", "zstd", "lz4", "rle", "bzip2", "double_delta", "delta", "bit_width_reduction", "bitshuffle",
                "byteshuffle", "positive_delta", "checksum_md5", "checksum_sha256", "dictionary", "float_scale",
                "xor", "webp", "noop"}


def _array_features(a):
    """(section, feature) pairs an array covers: its structural tags, plus
    datatypes, filters and metadata types read from its schema facts."""
    out = set()
    for t in a["features"]:
        if t not in _TYPE_TAGS and t not in _FILTER_TAGS:
            out.add(("structure", t))
    s = a["schema"]
    for d in s["dims"]:
        out.add(("dimension datatype", d["type"]))
    for at in s["attrs"]:
        kind = "var " if at["var"] else ("%d x " % at["cell_val_num"] if at["cell_val_num"] != 1 else "")
        out.add(("attribute datatype", at["type"]))
        if kind:
            out.add(("attribute datatype", kind + at["type"]))
        if at["nullable"]:
            out.add(("attribute datatype", "nullable " + at["type"]))
    pipelines = [x["filters"] for x in s["dims"] + s["attrs"]]
    pipelines += [s[k] for k in ("coords_filters", "offsets_filters", "validity_filters") if s.get(k)]
    for p in pipelines:
        names = [f["type"] for f in p["filters"]]
        for n in names:
            out.add(("filter", n))
        if len(names) > 1:
            out.add(("filter pipeline", ", ".join(names)))
    for k, e in ((a.get("metadata") or {}).get("entries") or {}).items():
        out.add(("metadata value type", e["type"] + (" (0 values)" if e["count"] == 0 else "")))
    return out


def coverage(path):
    m = load(path)
    cols = []
    for d, lib, fv in _format_versions(m):
        cols.append((d, "%s (%s)" % (",".join(str(x) for x in fv), lib)))
    counts = {}
    for a in m["arrays"]:
        d = a["id"].split("/")[0] if "id" in a else "."
        for feat in _array_features(a):
            counts.setdefault(feat, {}).setdefault(d, 0)
            counts[feat][d] += 1
    lines = ["| section | feature | " + " | ".join(c[1] for c in cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    order = ["structure", "dimension datatype", "attribute datatype", "filter", "filter pipeline", "metadata value type"]
    for sec, feat in sorted(counts, key=lambda x: (order.index(x[0]), x[1])):
        row = [str(counts[(sec, feat)].get(d, "-")) for d, _ in cols]
        lines.append("| %s | %s | %s |" % (sec, feat, " | ".join(row)))
    print("\n".join(lines))
    return 0


def summary(path):
    m = load(path)
    root = os.path.dirname(os.path.abspath(path))
    for v in m.get("versions", []):
        size = 0
        for dirpath, _, files in os.walk(os.path.join(root, v["dir"])):
            size += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
        print("TileDB-Py %-7s libtiledb %-7s format %-4s %3d arrays, %2d skipped, %d errors, %.1f MB" % (
            v["tiledb_py_version"], v["libtiledb_version"], ",".join(str(x) for x in v["format_versions"]),
            v["arrays"], len(v["skipped"]), len(v["errors"]), size / 1e6))
    return 0


def twins(corpus_manifest, outdir):
    """OUTDIR/manifest.json for the twins interop-rewrite wrote (OUTDIR/twins.txt):
    each original's entry with the twin's path, the original's expected files
    (paths relative to OUTDIR) and its metadata, without time travel (a twin is
    read as it is now)."""
    root = os.path.dirname(os.path.abspath(corpus_manifest))
    outdir = os.path.abspath(outdir)
    by_id = {a["id"]: a for a in load(corpus_manifest)["arrays"]}
    arrays = []
    with open(os.path.join(outdir, "twins.txt")) as f:
        for line in f:
            ident, path = line.rstrip("\n").split("\t")
            e = copy.deepcopy(by_id[ident])
            e.update(path=path, twin_of=ident)
            e.pop("time_travel", None)
            for rec in _walk_files(e["fragments"]):
                rec["file"] = os.path.relpath(os.path.join(root, rec["file"]), outdir)
            arrays.append(e)
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump({"manifest_version": MANIFEST_VERSION, "arrays": arrays}, f, indent=1)
        f.write("\n")
    print("manifest: %d twins in %s" % (len(arrays), os.path.join(outdir, "manifest.json")))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "twins":
        return twins(argv[2], argv[3])
    if len(argv) != 3 or argv[1] not in ("merge", "verify", "coverage", "summary"):
        print(__doc__)
        return 2
    cmd, arg = argv[1], argv[2]
    if cmd == "merge":
        m = merge(arg)
        print("manifest: merged %d arrays from %d TileDB versions into %s" % (
            len(m["arrays"]), len(m["versions"]), os.path.join(arg, "manifest.json")))
        return 0
    return {"verify": verify, "coverage": coverage, "summary": summary}[cmd](arg)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
