#!/usr/bin/env python3
"""Prints every public header under include/, relative to it; with
--mode-dependent, only those whose text depends on TILEFMT_DECLARE_ONLY
(include/tilefmt/codec/compiled.hpp): a preprocessor condition names it."""
import pathlib
import re
import sys

CONDITION = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b.*\bTILEFMT_DECLARE_ONLY\b", re.MULTILINE)

args = sys.argv[1:]
mode_dependent = "--mode-dependent" in args
root = pathlib.Path([a for a in args if not a.startswith("--")][0])
for p in sorted(root.rglob("*.hpp")):
    if mode_dependent and not CONDITION.search(p.read_text(encoding="utf-8")):
        continue
    print(p.relative_to(root).as_posix())
