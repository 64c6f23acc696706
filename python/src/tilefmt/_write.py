"""Writing: creating arrays, dense and sparse fragments, array metadata,
with TileDB-Py's forms (``tilefmt.create``, ``open(uri, "w")``,
``A[lo:hi] = {...}``, ``A[I, J] = {...}``, ``A.meta[key] = value``)."""


import numpy as np

from . import _config, _core, _dimension_labels, _types
from ._query import _encode_ranges, _replace_ellipsis
from ._schema import Schema, _schema_of


def _schema_dict(schema):
    dims = []
    for d in schema.domain.dims:
        x = {"name": d.name, "type": d.tiledb_type, "var": d.var,
             "filters": [tuple(f) for f in d.filters], "domain": b"", "tile": None}
        if not d.var:
            if d.domain[0] is None or d.domain[1] is None:
                raise ValueError("tilefmt.create: dimension %r needs a domain" % d.name)
            x["domain"] = _types.encode(d.tiledb_type, d.domain[0]) + _types.encode(d.tiledb_type, d.domain[1])
            if d.tile is not None:
                x["tile"] = _types.encode(d.tiledb_type, d.tile)
        dims.append(x)
    attrs = [_attr_dict(a) for a in schema.attrs]
    pipelines = {k: None if getattr(schema, k) is None else [tuple(f) for f in getattr(schema, k)]
                 for k in ("coords_filters", "offsets_filters", "validity_filters")}
    if pipelines["coords_filters"] is not None:
        # As TileDB-Py's ArraySchema(coords_filters=...) (deprecated there):
        # every dimension's filters become them, and the schema's coordinate
        # pipeline is left empty.
        for x in dims:
            x["filters"] = list(pipelines["coords_filters"])
        pipelines["coords_filters"] = []
    return {"sparse": schema.sparse, "cell_order": schema.cell_order, "tile_order": schema.tile_order or "row-major",
            "capacity": schema.capacity, "allows_duplicates": schema.allows_duplicates, "dims": dims, "attrs": attrs,
            "enums": [_enum_dict(e) for e in schema.enums], "dim_labels": _labels_to_create(schema), **pipelines}


def _labels_to_create(schema):
    """The dimension labels to make with the array: as declared, or, for a
    schema read from disk, with the same names, dimensions, orders and types."""
    declared = getattr(schema, "_declared_labels", None)
    if declared is not None:
        return declared
    return [{"dim_index": label.dim_index, "name": label.name, "order": label.order, "type": label.tiledb_type,
             "filters": [], "tile": None} for label in schema.dim_labels]


def _enum_dict(e):
    """An enumeration as the compiled writer takes it: UTF-8 labels
    var-size with byte offsets, numbers fixed-size."""
    values = e.values()
    if e.dtype.kind in "US":
        parts = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]
        offsets = np.cumsum([0] + [len(p) for p in parts[:-1]]).astype("<u8") if parts else np.zeros(0, "<u8")
        return {"name": e.name, "ordered": bool(e.ordered), "type": "STRING_UTF8" if e.dtype.kind == "U" else "CHAR",
                "cell_val_num": 0, "data": b"".join(parts), "offsets": offsets.tobytes()}
    t = _types.tiledb_type_of(e.dtype)
    return {"name": e.name, "ordered": bool(e.ordered), "type": t, "cell_val_num": 1,
            "data": np.ascontiguousarray(values, dtype=e.dtype.newbyteorder("<")).tobytes(), "offsets": None}


def _attr_dict(a):
    """An attribute as the compiled writer takes it."""
    fill = None if a.fill is None else _types.encode(a.tiledb_type, a.fill)
    return {"name": a.name, "type": a.tiledb_type, "cell_val_num": a.cell_val_num, "nullable": a.nullable,
            "filters": [tuple(f) for f in a.filters], "fill": fill, "enumeration": a.enumeration}


def _key_bytes(key):
    """An encryption key as the compiled writer takes it (b"": none)."""
    if key is None:
        return b""
    return key.encode() if isinstance(key, str) else bytes(key)


def create(uri, schema, config=None, key=None):
    """Creates an empty array at `uri` (a local path or s3://bucket/key)
    with `schema` (a tilefmt.Schema), as TileDB 2.30 would (format 22).
    `config`: storage options, as for tilefmt.open. `key`: an AES-256-GCM
    key (32 bytes, str or bytes) makes the array encrypted, as TileDB-Py's
    ``sm.encryption_type``/``sm.encryption_key``; every later write and read
    then needs it."""
    if not isinstance(schema, Schema):
        raise TypeError("tilefmt.create: schema must be a tilefmt.Schema")
    _core.create(_config.path_of(uri), _schema_dict(schema), _key_bytes(key), _config.normalize(config))


def _cells(attr, value, n=None):
    """An attribute's cells as the compiled writer takes them: (bytes,
    bytes per value, offsets or None, validity or None)."""
    validity = None
    if isinstance(value, np.ma.MaskedArray):
        validity = (~np.ma.getmaskarray(value)).ravel().astype(np.uint8)
        value = value.data
    elif attr.nullable:
        validity = np.ones(np.size(value) if n is None else n, dtype=np.uint8)
    if attr.var:
        base = _types.base_dtype(attr.tiledb_type)
        cells = np.ascontiguousarray(np.asarray(value, dtype=object).ravel())
        if base.itemsize == 1:
            packed = _core.pack_strings(cells)  # str, bytes and bytearray cells, in C++
            if packed is not None:
                return (packed[0], 1, packed[1], validity)
        parts, offsets, pos = [], [], 0
        for cell in cells:
            if isinstance(cell, str):
                b = cell.encode("utf-8")
            elif isinstance(cell, (bytes, bytearray)):
                b = bytes(cell)
            else:
                b = np.ascontiguousarray(cell, dtype=base).tobytes()
            offsets.append(pos // base.itemsize)
            parts.append(b)
            pos += len(b)
        data = np.frombuffer(b"".join(parts), dtype=np.uint8)
        return (data, base.itemsize, np.array(offsets, dtype=np.uint64), validity)
    base = _types.base_dtype(attr.tiledb_type)
    arr = np.asarray(value)
    if arr.dtype.kind in "mM" and base.kind in "mM":
        arr = arr.astype(base)
    arr = np.ascontiguousarray(arr.astype(base.newbyteorder("<"), copy=False).ravel())
    return (arr.view(np.uint8), base.itemsize, None, validity)


def _pack_meta(value):
    """A metadata value as (TileDB type, count, bytes), as TileDB-Py packs it."""
    if isinstance(value, str):
        b = value.encode("utf-8")
        return ("STRING_UTF8", len(b), b)
    if isinstance(value, (bytes, bytearray)):
        return ("BLOB", len(value), bytes(value))
    if isinstance(value, np.generic):
        t = _types.tiledb_type_of(value.dtype)
        return (t, 1, np.asarray(value).astype(_types.base_dtype(t)).tobytes())
    if isinstance(value, (bool, int, float)):
        value = (value,)
    if isinstance(value, (tuple, list)):
        if any(isinstance(v, float) for v in value):
            return ("FLOAT64", len(value), np.array(value, dtype="<f8").tobytes())
        if all(isinstance(v, int) for v in value):
            return ("INT64", len(value), np.array(value, dtype="<i8").tobytes())
    raise TypeError("tilefmt: cannot store %r as metadata" % (value,))


class ArrayWriter:
    """An array opened for writing (``tilefmt.open(uri, "w")``): each
    assignment writes one fragment; metadata assignments are written
    together when the array is closed."""

    def __init__(self, uri, timestamp=None, config=None, key=None):
        self.uri = _config.path_of(uri)
        self.config = _config.normalize(config)
        self.key = _key_bytes(key)
        # The schema a write uses, read without opening the array's fragments.
        self.schema = _schema_of(_core.read_schema(self.uri, self.key, self.config), _config.uri_of(self.uri))
        self.timestamp = timestamp
        self._meta = {}
        self.meta = _MetaWriter(self._meta)
        self._open = True
        self.last_write_info = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def mode(self):
        return "w"

    def _wrote(self, name):
        """Keeps the last write's fragment as TileDB-Py's last_write_info
        gives it: {fragment URI: (start, end)}."""
        parts = name.split("_")  # __t1_t2_label_version (t1, t2 at 2 and 3)
        t1, t2, version = int(parts[2]), int(parts[3]), int(parts[-1])
        folder = _config.uri_of(self.uri).rstrip("/") + ("/__fragments/" if version >= 12 else "/")
        self.last_write_info = {folder + name: (t1, t2)}

    def close(self):
        """Writes the pending metadata and closes the array."""
        if self._open and self._meta:
            _core.write_metadata(self.uri, self._meta, self.timestamp, self.key, self.config)
            self._meta.clear()
        self._open = False

    def _values(self, value):
        if not isinstance(value, dict):
            if len(self.schema.attrs) != 1:
                raise ValueError("tilefmt: give a dict of values, one per attribute")
            value = {self.schema.attrs[0].name: value}
        names = [a.name for a in self.schema.attrs]
        missing = [n for n in names if n not in value]
        if missing:
            raise ValueError("tilefmt: no values for the attributes %s" % missing)
        extra = [k for k in value
                 if k not in names and not self.schema.domain.has_dim(k) and not self.schema.has_dim_label(k)]
        if extra:
            raise ValueError("tilefmt: the array has no attributes %s" % extra)
        return value

    def __setitem__(self, selection, value):
        """Dense: ``A[lo:hi, ...] = {"a": values}`` writes the region (Python
        half-open slices, cells in C order). Sparse: ``A[I, J] = {...}``
        writes one cell per coordinate."""
        if not self._open:
            raise RuntimeError("tilefmt: the array is closed")
        value = self._values(value)
        if self.schema.sparse:
            self._write_sparse(selection, value)
        else:
            self._write_dense(selection, value)

    def _write_dense(self, selection, value):
        schema = self.schema
        idx = _replace_ellipsis(schema.ndim, selection if isinstance(selection, tuple) else (selection,))
        subarray = []
        for d, s in zip(schema.domain.dims, idx):
            lb, ub = int(d.domain[0]), int(d.domain[1])
            if isinstance(s, (int, np.integer)):
                s = slice(int(s), int(s) + 1)
            if not isinstance(s, slice) or s.step not in (None, 1):
                raise IndexError("tilefmt: dense writes take integers and slices without steps")
            lo = lb if s.start is None else int(s.start)
            hi = ub + 1 if s.stop is None else int(s.stop)
            subarray.append((lo, hi - 1))
        n = 1
        for lo, hi in subarray:
            n *= hi - lo + 1
        cells = {}
        for a in schema.attrs:
            v = value[a.name]
            if np.size(v) != n:
                raise ValueError("tilefmt: %d values for attribute %r, the region has %d cells" % (np.size(v), a.name, n))
            cells[a.name] = _cells(a, v, n)
        labels = {k: v for k, v in value.items() if schema.has_dim_label(k)}
        if labels:  # before the attributes, as TileDB writes them
            _dimension_labels.write_labels(self, subarray, labels)
        self._wrote(_core.write_dense(self.uri, subarray, cells, self.timestamp, self.key, self.config))

    def _write_sparse(self, selection, value):
        schema = self.schema
        coords = selection if isinstance(selection, tuple) else (selection,)
        if len(coords) != schema.ndim:
            raise IndexError("tilefmt: sparse writes take one coordinate array per dimension")
        out = {}
        n = None
        for d, c in zip(schema.domain.dims, coords):
            if d.var:
                vals = [x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in c]
                out[d.name] = vals
                n = len(vals)
                continue
            base = _types.base_dtype(d.tiledb_type)
            arr = np.asarray(c)
            if arr.dtype.kind in "mM":
                arr = arr.astype(base)
            arr = np.ascontiguousarray(arr.astype(base, copy=False).ravel())
            out[d.name] = (arr.view(np.uint8), base.itemsize, base.kind == "f")
            n = arr.size
        if any(schema.has_dim_label(k) for k in value):
            raise NotImplementedError("tilefmt: dimension labels are written with dense arrays only")
        cells = {a.name: _cells(a, value[a.name], n) for a in schema.attrs}
        self._wrote(_core.write_sparse(self.uri, out, cells, self.timestamp, self.key, self.config))


class _MetaWriter:
    """``A.meta`` of an array opened for writing: values set or deleted
    are written when the array closes."""

    def __init__(self, pending):
        self._pending = pending

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError("metadata keys are str")
        # As TileDB-Py does, so that the files hold the same entries: the key
        # and its NumPy forms are deleted first, then the value put.
        del self[key]
        if isinstance(value, np.ndarray):
            # As TileDB-Py stores arrays: flat values, and the shape when not 1-D.
            t = _types.tiledb_type_of(value.dtype)
            flat = np.ascontiguousarray(value.ravel()).astype(_types.base_dtype(t))
            self._pending["__np_flat_" + key] = (t, flat.size, flat.tobytes())
            if value.ndim != 1:
                self["__np_shape_" + key] = tuple(int(x) for x in value.shape)
            return
        self._pending[key] = _pack_meta(value)

    def __delitem__(self, key):
        # The key may be stored as it is or in its NumPy forms: all go.
        for k in (key, "__np_flat_" + key, "__np_shape_" + key):
            self._pending[k] = None
