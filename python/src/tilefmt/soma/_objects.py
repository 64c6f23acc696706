"""SOMA objects as TileDB stores them: every object is a TileDB group
(collections, experiments, measurements) or array (dataframes, N-D arrays)
whose ``soma_object_type`` metadata names its SOMA type; `open` reads that
name and gives the matching class. Collections open their members lazily,
at the collection's timestamp and with its storage settings."""

import datetime
from collections.abc import Mapping

from .. import _config
from .._array import Array
from .._group import Group, object_type


class SOMAError(Exception):
    """An object that is not what SOMA expects (tiledbsoma's SOMAError)."""


class DoesNotExistError(SOMAError, LookupError):
    """Nothing at the URI (tiledbsoma's DoesNotExistError)."""


def _to_ms(timestamp):
    """None, milliseconds since the epoch, or a datetime (naive = UTC)."""
    if timestamp is None:
        return None
    if isinstance(timestamp, datetime.datetime):
        if timestamp.tzinfo is None:
            timestamp = timestamp.replace(tzinfo=datetime.timezone.utc)
        return int(timestamp.timestamp() * 1000)
    ms = int(timestamp)
    if ms < 0:
        raise ValueError("tiledb_timestamp must be >= 0, not %d" % ms)
    return ms


class SOMATileDBContext:
    """Where and when objects are read: `tiledb_config` (TileDB's keys, such
    as ``vfs.s3.region``, or tilefmt's short ones), and `timestamp`, the
    time objects are read as of (ms or a datetime). tiledbsoma's class of
    that name, so that code passing one keeps working (`tiledb_ctx` and
    `threadpool` are taken and not used: there is no libtiledb context)."""

    def __init__(self, tiledb_config=None, tiledb_ctx=None, timestamp=None, threadpool=None):
        del tiledb_ctx, threadpool
        self.tiledb_config = dict(tiledb_config or {})
        self.timestamp_ms = _to_ms(timestamp)

    def replace(self, *, tiledb_config=None, timestamp=None):
        """A copy with `tiledb_config` merged in and `timestamp` set."""
        config = dict(self.tiledb_config)
        config.update(tiledb_config or {})
        return SOMATileDBContext(config, timestamp=self.timestamp_ms if timestamp is None else timestamp)


class _Opening:
    """What every object of one `open` shares: settings and time."""

    __slots__ = ("context", "config", "timestamp")

    def __init__(self, context, tiledb_timestamp):
        self.context = context if context is not None else SOMATileDBContext()
        self.config = {}
        for k, v in self.context.tiledb_config.items():
            try:
                _config.normalize({k: v})
                self.config[k] = v
            except ValueError:
                pass  # TileDB's tuning (buffer sizes, memory budgets): no meaning here
        ms = _to_ms(tiledb_timestamp)
        self.timestamp = ms if ms is not None else self.context.timestamp_ms

    def time_range(self):
        """TileDB's range of an open at a time: everything up to then."""
        return None if self.timestamp is None else (0, self.timestamp)


class SOMAObject:
    """What every SOMA object has: its URI, metadata and type, a context
    manager that closes it."""

    soma_type = None

    def __init__(self, handle, uri, opening):
        self._handle = handle
        self._opening = opening
        self.uri = uri

    @property
    def metadata(self):
        """The object's metadata (a read-only mapping)."""
        return self._handle.meta

    @property
    def context(self):
        return self._opening.context

    @property
    def tiledb_timestamp_ms(self):
        """The time the object is read as of (ms), or None for now."""
        return self._opening.timestamp

    @property
    def mode(self):
        return "r"

    @property
    def closed(self):
        return self._handle is None

    def close(self):
        """Closes the object (and, for a collection, the members it opened)."""
        self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<%s %r>" % (type(self).__name__, self.uri)


class Collection(SOMAObject, Mapping):
    """A group of SOMA objects by name: ``coll["name"]`` opens a member
    (once; later lookups give the same object), iteration gives names."""

    soma_type = "SOMACollection"

    def __init__(self, handle, uri, opening):
        super().__init__(handle, uri, opening)
        self._members = {m.name: m for m in handle if m.name is not None}
        self._opened = {}

    def __getitem__(self, name):
        if name in self._opened:
            return self._opened[name]
        if self._handle is None:
            raise SOMAError("%s is closed" % self.uri)
        member = self._members.get(name)
        if member is None:
            raise KeyError(name)
        obj = _open(member.uri, self._opening)
        self._opened[name] = obj
        return obj

    def __iter__(self):
        return iter(self._members)

    def __len__(self):
        return len(self._members)

    def __contains__(self, name):
        return name in self._members

    def close(self):
        for obj in self._opened.values():
            obj.close()
        self._opened.clear()
        super().close()

    def _member(self, name, what):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("%s has no %r (%s)" % (self.uri, name, what)) from None


class Experiment(Collection):
    """Annotated observations: `obs` (a DataFrame) and `ms`, a collection of
    Measurements; `axis_query` joins them."""

    soma_type = "SOMAExperiment"

    @property
    def obs(self):
        return self._member("obs", "the observations' DataFrame")

    @property
    def ms(self):
        return self._member("ms", "the collection of measurements")

    def axis_query(self, measurement_name, *, obs_query=None, var_query=None):
        """An ExperimentAxisQuery of measurement `measurement_name`, its
        observations chosen by `obs_query` and its variables by `var_query`
        (AxisQuery; None chooses all)."""
        from ._query import ExperimentAxisQuery
        return ExperimentAxisQuery(self, measurement_name, obs_query=obs_query, var_query=var_query)


class Measurement(Collection):
    """One modality: `var` (a DataFrame), `X` (a collection of matrices
    indexed by obs and var), and the optional `obsm`, `obsp`, `varm`,
    `varp` collections."""

    soma_type = "SOMAMeasurement"

    var = property(lambda self: self._member("var", "the variables' DataFrame"))
    X = property(lambda self: self._member("X", "the collection of X layers"))
    obsm = property(lambda self: self._member("obsm", "obs-indexed matrices"))
    obsp = property(lambda self: self._member("obsp", "obs-by-obs matrices"))
    varm = property(lambda self: self._member("varm", "var-indexed matrices"))
    varp = property(lambda self: self._member("varp", "var-by-var matrices"))


def _classes():
    from ._arrays import DataFrame, DenseNDArray, SparseNDArray
    return {c.soma_type: c for c in (Collection, Experiment, Measurement, DataFrame, SparseNDArray, DenseNDArray)}


def _open(uri, opening, soma_type=None):
    path = _config.path_of(uri)
    kind = object_type(path, config=opening.config)
    if kind is None:
        raise DoesNotExistError("%s: no SOMA object there (neither a TileDB group nor an array)" % uri)
    if kind == "group":
        handle = Group(path, config=opening.config, timestamp=opening.time_range())
    else:
        handle = Array(path, timestamp=opening.time_range(), config=opening.config)
    meta = handle.meta
    name = meta["soma_object_type"] if "soma_object_type" in meta else None
    classes = _classes()
    cls = classes.get(name)
    if cls is None:
        raise SOMAError("%s: a TileDB %s whose soma_object_type is %r, not a SOMA type" % (uri, kind, name))
    wanted = soma_type if soma_type is None or isinstance(soma_type, str) else soma_type.soma_type
    if wanted is not None and wanted != cls.soma_type and not issubclass(cls, classes.get(wanted, ())):
        raise TypeError("%s is a %s, not a %s" % (uri, cls.soma_type, wanted))
    return cls(handle, str(uri), opening)


def open(uri, mode="r", *, soma_type=None, context=None, tiledb_timestamp=None):
    """Opens the SOMA object at `uri` (a local path or ``s3://bucket/key``)
    as the class its ``soma_object_type`` names: Experiment, Measurement,
    Collection, DataFrame, SparseNDArray or DenseNDArray. `soma_type`
    (a class or its SOMA name) checks what is there; `tiledb_timestamp`
    (ms, or a datetime) reads it as of that time; `context` carries storage
    settings (SOMATileDBContext). Only reading is offered: `mode` is "r"."""
    if mode != "r":
        raise ValueError('tilefmt.soma reads SOMA objects: mode must be "r", not %r' % (mode,))
    return _open(uri, _Opening(context, tiledb_timestamp), soma_type)
