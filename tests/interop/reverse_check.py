#!/usr/bin/env python3
"""Read arrays written by someone else (tilefmt's writer) with TileDB-Py and
compare them with the values they were meant to hold.

    reverse_check.py MANIFEST [--only NAME[,NAME...]] [--data-only] [--quiet]
    reverse_check.py --selftest [--keep DIR]

MANIFEST has the layout generate.py writes (README.md): for each array its
path, schema facts, metadata and, per fragment, the intended values of every
field as raw files. Each array is opened with TileDB-Py, every fragment read
back alone in storage order, and the bytes compared with the intended files;
the schema facts and the metadata are compared too. Only what the manifest
states is checked, so a writer may leave out what it does not know (fragment
names, a filter option, the global/ form).

Prints one line per array and a closing `N passed, M failed`; exits non-zero
when any array fails.

--selftest generates a few arrays with this TileDB-Py, checks unaltered
copies (must pass) and copies with one deliberately wrong expectation each
(must fail), and reports `selftest: N passed, M failed` over those outcomes.
"""

import argparse
import copy
import json
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tdbcompat as tc  # noqa: E402
import expected as ex  # noqa: E402


# ---------------------------------------------------------------- comparing


def _diff(path, want, got, out):
    """Record differences where `want` states something."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append("%s: expected an object, TileDB has %r" % (path, got))
            return
        for k, v in want.items():
            if k not in got:
                out.append("%s.%s: missing in TileDB's view" % (path, k))
            else:
                _diff("%s.%s" % (path, k), v, got[k], out)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(want) != len(got):
            out.append("%s: expected %d items, TileDB has %s" % (path, len(want), len(got) if isinstance(got, list) else got))
            return
        for i, (w, g) in enumerate(zip(want, got)):
            _diff("%s[%d]" % (path, i), w, g, out)
    elif want != got:
        out.append("%s: expected %r, TileDB has %r" % (path, want, got))


def _read(root, rec):
    with open(os.path.join(root, rec["file"]), "rb") as f:
        return f.read()


def check_array(entry, root, data_only=False):
    """Returns a list of problems (empty: pass). data_only: compare values
    only, not schema facts or metadata (for reading another release's corpus:
    releases report some schema facts differently, see README.md)."""
    problems = []
    uri = os.path.join(root, entry["path"])
    key = (entry.get("encryption") or {}).get("key")
    if not os.path.isdir(uri):
        return ["no array at %s" % uri]
    try:
        with tc.open_array(uri, key=key) as A:
            schema = ex.describe_schema(A.schema, ex.tiledb_fills(A, A.schema, ex.written_domain(A), uri=uri, key=key))
    except Exception as e:
        return ["TileDB cannot open the array: %s" % e]
    if "schema" in entry and not data_only:
        _diff("schema", entry["schema"], schema, problems)

    if entry.get("metadata") and not data_only:
        want = entry["metadata"]
        got = tc.read_metadata_raw(uri, key, user_keys=[k.replace("__np_flat_", "") for k in want.get("entries", {})])
        for k, e in want.get("entries", {}).items():
            if k not in got:
                problems.append("metadata %r: missing" % k)
            elif (got[k][0], got[k][1].hex()) != (e["type"], e["hex"]):
                problems.append("metadata %r: expected %s %s, TileDB has %s %s" % (k, e["type"], e["hex"], got[k][0], got[k][1].hex()))
        for k in want.get("deleted_keys", []):
            if k in got:
                problems.append("metadata %r: deleted, but TileDB still has it" % k)
        extra = set(got) - set(want.get("entries", {}))
        if "entries" in want and extra:
            problems.append("metadata: unexpected keys %s" % sorted(extra))

    # Enumerations, read through the attribute that names them (TileDB loads
    # the enumeration files, decrypting them, only then).
    for name, labels in entry.get("enumerations", {}).items():
        try:
            with tc.open_array(uri, key=key) as A:
                if not hasattr(A, "enum"):
                    continue  # a release without enumerations in its Python API
                got = [v.decode() if isinstance(v, bytes) else str(v) for v in A.enum(name).values()]
        except Exception as e:
            problems.append("enumeration %s: TileDB cannot read it: %s" % (name, e))
            continue
        if got != labels:
            problems.append("enumeration %s: expected %r, TileDB has %r" % (name, labels, got))

    # Whole-array reads (deletes, evolutions and consolidations applied):
    # the values of one attribute, sorted, as TileDB reads them now.
    for r in entry.get("reads", []):
        try:
            with tc.open_array(uri, key=key) as A:
                values = A.query(attrs=[r["attr"]])[:][r["attr"]]
            got = sorted(v.item() for v in np.asarray(values).ravel())
        except Exception as e:
            problems.append("read %s: TileDB cannot read it: %s" % (r["attr"], e))
            continue
        if got != r["sorted_values"]:
            problems.append("read %s: expected %d values, TileDB has %d; %s" % (
                r["attr"], len(r["sorted_values"]), len(got),
                next(("first difference at %d: %r vs %r" % (i, w, g) for i, (w, g) in enumerate(zip(r["sorted_values"], got)) if w != g),
                     "the shorter is a prefix of the longer")))

    want_frags = entry.get("fragments", [])
    frags, to_vac = ex.list_fragments(uri, key)
    live = [f for f in frags if f["name"] not in to_vac]
    by_name = {f["name"]: f for f in frags}
    names_known = want_frags and all(w.get("name") in by_name for w in want_frags)
    if not names_known:
        want_live = [w for w in want_frags if not w.get("to_vacuum")]
        if len(want_live) != len(live):
            problems.append("fragments: expected %d, TileDB lists %d" % (len(want_live), len(live)))
            return problems
        pairs = list(zip(want_live, sorted(live, key=lambda f: (f["timestamp_range"], f["name"]))))
    else:
        pairs = [(w, by_name[w["name"]]) for w in want_frags]
    tmp = tempfile.mkdtemp(prefix="tilefmt-revcheck-")
    try:
        for i, (w, f) in enumerate(pairs):
            label = "fragment %s" % (w.get("name") or i)
            for k in ("non_empty_domain", "sparse", "format_version"):
                if k in w and w[k] != f[k]:
                    problems.append("%s: %s expected %r, TileDB has %r" % (label, k, w[k], f[k]))
            attrs = [n for n, fld in w.get("fields", {}).items() if fld.get("kind", "attribute") == "attribute"]
            try:
                got = ex.fragment_expectations(uri, key, f, ex.Writer(tmp), "f%d" % i, attrs)
            except Exception as e:
                problems.append("%s: TileDB cannot read it: %s" % (label, e))
                continue
            for name, wf in w.get("fields", {}).items():
                gf = got["fields"].get(name)
                if gf is None:
                    problems.append("%s: field %s not read back" % (label, name))
                    continue
                for k in ("datatype", "cell_val_num", "var", "nullable"):
                    if k in wf and wf[k] != gf[k]:
                        problems.append("%s.%s: %s expected %r, TileDB has %r" % (label, name, k, wf[k], gf[k]))
                for form, wexp in wf.get("expected", {}).items():
                    gexp = gf["expected"].get(form)
                    if gexp is None:
                        problems.append("%s.%s: no %s form from TileDB" % (label, name, form))
                        continue
                    if wexp.get("cells") is not None and wexp["cells"] != gexp["cells"]:
                        problems.append("%s.%s/%s: expected %d cells, TileDB has %d" % (label, name, form, wexp["cells"], gexp["cells"]))
                    for part in ("data", "offsets", "validity"):
                        if part not in wexp:
                            continue
                        if part not in gexp:
                            problems.append("%s.%s/%s: TileDB has no %s" % (label, name, form, part))
                            continue
                        want_bytes = _read(root, wexp[part])
                        got_bytes = _read(tmp, gexp[part])
                        if want_bytes != got_bytes:
                            problems.append("%s.%s/%s.%s: %s" % (label, name, form, part, _first_difference(want_bytes, got_bytes)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return problems


def _first_difference(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return "bytes differ from offset %d (expected %s, TileDB has %s)" % (i, a[i:i + 8].hex(), b[i:i + 8].hex())
    return "expected %d bytes, TileDB has %d" % (len(a), len(b))


def run(manifest_path, only=None, prefix="", data_only=False, quiet=False, release=None):
    with open(manifest_path) as f:
        m = json.load(f)
    root = os.path.dirname(os.path.abspath(manifest_path))
    passed = failed = 0
    results = {}
    for entry in m["arrays"]:
        name = entry.get("id", entry["name"])
        if only and entry["name"] not in only and name not in only:
            continue
        if release and entry.get("libtiledb_version") != release:
            continue
        problems = check_array(entry, root, data_only)
        results[entry["name"]] = not problems
        if problems:
            failed += 1
            print("%sFAIL %s: %s%s" % (prefix, name, "; ".join(problems[:3]), " (+%d more)" % (len(problems) - 3) if len(problems) > 3 else ""))
        else:
            passed += 1
            if not quiet:
                print("%sPASS %s" % (prefix, name))
    return passed, failed, results


# ---------------------------------------------------------------- selftest

SELFTEST_CASES = ["dense_1d_int32", "dense_2d_tilecol_cellcol", "dense_1d_tile_past_domain", "sparse_2d_duplicates",
                  "nullable_dense", "metadata_consolidated", "encrypted_dense", "schema_evolution_sparse",
                  "consolidated_dense", "filter_rle_utf8"]


def _alter(entry, how):
    e = copy.deepcopy(entry)
    e["name"] = entry["name"] + "-altered-" + how
    return e


def selftest(keep=None):
    import generate

    work = keep or tempfile.mkdtemp(prefix="tilefmt-selftest-")
    gen = os.path.join(work, "written")
    print("selftest: writing %d arrays with TileDB-Py %s into %s" % (len(SELFTEST_CASES), tc.py_version(), gen))
    rc = generate.main(["--out", gen, "--only", ",".join(SELFTEST_CASES)])
    if rc != 0:
        print("selftest: generator failed")
        return 1
    # "Someone else's" arrays: a copy, with the intended values next to them.
    other = os.path.join(work, "other")
    shutil.copytree(gen, other)
    with open(os.path.join(other, "manifest.json")) as f:
        m = json.load(f)
    arrays = {a["name"]: a for a in m["arrays"]}
    expect_fail = []

    # 1. one byte of one intended value file
    a = _alter(arrays["dense_1d_int32"], "value")
    rec = a["fragments"][0]["fields"]["a"]["expected"]["tiles"]["data"]
    path = os.path.join(other, rec["file"])
    altered = path + ".altered"
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[5] ^= 0x01
    with open(altered, "wb") as f:
        f.write(data)
    rec["file"] = rec["file"] + ".altered"
    expect_fail.append(a)
    # 2. an offset of a var field
    a = _alter(arrays["sparse_2d_duplicates"], "offsets")
    rec = a["fragments"][0]["fields"]["s"]["expected"]["global"]["offsets"]
    path = os.path.join(other, rec["file"])
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[8] += 1
    with open(path + ".altered", "wb") as f:
        f.write(data)
    rec["file"] = rec["file"] + ".altered"
    expect_fail.append(a)
    # 3. a metadata value
    a = _alter(arrays["metadata_consolidated"], "metadata")
    a["metadata"]["entries"]["b"]["hex"] = "7365636f6e65"  # "secone"
    expect_fail.append(a)
    # 4. a schema fact (tile extent)
    a = _alter(arrays["nullable_dense"], "schema")
    a["schema"]["dims"][0]["tile_extent"] += 1
    expect_fail.append(a)
    # 5. a validity byte
    a = _alter(arrays["nullable_dense"], "validity")
    rec = a["fragments"][0]["fields"]["i32"]["expected"]["tiles"]["validity"]
    path = os.path.join(other, rec["file"])
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[10] ^= 0x01
    with open(path + ".altered", "wb") as f:
        f.write(data)
    rec["file"] = rec["file"] + ".altered"
    expect_fail.append(a)

    m["arrays"] = list(arrays.values()) + expect_fail
    mp = os.path.join(other, "manifest.json")
    with open(mp, "w") as f:
        json.dump(m, f, indent=1)
    print("selftest: checking %d unaltered copies (must pass) and %d altered ones (must fail)" % (len(arrays), len(expect_fail)))
    _, _, results = run(mp, prefix="  ")
    ok = bad = 0
    for name, passed in results.items():
        should_pass = "-altered-" not in name
        if passed == should_pass:
            ok += 1
        else:
            bad += 1
            print("selftest: %s %s, but should have %s" % (name, "passed" if passed else "failed", "passed" if should_pass else "failed"))
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    print("selftest: %d passed, %d failed" % (ok, bad))
    return 0 if bad == 0 else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifest", nargs="?")
    ap.add_argument("--only", default="")
    ap.add_argument("--data-only", action="store_true", help="compare fragment values only (cross-release reads)")
    ap.add_argument("--quiet", action="store_true", help="print failures only")
    ap.add_argument("--libtiledb", help="only the arrays whose libtiledb_version is this (tilefmt's twins of that "
                                        "release's arrays: interop-rewrite)")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--keep", help="selftest: work in this directory and keep it")
    args = ap.parse_args(argv)
    if args.selftest:
        return selftest(args.keep)
    if not args.manifest:
        ap.error("a manifest is needed (or --selftest)")
    only = set(x for x in args.only.split(",") if x)
    passed, failed, _ = run(args.manifest, only, data_only=args.data_only, quiet=args.quiet, release=args.libtiledb)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
