"""Groups TileDB-Py writes, read by tilefmt.Group as TileDB-Py reads them:
nested groups, relative and absolute members, named and unnamed, members
removed and re-added under the same name, metadata of several types (also
consolidated and vacuumed), opening as of a time, groups written before
TileDB 2.8 (a marker only), members that leave the group; object_type, ls
and walk over the same folders."""

import os

import numpy as np
import pytest

import tilefmt

tiledb = pytest.importorskip("tiledb")


def _array(path, n=10):
    dom = tiledb.Domain(tiledb.Dim(name="d", domain=(0, 99), tile=10, dtype=np.int64))
    tiledb.Array.create(path, tiledb.ArraySchema(domain=dom, sparse=False, attrs=[tiledb.Attr(name="a", dtype=np.float64)]))
    with tiledb.open(path, "w") as A:
        A[0:n] = np.arange(n, dtype=np.float64)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = str(tmp_path_factory.mktemp("groups"))
    exp = os.path.join(base, "exp")
    tiledb.Group.create(exp)
    _array(os.path.join(exp, "obs"))
    tiledb.Group.create(os.path.join(exp, "ms"))
    _array(os.path.join(exp, "ms", "X"), 20)
    outside = os.path.join(base, "outside")
    _array(outside)
    os.makedirs(os.path.join(exp, "plain"))
    with tiledb.Group(os.path.join(exp, "ms"), "w") as G:
        G.add("X", name="X", relative=True)
    with tiledb.Group(exp, "w") as G:
        G.add("obs", name="obs", relative=True)
        G.add("ms", name="ms", relative=True)
        G.add(outside)  # absolute, unnamed
        G.add("../outside", name="up", relative=True)  # leaves the group: tilefmt does not follow it
        G.meta["title"] = "an experiment"
        G.meta["n"] = 3
        G.meta["scale"] = 0.5
        G.meta["dims"] = (1, 2, 3)
    with tiledb.Group(exp, "w") as G:
        G.remove("obs")
        G.meta["n"] = 4
        del G.meta["scale"]
    with tiledb.Group(exp, "w") as G:
        G.add("obs", name="observations", relative=True)
        G.add("ms/X", name="obs", relative=True)  # the name back, on another member
    legacy = os.path.join(base, "legacy")
    os.makedirs(legacy)
    open(os.path.join(legacy, "__tiledb_group.tdb"), "wb").close()
    _array(os.path.join(legacy, "a"))
    tiledb.Group.create(os.path.join(legacy, "inner"))
    return {"base": base, "exp": exp, "outside": outside, "legacy": legacy}


def test_members_as_tiledb_py_lists_them(tree):
    with tilefmt.Group(tree["exp"]) as G, tiledb.Group(tree["exp"]) as T:
        assert len(G) == len(T)
        theirs = {(m.name, m.type.__name__): m.uri for m in T}
        ours = {}
        for m in G:
            if m.name == "up":
                with pytest.raises(ValueError, match="leaves the group"):
                    m.uri
                ours[(m.name, "Array")] = theirs[("up", "Array")]  # TileDB follows it; tilefmt refuses
                continue
            ours[(m.name, m.type.__name__)] = m.uri
        assert ours == theirs
        for name in ("ms", "obs", "observations", "up"):
            assert (name in G) == (name in T)
            assert G.is_relative(name) == T.is_relative(name)
        assert "scale" not in G and "nothing" not in G
        assert G["obs"].uri == T["obs"].uri and G["obs"].uri.endswith("/exp/ms/X")
        assert G.uri == T.uri
        with pytest.raises(KeyError):
            G["nothing"]
        with pytest.raises(IndexError):
            G[len(G)]


def test_metadata_as_tiledb_py_reads_it(tree):
    with tilefmt.Group(tree["exp"]) as G, tiledb.Group(tree["exp"]) as T:
        assert sorted(G.meta.keys()) == sorted(T.meta.keys())
        for k in T.meta.keys():
            assert G.meta[k] == T.meta[k], k
        assert G.meta["n"] == 4 and "scale" not in G.meta


def test_members_followed_read_what_tiledb_reads(tree):
    with tilefmt.Group(tree["exp"]) as G:
        ms = G["ms"]
        assert ms.type is tilefmt.Group
        with tilefmt.Group(ms.uri) as M, tiledb.open(M["X"].uri) as T:
            with tilefmt.open(M["X"].uri) as A:
                assert np.array_equal(A[:]["a"], T[:]["a"], equal_nan=True)
        unnamed = [m for m in G if m.name is None]
        assert len(unnamed) == 1 and unnamed[0].type is tilefmt.Array
        assert unnamed[0].uri == "file://" + tree["outside"]


def test_as_of_a_time(tree):
    stamps = sorted(int(f.split("_")[2]) for f in os.listdir(os.path.join(tree["exp"], "__group")))
    first = stamps[0]
    with tilefmt.Group(tree["exp"], timestamp=first) as G:
        cfg = tiledb.Config({"sm.group.timestamp_end": str(first)})
        with tiledb.Group(tree["exp"], config=cfg) as T:
            assert sorted(m.name or m.uri for m in T) == sorted(m.name or m._uri for m in G)
            assert "obs" in G and G["obs"].uri.endswith("/exp/obs")
            assert sorted(T.meta.keys()) == sorted(G.meta.keys())
            for k in T.meta.keys():
                assert G.meta[k] == T.meta[k], k
    # Before the first details file: no members (metadata files carry the
    # time the group was opened for writing, a little earlier).
    with tilefmt.Group(tree["exp"], config={"sm.group.timestamp_end": first - 1}) as G:
        with tiledb.Group(tree["exp"], config=tiledb.Config({"sm.group.timestamp_end": str(first - 1)})) as T:
            assert len(G) == len(T) == 0
            assert dict(G.meta.items()) == dict(T.meta.items())


def test_consolidated_and_vacuumed_metadata(tree, tmp_path):
    import shutil

    copy = str(tmp_path / "exp")
    shutil.copytree(tree["exp"], copy)
    before = dict(tilefmt.Group(copy).meta.items())
    tiledb.Group.consolidate_metadata(copy)
    assert dict(tilefmt.Group(copy).meta.items()) == before
    tiledb.Group.vacuum_metadata(copy)
    assert len(os.listdir(os.path.join(copy, "__meta"))) == 1
    assert dict(tilefmt.Group(copy).meta.items()) == before


def test_groups_before_tiledb_2_8_list_their_folder(tree):
    assert tiledb.object_type(tree["legacy"]) == "group" == tilefmt.object_type(tree["legacy"])
    with tilefmt.Group(tree["legacy"]) as G:
        assert G.legacy
        assert [(m.name, m.type) for m in G] == [(None, tilefmt.Array), (None, tilefmt.Group)]
        assert [m.uri for m in G] == ["file://" + os.path.join(tree["legacy"], n) for n in ("a", "inner")]
        assert len(G.meta) == 0


def test_object_type_ls_and_walk_as_tiledb_py(tree):
    base = tree["base"]
    for p in (tree["exp"], os.path.join(tree["exp"], "obs"), os.path.join(tree["exp"], "plain"),
              os.path.join(base, "missing"), tree["outside"], "file://" + tree["exp"]):
        assert tilefmt.object_type(p) == tiledb.object_type(p), p
    for fn, args in ((tilefmt.ls, ()), (tilefmt.walk, ()), (tilefmt.walk, ("postorder",))):
        ours, theirs = [], []
        fn(base, lambda u, t: ours.append((u, t)), *args)
        getattr(tiledb, fn.__name__)(base, lambda u, t: theirs.append((u, t)), *args)
        assert ours == theirs, fn.__name__
        assert ours
    with pytest.raises(ValueError):
        tilefmt.walk(base, print, "sideways")


def test_not_a_group(tree):
    with pytest.raises(OSError, match="an array, not a group"):
        tilefmt.Group(tree["outside"])
    with pytest.raises(OSError, match="not a TileDB group"):
        tilefmt.Group(os.path.join(tree["exp"], "plain"))
    with pytest.raises(ValueError):
        tilefmt.Group(tree["exp"], "x")


def test_groups_tilefmt_writes_read_by_tiledb_py(tmp_path):
    base = str(tmp_path)
    g = os.path.join(base, "g")
    tilefmt.Group.create(g)
    assert tiledb.object_type(g) == "group"
    _array(os.path.join(g, "arr"))
    tiledb.Group.create(os.path.join(g, "sub"))
    _array(os.path.join(base, "far"))
    with tilefmt.Group(g, "w") as G:
        G.add("arr", name="arr", relative=True)
        G.add("sub", name="sub", relative=True)
        G.add(os.path.join(base, "far"))  # absolute, unnamed
        G.meta["title"] = "made by tilefmt"
        G.meta["n"] = 3
        G.meta["v"] = np.arange(4.0)
    with tiledb.Group(g) as T:
        assert sorted(((m.name, m.type.__name__, m.uri) for m in T), key=repr) == sorted(
            [("arr", "Array", "file://" + os.path.join(g, "arr")), ("sub", "Group", "file://" + os.path.join(g, "sub")),
             (None, "Array", "file://" + os.path.join(base, "far"))], key=repr)
        assert T.meta["title"] == "made by tilefmt" and T.meta["n"] == 3
        assert np.array_equal(T.meta["v"], np.arange(4.0))
        assert T.is_relative("arr")
    # Changed by tilefmt again, then by TileDB-Py, each reading the other's.
    with tilefmt.Group(g, "w") as G:
        G.remove("sub")
        del G["file://" + os.path.join(base, "far")]
        G.add("sub", name="inner", relative=True)
        del G.meta["n"]
    with tiledb.Group(g) as T:
        assert sorted(m.name for m in T) == ["arr", "inner"]
        assert "n" not in T.meta
    with tiledb.Group(g, "w") as T:
        T.add("arr", name="again", relative=True)
        T.remove("inner")
    with tilefmt.Group(g) as G, tiledb.Group(g) as T:
        assert sorted(m.name for m in G) == sorted(m.name for m in T) == ["again", "arr"]
        assert dict(G.meta.items()).keys() == set(T.meta.keys())


def test_group_files_as_tiledb_py_writes_them(tmp_path):
    """A group with one member, created and written by each: the details
    files hold the same bytes (the member order of several is TileDB's
    hash table's), and so do the metadata files."""
    import glob

    def make(lib, path):
        lib.Group.create(path)
        with lib.Group(path, "w") as G:
            G.add("m", name="member", relative=True)
            G.meta["k"] = "value"

    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    make(tilefmt, ours)
    make(tiledb, theirs)
    for folder in ("__group", "__meta"):
        a = glob.glob(os.path.join(ours, folder, "__*"))
        b = glob.glob(os.path.join(theirs, folder, "__*"))
        assert len(a) == len(b) == 1, folder
        assert os.path.basename(a[0]).endswith("_2") == os.path.basename(b[0]).endswith("_2")
        assert open(a[0], "rb").read() == open(b[0], "rb").read(), folder
    assert sorted(os.listdir(ours)) == sorted(os.listdir(theirs))
    assert os.path.getsize(os.path.join(ours, "__tiledb_group.tdb")) == 0


def test_group_writes_refused(tree, tmp_path):
    with pytest.raises(ValueError):
        tilefmt.Group.create(tree["exp"])  # already a group
    g = str(tmp_path / "g")
    tilefmt.Group.create(g)
    G = tilefmt.Group(g, "w")
    G.add("../x", name="up", relative=True)
    with pytest.raises(ValueError, match="leaves the group"):
        G.close()
    with pytest.raises(ValueError):
        len(tilefmt.Group(g, "w"))
    G = tilefmt.Group(g, "w")
    G.remove("nothing")
    with pytest.raises(ValueError, match="no member"):
        G.close()


def test_metadata_consolidated_and_vacuumed_by_tilefmt(tmp_path):
    g = str(tmp_path / "g")
    tilefmt.Group.create(g)
    for i in range(3):
        with tilefmt.Group(g, "w", timestamp=100 + i) as G:
            G.meta["k%d" % i] = i
            G.meta["shared"] = "v%d" % i
            if i == 2:
                del G.meta["k0"]
    with tiledb.Group(g) as T:
        before = {k: T.meta[k] for k in T.meta.keys()}
    tilefmt.Group.consolidate_metadata(g)
    files = os.listdir(os.path.join(g, "__meta"))
    assert len(files) == 5 and sum(f.endswith(".vac") for f in files) == 1
    with tiledb.Group(g) as T, tilefmt.Group(g) as G:
        assert {k: T.meta[k] for k in T.meta.keys()} == before == dict(G.meta.items())
    tilefmt.Group.vacuum_metadata(g)
    assert len(os.listdir(os.path.join(g, "__meta"))) == 1
    with tiledb.Group(g) as T, tilefmt.Group(g) as G:
        assert {k: T.meta[k] for k in T.meta.keys()} == before == dict(G.meta.items())
    assert before == {"k1": 1, "k2": 2, "shared": "v2"}
