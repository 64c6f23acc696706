#!/usr/bin/env python3
"""Prints every public header under include/, relative to it; with
--mode-dependent, only those whose text depends on TILEFMT_DECLARE_ONLY
(include/tilefmt/array/support/compiled.hpp)."""
import pathlib
import sys

args = sys.argv[1:]
mode_dependent = "--mode-dependent" in args
root = pathlib.Path([a for a in args if not a.startswith("--")][0])
for p in sorted(root.rglob("*.hpp")):
    if mode_dependent and "TILEFMT_DECLARE_ONLY" not in p.read_text(encoding="utf-8"):
        continue
    print(p.relative_to(root).as_posix())
