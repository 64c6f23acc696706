#!/usr/bin/env python3
"""What a user installs to read SOMA data: tilefmt against tiledbsoma.

    PYTHONPATH=build/python/soma-path build/python/soma-venv/bin/python bench/compare/soma_installed_size.py

Sums the installed files (each distribution's RECORD) of tiledbsoma and
everything it requires, transitively, in the running environment, and of
what tilefmt.soma needs: tilefmt itself (its package folder: the extension
and the Python files; the wheel's libraries when it is one) with NumPy and
pyarrow for reads, and anndata with its requirements for to_anndata.
"""
import importlib.metadata as md
import os
import re

import tilefmt


def closure(names):
    seen, pending = set(), list(names)
    while pending:
        name = pending.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        seen.add(key)
        for req in dist.requires or []:
            if "extra ==" in req:
                continue
            pending.append(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0])
    return seen


def size_of(names):
    total = 0
    for key in names:
        dist = md.distribution(key)
        for f in dist.files or []:
            try:
                total += os.path.getsize(dist.locate_file(f))
            except OSError:
                pass
    return total


def folder_size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    mb = 1 << 20
    soma = closure(["tiledbsoma"])
    reads = closure(["numpy", "pyarrow"])
    anndata = closure(["numpy", "pyarrow", "anndata", "scipy", "pandas"])
    own = folder_size(os.path.dirname(os.path.realpath(tilefmt.__file__)))
    print("tiledbsoma and its requirements:         %4d MB (%d distributions)" % (size_of(soma) / mb, len(soma)))
    print("tilefmt.soma reads (tilefmt, NumPy, pyarrow): %4d MB (tilefmt %.1f MB)" % ((size_of(reads) + own) / mb,
                                                                                  own / mb))
    print("tilefmt.soma with to_anndata:            %4d MB" % ((size_of(anndata) + own) / mb))
    print("tiledbsoma itself (its wheel's files):   %4d MB" % (size_of({"tiledbsoma"}) / mb))


if __name__ == "__main__":
    main()
