"""TileDB groups as TileDB-Py reads and writes them: tilefmt.Group
(members and metadata), tilefmt.object_type, tilefmt.ls and tilefmt.walk.

    with tilefmt.Group("path/to/experiment") as G:
        for m in G:                       # m.uri, m.type (tilefmt.Array / tilefmt.Group), m.name
            ...
        X = tilefmt.open(G["ms"].uri)     # a member by name
        G.meta["title"]

    tilefmt.Group.create("path/to/new")
    with tilefmt.Group("path/to/new", "w") as G:   # written when it closes
        G.add("obs", name="obs", relative=True)
        G.remove("old")
        G.meta["title"] = "an experiment"

URIs come back as TileDB-Py gives them: local paths as absolute
``file://`` URIs, s3:// as they are. Members are listed in the order the
group's files first name them (TileDB lists them in its hash table's
order, which no format fixes)."""

import os

from . import _config, _core
from ._array import Array, Metadata, _timestamps
from ._write import _MetaWriter

_TIMESTAMPS = ("sm.group.timestamp_start", "sm.group.timestamp_end")


def _uri(path):
    """`path` as TileDB-Py reports it."""
    if "://" in path:
        return path
    return "file://" + os.path.abspath(path)


def _type_name(t):
    return {"ARRAY": "array", "GROUP": "group"}.get(t)


class Object:
    """A member of a group, as TileDB-Py's tiledb.Object: where it is
    (`uri`), what it is (`type`: tilefmt.Array or tilefmt.Group) and its
    `name` (None when it has none)."""

    def __init__(self, uri, type_name, name, error=None):
        self._uri = uri
        self._type = type_name
        self.name = name
        self._error = error

    @property
    def uri(self):
        """The member's URI, resolved against the group. A member that
        cannot be followed (a relative URI leaving the group's folder, or
        one on another storage) raises ValueError saying so."""
        if self._error:
            raise ValueError(self._error)
        return self._uri

    @property
    def type(self):
        """tilefmt.Array or tilefmt.Group; KeyError for a member of unknown
        type (TileDB stores one it could not tell), as in TileDB-Py."""
        if self._type == "ARRAY":
            return Array
        if self._type == "GROUP":
            return Group
        raise KeyError(self._type)

    def __repr__(self):
        return "Object(uri=%r, type=%s, name=%r)" % (self._uri, self._type, self.name)


class Group:
    """A TileDB group, opened for reading (mode "r": `len(G)`, iteration and
    `G[i]` / `G[name]` give its members as tilefmt.Object, `name in G`
    tests names, `G.meta` is its metadata) or for writing (mode "w":
    `add`, `remove`, `del G[name]` and `G.meta[key] = value`, written as
    one commit when it closes). `timestamp`: as of this time, or a (start,
    end) pair; for writing, the time of the files. TileDB-Py's config keys
    "sm.group.timestamp_start" / "sm.group.timestamp_end" are read too.
    `key`: the AES-256-GCM key of an encrypted group."""

    def __init__(self, uri, mode="r", config=None, timestamp=None, key=None):
        if mode not in ("r", "w"):
            raise ValueError('tilefmt.Group: mode is "r" or "w", not %r' % (mode,))
        config = dict(config or {})
        t0, t1 = _timestamps(timestamp)
        if _TIMESTAMPS[0] in config:
            t0 = int(config.pop(_TIMESTAMPS[0]))
        if _TIMESTAMPS[1] in config:
            t1 = int(config.pop(_TIMESTAMPS[1]))
        if isinstance(key, str):
            key = key.encode()
        self._key = key or b""
        self._path = _config.path_of(uri)
        self.uri = _uri(self._path)
        self.mode = mode
        self.config = _config.normalize(config)
        self._meta = None
        if mode == "w":
            self._write_time = None if timestamp is None else t1
            self._added, self._removed, self._pending_meta = [], [], {}
            self._core = _core.Group(self._path, self._key, t0, t1, self.config)  # it must be a group
            return
        self._core = _core.Group(self._path, self._key, t0, t1, self.config)
        self._members = [Object(None if error else _uri(path), t, name, error)
                         for stored, path, error, name, t, relative in self._core.members()]
        self._relative = {m[3]: m[5] for m in self._core.members() if m[3] is not None}

    @staticmethod
    def create(uri, config=None):
        """Creates an empty group at `uri` (as tiledb.Group.create)."""
        _core.create_group(_config.path_of(uri), _config.normalize(config))

    @staticmethod
    def consolidate_metadata(uri, config=None):
        """Merges the group's metadata files into one (as
        tiledb.Group.consolidate_metadata); readers see the same metadata."""
        _core.consolidate_group_metadata(_config.path_of(uri), _config.normalize(config))

    @staticmethod
    def vacuum_metadata(uri, config=None):
        """Removes the metadata files a consolidation replaced."""
        _core.vacuum_group_metadata(_config.path_of(uri), _config.normalize(config))

    def add(self, uri, name=None, relative=False, type=None):
        """Adds a member (mode "w"): `uri` relative to the group when
        `relative`, else absolute (a relative path is taken from the current
        directory, as TileDB-Py does); `type` tilefmt.Array or tilefmt.Group,
        by default what is at `uri` now."""
        self._writing()
        uri = str(uri)
        if not relative and "://" not in uri:
            uri = os.path.abspath(uri)
        kind = None if type is None else ("GROUP" if type is Group or getattr(type, "__name__", "") == "Group"
                                          else "ARRAY")
        self._added.append((uri, name, bool(relative), kind))

    def remove(self, name_or_uri):
        """Removes the member called `name_or_uri`, or whose URI it is (mode "w")."""
        self._writing()
        self._removed.append(str(name_or_uri))

    def __delitem__(self, name_or_uri):
        self.remove(name_or_uri)

    def _writing(self):
        if self.mode != "w" or self._core is None:
            raise ValueError("tilefmt.Group: not open for writing")

    @property
    def isopen(self):
        return self._core is not None

    def close(self):
        """Closes the group; opened for writing, commits what changed."""
        if self.mode == "w" and self._core is not None:
            _core.write_group(self._path, self._added, self._removed, self._pending_meta, self._write_time,
                              self._key, self.config)
        self._core = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        self._reading()
        return len(self._members)

    def __iter__(self):
        self._reading()
        return iter(self._members)

    def __getitem__(self, key):
        self._reading()
        if isinstance(key, int):
            if key < 0:
                raise TypeError("tilefmt.Group: member indices are not negative")
            if key >= len(self._members):
                raise IndexError("tilefmt.Group: index %d, the group has %d members" % (key, len(self._members)))
            return self._members[key]
        for m in self._members:
            if m.name == key:
                return m
        raise KeyError("tilefmt.Group: no member named %r in %s" % (key, self.uri))

    def __contains__(self, name):
        self._reading()
        return any(m.name == name for m in self._members)

    def is_relative(self, name):
        """Whether the member called `name` is stored relative to the group."""
        if name not in self._relative:
            raise KeyError("tilefmt.Group: no member named %r in %s" % (name, self.uri))
        return self._relative[name]

    @property
    def meta(self):
        if self.mode == "w":
            return _MetaWriter(self._pending_meta)
        if self._meta is None:
            self._meta = Metadata(self._core.metadata())
        return self._meta

    def _reading(self):
        if self.mode != "r":
            raise ValueError("tilefmt.Group: members are read in mode \"r\"")

    @property
    def legacy(self):
        """Written before TileDB 2.8: a marker only, the members listed from
        the group's folder."""
        return self._core.legacy()

    def __repr__(self):
        lines = ["%s GROUP" % os.path.basename(self._path.rstrip("/"))]
        for m in self._members:
            label = m.name if m.name is not None else os.path.basename((m._uri or "").rstrip("/"))
            lines.append("|-- %s %s" % (label, m._type))
        return "\n".join(lines)


def object_type(uri, config=None):
    """"array", "group" or None, as tiledb.object_type answers."""
    return _type_name(_core.object_type(_config.path_of(uri), _config.normalize(config)))


def ls(uri, func, config=None):
    """Calls func(uri, "array" | "group") for each array and group directly
    in the folder `uri`, in byte order of their names (tiledb.ls)."""
    for path, t in _core.ls(_config.path_of(uri), _config.normalize(config)):
        func(_uri(path), _type_name(t))


def walk(uri, func, order="preorder", config=None):
    """Calls func(uri, "array" | "group") for every array and group under
    `uri`, parents before their children ("preorder") or after them
    ("postorder"), as tiledb.walk does: folders are followed, not member
    lists, and plain folders are not entered."""
    if order not in ("preorder", "postorder"):
        raise ValueError('tilefmt.walk: order is "preorder" or "postorder", not %r' % (order,))
    for path, t in _core.walk(_config.path_of(uri), order == "postorder", _config.normalize(config)):
        func(_uri(path), _type_name(t))
