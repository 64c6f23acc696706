"""Dimension labels as TileDB-Py offers them: `DimLabelSchema` to declare
one (``Dim.create_label_schema``), `DimLabel` as a schema read from disk
describes it, label values written beside attributes
(``A[...] = {"a": ..., "label": ...}``) and reads by label
(``A.label_index(["label"])[lo:hi]``).

A label is an array of its own in the array's ``__labels/`` folder: dense,
one dimension ("index") like the labelled one, one attribute ("label")
whose values increase or decrease along it. A read by label finds the
index range whose labels fall in the label range, as TileDB's ordered
label reader does, then reads the array there."""

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _filters, _types

_ORDERS = ("increasing", "decreasing")


@dataclass(frozen=True)
class DimLabelSchema:
    """A label to create on a dimension (TileDB-Py's
    ``tiledb.DimLabelSchema(order, label_dtype, dim_dtype, dim_tile,
    label_filters)``): labels of `label_dtype` ("ascii" or a str/bytes
    dtype for ASCII strings) in `order` ("increasing" or "decreasing");
    `dim_tile` the label array's tile extent (None: the dimension's);
    `label_filters` the label values' filters."""
    order: str = "increasing"
    label_dtype: Any = np.uint64
    dim_dtype: Any = np.uint64
    dim_tile: Any = None
    label_filters: Any = None

    def __post_init__(self):
        if self.order not in _ORDERS:
            raise ValueError("tilefmt: a label's order is 'increasing' or 'decreasing', not %r" % (self.order,))
        t = _types.tiledb_type_of(self.label_dtype, dimension=True)
        object.__setattr__(self, "label_dtype", _types.cell_dtype(t, 0 if t == "STRING_ASCII" else 1))
        object.__setattr__(self, "dim_dtype", np.dtype(self.dim_dtype))
        if self.label_filters is not None:
            object.__setattr__(self, "label_filters", _filters.FilterList(_filters.as_tuples(self.label_filters)))

    @property
    def label_order(self):
        return self.order

    @property
    def tiledb_type(self):
        return _types.tiledb_type_of(self.label_dtype, dimension=True)


@dataclass(frozen=True)
class DimLabel:
    """A dimension label of an array's schema (TileDB-Py's
    ``schema.dim_label(name)``)."""
    name: str
    dim_index: int
    uri: str
    label_attr_name: str
    order: str
    tiledb_type: str

    @property
    def isvar(self):
        return self.tiledb_type == "STRING_ASCII"

    @property
    def isascii(self):
        return self.tiledb_type == "STRING_ASCII"

    @property
    def dtype(self):
        return _types.cell_dtype(self.tiledb_type, 0 if self.isvar else 1)

    def __repr__(self):
        dtype = "ascii" if self.isascii else str(self.dtype)
        return "DimLabel(name=%s, dtype='%s', var=%s, order=%s)" % (self.name, dtype, self.isvar, self.order)


def labels_of(raw, base_uri=None):
    """The labels of a schema the extension read (`raw["dim_labels"]`), their
    URIs made absolute under `base_uri` when given."""
    out = []
    for x in raw.get("dim_labels", ()):
        uri = x["uri"]
        if base_uri is not None and x["relative_uri"]:
            uri = base_uri.rstrip("/") + "/" + uri
        out.append(DimLabel(x["name"], x["dim_index"], uri, x["label_attr_name"], x["order"].lower(), x["type"]))
    return tuple(out)


def declared(dim_labels, domain):
    """The labels a Schema(dim_labels={dim index: {name: DimLabelSchema}})
    declares, in the order TileDB numbers their arrays, as the extension
    takes them."""
    out = []
    for dim_index, labels in (dim_labels or {}).items():
        dim = domain.dim(dim_index)
        for name, s in labels.items():
            tile = None
            if s.dim_tile is not None:
                tile = _types.encode(dim.tiledb_type, s.dim_tile)
            filters = [tuple(f) for f in _filters.as_tuples(s.label_filters or ())]
            out.append({"dim_index": int(dim_index), "name": name, "order": s.order, "type": s.tiledb_type,
                        "filters": filters, "tile": tile})
    return out


def _label_ranges(selection):
    """A label selection (TileDB-Py's forms) as inclusive (lo, hi) pairs."""
    if isinstance(selection, np.ndarray):
        return [(x, x) for x in selection.tolist()]
    out = []
    for s in selection if isinstance(selection, list) else [selection]:
        if isinstance(s, slice):
            if s.start is None or s.stop is None:
                raise NotImplementedError("partial and full indexing is not yet supported on dimension labels")
            out.append((_plain(s.start), _plain(s.stop)))
        elif isinstance(s, tuple):
            out.append((_plain(s[0]), _plain(s[1])))
        else:
            out.append((_plain(s), _plain(s)))
    return out


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v.encode("ascii") if isinstance(v, str) else v


class LabelIndexer:
    """``A.label_index(labels)[...]``: a multi_index selection in which the
    dimensions of `labels` take label ranges."""

    def __init__(self, query, labels):
        self.query = query
        array = query.array
        if array.schema.sparse:
            raise NotImplementedError("querying sparse arrays by label is not yet implemented")
        self.labels = {}
        for name in labels:
            label = array.schema.dim_label(name)
            if label.dim_index in self.labels:
                raise ValueError("tilefmt: cannot set labels `%s` and `%s` defined on the same dimension"
                                 % (self.labels[label.dim_index].name, name))
            self.labels[label.dim_index] = label

    def __getitem__(self, idx):
        array = self.query.array
        sel = list(idx) if isinstance(idx, tuple) else [idx]
        if len(sel) > array.schema.ndim:
            raise IndexError("too many indices for array")
        values = {}
        for dim_index, label in self.labels.items():
            if dim_index >= len(sel):
                raise NotImplementedError("partial and full indexing is not yet supported on dimension labels")
            with _open_label(array, label) as L:
                first, column = _label_column(L, label)
                index_ranges = [_index_range(label, column, first, lo, hi) for lo, hi in _label_ranges(sel[dim_index])]
                values[label.name] = np.concatenate([column[lo - first:hi - first + 1] for lo, hi in index_ranges])
            sel[dim_index] = index_ranges
        data = self.query._multi_index(tuple(sel))
        out = OrderedDict()
        for dim_index in reversed(list(self.labels)):  # TileDB-Py's order: the last label first
            out[self.labels[dim_index].name] = values[self.labels[dim_index].name]
        out.update(data)
        return out


def _open_label(array, label):
    from ._array import Array

    return Array(label.uri, key=array._key, timestamp=array.timestamp_range, config=array.config)


def _label_column(L, label):
    """The label array's first written index and its labels from there to
    its last written index, checked to run in the label's order."""
    ned = L.nonempty_domain()
    if ned is None:
        raise ValueError("tilefmt: dimension label %r is empty" % label.name)
    lo, hi = int(ned[0][0]), int(ned[0][1])
    column = L.query(attrs=[label.label_attr_name]).multi_index[lo:hi][label.label_attr_name]
    if not _ordered(column, label):
        raise ValueError("tilefmt: the values of dimension label %r are not in %s order" % (label.name, label.order))
    return lo, column


def _index_range(label, column, first, lo, hi):
    """The indexes whose labels lie in [lo, hi] (inclusive), found by binary
    search; a range holding no label raises as in TileDB."""
    keys = column  # numbers, or bytes in an object array: both searchable
    if label.order == "increasing":
        a = int(np.searchsorted(keys, lo, side="left"))
        b = int(np.searchsorted(keys, hi, side="right")) - 1
    else:  # decreasing: search the reversed column
        rev = keys[::-1]
        n = len(keys)
        a = n - int(np.searchsorted(rev, hi, side="right"))
        b = n - 1 - int(np.searchsorted(rev, lo, side="left"))
    if a > b:
        raise ValueError("tilefmt: dimension label %r: the range [%r, %r] holds no label" % (label.name, lo, hi))
    return (first + a, first + b)


def write_labels(writer, subarray, values):
    """Writes label values given with a dense write of `subarray` (one
    (lo, hi) per dimension): each label's values cover its dimension's
    range and run in the label's order, as TileDB checks; all are checked
    before any is written."""
    from ._write import ArrayWriter

    checked = []
    for name, v in values.items():
        label = writer.schema.dim_label(name)
        lo, hi = subarray[label.dim_index]
        if label.isvar:
            v = np.array([x.encode("ascii") if isinstance(x, str) else bytes(x) for x in v], dtype=object)
        else:
            v = np.ascontiguousarray(v, dtype=label.dtype)
        if len(v) != hi - lo + 1:
            raise ValueError("tilefmt: %d values for dimension label %r, its dimension's range has %d"
                             % (len(v), name, hi - lo + 1))
        if not _ordered(v, label):
            raise ValueError("tilefmt: the values for dimension label %r are not in %s order" % (name, label.order))
        checked.append((label, lo, hi, v))
    for label, lo, hi, v in checked:
        with ArrayWriter(label.uri, timestamp=writer.timestamp, config=writer.config, key=writer.key) as L:
            L[lo:hi + 1] = {label.label_attr_name: v}


def _ordered(values, label):
    """Whether `values` run in the label's order (equal neighbours allowed, as in TileDB)."""
    if len(values) < 2:
        return True
    if label.isvar:
        keys = list(values)
        pairs = zip(keys[:-1], keys[1:])
        return all(a <= b for a, b in pairs) if label.order == "increasing" else all(a >= b for a, b in pairs)
    step = np.diff(values)
    return bool(np.all(step >= 0) if label.order == "increasing" else np.all(step <= 0))
