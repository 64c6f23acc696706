"""Expected values of TileDB arrays, as TileDB-Py reads them back.

Shared by generate.py (which writes them next to the arrays it creates) and
reverse_check.py (which reads an array written by tilefmt and compares it with
the values tilefmt meant to write). Runs inside a TileDB-Py environment.

For each fragment, every field is read back through libtiledb in storage
(global) order and written as raw little-endian files:
  <field>.data      the values, cell after cell (var: the concatenated bytes)
  <field>.offsets   var fields: uint64 byte offset of each cell, first is 0
  <field>.validity  nullable fields: one uint8 per cell (0 = null)

Two forms exist for dense fragments (see README.md):
  tiles/   every cell of every space tile the fragment touches, tile order then
           cell order: what the fragment's data files hold once unfiltered
  global/  only the fragment's non-empty domain, in global order
Sparse fragments have only global/, which is exactly what their tiles hold.
"""

import hashlib
import os

import numpy as np

import tdbcompat as tc


class ExpectationError(RuntimeError):
    pass


# ---------------------------------------------------------------- schema facts


def _scalar(v):
    if isinstance(v, np.datetime64) or isinstance(v, np.timedelta64):
        return int(v.astype(np.int64))
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return repr(v)
    return v


def _hex(b):
    return bytes(b).hex()


def default_fill(type_name, cell_val_num):
    """libtiledb's default fill value (constants.cc), once per value; a
    var-size attribute's fill is a single value."""
    size = tc.type_size(type_name)
    if type_name.startswith("FLOAT"):
        one = np.array([np.nan], dtype="<f%d" % size).tobytes()
    elif type_name.startswith("UINT"):
        one = b"\xff" * size
    elif type_name.startswith("INT") or type_name.startswith("DATETIME_") or type_name.startswith("TIME_"):
        one = (1 << (8 * size - 1)).to_bytes(size, "little")
    elif type_name == "CHAR":
        one = b"\x80"
    else:  # strings, BLOB, BOOL, ANY, GEOM
        one = b"\x00" * size
    n = 1 if cell_val_num == 0xFFFFFFFF else cell_val_num
    return one * n


def tiledb_fills(A, s, written, **rd):
    """Each attribute's fill value and fill validity as TileDB reads them: the
    values of a cell of the domain outside `written` (one (lo, hi) per
    dimension; None: nothing written), read through TileDB. {} when there is
    no such cell. TileDB-Py cannot say the fill value of a nullable
    attribute, and crashes asking some var-size ones: this is how those are
    learned."""
    dom = s.domain
    if s.sparse or any(np.dtype(dom.dim(i).dtype).kind not in "iu" for i in range(dom.ndim)):
        return {}
    domain = [tuple(int(x) for x in dom.dim(i).domain) for i in range(dom.ndim)]
    if written is None:
        cell = [lo for lo, _ in domain]
    else:
        cell = None
        for d, ((lo, hi), (wlo, whi)) in enumerate(zip(domain, written)):
            if wlo > lo or whi < hi:
                cell = [w[0] for w in written]
                cell[d] = lo if wlo > lo else hi
                break
        if cell is None:
            return {}
    names = [s.attr(i).name for i in range(s.nattr)]
    bufs = tc.raw_read(A, s, names, "C", [(int(c), int(c)) for c in cell], **rd)
    out = {}
    for n in names:
        b = bufs[n]
        validity = None if b.validity is None else int(b.validity[0])
        out[n] = (bytes(b.data), validity)
    return out


def written_domain(A):
    """The array's non-empty domain as (lo, hi) integers per dimension, or
    None when nothing was written (or a dimension is not an integer one)."""
    ned = A.nonempty_domain()
    if ned is None:
        return None
    try:
        return [(int(lo), int(hi)) for lo, hi in ned]
    except (TypeError, ValueError):
        return None


def fill_bytes(attr, fills=None):
    """The attribute's fill value: as TileDB read it (`fills`, from
    tiledb_fills) when known; else TileDB-Py's Attr.fill for fixed-size,
    non-nullable attributes (it raises for nullable attributes and crashes
    for some var-size ones), and None for the others."""
    t = tc.tdb_type_name(attr)
    cvn = tc.attr_cell_val_num(attr)
    if fills and attr.name in fills:
        return fills[attr.name][0]
    if attr.isvar or attr.isnullable:
        return None
    try:
        f = attr.fill
    except Exception:  # TileDB-Py 0.19 cannot map some multi-value types to numpy
        return default_fill(t, cvn)
    if isinstance(f, bytes):
        return f
    if isinstance(f, str):
        return f.encode("utf-8")
    arr = np.asarray(f)
    if arr.dtype.kind in "SU" and arr.size:
        v = arr.reshape(-1)[0]
        return v if isinstance(v, bytes) else str(v).encode("utf-8")
    return arr.tobytes()


def describe_dim(d):
    t = tc.tdb_type_name(d)
    info = {"name": d.name, "type": t, "var": bool(d.isvar), "filters": tc.describe_filters(d.filters)}
    if d.isvar:
        info["domain"] = None
        info["tile_extent"] = None
    else:
        info["domain"] = [_scalar(x) for x in d.domain]
        tile = d.tile
        info["tile_extent"] = None if tile is None else _scalar(tile)
    return info


def describe_attr(a, fills=None):
    t = tc.tdb_type_name(a)
    fill = fill_bytes(a, fills)
    info = {
        "name": a.name,
        "type": t,
        "cell_val_num": tc.attr_cell_val_num(a),
        "var": bool(a.isvar),
        "nullable": bool(a.isnullable),
        "filters": tc.describe_filters(a.filters),
        "fill_value_hex": None if fill is None else _hex(fill),
    }
    if fills and a.name in fills and fills[a.name][1] is not None:
        info["fill_validity"] = fills[a.name][1]
    enum = getattr(a, "enum_label", None)
    if enum:
        info["enumeration"] = enum
    return info


def describe_schema(s, fills=None):
    """The schema's facts; `fills` (tiledb_fills) gives the fill values
    TileDB-Py cannot say."""
    dom = s.domain
    return {
        "array_type": "sparse" if s.sparse else "dense",
        "cell_order": s.cell_order,
        "tile_order": s.tile_order,
        "capacity": int(s.capacity),
        "allows_duplicates": bool(s.allows_duplicates) if s.sparse else False,
        "dims": [describe_dim(dom.dim(i)) for i in range(dom.ndim)],
        "attrs": [describe_attr(s.attr(i), fills) for i in range(s.nattr)],
        "coords_filters": tc.describe_filters(s.coords_filters),
        "offsets_filters": tc.describe_filters(s.offsets_filters),
        "validity_filters": tc.describe_filters(s.validity_filters) if hasattr(s, "validity_filters") else None,
    }


def field_facts(s, name):
    if s.has_attr(name):
        a = s.attr(name)
        t = tc.tdb_type_name(a)
        cvn = tc.attr_cell_val_num(a)
        return {"kind": "attribute", "datatype": t, "cell_val_num": cvn, "var": bool(a.isvar),
                "nullable": bool(a.isnullable),
                "cell_size": None if a.isvar else tc.type_size(t) * cvn}
    d = s.domain.dim(name)
    t = tc.tdb_type_name(d)
    return {"kind": "dimension", "datatype": t, "cell_val_num": 0xFFFFFFFF if d.isvar else 1,
            "var": bool(d.isvar), "nullable": False, "cell_size": None if d.isvar else tc.type_size(t)}


# ---------------------------------------------------------------- global order


def _order_index(shape, order):
    """All index tuples of an array of `shape`, row-major (last fastest) for
    'row-major', first dimension fastest for 'col-major'."""
    idx = np.indices(shape).reshape(len(shape), -1).T
    if order == "col-major":
        idx = np.indices(shape[::-1]).reshape(len(shape), -1).T[:, ::-1]
    return idx


def global_order_coords(box, dom_lo, extents, tile_order, cell_order):
    """Coordinates (N x ndim, int64) of every cell of the tile-aligned box in
    global order: tiles in tile order, cells in cell order inside each tile."""
    box = np.asarray(box, dtype=np.int64)
    ext = np.asarray(extents, dtype=np.int64)
    ntiles = tuple(((box[:, 1] - box[:, 0] + 1) // ext).tolist())
    tiles = _order_index(ntiles, tile_order) * ext + box[:, 0]
    cells = _order_index(tuple(ext.tolist()), cell_order)
    coords = tiles[:, None, :] + cells[None, :, :]
    return coords.reshape(-1, len(extents))


def tile_box(ned, dom, extents):
    out = []
    for (lo, hi), (dlo, _dhi), e in zip(ned, dom, extents):
        tlo = dlo + ((lo - dlo) // e) * e
        thi = dlo + ((hi - dlo) // e + 1) * e - 1
        out.append((int(tlo), int(thi)))
    return out


# ---------------------------------------------------------------- files


class Writer:
    """Writes expected-value files and returns their manifest descriptions."""

    def __init__(self, root):
        self.root = root

    def put(self, relpath, payload):
        path = os.path.join(self.root, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(payload)
        return {"file": relpath, "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}

    def field(self, reldir, name, buf, facts):
        out = {}
        if facts["var"]:
            out["cells"] = int(len(buf.offsets))
        else:
            out["cells"] = len(buf.data) // facts["cell_size"]
        out["data"] = self.put(os.path.join(reldir, name + ".data"), buf.data)
        if facts["var"]:
            out["offsets"] = self.put(os.path.join(reldir, name + ".offsets"), buf.offsets.astype("<u8").tobytes())
        if facts["nullable"]:
            if buf.validity is None:
                raise ExpectationError("no validity for nullable field %s" % name)
            if len(buf.validity) != out["cells"]:
                raise ExpectationError("validity of %s has %d cells, values %d" % (name, len(buf.validity), out["cells"]))
            out["validity"] = self.put(os.path.join(reldir, name + ".validity"), buf.validity.astype(np.uint8).tobytes())
        return out


def _cells_of(buf, facts):
    """List of per-cell byte strings."""
    if facts["var"]:
        offs = [int(x) for x in buf.offsets] + [len(buf.data)]
        return [buf.data[offs[i]:offs[i + 1]] for i in range(len(offs) - 1)]
    n = facts["cell_size"]
    return [buf.data[i:i + n] for i in range(0, len(buf.data), n)]


def _from_cells(cells, validity, facts):
    data = b"".join(cells)
    offsets = None
    if facts["var"]:
        offsets = np.zeros(len(cells), dtype=np.uint64)
        if cells:
            offsets[1:] = np.cumsum([len(c) for c in cells[:-1]], dtype=np.uint64)
    return tc.Buffers(data, offsets, validity)


def buffers_equal(a, b):
    if a.data != b.data:
        return False
    if (a.offsets is None) != (b.offsets is None):
        return False
    if a.offsets is not None and not np.array_equal(a.offsets, b.offsets):
        return False
    if (a.validity is None) != (b.validity is None):
        return False
    return a.validity is None or np.array_equal(a.validity, b.validity)


# ---------------------------------------------------------------- per fragment


def list_fragments(uri, key=None):
    """Committed fragments as TileDB lists them, and the names TileDB marks
    as consolidated away (to vacuum)."""
    fi = tc.fragment_info(uri, key)
    out = []
    for f in fi:
        name = os.path.basename(str(f.uri).rstrip("/"))
        ned = [tuple(r) for r in f.nonempty_domain]
        out.append({
            "name": name,
            "timestamp_range": [int(f.timestamp_range[0]), int(f.timestamp_range[1])],
            "format_version": int(f.version),
            "sparse": bool(f.sparse),
            "cell_num": int(f.cell_num),
            "non_empty_domain_raw": ned,
            "non_empty_domain": [[_scalar(x) for x in r] for r in ned],
            "array_schema_name": getattr(f, "array_schema_name", None),
            "has_consolidated_metadata": bool(getattr(f, "has_consolidated_metadata", False)),
        })
    to_vac = [os.path.basename(str(u).rstrip("/")) for u in (getattr(fi, "to_vacuum", None) or [])]
    return out, to_vac


def fragment_expectations(uri, key, frag, writer, reldir, attrs=None):
    """Read one fragment (alone, through its timestamp range) and write its
    expected-value files. frag: dict with name, timestamp_range, sparse,
    non_empty_domain. Returns the manifest entry's 'fields' and extras."""
    t1, t2 = frag["timestamp_range"]
    with tc.open_array(uri, key=key, timestamp=(t1, t2)) as A:
        s = A.schema
        dom = s.domain
        dim_names = [dom.dim(i).name for i in range(dom.ndim)]
        attr_names = [s.attr(i).name for i in range(s.nattr)]
        if attrs is not None:
            attr_names = [n for n in attr_names if n in attrs]
        ned = [tuple(r) for r in frag["non_empty_domain_raw"]]
        rd = dict(uri=uri, key=key, timestamp=(t1, t2))
        out = {"fields": {}}
        if s.sparse:
            names = attr_names + dim_names
            bufs = tc.raw_read(A, s, names, "G", ned, **rd)
            for n in names:
                facts = field_facts(s, n)
                facts["expected"] = {"global": writer.field(os.path.join(reldir, "global"), n, bufs[n], facts)}
                out["fields"][n] = facts
            out["primary"] = "global"
            return out

        names = attr_names
        domain = [tuple(int(x) for x in dom.dim(i).domain) for i in range(dom.ndim)]
        extents = [int(dom.dim(i).tile) for i in range(dom.ndim)]
        box = tile_box(ned, domain, extents)
        clipped = [(max(lo, dlo), min(hi, dhi)) for (lo, hi), (dlo, dhi) in zip(box, domain)]
        coords = global_order_coords(box, [d[0] for d in domain], extents, s.tile_order, s.cell_order)
        # The layout is derived from a row-major read (which every release
        # gets right) and compared with TileDB's own global-order reads.
        rowmajor = tc.raw_read(A, s, names, "C", clipped, **rd)
        # Read alone, the fragment left every cell outside its domain unwritten.
        fills = tiledb_fills(A, s, ned, **rd)
        tiles = _derive_tiles(s, names, coords, clipped, rowmajor, fills)
        nlo = np.array([r[0] for r in ned], dtype=np.int64)
        nhi = np.array([r[1] for r in ned], dtype=np.int64)
        in_ned = np.all((coords >= nlo) & (coords <= nhi), axis=1)
        glob = {n: _select(tiles[n], field_facts(s, n), in_ned) for n in names}
        tdb_g = tc.raw_read(A, s, names, "G", ned, **rd)
        out["tiledb_global_read_agrees"] = {"global": all(buffers_equal(tdb_g[n], glob[n]) for n in names)}
        if box == clipped:
            tdb_t = tc.raw_read(A, s, names, "G", box, **rd)
            out["tiledb_global_read_agrees"]["tiles"] = all(buffers_equal(tdb_t[n], tiles[n]) for n in names)
        else:
            out["tiledb_global_read_agrees"]["tiles"] = None  # box leaves the domain: TileDB cannot read it
        agrees = out["tiledb_global_read_agrees"]
        if agrees["global"] is False or agrees["tiles"] is False:
            # Known: libtiledb before 2.28 returns the fill value for the last
            # cell of each tile row in dense global-order reads with col-major
            # cell order. Any other disagreement means the derivation is wrong.
            if not (s.cell_order == "col-major" and tc.version_tuple(tc.lib_version()) < (2, 28)):
                raise ExpectationError("%s: TileDB's global-order read disagrees with the derived layout" % frag["name"])
            out["note"] = "libtiledb < 2.28 misreads dense col-major cell order in global-order reads; files are derived from a row-major read"
        for n in names:
            facts = field_facts(s, n)
            t = writer.field(os.path.join(reldir, "tiles"), n, tiles[n], facts)
            # A fragment written over whole tiles has identical forms: one set of files.
            gl = t if buffers_equal(tiles[n], glob[n]) else writer.field(os.path.join(reldir, "global"), n, glob[n], facts)
            facts["expected"] = {"tiles": t, "global": gl}
            out["fields"][n] = facts
        out["primary"] = "tiles"
        out["tile_box"] = [list(b) for b in box]
        out["tile_extents"] = extents
        out["tiles_cells"] = int(len(coords))
        return out


def _select(buf, facts, mask):
    cells = _cells_of(buf, facts)
    keep = [c for c, m in zip(cells, mask.tolist()) if m]
    validity = None if buf.validity is None else buf.validity[mask]
    return _from_cells(keep, validity, facts)


def _derive_tiles(s, names, coords, clipped, rowmajor, fills):
    clo = np.array([c[0] for c in clipped], dtype=np.int64)
    chi = np.array([c[1] for c in clipped], dtype=np.int64)
    shape = chi - clo + 1
    strides = np.ones(len(shape), dtype=np.int64)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    inside = np.all((coords >= clo) & (coords <= chi), axis=1)
    idx = ((coords - clo) * strides).sum(axis=1)
    out = {}
    for n in names:
        facts = field_facts(s, n)
        a = s.attr(n)
        src = _cells_of(rowmajor[n], facts)
        # Cells outside the write hold the fill value and validity TileDB
        # read; when the write covered the whole domain, the cells it padded
        # tiles with (TileDB cannot read them) take libtiledb's defaults.
        fill = fill_bytes(a, fills)
        if fill is None:
            fill = default_fill(tc.tdb_type_name(a), tc.attr_cell_val_num(a))
        fill_validity = fills[n][1] if n in fills and fills[n][1] is not None else 0
        if not facts["var"]:
            fill = (fill * facts["cell_val_num"])[: facts["cell_size"]] if len(fill) < facts["cell_size"] else fill[: facts["cell_size"]]
        cells = [src[i] if ok else fill for i, ok in zip(idx.tolist(), inside.tolist())]
        validity = None
        if facts["nullable"]:
            v = rowmajor[n].validity
            validity = np.array([v[i] if ok else fill_validity for i, ok in zip(idx.tolist(), inside.tolist())],
                                dtype=np.uint8)
        out[n] = _from_cells(cells, validity, facts)
    return out


# ---------------------------------------------------------------- time travel


def time_travel_ranges(frag_ranges, write_times):
    """Open ranges worth checking: everything, each write alone, up to each
    write, from each write on, and the ranges of consolidated fragments."""
    times = sorted(set(write_times) | {t for r in frag_ranges for t in r})
    if not times:
        return []
    out = [(0, times[-1] + 1)]
    for t in times:
        out += [(0, t), (t, t), (t, times[-1] + 1)]
    for lo, hi in frag_ranges:
        if lo != hi:
            out += [(lo, hi), (lo + 1, hi), (lo, hi - 1)]
    if len(times) > 1:
        out.append((0, times[0] - 1))
    seen, ranges = set(), []
    for r in out:
        if r not in seen and r[0] <= r[1]:
            seen.add(r)
            ranges.append(r)
    return ranges


def _int_dims(s):
    dom = s.domain
    return all(np.issubdtype(dom.dim(i).dtype, np.integer) for i in range(dom.ndim))


def time_travel(uri, key, ranges):
    """What TileDB sees when the array is opened at each range: the schema's
    attributes, the non-empty domain, and (integer dimensions) the cells a
    read returns: the coordinates of a sparse array (sorted), or attribute
    `a` of a 1D dense array over the non-empty domain, row-major."""
    out = []
    for lo, hi in ranges:
        with tc.open_array(uri, key=key, timestamp=(lo, hi)) as A:
            s = A.schema
            rec = {"timestamp_range": [lo, hi], "schema_attrs": [s.attr(i).name for i in range(s.nattr)]}
            ned = A.nonempty_domain()
            rec["non_empty_domain"] = None if ned is None else [[_scalar(x) for x in r] for r in ned]
            if ned is not None and _int_dims(s):
                rd = dict(uri=uri, key=key, timestamp=(lo, hi))
                dom = s.domain
                names = [dom.dim(i).name for i in range(dom.ndim)]
                if s.sparse:
                    bufs = tc.raw_read(A, s, names, "G", [tuple(r) for r in ned], **rd)
                    cols = [np.frombuffer(bufs[n].data, dtype=np.dtype(dom.dim(i).dtype).newbyteorder("<")).tolist()
                            for i, n in enumerate(names)]
                    rec["coords"] = sorted(list(c) for c in zip(*cols))
                elif dom.ndim == 1 and s.has_attr("a") and s.attr("a").dtype == np.int32:
                    bufs = tc.raw_read(A, s, ["a"], "C", [tuple(r) for r in ned], **rd)
                    rec["a"] = np.frombuffer(bufs["a"].data, dtype="<i4").tolist()
            out.append(rec)
    return out
