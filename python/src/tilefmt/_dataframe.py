"""tilefmt.from_pandas and tilefmt.from_numpy: new arrays from a DataFrame
or a NumPy array, with the schema, metadata and cells TileDB-Py 0.36.1's
functions of the same names make from the same input, so that either
library reads the result as it reads TileDB-Py's.

Each function plans the schema and converts and places the values before
it creates the array: values TileDB-Py fails to convert, and dense rows
outside the domain, fail here with nothing created (TileDB-Py leaves an
empty array behind). Where TileDB-Py's result needs something tilefmt's
writer cannot declare, the functions raise and say what."""

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._group import object_type
from ._open import open as _open
from ._schema import Attr, Dim, Domain, Enumeration, Schema
from ._write import create

# Filters are tuples (name, level or None[, options]) as tilefmt.Attr takes
# them (python/src/filters.hpp, which refuses unknown names and options);
# the compressors carry a level, -1 meaning the codec's default.
_COMPRESSORS = ("GZIP", "ZSTD", "LZ4", "RLE", "BZIP2", "DICTIONARY", "DELTA", "DOUBLE_DELTA")
# TileDB-Py's default filters (True): ZSTD at the codec's default level.
_ZSTD = [("ZSTD", -1)]
_LAYOUTS = {"row-major": "row-major", "col-major": "col-major", "hilbert": "hilbert",
            "C": "row-major", "R": "col-major", "H": "hilbert", None: "row-major"}
_UINT64_MAX = (1 << 64) - 1


def _filters(spec):
    """A filter argument as filter tuples: True is TileDB-Py's default
    (ZSTD at its default level), None no filters, otherwise a filter or a
    list of them, each a name or a (name, level[, options]) tuple."""
    if spec is True:
        return list(_ZSTD)
    if spec is None:
        return []
    if isinstance(spec, str) or (isinstance(spec, tuple) and spec and isinstance(spec[0], str)):
        spec = [spec]
    out = []
    for f in spec:
        f = (f,) if isinstance(f, str) else tuple(f)
        name = str(f[0]).upper()
        level = f[1] if len(f) > 1 else None
        if name in _COMPRESSORS:
            level = -1 if level is None else int(level)
        out.append((name, level) + f[2:])
    return out


def _filters_for(name, spec):
    # As TileDB-Py: a dict gives filters per column, the default for the others.
    return _filters(spec.get(name, True) if isinstance(spec, dict) else spec)


def _layout(order):
    if order not in _LAYOUTS:
        raise ValueError("unknown tiledb layout: %s" % (order,))
    return _LAYOUTS[order]


# ---- DataFrame columns: TileDB-Py's dtype rules (dataframe_.py, ColumnInfo) ----

@dataclass(frozen=True)
class _Column:
    dtype: Any               # a NumPy dtype, or "ascii"
    repr: Any = None         # the pandas dtype name kept in the metadata
    nullable: bool = False
    var: bool = False
    categories: Any = None   # a categorical's: the enumeration's labels
    ordered: bool = False


def _column_of_values(values, name, varlen_types=()):
    import pandas as pd
    from pandas.api import types as pdt
    if pdt.is_object_dtype(values):
        inferred = pdt.infer_dtype(values)
        if inferred == "bytes":
            return _column_of_dtype(np.bytes_, name)
        if inferred == "string":
            return _column_of_dtype(np.str_, name)
        raise NotImplementedError("column %r: pandas infers %r values, which TileDB-Py does not take"
                                  % (name, inferred))
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        # As TileDB-Py: an int32 attribute of the codes, labelled by an
        # enumeration of the categories named after the column.
        categories = values.dtype.categories
        kind = _column_of_values(pd.Series(categories.values), name).dtype
        labels = [str(c) for c in categories] if getattr(kind, "kind", "U") in "US" else categories.values
        return _Column(np.dtype(np.int32), values.dtype.name, categories=labels, ordered=bool(values.dtype.ordered))
    dtype = values.dtype if hasattr(values, "dtype") else np.asarray(values).dtype
    return _column_of_dtype(dtype, name, varlen_types)


def _column_of_dtype(dtype, name, varlen_types=()):
    from pandas.api import types as pdt
    if isinstance(dtype, str) and dtype == "ascii":
        return _Column("ascii", var=True)
    if isinstance(dtype, str) and dtype == "blob":
        return _Column(np.dtype(np.bytes_), var=True)
    dtype = pdt.pandas_dtype(dtype)
    if pdt.is_extension_array_dtype(dtype):
        # Parametrized dtypes ("Sparse[int32]") name their values' type in subtype.
        var = bool(varlen_types and dtype in varlen_types)
        nullable = not var and bool(dtype.construct_array_type()._can_hold_na)
        return _Column(np.dtype(getattr(dtype, "subtype", dtype.type)), dtype.name, nullable, var)
    if pdt.is_bool_dtype(dtype):
        return _Column(np.dtype(bool), "bool")
    if pdt.is_complex_dtype(dtype):
        raise NotImplementedError("column %r: complex values are not supported" % (name,))
    if pdt.is_numeric_dtype(dtype):
        if dtype.kind == "f" and dtype.itemsize not in (4, 8):
            raise NotImplementedError("column %r: %s; TileDB-Py takes float32 and float64" % (name, dtype))
        return _Column(dtype)
    if pdt.is_datetime64_any_dtype(dtype):
        if dtype != np.dtype("datetime64[ns]"):
            raise NotImplementedError("column %r: %s; TileDB-Py takes datetime64[ns] only" % (name, dtype))
        return _Column(dtype)
    if dtype.type in (np.bytes_, np.str_):
        return _Column(dtype, var=True)  # characters are always var-size
    raise NotImplementedError("column %r: dtype %s is not supported" % (name, dtype))


def _attr_var(col):
    # TileDB-Py's Attr makes every str and every unsized bytes dtype var-size.
    if isinstance(col.dtype, str):
        return True
    return col.var or col.dtype.kind == "U" or (col.dtype.kind == "S" and col.dtype.itemsize == 0)


def _column_values(column, col, name, fillna):
    """A column as TileDB-Py writes it: cast to the attribute's dtype, nulls
    as the dtype's zero under a mask."""
    if fillna is not None and name in fillna:
        column = column.fillna(fillna[name])
    if col.categories is not None:
        return column.cat.codes.to_numpy().astype(np.int32)  # -1 for a missing value, as TileDB-Py writes it
    kw = {} if col.var else {"dtype": col.dtype}
    if col.nullable:
        kw["na_value"] = col.dtype.type()
        valid = (~column.isna()).to_numpy(dtype=bool)
        return np.ma.MaskedArray(column.to_numpy(**kw), mask=~valid)
    return column.to_numpy(**kw)


def _var_cells(attr, values, sparse):
    """Checks var-size cells as TileDB-Py's writes do: strings pass; a
    dense write turns numbers into their text (NumPy's cast to str), a
    sparse one refuses them, as it refuses other objects."""
    text = attr.tiledb_type in ("STRING_UTF8", "STRING_ASCII", "CHAR", "BLOB")
    data = np.ma.getdata(values)
    if not attr.var or (text and data.dtype.kind in "US"):
        return values
    if text and data.dtype != object and not sparse:
        return data.astype("U" if attr.tiledb_type == "STRING_UTF8" else "S")
    if not text or data.dtype != object or not all(isinstance(v, (str, bytes)) for v in data.ravel()):
        raise TypeError("Failed to convert buffer for attribute: %r" % attr.name)
    return values


# ---- dimensions: TileDB-Py's create_dim, with libtiledb's checks ----

def _type_range(dtype):
    """The values a dimension of `dtype` may hold, as TileDB-Py bounds them
    (dates and times as int64, NaT excluded)."""
    if dtype.kind in "mM":
        return -(1 << 63) + 1, (1 << 63) - 1
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    info = np.finfo(dtype)
    return info.min, info.max


def _dim(name, dtype, values, full_domain, tile, filters):
    """A dimension over `values` (or the dtype's whole range), its tile
    extent clipped to the domain, as TileDB-Py's create_dim makes it; then
    TileDB-Py's and libtiledb's checks, which tilefmt.create does not make."""
    if isinstance(dtype, str):
        raise TypeError("tilefmt.from_pandas: dimension %r cannot have dtype %r" % (name, dtype))
    dtype = np.dtype(dtype)
    text, dated = dtype.kind in "SU", dtype.kind in "mM"
    if not full_domain:
        arr = np.asarray(values)
        lo, hi = arr.min(), arr.max()
    elif text:
        lo = hi = None
    else:
        lo, hi = _type_range(dtype)
        if dtype.kind in "iumM" and hi - lo > _UINT64_MAX - tile:
            hi = hi - tile  # room for one more tile past the domain
        if dated:
            unit = np.datetime_data(dtype)[0]
            lo, hi = np.datetime64(lo, unit), np.datetime64(hi, unit)
    if text:
        return Dim(name=name, dtype=np.bytes_, filters=tuple(filters))  # ASCII; no domain or extent
    if dtype.kind not in "iufM":
        raise TypeError("invalid Dim dtype %r" % dtype)
    with np.errstate(over="ignore"):
        diff = hi - lo
        if dtype.kind in "iuM":
            # At least 1, at most the values in the domain; the difference is
            # taken in the values' type and wraps as it does in TileDB-Py.
            if isinstance(diff, np.timedelta64):
                diff = diff.astype(np.int64)
            span = np.asarray(diff).astype(np.uint64)[()] if isinstance(diff, np.generic) else np.uint64(diff)
            tile = max(1, min(tile, 1 + span))
        elif diff < tile:
            tile = np.ceil(diff)
    tmin, tmax = _type_range(dtype)
    ilo, ihi = (np.datetime64(v, np.datetime_data(dtype)[0]).astype(np.int64) for v in (lo, hi)) if dated \
        else (lo, hi)
    if not (tmin <= ilo <= tmax and tmin <= ihi <= tmax):
        raise TypeError("invalid domain extent, domain cannot be safely cast to dtype %r" % dtype)
    domain = np.asarray((lo, hi), dtype)
    tile = np.array(tile, np.int64 if dated else dtype)[()]
    if dtype.kind == "f":
        if not tile > 0:
            raise ValueError("Dimension: Tile extent check failed on dimension %r; Tile extent must be greater "
                             "than 0" % name)
        return Dim(name=name, domain=(domain[0], domain[1]), tile=tile, dtype=dtype, filters=tuple(filters))
    # libtiledb refuses a domain of every value of an integer type, and
    # extents outside [1, number of values in the domain].
    ilo, ihi = (int(v) for v in domain.astype(np.int64 if dated else dtype))
    if (ilo, ihi) == (tmin, tmax):
        raise ValueError("Dimension: Domain check failed; Domain range (upper + lower + 1) is larger than the "
                         "maximum unsigned number")
    if not 1 <= int(tile) <= ihi - ilo + 1:
        raise ValueError("Dimension: Tile extent check failed on dimension %r; Tile extent %d is not in [1, %d]"
                         % (name, tile, ihi - ilo + 1))
    return Dim(name=name, domain=(domain[0], domain[1]) if dated else (ilo, ihi), tile=int(tile), dtype=dtype,
               filters=tuple(filters))


def _is_text(dtype):
    return isinstance(dtype, np.dtype) and (dtype == np.dtype(np.str_) or dtype == np.dtype(np.bytes_))


def _sparse_of(dtypes, sparse):
    """TileDB-Py's choice: string or mixed dimension types make a sparse
    array, otherwise `sparse` (dense by default)."""
    if any(_is_text(d) for d in dtypes):
        if sparse is False:
            raise ValueError("a dense array cannot have string dimensions")
        if sparse is None:
            return True
    if not all(d == dtypes[0] for d in dtypes):
        if sparse is False:
            raise ValueError("the dimensions of a dense array must have one type")
        if sparse is None:
            return True
    return bool(sparse)


def _plan(df, columns, index_dims, sparse, full_domain, tile, attr_filters, dim_filters, cell_order, tile_order,
          capacity, allows_duplicates, coords_filters=True, offsets_filters=True):
    """The schema and the metadata TileDB-Py's from_pandas makes for `df`
    (`coords_filters` True: TileDB's default; `offsets_filters` True: ZSTD,
    None: none, as TileDB-Py's _get_schema_filters)."""
    import pandas as pd
    if tile is not None:
        given = tile.values() if isinstance(tile, dict) else (tile,)
        if not all(isinstance(v, (int, float)) for v in given):
            raise ValueError("tile: give a number, or a dict of numbers by dimension name, not %r" % (tile,))
    index = df.index
    found = []
    for name in index_dims or index.names:
        if name in index.names:
            values = index.get_level_values(name)
        elif name in df.columns:
            values = df[name]
        else:
            raise ValueError("Unknown column or index named %r" % (name,))
        dtype = columns[name].dtype if name in columns else _column_of_values(values, name).dtype
        stored = dtype
        # Only an index already called "__tiledb_rows" (from_csv's) gets uint64.
        if name == "__tiledb_rows" and isinstance(index, pd.RangeIndex):
            stored = np.dtype(np.uint64)
        found.append(("__tiledb_rows" if name is None else name, dtype, stored, values))
    default_tile = {1: 10000, 2: 1000, 3: 100}.get(len(found), 10)
    dims = []
    for name, _, stored, values in found:
        t = tile.get(name) if isinstance(tile, dict) else tile
        dims.append(_dim(name, stored, values, full_domain, default_tile if t is None else t,
                         _filters_for(name, dim_filters)))
    index_meta = {name: str(dtype) for name, dtype, _, _ in found}
    sparse = _sparse_of([dtype for _, dtype, _, _ in found], sparse)
    attrs, reprs, enums = [], {}, []
    for name in (c for c in df.columns if c not in index_dims):
        col = columns[name]
        if col.categories is not None:
            enums.append(Enumeration(name, col.ordered, col.categories))
        attrs.append(Attr(name=name, dtype=col.dtype, var=_attr_var(col), nullable=col.nullable,
                          filters=tuple(_filters_for(name, attr_filters)),
                          enum_label=name if col.categories is not None else None))
        if col.repr is not None:
            reprs[name] = str(col.repr)
    schema = Schema(domain=Domain(*dims), attrs=attrs, sparse=sparse, cell_order=_layout(cell_order),
                    tile_order=_layout(tile_order), capacity=capacity if capacity and capacity > 0 else 10000,
                    allows_duplicates=bool(sparse and allows_duplicates), enums=enums,
                    coords_filters=None if coords_filters is True else _filters(coords_filters),
                    offsets_filters=_filters(offsets_filters))
    meta = {}
    if reprs:
        meta["__pandas_attribute_repr"] = json.dumps(reprs)
    meta["__pandas_index_dims"] = json.dumps(index_meta)
    return schema, meta


def from_pandas(uri, dataframe, *, sparse=None, index_dims=None, allows_duplicates=True, mode="ingest",
                attr_filters=True, dim_filters=True, coords_filters=True, offsets_filters=True, full_domain=False,
                tile=None, row_start_idx=None, fillna=None, column_types=None, varlen_types=None, capacity=None,
                date_spec=None, cell_order="row-major", tile_order="row-major", timestamp=None, fit_to_df=False,
                config=None, key=None):
    """Creates the array at `uri` from a pandas DataFrame and writes its
    rows, as TileDB-Py's ``tiledb.from_pandas`` (0.36.1) does: one
    dimension per index level (``index_dims``: columns or index levels to
    use instead), named "__tiledb_rows" for an unnamed index; dense unless
    a dimension is a string or the dimension types differ (``sparse``);
    the domain the values span (the dtype's whole range with
    ``full_domain`` or ``sparse=False``); tile extents ``tile`` or
    10000/1000/100/10 for 1/2/3/more dimensions; ZSTD on every attribute,
    dimension and offsets unless ``attr_filters``/``dim_filters``/
    ``offsets_filters`` say otherwise (True: that default, None: none, a
    list of (name, level) pairs, or a dict of them by column). Nullable
    pandas dtypes make nullable attributes, strings var-size ones; the
    pandas dtypes are kept in the metadata (``__pandas_attribute_repr``,
    ``__pandas_index_dims``) for ``.df`` to restore them.

    `mode`: "ingest", "schema_only" (create, write nothing) or "append"
    (write into the existing array: at ``row_start_idx`` for dense arrays,
    or over the columns' range with ``fit_to_df``). `timestamp` is the
    data fragment's time (ms). `config`, `key`: as for tilefmt.create.

    Attribute names beginning with "__" are TileDB's: a column so named
    raises ValueError, as TileDB-Py's call fails."""
    import pandas as pd
    if mode != "append" and object_type(uri, config=config) == "array":
        raise FileExistsError("Array URI '%s' already exists!" % (uri,))
    if mode not in ("ingest", "schema_only", "append"):
        raise ValueError("Invalid mode specified ('%s')" % (mode,))
    index_dims = index_dims or ()
    write, creating = mode != "schema_only", mode != "append"
    if not creating:
        with _open(uri, config=config, key=key) as A:
            existing = A.schema
        if not existing.sparse and row_start_idx is None and not fit_to_df:
            raise ValueError("tilefmt.from_pandas: appending to a dense array needs row_start_idx or fit_to_df")
    if sparse is False:
        full_domain = True  # as TileDB-Py: dense frames get the whole range
    df = dataframe
    if date_spec:
        df = df.assign(**{n: pd.to_datetime(df[n], format=f) for n, f in date_spec.items()})
    # TileDB-Py renames the columns to str in the caller's frame; a copy here.
    df = df.rename(columns=str) if any(not isinstance(c, str) for c in df.columns) else df
    columns = {}
    for name, column in df.items():
        if column_types and name in column_types:
            columns[name] = _column_of_dtype(column_types[name], name, varlen_types)
        else:
            columns[name] = _column_of_values(column, name, varlen_types)
    schema = meta = None
    if creating:
        schema, meta = _plan(df, columns, index_dims, sparse, full_domain, tile, attr_filters, dim_filters,
                             cell_order, tile_order, capacity, allows_duplicates, coords_filters, offsets_filters)
    values = {}
    if write:
        values = {name: _column_values(df[name], columns[name], name, fillna) for name in df.columns}
        target = schema or existing
        for a in target.attrs:
            if a.name in values:
                values[a.name] = _var_cells(a, values[a.name], target.sparse)
        if not target.sparse:
            _dense_region(target, df, row_start_idx, fit_to_df)
    if creating:
        create(uri, schema, config=config, key=key)
        with _open(uri, "w", config=config, key=key) as A:
            for k, v in meta.items():
                A.meta[k] = v
    if write:
        with _open(uri, "w", timestamp=timestamp, config=config, key=key) as A:
            _write_frame(A, df, values, creating, index_dims, row_start_idx, fit_to_df)


def _write_frame(A, df, values, created, index_dims, row_start_idx, fit_to_df):
    """The rows of `df` into the open writer, placed as TileDB-Py places them."""
    dims = A.schema.domain.dims
    if A.schema.sparse:
        coords = []
        for k, d in enumerate(dims):
            # A dimension the frame has as a column (appending, or index_dims)
            # takes that column; the others the index level at its position.
            if (not created or d.name in index_dims) and d.name not in df.index.names and d.name != "__tiledb_rows":
                c = values.pop(d.name)
            else:
                c = df.index.get_level_values(k)
            if row_start_idx is not None and d.name == "__tiledb_rows":
                c = c + row_start_idx
            coords.append(np.asarray(c))
        A[tuple(coords)] = values
        return
    A[_dense_region(A.schema, df, row_start_idx, fit_to_df)] = values


def _dense_region(schema, df, row_start_idx, fit_to_df):
    """Where TileDB-Py writes a frame into a dense array: over its columns'
    range per dimension (fit_to_df), or rows [row_start_idx (0), + n) of the
    first dimension, whatever the index holds; checked before anything is
    created, where TileDB-Py's write fails."""
    dims = schema.domain.dims
    if fit_to_df:
        return tuple(slice(df[d.name].min(), df[d.name].max() + 1) for d in dims)
    d = dims[0]
    if d.dtype.kind in "mM":
        raise IndexError("cannot index datetime dimension with non-datetime interval")
    start = 0 if row_start_idx is None else int(row_start_idx)
    if start < int(d.domain[0]) or start + len(df) - 1 > int(d.domain[1]):
        raise IndexError("tilefmt.from_pandas: rows %d to %d are outside the domain of %r, [%d, %d] (TileDB-Py: "
                         "index out of bounds)" % (start, start + len(df) - 1, d.name, d.domain[0], d.domain[1]))
    if any(int(x.domain[1]) != int(x.domain[0]) for x in dims[1:]):
        raise ValueError("tilefmt.from_pandas: %d rows cannot fill the dense region of rows %d to %d over the other "
                         "dimensions' whole domains (TileDB-Py: Invalid number of cells)"
                         % (len(df), start, start + len(df) - 1))
    return slice(start, start + len(df))


# ---- from_numpy: TileDB-Py's highlevel.from_numpy and schema_like ----

def _numpy_attr(array, attr_name):
    """The attribute TileDB-Py makes for the array's values."""
    var = False
    dtype = array.dtype
    if dtype == object:
        # TileDB-Py looks at the first element only.
        first = array.flat[0]
        if isinstance(first, bytes):
            dtype, var = np.dtype("S"), True
        elif isinstance(first, str):
            dtype, var = np.dtype("U"), True
        elif isinstance(first, np.ndarray):
            raise NotImplementedError("tilefmt.from_numpy: an object array of arrays (TileDB-Py fails to write it "
                                      "to the attribute it makes)")
        else:
            raise TypeError("tilefmt.from_numpy: object arrays of %s: TileDB-Py takes str, bytes or arrays"
                            % type(first).__name__)
    elif dtype.kind == "U":
        raise TypeError("tilefmt.from_numpy: NumPy str arrays: TileDB-Py makes a var-size attribute and then "
                        "fails to write them; pass an object array of str")
    if dtype.kind == "V" or dtype.kind == "c" or (dtype.kind == "S" and dtype.itemsize > 1):
        # Several values per cell (records, complex, S<n>): tilefmt's writer
        # casts each cell to one value of the attribute's type.
        raise NotImplementedError("tilefmt.from_numpy: dtype %s makes cells of several values, which tilefmt's "
                                  "writer cannot write yet" % dtype)
    if dtype.kind == "f" and dtype.itemsize not in (4, 8):
        raise TypeError("%r cannot be mapped to a DataType" % dtype)
    return Attr(name=attr_name, dtype=dtype, var=var or dtype.kind == "U" or dtype.itemsize == 0)


def _numpy_tiles(tile, ndim):
    if not tile:
        return None
    if np.isscalar(tile):
        return (int(tile),) * ndim
    if isinstance(tile, str) or len(tile) != ndim:
        raise ValueError("'tile' must be iterable and match array dimensionality")
    return tuple(tile)


def from_numpy(uri, array, config=None, key=None, *, mode="ingest", timestamp=None, sparse=False,
               full_domain=False, dim_dtype=np.uint64, attr_name="", tile=None, append_dim=None, start_idx=None,
               capacity=0, cell_order="row-major", tile_order="row-major", allows_duplicates=False,
               coords_filters=None, offsets_filters=None, validity_filters=None):
    """Writes a NumPy array into a new dense array at `uri` and returns it
    opened for reading, as TileDB-Py's ``tiledb.from_numpy`` (0.36.1): one
    ``dim_dtype`` (uint64) dimension per axis over [0, n - 1], named
    "__dim_0", "__dim_1", ...; tile extents the axes' lengths unless
    ``tile`` (a number or one per axis) says otherwise; one attribute
    ``attr_name`` ("") without filters. Object arrays of str or bytes make
    a var-size attribute.

    `mode`: "ingest", "schema_only" or "append" (along ``append_dim``, 0 by
    default, after the written cells or at ``start_idx``). `timestamp`: the
    fragment's time (ms). `capacity`, `cell_order`, `tile_order` as for
    the schema; `offsets_filters`/`validity_filters` only as tilefmt
    writes them (ZSTD, RLE). `config`, `key`: as for tilefmt.create.

    An ``attr_name`` beginning with "__" raises ValueError, as TileDB-Py's
    call fails: such attribute names are TileDB's."""
    if not isinstance(array, np.ndarray):
        raise TypeError("tilefmt.from_numpy takes a numpy.ndarray, not %s" % type(array).__name__)
    if sparse:
        raise ValueError("from_numpy only supports dense arrays")
    if mode not in ("ingest", "schema_only", "append"):
        raise ValueError("Invalid mode specified ('%s')" % (mode,))
    array = np.asarray(array)  # a masked array's mask, as TileDB-Py, is not written
    if mode == "append":
        with _open(uri, config=config, key=key) as A:
            if A.schema.sparse:
                raise ValueError("Cannot append to sparse array")
            ned = A.nonempty_domain()
        with _open(uri, "w", timestamp=timestamp, config=config, key=key) as A:
            _write_numpy(A, array, ned, 0 if append_dim is None else append_dim, start_idx)
        return _open(uri, config=config, key=key)
    if append_dim is not None or start_idx is not None:
        raise TypeError("from_numpy: append_dim and start_idx apply to mode='append'")
    if object_type(uri, config=config) == "array":
        raise FileExistsError("Array URI '%s' already exists!" % (uri,))
    if allows_duplicates:
        raise ValueError("ArraySchema: Dense arrays cannot allow coordinate duplicates")
    tiles = _numpy_tiles(tile, array.ndim)
    dims = [_dim("__dim_%d" % d, dim_dtype, (0, array.shape[d] - 1), full_domain,
                 tiles[d] if tiles else array.shape[d], ()) for d in range(array.ndim)]
    for d in dims:
        if d.var or d.dtype.kind not in "iumM":
            raise ValueError("ArraySchema: Cannot set domain; Dense arrays do not support dimension datatype '%s'"
                             % d.tiledb_type)
    # As TileDB-Py's from_numpy: the schema's pipelines as given, None for TileDB's defaults.
    pipelines = {k: None if v is None else _filters(v) for k, v in (
        ("coords_filters", coords_filters), ("offsets_filters", offsets_filters), ("validity_filters", validity_filters))}
    schema = Schema(domain=Domain(*dims), attrs=[_numpy_attr(array, attr_name)], sparse=False,
                    cell_order=_layout(cell_order), tile_order=_layout(tile_order),
                    capacity=capacity if capacity and capacity > 0 else 10000, **pipelines)
    create(uri, schema, config=config, key=key)
    if mode == "ingest":
        with _open(uri, "w", timestamp=timestamp, config=config, key=key) as A:
            _write_numpy(A, array, None, None, None)
    return _open(uri, config=config, key=key)


def _write_numpy(A, array, ned, append_dim, start_idx):
    """The array into the open writer where TileDB-Py's write_direct puts it:
    from `start_idx` (0) on every axis, or after `ned` along `append_dim`."""
    if array.dtype == object:
        A[:] = array  # TileDB-Py writes object arrays over the whole domain
        return
    first = start_idx or 0
    ranges = [[first, first + n - 1] for n in array.shape]
    if ned is not None or append_dim is not None:
        if ned is None:
            raise ValueError("tilefmt.from_numpy: cannot append to an array with nothing written (TileDB-Py fails too)")
        if array.ndim <= append_dim:
            raise IndexError("`append_dim` out of range")
        if array.ndim != len(ned):
            raise ValueError("tilefmt.from_numpy: %d-dimensional values for a %d-dimensional array"
                             % (array.ndim, len(ned)))
        for n in range(array.ndim):
            lo, hi = int(ned[n][0]), int(ned[n][1])
            if n == append_dim:
                s = start_idx if start_idx is not None else hi + 1
                ranges[n] = [s, s + array.shape[n] - 1]
            elif array.shape[n] != hi - lo + 1:
                raise ValueError("tilefmt.from_numpy: along axis %d the values to append have %d cells and the "
                                 "array %d; only append_dim may differ" % (n, array.shape[n], hi - lo + 1))
    A[tuple(slice(lo, hi + 1) for lo, hi in ranges)] = np.ascontiguousarray(array)
