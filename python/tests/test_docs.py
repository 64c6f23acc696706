"""Every Python block of the README and the manual (docs/) runs: a page's
blocks in order, sharing one namespace, in a fresh folder that holds the
arrays and groups the page names (made here, small). A block after
``<!-- snippet not run: why -->`` is left out (it needs an S3 bucket or a
Dask cluster; test_dask.py runs those paths)."""

import os
import re

import numpy as np
import pytest

import tilefmt

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def python_blocks(page):
    """(first line, code) of each Python block of `page` that runs."""
    lines = open(os.path.join(REPO, page), encoding="utf-8").read().splitlines()
    out, skip, i = [], False, 0
    while i < len(lines):
        if re.match(r"\s*<!-- snippet not run: .* -->\s*$", lines[i]):
            skip = True
        elif lines[i].strip() == "```python":
            start, body = i + 2, []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            if not skip:
                out.append((start, "\n".join(body)))
            skip = False
        i += 1
    return out


def dense_2d(uri):
    """x in 1..100, y in 1..10; a (float64) and s (str) in every cell."""
    tilefmt.create(uri, tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("x", (1, 100), 10, np.int32), tilefmt.Dim("y", (1, 10), 5, np.int32)),
        attrs=[tilefmt.Attr("a", np.float64), tilefmt.Attr("s", str)]))
    with tilefmt.open(uri, "w") as A:
        A[1:101, 1:11] = {"a": np.arange(1000.0).reshape(100, 10),
                          "s": np.array([["x", "y"][i % 2] for i in range(1000)], dtype=object).reshape(100, 10)}
        A.meta["unit"] = "m"


def sparse_1d(uri):
    """d in 1..1000 (int64) with a (float64) at 200 cells."""
    tilefmt.create(uri, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (1, 1000), 100, np.int64)),
                                       attrs=[tilefmt.Attr("a", np.float64)], sparse=True))
    d = np.arange(1, 1000, 5, dtype=np.int64)
    with tilefmt.open(uri, "w") as A:
        A[d] = {"a": (d % 10).astype(np.float64)}


def experiment(uri):
    """A group with arrays "ms" and "obs" as relative members and a title."""
    tilefmt.Group.create(uri)
    dense_2d(os.path.join(uri, "ms"))
    sparse_1d(os.path.join(uri, "obs"))
    with tilefmt.Group(uri, "w") as G:
        G.add("ms", name="ms", relative=True)
        G.add("obs", name="obs", relative=True)
        G.meta["title"] = "an experiment"


def soma_experiment(uri):
    """The experiment test_soma_api.py reads, written by tiledbsoma (given
    an absolute path: libtiledb resolves relative ones against the working
    folder of its first context, another test's)."""
    import soma_make
    soma_make.write_experiment(os.path.abspath(uri))


# Each page's setup, and the modules its blocks need (a venv without them
# skips the page: the SOMA page runs in the SOMA venv, the others in the
# test venv).
SETUP = {
    "README.md": (lambda: dense_2d("path/to/array"), ("polars", "duckdb")),
    "docs/python.md": (lambda: dense_2d("path/to/array"), ("polars", "duckdb")),
    "docs/arrow.md": (lambda: sparse_1d("path/to/sparse"), ("polars", "duckdb")),
    "docs/groups.md": (lambda: experiment("path/to/experiment"), ("polars", "duckdb")),
    "docs/soma.md": (lambda: soma_experiment("path/to/experiment"), ("tiledbsoma", "anndata", "scipy")),
}


def test_every_page_is_listed():
    """A page with Python blocks that runs none would go unnoticed."""
    pages = ["README.md"] + ["docs/" + p for p in sorted(os.listdir(os.path.join(REPO, "docs"))) if p.endswith(".md")]
    assert sorted(p for p in pages if python_blocks(p)) == sorted(SETUP)


@pytest.mark.parametrize("page", sorted(SETUP))
def test_page_runs(page, tmp_path, monkeypatch):
    setup, needs = SETUP[page]
    for module in needs:
        pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    os.makedirs("path/to")
    setup()
    namespace = {"__name__": "docs"}
    blocks = python_blocks(page)
    assert blocks
    for line, code in blocks:
        try:
            exec(compile(code, "%s:%d" % (page, line), "exec"), namespace)
        except Exception as e:
            raise AssertionError("%s, the block at line %d: %s: %s" % (page, line, type(e).__name__, e)) from e
