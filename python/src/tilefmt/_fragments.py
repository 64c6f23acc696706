"""TileDB-Py's fragment information and existence test:
``tilefmt.array_fragments(uri)`` (a FragmentInfoList: per-fragment
properties as tuples, and a FragmentInfo per fragment) and
``tilefmt.array_exists(uri, isdense=, issparse=)``."""

from ._group import _uri, object_type
from ._open import open as _open


class FragmentInfo:
    """One fragment: its uri, timestamp_range, nonempty_domain, cell_num,
    version, sparse flag, array_schema_name, has_consolidated_metadata
    (its footer is in a consolidated fragment metadata file), and its place
    `num` in the list; unconsolidated_metadata_num is the list's, as in
    TileDB-Py."""

    def __init__(self, fragment, num, unconsolidated_metadata_num=0):
        self.uri = _uri(fragment.uri)
        self.timestamp_range = fragment.timestamp_range
        # Strings as str here (the array's nonempty_domain gives ASCII bytes), as in TileDB-Py.
        self.nonempty_domain = tuple(tuple(v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v for v in r)
                                     for r in fragment.nonempty_domain)
        self.cell_num = fragment.cell_num
        self.version = fragment.version
        self.sparse = fragment.sparse
        self.array_schema_name = fragment.array_schema_name
        self.has_consolidated_metadata = fragment.has_consolidated_metadata
        self.unconsolidated_metadata_num = unconsolidated_metadata_num
        self.num = num

    def __repr__(self):
        return "FragmentInfo(uri=%r, timestamp_range=%r, cell_num=%r, version=%r, sparse=%r)" % (
            self.uri, self.timestamp_range, self.cell_num, self.version, self.sparse)


class FragmentInfoList:
    """The committed fragments of an array, oldest first, as TileDB-Py's
    ``tiledb.array_fragments`` lists them: each property a tuple over the
    fragments, ``[i]`` and iteration a FragmentInfo each;
    ``unconsolidated_metadata_num`` the fragments whose footers no
    consolidated fragment metadata file holds, ``to_vacuum`` the URIs of the
    fragments a consolidation replaced and a vacuum would remove."""

    def __init__(self, array_uri, fragments, to_vacuum=()):
        self.array_uri = array_uri
        self.unconsolidated_metadata_num = sum(not f.has_consolidated_metadata for f in fragments)
        self._frags = tuple(FragmentInfo(f, i, self.unconsolidated_metadata_num) for i, f in enumerate(fragments))
        for name in ("uri", "timestamp_range", "nonempty_domain", "cell_num", "version", "sparse",
                     "array_schema_name", "has_consolidated_metadata"):
            setattr(self, name, tuple(getattr(f, name) for f in self._frags))
        self.to_vacuum = tuple(_uri(p) for p in to_vacuum)

    def __len__(self):
        return len(self._frags)

    def __getitem__(self, i):
        return self._frags[i]

    def __iter__(self):
        return iter(self._frags)

    def __repr__(self):
        return "FragmentInfoList(%r, %d fragments)" % (self.array_uri, len(self))


def array_fragments(uri, timestamp=None, config=None, key=None):
    """The fragments of the array at `uri` (FragmentInfoList), those an
    open at `timestamp` reads (default: every committed one)."""
    with _open(uri, timestamp=timestamp, config=config, key=key) as A:
        return FragmentInfoList(uri, A.fragments, A._reader().to_vacuum())


def array_exists(uri, isdense=False, issparse=False, config=None, key=None):
    """Whether `uri` holds an array that opens (restricted to dense or
    sparse arrays by `isdense` / `issparse`), as TileDB-Py's."""
    if object_type(uri, config=config) != "array":
        return False
    with _open(uri, config=config, key=key) as A:
        if isdense:
            return not A.schema.sparse
        if issparse:
            return A.schema.sparse
        return True
