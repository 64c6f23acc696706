#!/usr/bin/env python3
"""Prints every public header under include/, relative to it."""
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
for p in sorted(root.rglob("*.hpp")):
    print(p.relative_to(root).as_posix())
