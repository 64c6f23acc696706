"""Filters as TileDB-Py writes them: ``tilefmt.ZstdFilter(level=3)``,
``tilefmt.FilterList([...])``, each with TileDB-Py's constructor arguments
and printed form. Schemas keep filters as tuples (name, level or None[,
options]) (python/src/filters.hpp); these classes convert both ways, so
that Attr and Dim take either and a schema prints as TileDB-Py prints it."""

import numpy as np

from . import _types


class Filter:
    """A filter of a filter list. `_name` is TileDB's name of it (the
    tuple form's first element); `_attrs_()` the options TileDB-Py shows."""
    _name = "NONE"

    def _attrs_(self):
        return {}

    def _tuple(self):
        return (self._name, None)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ",".join("%s=%s" % kv for kv in self._attrs_().items()))

    def __eq__(self, other):
        return type(other) is type(self) and self._tuple() == other._tuple()

    def __hash__(self):
        return hash(self._tuple())


class NoOpFilter(Filter):
    _name = "NONE"


class _Compressor(Filter):
    def __init__(self, level=-1):
        if not isinstance(level, (int, np.integer)):
            raise ValueError("`level` argument must be a int")
        self.level = int(level)

    def _attrs_(self):
        return {"level": self.level}

    def _tuple(self):
        return (self._name, self.level)


class GzipFilter(_Compressor):
    _name = "GZIP"


class ZstdFilter(_Compressor):
    _name = "ZSTD"


class LZ4Filter(_Compressor):
    _name = "LZ4"


class Bzip2Filter(_Compressor):
    _name = "BZIP2"


class RleFilter(_Compressor):
    _name = "RLE"

    def _attrs_(self):
        return {}


class DictionaryFilter(_Compressor):
    _name = "DICTIONARY"

    def _attrs_(self):
        return {}


class DeltaFilter(_Compressor):
    """`reinterp_dtype`: a NumPy dtype (or TileDB type name) the values are
    taken as, None: their own."""
    _name = "DELTA"

    def __init__(self, level=-1, reinterp_dtype=None):
        super().__init__(level)
        self._as = None
        if reinterp_dtype is not None:
            self._as = (reinterp_dtype if isinstance(reinterp_dtype, str) and reinterp_dtype.isupper()
                        else _types.tiledb_type_of(np.dtype(reinterp_dtype)))

    @property
    def reinterp_dtype(self):
        return None if self._as is None else _types.cell_dtype(self._as, 1)

    def _attrs_(self):
        return {"reinterp_dtype": self.reinterp_dtype}

    def _tuple(self):
        return (self._name, self.level) + (({"reinterpret_datatype": self._as},) if self._as else ())


class DoubleDeltaFilter(DeltaFilter):
    _name = "DOUBLE_DELTA"


class _Windowed(Filter):
    _default = 256

    def __init__(self, window=-1):
        if not isinstance(window, (int, np.integer)):
            raise ValueError("`window` argument must be a int")
        self.window = self._default if window == -1 else int(window)

    def _attrs_(self):
        return {"window": self.window}

    def _tuple(self):
        return (self._name, None) + (({"max_window_size": self.window},) if self.window != self._default else ())


class BitWidthReductionFilter(_Windowed):
    _name = "BIT_WIDTH_REDUCTION"


class PositiveDeltaFilter(_Windowed):
    _name = "POSITIVE_DELTA"
    _default = 1024


class FloatScaleFilter(Filter):
    """TileDB-Py shows the arguments given (None for those left out)."""
    _name = "SCALE_FLOAT"

    def __init__(self, factor=None, offset=None, bytewidth=None):
        self._factor, self._offset, self._bytewidth = factor, offset, bytewidth

    def _attrs_(self):
        return {"factor": self._factor, "offset": self._offset, "bytewidth": self._bytewidth}

    def _tuple(self):
        options = {}
        if self._factor:
            options["scale"] = float(self._factor)
        if self._offset is not None:
            options["offset"] = float(self._offset)
        if self._bytewidth:
            options["byte_width"] = int(self._bytewidth)
        return (self._name, None) + ((options,) if options else ())


class WebpInputFormat(int):
    """WEBP's input format (0 none, 1 RGB, 2 BGR, 3 RGBA, 4 BGRA), printed
    as TileDB-Py prints its enum."""
    _NAMES = ("NONE", "RGB", "BGR", "RGBA", "BGRA")

    def __str__(self):
        return "WebpInputFormat.WEBP_%s" % (self._NAMES[self] if 0 <= self < len(self._NAMES) else int(self))

    __repr__ = __str__


class WebpFilter(Filter):
    _name = "WEBP"

    def __init__(self, input_format=None, quality=None, lossless=None):
        self._format, self._quality, self._lossless = input_format, quality, lossless

    def _attrs_(self):
        return {"input_format": self._format, "quality": self._quality, "lossless": self._lossless}

    def _tuple(self):
        options = {}
        if self._format is not None:
            options["format"] = int(self._format)
        if self._quality is not None:
            options["quality"] = float(self._quality)
        if self._lossless is not None:
            options["lossless"] = int(bool(self._lossless))
        return (self._name, None) + ((options,) if options else ())


def _plain(name, tiledb_name):
    return type(name, (Filter,), {"_name": tiledb_name, "__doc__": "TileDB's %s filter." % tiledb_name})


BitShuffleFilter = _plain("BitShuffleFilter", "BITSHUFFLE")
ByteShuffleFilter = _plain("ByteShuffleFilter", "BYTESHUFFLE")
ChecksumMD5Filter = _plain("ChecksumMD5Filter", "CHECKSUM_MD5")
ChecksumSHA256Filter = _plain("ChecksumSHA256Filter", "CHECKSUM_SHA256")
XORFilter = _plain("XORFilter", "XOR")

_BY_NAME = {c._name: c for c in (NoOpFilter, GzipFilter, ZstdFilter, LZ4Filter, Bzip2Filter, RleFilter, DictionaryFilter,
                                 DeltaFilter, DoubleDeltaFilter, BitWidthReductionFilter, PositiveDeltaFilter,
                                 FloatScaleFilter, WebpFilter, BitShuffleFilter, ByteShuffleFilter, ChecksumMD5Filter,
                                 ChecksumSHA256Filter, XORFilter)}


def from_tuple(t):
    """The filter object of a tuple (name, level or None[, options])."""
    name, level = t[0], t[1] if len(t) > 1 else None
    options = t[2] if len(t) > 2 else {}
    cls = _BY_NAME[name]
    if issubclass(cls, DeltaFilter):
        f = cls(-1 if level is None else level)
        f._as = options.get("reinterpret_datatype")
        return f
    if issubclass(cls, _Compressor):
        return cls(-1 if level is None else level)
    if issubclass(cls, _Windowed):
        return cls(options.get("max_window_size", -1))
    if cls is FloatScaleFilter:
        return cls(options.get("scale", 1.0), options.get("offset", 0.0), options.get("byte_width", 8))
    if cls is WebpFilter:
        # As TileDB-Py shows a stored one: the format as its enum, lossless as 0 or 1.
        return cls(WebpInputFormat(options.get("format", 0)), float(options.get("quality", 100.0)),
                   int(options.get("lossless", 0)))
    return cls()


class FilterList:
    """Filters in order (TileDB-Py's ``tiledb.FilterList(filters,
    chunksize=None)``)."""

    def __init__(self, filters=None, chunksize=None):
        self._filters = [f if isinstance(f, Filter) else from_tuple(tuple(f)) for f in (filters or ())]
        self.chunksize = chunksize

    def __len__(self):
        return len(self._filters)

    def __iter__(self):
        return iter(self._filters)

    def __getitem__(self, i):
        return self._filters[i]

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (FilterList, list, tuple)) else NotImplemented

    def append(self, f):
        if not isinstance(f, Filter):
            raise ValueError("filter argument must be a TileDB Filter object")
        self._filters.append(f)

    def __repr__(self):
        return "FilterList([%s])" % ",\n       ".join(map(repr, self._filters))


def as_tuples(filters):
    """Filters in any form Attr and Dim take (a FilterList, Filter objects,
    tuples) as the tuple form a schema keeps."""
    if filters is None:
        return ()
    if isinstance(filters, Filter):
        filters = [filters]
    return tuple(f._tuple() if isinstance(f, Filter) else tuple(f) for f in filters)


def shown(filters):
    """", filters=FilterList([...])" as TileDB-Py prints a field's filters
    in a schema (nothing when there are none)."""
    if not filters:
        return ""
    return ", filters=FilterList([%s])" % "".join(repr(from_tuple(t)) + ", " for t in filters)
