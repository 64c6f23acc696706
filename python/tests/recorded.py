"""The records of tests/interop/record_queries.py (its docstring gives the
format): what TileDB-Py returned for a query, as raw buffers."""

import math
from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class Field:
    name: str
    dimension: bool
    cells: int
    values: bytes
    offsets: Optional[List[int]] = None
    validity: Optional[bytes] = None

    def cell(self, c):
        if self.offsets is None:
            size = len(self.values) // self.cells
            return self.values[c * size:(c + 1) * size]
        end = self.offsets[c + 1] if c + 1 < len(self.offsets) else len(self.values)
        return self.values[self.offsets[c]:end]


@dataclass
class Record:
    array: str
    order: str
    ranges: list  # per dimension, (lo, hi) pairs: int, float or bytes
    error: bool = False
    where: list = field(default_factory=list)  # (field, op, value bytes, label)
    fields: List[Field] = field(default_factory=list)
    aggregates: list = field(default_factory=list)  # (field, op, value text)

    def describe(self):
        return "%s %s %r%s" % (self.array, self.order, self.ranges, " where %r" % (self.where,) if self.where else "")


def _unhex(s):
    return b"" if s == "-" else bytes.fromhex(s)


def _bound(s):
    if s.startswith("f"):
        return float.fromhex(s[1:])
    if s.startswith("s"):
        return _unhex(s[1:])
    return int(s)


def parse(path):
    """The records in file `path`."""
    out = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            kind = words[0]
            if kind == "query":
                ranges = []
                if len(words) > 3:
                    for dim in words[3].split(","):
                        rs = []
                        for r in dim.split("|"):
                            lo, hi = r.split(":")
                            rs.append((_bound(lo), _bound(hi)))
                        ranges.append(rs)
                out.append(Record(words[1], words[2], ranges))
            elif kind == "where" or kind == "label":
                out[-1].where.append((words[1], words[2], _unhex(words[3]), kind == "label"))
            elif kind == "agg":
                out[-1].aggregates.append((words[1], words[2], words[3]))
            elif kind == "error":
                out[-1].error = True
            elif kind in ("attr", "dim"):
                offsets = [int(x) for x in words[4].split(",")] if len(words) > 4 and words[4] != "-" else None
                if len(words) > 4 and words[4] == "-":
                    offsets = []
                out[-1].fields.append(Field(words[1], kind == "dim", int(words[2]), _unhex(words[3]), offsets))
            elif kind == "validity":
                assert out[-1].fields[-1].name == words[1]
                out[-1].fields[-1].validity = _unhex(words[2])
    return out
