"""Keeping an array in shape, in TileDB-Py's forms: ``tilefmt.consolidate``
and ``tilefmt.vacuum`` (the mode and the other settings TileDB reads from
``sm.consolidation.*`` / ``sm.vacuum.*`` in ``config``), deleting cells
(``open(uri, "d").query(cond=...).submit()``), ``Array.delete_fragments``
and ``Array.delete_array``, and ``ArraySchemaEvolution``."""

from . import _condition, _config, _core
from ._schema import Attr, _schema_of
from ._write import _attr_dict, _key_bytes

_MODES = ("fragments", "fragment_meta", "commits", "array_meta")


def _settings(config, prefix):
    """`config` split into the settings under `prefix` (names without it,
    values as text, as TileDB reads them) and the storage options."""
    settings, storage = {}, {}
    for k, v in dict(config or {}).items():
        if k.startswith(prefix):
            settings[k[len(prefix):]] = str(v).lower() if isinstance(v, bool) else str(v)
        elif k.startswith("sm.consolidation.") or k.startswith("sm.vacuum."):
            continue  # the other operation's settings, as TileDB ignores them
        else:
            storage[k] = v
    return settings, _config.normalize(storage)


def consolidate(uri, config=None, key=None, fragment_uris=None, timestamp=None):
    """Consolidates the array at `uri` as TileDB-Py's ``tiledb.consolidate``:
    ``config["sm.consolidation.mode"]`` is ``"fragments"`` (the default),
    ``"fragment_meta"``, ``"commits"`` or ``"array_meta"``; the other
    ``sm.consolidation.*`` settings (timestamp_start / timestamp_end, steps,
    step_min_frags, step_max_frags, step_size_ratio, amplification,
    purge_deleted_cells, buffer_size) are TileDB's. `timestamp`: a (start,
    end) pair of ms, over the settings. Returns `uri`, as TileDB-Py does."""
    if fragment_uris is not None:
        raise NotImplementedError("tilefmt.consolidate: fragment_uris is not supported; consolidate a time range "
                                  "(timestamp=(start, end)) instead")
    settings, storage = _settings(config, "sm.consolidation.")
    mode = settings.pop("mode", "fragments")
    if mode not in _MODES:
        raise ValueError("tilefmt.consolidate: sm.consolidation.mode must be one of %s, not %r" % (_MODES, mode))
    if timestamp is not None:
        if not (isinstance(timestamp, tuple) and len(timestamp) == 2):
            raise TypeError("tilefmt.consolidate: timestamp must be a (start, end) tuple")
        settings["timestamp_start"], settings["timestamp_end"] = str(int(timestamp[0])), str(int(timestamp[1]))
    _core.consolidate(_config.path_of(uri), mode, settings, _key_bytes(key), storage)
    return uri


def vacuum(uri, config=None, key=None, timestamp=None):
    """Removes what consolidation replaced, as ``tiledb.vacuum``:
    ``config["sm.vacuum.mode"]`` is ``"fragments"`` (the default),
    ``"fragment_meta"``, ``"commits"`` or ``"array_meta"``. A time range
    (`timestamp`, ``sm.vacuum.timestamp_*``) is refused: tilefmt vacuums
    everything consolidation replaced. (`key` is accepted for TileDB-Py's
    signature: vacuuming reads no encrypted file.)"""
    settings, storage = _settings(config, "sm.vacuum.")
    mode = settings.pop("mode", "fragments")
    if timestamp is not None or settings:
        raise NotImplementedError("tilefmt.vacuum: only sm.vacuum.mode is supported, not a time range or %s"
                                  % sorted(settings))
    if mode not in _MODES:
        raise ValueError("tilefmt.vacuum: sm.vacuum.mode must be one of %s, not %r" % (_MODES, mode))
    del key
    _core.vacuum(_config.path_of(uri), mode, storage)


def delete_fragments(uri, timestamp_start, timestamp_end, config=None):
    """Deletes the fragments written within [timestamp_start, timestamp_end]
    (ms, inclusive), as ``tiledb.Array.delete_fragments``."""
    if not isinstance(uri, str):
        raise TypeError("uri must be a string")
    _core.delete_fragments(_config.path_of(uri), int(timestamp_start), int(timestamp_end), _config.normalize(config))


def delete_array(uri, config=None):
    """Deletes the array at `uri`, as ``tiledb.Array.delete_array``: its
    fragments, metadata and schemas; the folder goes too unless files of
    the user's are in it."""
    _core.delete_array(_config.path_of(uri), _config.normalize(config))


class _DeleteQuery:
    def __init__(self, deleter, cond):
        self._deleter = deleter
        self._cond = cond

    def submit(self):
        """Writes the delete commit: the cells the condition selects are
        hidden from readers opened at or after its time."""
        d = self._deleter
        if not self._cond:
            raise ValueError("tilefmt: a delete needs a condition (cond=...)")
        tree = _condition.parse(self._cond, d.schema)
        _core.delete_cells(d.uri, tree, d.timestamp, d._key, d.config)


class ArrayDeleter:
    """An array opened for deleting (``tilefmt.open(uri, "d")``, as TileDB-Py's
    mode "d"): ``A.query(cond="x < 5").submit()`` writes a delete commit."""

    def __init__(self, uri, key=None, timestamp=None, config=None):
        if timestamp is not None and not isinstance(timestamp, int):
            raise TypeError("tilefmt: a delete's timestamp is one integer (ms since the epoch)")
        self.uri = _config.path_of(uri)
        self.timestamp = timestamp
        self.config = _config.normalize(config)
        self._key = _key_bytes(key)
        self.schema = _schema_of(_core.read_schema(self.uri, self._key, self.config))

    @property
    def mode(self):
        return "d"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def close(self):
        pass

    def query(self, cond=None):
        return _DeleteQuery(self, cond)


class ArraySchemaEvolution:
    """Changes to an array's schema, applied together by `array_evolve`, as
    TileDB-Py's class: attributes added and dropped, at a chosen time."""

    def __init__(self, key=None, config=None):
        self._added = []
        self._dropped = []
        self._timestamp = None
        self._key = _key_bytes(key)
        self._config = _config.normalize(config)

    def add_attribute(self, attr):
        if not isinstance(attr, Attr):
            raise TypeError("add_attribute takes a tilefmt.Attr")
        self._added.append(_attr_dict(attr))

    def drop_attribute(self, attr_name):
        self._dropped.append(str(attr_name))

    def timestamp(self, timestamp):
        """The time of the schema file (ms since the epoch)."""
        if not isinstance(timestamp, int):
            raise ValueError("'timestamp' argument expects int")
        self._timestamp = timestamp

    def array_evolve(self, uri):
        """Writes the evolved schema of the array at `uri`."""
        _core.evolve_schema(_config.path_of(uri), self._added, self._dropped, self._timestamp, self._key, self._config)
