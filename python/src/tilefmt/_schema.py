"""An array's schema as Python sees it: dimensions, attributes, domain,
schema and fragment descriptions (TileDB-Py's ``tiledb.Dim``, ``tiledb.Attr``,
...), and the schema read from the extension (``_schema_of``)."""

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from . import _dimension_labels, _filters, _types


@dataclass(frozen=True)
class Dim:
    """A dimension: its name, inclusive domain, tile extent and dtype
    (TileDB-Py's ``tiledb.Dim(name=, domain=, tile=, dtype=)``; "ascii" or
    bytes/str dtypes make a string dimension)."""
    name: str = "__dim_0"
    domain: Tuple[Any, Any] = (None, None)
    tile: Any = None
    dtype: Any = np.uint64
    var: Optional[bool] = None
    filters: Tuple = ()
    tiledb_type: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "filters", _filters.as_tuples(self.filters))
        t = self.tiledb_type or _types.tiledb_type_of(self.dtype, dimension=True)
        object.__setattr__(self, "tiledb_type", t)
        var = t == "STRING_ASCII" if self.var is None else self.var
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "dtype", _types.cell_dtype(t, 0 if var else 1))
        if var:
            object.__setattr__(self, "domain", (None, None))

    @property
    def isvar(self):
        return self.var

    def create_label_schema(self, order="increasing", dtype=np.uint64, tile=None, filters=None):
        """A label for this dimension (TileDB-Py's ``Dim.create_label_schema``):
        values of `dtype` in `order`; `tile` the label array's tile extent
        (None: this dimension's); `filters` the label values' filters."""
        return _dimension_labels.DimLabelSchema(order, dtype, self.dtype,
                                                self.tile if tile is None and self.tile != 0 else tile, filters)

    def __repr__(self):
        # TileDB-Py's form: a string dimension shows an empty domain and var=True.
        if self.var:
            domain, tile, var = "('', '')", "None", ", var=True"
        else:
            domain = "(%s, %s)" % tuple(_shown_value(v, self.dtype) for v in self.domain)
            tile, var = _shown_extent(self.tile, self.dtype), ""
        return "Dim(name=%r, domain=%s, tile=%s, dtype='%s'%s%s)" % (self.name, domain, tile, self.dtype, var,
                                                                     _filters.shown(self.filters))


def _shown_value(v, dtype):
    # A domain bound as TileDB-Py prints it: a Python number, or a datetime.
    dt = np.dtype(dtype)
    if dt.kind == "M":
        return "numpy.datetime64('%s')" % np.datetime_as_string(np.asarray(v).astype(dt))
    return repr(np.asarray(v).astype(dt).item())


def _shown_extent(tile, dtype):
    dt = np.dtype(dtype)
    if tile is None:
        return "None"
    if dt.kind == "M":
        unit = np.datetime_data(dt)[0]
        return "numpy.timedelta64(%d,'%s')" % (int(np.asarray(tile).astype(np.int64)), unit)
    return repr(np.asarray(tile).astype(dt).item())


@dataclass(frozen=True)
class Attr:
    """An attribute: its name, dtype, var-size and nullable flags, fill
    value and filters (TileDB-Py's ``tiledb.Attr``; str and bytes dtypes
    are var-size, "ascii" an ASCII string). `filters`: tuples (name, level
    or None[, options]) such as ("ZSTD", 3), ("BYTESHUFFLE", None),
    ("POSITIVE_DELTA", None, {"max_window_size": 512}) or ("SCALE_FLOAT",
    None, {"scale": 0.5, "offset": 0.0, "byte_width": 4}); the forms are
    listed in python/src/filters.hpp, and a schema read from disk shows its
    filters the same way."""
    name: str = ""
    dtype: Any = np.float64
    var: Optional[bool] = None
    nullable: bool = False
    fill: Any = None
    filters: Tuple = ()
    tiledb_type: Optional[str] = None
    cell_val_num: Optional[int] = None  # 0: var-size
    enumeration: str = ""
    # TileDB-Py's name: the enumeration the attribute's values index.
    enum_label: Optional[str] = None

    def __post_init__(self):
        label = self.enum_label or self.enumeration or None
        object.__setattr__(self, "enumeration", label or "")
        object.__setattr__(self, "enum_label", label)
        object.__setattr__(self, "filters", _filters.as_tuples(self.filters))
        t = self.tiledb_type or _types.tiledb_type_of(self.dtype)
        object.__setattr__(self, "tiledb_type", t)
        var = self.var
        if var is None:
            var = self.cell_val_num == 0 if self.cell_val_num is not None else _types.var_by_default(self.dtype)
        object.__setattr__(self, "var", bool(var))
        cvn = 0 if var else self.cell_val_num
        if cvn is None:
            # A fixed-size bytes dtype ("S3") holds that many characters a cell, as in TileDB-Py.
            try:
                dt = np.dtype(self.dtype)
            except TypeError:  # "ascii", "blob" and other TileDB names
                dt = None
            cvn = dt.itemsize if dt is not None and dt.kind == "S" and dt.itemsize > 0 else 1
        object.__setattr__(self, "cell_val_num", cvn)
        object.__setattr__(self, "dtype", _types.cell_dtype(t, cvn))

    @property
    def isvar(self):
        return self.var

    @property
    def isnullable(self):
        return self.nullable

    def __repr__(self):
        shown = str(self.dtype)
        if not self.var and self.dtype.kind == "S" and self.dtype.itemsize == 0:
            shown = "|S%d" % self.cell_val_num  # one character a cell
        dtype = {"STRING_ASCII": "ascii", "BLOB": "blob", "GEOM_WKB": "wkb", "GEOM_WKT": "wkt"}.get(self.tiledb_type, shown)
        label = "'%s'" % self.enumeration if self.enumeration else None
        return "Attr(name=%r, dtype='%s', var=%s, nullable=%s, enum_label=%s%s)" % (
            self.name, dtype, self.var, self.nullable, label, _filters.shown(self.filters))


class Domain:
    """The dimensions of an array: ``Domain(dim, ...)``."""

    def __init__(self, *dims):
        if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
            dims = tuple(dims[0])
        self.dims = tuple(dims)

    def __eq__(self, other):
        return isinstance(other, Domain) and self.dims == other.dims

    def __iter__(self):
        return iter(self.dims)

    def __len__(self):
        return len(self.dims)

    def __repr__(self):
        return "Domain(%s)" % ", ".join(map(repr, self.dims))

    @property
    def ndim(self):
        return len(self.dims)

    def dim(self, key):
        """Dimension `key`: its index or its name."""
        if isinstance(key, str):
            for d in self.dims:
                if d.name == key:
                    return d
            raise KeyError(key)
        return self.dims[key]

    def has_dim(self, name):
        """Whether a dimension is called `name`."""
        return any(d.name == name for d in self.dims)


class Enumeration:
    """The labels an attribute's integer values index (TileDB-Py's
    ``tiledb.Enumeration(name, ordered, values=None, dtype=None)``, and what
    ``A.enum(name)`` gives): strings (UTF-8, var-size) or numbers of one
    dtype. Declared in the schema's `enums` and named by an attribute's
    `enum_label`; `values()` gives them as a NumPy array."""

    def __init__(self, name, ordered=False, values=None, dtype=None):
        values = list(values) if values is not None else []
        if dtype is None:
            dtype = np.str_ if all(isinstance(v, str) for v in values) else np.asarray(values).dtype
        dtype = np.dtype(dtype)
        if dtype.kind in "US":
            values = np.array([str(v) if dtype.kind == "U" else bytes(v) for v in values],
                              dtype=dtype if dtype.itemsize else (np.str_ if dtype.kind == "U" else object))
        else:
            values = np.asarray(values, dtype=dtype)
        self._name, self._ordered, self._dtype, self._values = str(name), bool(ordered), dtype, values

    name = property(lambda self: self._name)
    ordered = property(lambda self: self._ordered)
    dtype = property(lambda self: self._dtype)

    @property
    def cell_val_num(self):
        """0 for var-size labels (strings), else 1."""
        return 0 if self._dtype.kind in "US" else 1

    def values(self):
        """The labels, in index order (a copy)."""
        return self._values.copy()

    def __eq__(self, other):
        return (isinstance(other, Enumeration) and (self.name, self.ordered, self.dtype.kind) ==
                (other.name, other.ordered, other.dtype.kind) and list(self._values) == list(other._values))

    __hash__ = None

    def __repr__(self):
        return "Enumeration(name=%r, ordered=%s, values=%r)" % (self.name, self.ordered, list(self._values))


@dataclass(frozen=True)
class Schema:
    """An array schema as plain Python values (TileDB-Py's
    ``tiledb.ArraySchema(domain=, attrs=, sparse=, ...)``)."""
    domain: Domain
    attrs: Tuple[Attr, ...] = ()
    sparse: bool = False
    cell_order: str = "row-major"
    tile_order: Optional[str] = "row-major"
    capacity: int = 10000
    allows_duplicates: bool = False
    version: int = 22
    current_domain: Optional[Tuple[Tuple[Any, Any], ...]] = None
    # The enumerations attributes name (tilefmt.Enumeration), for create;
    # a schema read from disk leaves them out (Array.enum reads them).
    enums: Tuple = ()
    # The schema's pipelines (TileDB-Py's names): coordinates (as TileDB-Py:
    # given, they replace every dimension's filters and the schema's stays
    # empty), var-size offsets, validity. None: TileDB's defaults (ZSTD,
    # ZSTD, RLE); a schema read from disk has them.
    coords_filters: Any = None
    offsets_filters: Any = None
    validity_filters: Any = None
    # Dimension labels: declared as TileDB-Py's {dim index: {name:
    # DimLabelSchema}} for create; the DimLabels of a schema read from disk.
    dim_labels: Any = ()

    def __post_init__(self):
        object.__setattr__(self, "attrs", tuple(self.attrs))
        if isinstance(self.dim_labels, dict):
            declared = _dimension_labels.declared(self.dim_labels, self.domain)
            object.__setattr__(self, "_declared_labels", declared)
            object.__setattr__(self, "dim_labels", tuple(
                _dimension_labels.DimLabel(x["name"], x["dim_index"], "__labels/l%d" % k, "label", x["order"],
                                           x["type"]) for k, x in enumerate(declared)))
        else:
            object.__setattr__(self, "dim_labels", tuple(self.dim_labels or ()))
        object.__setattr__(self, "enums", tuple(self.enums or ()))
        for name in ("coords_filters", "offsets_filters", "validity_filters"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _filters.as_tuples(getattr(self, name)))

    @property
    def ndim(self):
        return self.domain.ndim

    @property
    def nattr(self):
        return len(self.attrs)

    @property
    def shape(self):
        """Cells per dimension (integer and datetime dimensions only)."""
        for d in self.domain.dims:
            if d.var or _types.base_dtype(d.tiledb_type).kind not in "iuM":
                raise TypeError("shape only valid for integer and datetime dimension domains")
        return tuple(int(d.domain[1]) - int(d.domain[0]) + 1 for d in self.domain.dims)

    def attr(self, key):
        """Attribute `key`: its index or its name."""
        if isinstance(key, str):
            for a in self.attrs:
                if a.name == key:
                    return a
            raise KeyError(key)
        return self.attrs[key]

    def has_attr(self, name):
        """Whether an attribute is called `name`."""
        return any(a.name == name for a in self.attrs)

    def dim_label(self, name):
        """Dimension label `name` (a DimLabel)."""
        for label in self.dim_labels:
            if label.name == name:
                return label
        raise KeyError("tilefmt: the schema has no dimension label %r" % (name,))

    def has_dim_label(self, name):
        """Whether a dimension label is called `name`."""
        return any(label.name == name for label in self.dim_labels)

    def __repr__(self):
        # TileDB-Py's form, line for line.
        lines = ["ArraySchema(", "  domain=Domain(*["]
        lines += ["    %r," % d for d in self.domain.dims]
        lines += ["  ]),", "  attrs=["]
        lines += ["    %r," % a for a in self.attrs]
        lines += ["  ],", "  cell_order='%s'," % self.cell_order, "  tile_order=%r," % self.tile_order]
        if self.sparse:
            lines.append("  capacity=%d," % self.capacity)
        lines.append("  sparse=%s," % self.sparse)
        if self.sparse:
            lines.append("  allows_duplicates=%s," % self.allows_duplicates)
        return "\n".join(lines) + "\n)\n"

    def dump(self):
        """Prints the schema (as TileDB-Py's repr shows it)."""
        print(repr(self))


@dataclass(frozen=True)
class Fragment:
    """A committed fragment, as listed at the open timestamp."""
    uri: str
    name: str
    timestamp_range: Tuple[int, int]
    version: int
    sparse: bool
    cell_num: int
    nonempty_domain: Tuple[Tuple[Any, Any], ...]
    array_schema_name: str = ""
    has_consolidated_metadata: bool = False  # its footer is in a consolidated fragment metadata file


def _range_values(dim, lo, hi):
    if dim.var:
        return (_string_bound(dim, lo), _string_bound(dim, hi))
    return (_types.scalar(dim.tiledb_type, lo), _types.scalar(dim.tiledb_type, hi))


def _string_bound(dim, raw):
    # TileDB-Py gives string (ASCII) dimensions' bounds as bytes.
    return raw.decode("utf-8", "surrogateescape") if dim.tiledb_type == "STRING_UTF8" else raw


def _schema_of(raw, uri=None):
    """A Schema from the dict the extension gives; `uri`: the array's, under
    which its dimension labels' arrays are named."""
    dims = []
    for d in raw["dims"]:
        if d["var"]:
            domain, tile = (None, None), None
        else:
            t = d["type"]
            size = len(d["domain"]) // 2
            domain = (_types.scalar(t, d["domain"][:size]), _types.scalar(t, d["domain"][size:]))
            tile = None if d["tile"] is None else _types.scalar(t, d["tile"])
            if tile is not None and _types.base_dtype(t).kind in "mM":
                tile = np.frombuffer(d["tile"], "<i8")[0]
        dims.append(Dim(name=d["name"], domain=domain, tile=tile, var=d["var"], tiledb_type=d["type"],
                        filters=tuple(d["filters"])))
    attrs = []
    for a in raw["attrs"]:
        dt = _types.cell_dtype(a["type"], a["cell_val_num"])
        fill = a["fill"]
        if not a["var"] and not _types.is_string(a["type"]):
            fill = np.frombuffer(fill, dtype=dt)[0] if len(fill) == dt.itemsize else fill
        attrs.append(Attr(name=a["name"], var=a["var"], nullable=a["nullable"], fill=fill, tiledb_type=a["type"],
                          cell_val_num=a["cell_val_num"], enumeration=a["enumeration"], filters=tuple(a["filters"])))
    domain = Domain(tuple(dims))
    current = None
    if raw["current_domain"]:
        current = tuple(_range_values(d, r["lo"], r["hi"]) for d, r in zip(dims, raw["current_domain"]))
    # TileDB-Py reports no tile order for Hilbert cell order (it does not apply).
    tile_order = None if raw["cell_order"] == "hilbert" else raw["tile_order"]
    return Schema(domain=domain, attrs=tuple(attrs), sparse=raw["sparse"], cell_order=raw["cell_order"],
                  tile_order=tile_order, capacity=raw["capacity"], allows_duplicates=raw["allows_duplicates"],
                  version=raw["version"], current_domain=current, coords_filters=tuple(raw["coords_filters"]),
                  offsets_filters=tuple(raw["offsets_filters"]), validity_filters=tuple(raw["validity_filters"]),
                  dim_labels=_dimension_labels.labels_of(raw, uri))
