"""TileDB datatypes as NumPy dtypes, following TileDB-Py's choices so that
results compare equal to its own."""

import numpy as np

_BASE = {
    "INT8": "i1", "UINT8": "u1", "INT16": "<i2", "UINT16": "<u2",
    "INT32": "<i4", "UINT32": "<u4", "INT64": "<i8", "UINT64": "<u8",
    "FLOAT32": "<f4", "FLOAT64": "<f8", "BOOL": "?",
    "CHAR": "S1", "STRING_ASCII": "S1", "STRING_UTF8": "S1", "BLOB": "S1",
    "GEOM_WKB": "S1", "GEOM_WKT": "S1", "ANY": "u1",
    "STRING_UTF16": "<u2", "STRING_UCS2": "<u2", "STRING_UTF32": "<u4", "STRING_UCS4": "<u4",
}
for _unit, _name in (("Y", "YEAR"), ("M", "MONTH"), ("W", "WEEK"), ("D", "DAY"), ("h", "HR"),
                     ("m", "MIN"), ("s", "SEC"), ("ms", "MS"), ("us", "US"), ("ns", "NS"),
                     ("ps", "PS"), ("fs", "FS"), ("as", "AS")):
    _BASE["DATETIME_" + _name] = "<M8[%s]" % _unit
    if _name not in ("YEAR", "MONTH", "WEEK", "DAY"):
        _BASE["TIME_" + _name] = "<m8[%s]" % _unit

_BYTES = {"CHAR", "STRING_ASCII", "BLOB", "GEOM_WKB", "GEOM_WKT"}


def base_dtype(tiledb_type):
    """The NumPy dtype of one stored value of `tiledb_type` (a TileDB type name)."""
    return np.dtype(_BASE[tiledb_type])


def is_string(tiledb_type):
    """Whether values of the type are characters (strings when var-size)."""
    return tiledb_type in _BYTES or tiledb_type == "STRING_UTF8"


def cell_dtype(tiledb_type, cell_val_num):
    """The dtype of one cell, as TileDB-Py reports it: characters as S/U of
    the cell's length, two floats as a complex number, other fixed
    multi-value cells as a record of anonymous fields, var-size cells as
    the base type."""
    base = base_dtype(tiledb_type)
    if cell_val_num == 0 or cell_val_num == 1:
        if tiledb_type == "STRING_UTF8":
            return np.dtype("U")
        if tiledb_type in _BYTES:
            return np.dtype("S")
        return base
    if tiledb_type == "STRING_UTF8":
        return np.dtype(("U", cell_val_num))
    if tiledb_type == "CHAR":
        return np.dtype(("S", cell_val_num))
    if tiledb_type in _BYTES:
        return np.dtype(("S", cell_val_num))
    if cell_val_num == 2 and base.kind == "f":
        return np.dtype("complex64" if base.itemsize == 4 else "complex128")
    return np.dtype([("", base)] * cell_val_num)


def scalar(tiledb_type, raw):
    """One value from its little-endian bytes: a number, a datetime64, or
    bytes/str for characters."""
    if tiledb_type == "STRING_UTF8":
        return raw.decode("utf-8", "surrogateescape")
    if tiledb_type in _BYTES:
        return raw
    return np.frombuffer(raw, dtype=base_dtype(tiledb_type))[0]


def encode(tiledb_type, value):
    """`value` as the bytes TileDB stores for one value of `tiledb_type`."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    dt = base_dtype(tiledb_type)
    if dt.kind in "mM" and not isinstance(value, (np.datetime64, np.timedelta64)):
        return np.array(value, dtype="<i8").tobytes()
    arr = np.array(value)
    if dt.kind in "iub" and arr.dtype.kind == "f":
        if arr != np.floor(arr):
            raise ValueError("%r is not a value of type %s" % (value, tiledb_type))
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if not info.min <= int(arr) <= info.max:
            raise ValueError("%r is out of range for type %s" % (value, tiledb_type))
    return arr.astype(dt).tobytes()


_FROM_NUMPY = {np.dtype(v).str if k not in _BYTES and not k.startswith("STRING") and k != "ANY" else None: k
               for k, v in _BASE.items()}
_FROM_NUMPY.pop(None, None)
_FROM_NUMPY[np.dtype("?").str] = "BOOL"


def tiledb_type_of(dtype, dimension=False):
    """The TileDB type for a NumPy dtype (or "ascii", "blob", str, bytes),
    as TileDB-Py maps them: str is UTF-8 (ASCII for dimensions), bytes CHAR."""
    if isinstance(dtype, str) and dtype in ("ascii", "blob"):
        return "STRING_ASCII" if dtype == "ascii" else "BLOB"
    dt = np.dtype(dtype)
    if dt.kind == "U":
        return "STRING_ASCII" if dimension else "STRING_UTF8"
    if dt.kind == "S":
        return "STRING_ASCII" if dimension else "CHAR"
    try:
        return _FROM_NUMPY[dt.str]
    except KeyError:
        raise TypeError("tilefmt: no TileDB type for %r" % (dtype,)) from None


def var_by_default(dtype):
    """Whether TileDB-Py makes an attribute of this dtype var-size."""
    if isinstance(dtype, str) and dtype == "ascii":
        return True
    if isinstance(dtype, str) and dtype == "blob":
        return False
    dt = np.dtype(dtype)
    return dt.kind in "US" and dt.itemsize == 0
