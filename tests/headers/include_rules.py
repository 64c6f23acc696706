#!/usr/bin/env python3
"""Checks the include rules of docs/architecture.md on every header under
include/tilefmt: layers point one way (array -> filter -> format -> codec,
array -> storage), and inside array/ the folders by job do too (support <-
model <- read, write <- maintain; read and write never include each other).
The umbrella headers at array/'s top (read.hpp, write.hpp, maintain.hpp)
may include anything of array/. Also checks that no header under
include/tilefmt/array is longer than the limit. Prints each broken rule
with its file and line; exits 1 if there is one. --self-test checks that the checker finds a
broken rule of each kind in a tree made for it."""
import pathlib
import re
import sys
import tempfile

MAX_LINES = 600
# What each folder may include, by the folder's path under include/tilefmt.
ALLOWED = {
    "codec": {"codec"},
    "format": {"codec", "format"},
    "filter": {"codec", "format", "filter"},
    "storage": {"codec", "storage"},
    "array/support": {"array/support"},
    "array/model": {"codec", "format", "filter", "storage", "array/support", "array/model"},
    "array/read": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/read"},
    "array/write": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/write"},
    "array/maintain": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/read",
                       "array/write", "array/maintain"},
    "array": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/read",
              "array/write", "array/maintain"},
    # Groups sit beside arrays, above the array layer's model (metadata,
    # listings, options), with the same split by job.
    "group/model": {"codec", "format", "filter", "storage", "array/support", "array/model", "group/model"},
    "group/read": {"codec", "format", "filter", "storage", "array/support", "array/model", "group/model",
                   "group/read"},
    "group/write": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/write",
                    "group/model", "group/read", "group/write"},
    "group/maintain": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/read",
                       "array/write", "array/maintain", "group/model", "group/read", "group/write", "group/maintain"},
    "group": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/read", "array/write",
              "array/maintain", "group/model", "group/read", "group/write", "group/maintain"},
    # Arrow export: a thin layer over reading.
    "arrow": {"codec", "format", "filter", "storage", "array/support", "array/model", "array/read", "arrow"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]tilefmt/([^">]+)[">]')


def folder_of(rel: str) -> str:
    """The rule folder of a path relative to include/tilefmt ("array/read/dense/reader.hpp" -> "array/read")."""
    parts = rel.split("/")
    if parts[0] in ("array", "group") and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def check(root: pathlib.Path) -> list[str]:
    broken = []
    for path in sorted(root.rglob("*.hpp")):
        rel = path.relative_to(root).as_posix()
        own = folder_of(rel)
        if own not in ALLOWED:
            broken.append(f"{rel}: folder {own!r} has no include rule")
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        if rel.startswith(("array/", "group/", "arrow/")) and len(lines) > MAX_LINES:
            broken.append(f"{rel}: {len(lines)} lines, over {MAX_LINES}")
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = folder_of(m.group(1))
            if target not in ALLOWED[own]:
                broken.append(f"{rel}:{number}: {own}/ may not include {m.group(1)} ({target}/)")
    return broken


def self_test() -> int:
    """A tree with one header breaking each rule, and one keeping them."""
    cases = {
        "array/read/bad.hpp": '#include "tilefmt/array/write/x.hpp"\n',
        "array/write/bad.hpp": '#include "tilefmt/array/read/x.hpp"\n',
        "array/support/bad.hpp": '#include "tilefmt/format/x.hpp"\n',
        "array/model/bad.hpp": '#include <tilefmt/array/read/dense/x.hpp>\n',
        "codec/bad.hpp": '#include "tilefmt/format/x.hpp"\n',
        "array/read/long.hpp": "//\n" * (MAX_LINES + 1),
        "array/maintain/good.hpp": '#include "tilefmt/array/read/x.hpp"\n#include "tilefmt/array/write/y.hpp"\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for rel, text in cases.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        broken = check(root)
    found = {b.split(":")[0] for b in broken}
    expected = {rel for rel in cases if "good" not in rel}
    if found != expected or len(broken) != len(expected):
        print(f"self-test: expected one report for each of {sorted(expected)}, got {broken}")
        return 1
    print(f"self-test: {len(broken)} broken rules found, as made")
    return 0


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        sys.exit(self_test())
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2] / "include" / "tilefmt"
    broken = check(root)
    for b in broken:
        print(b)
    print(f"include rules: {len(broken)} broken")
    sys.exit(1 if broken else 0)
