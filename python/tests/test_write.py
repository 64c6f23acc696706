"""Arrays tilefmt writes from Python, read by TileDB-Py (and by tilefmt):
dense and sparse fragments, var-size and nullable attributes, filters,
string dimensions, metadata."""

import os

import numpy as np
import pytest

import tilefmt

tiledb = pytest.importorskip("tiledb")

from test_tiledb_py import same, same_rows


def test_dense_2d(tmp_path):
    uri = str(tmp_path / "a")
    schema = tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("r", (1, 8), 4, np.int32), tilefmt.Dim("c", (1, 6), 3, np.int32)),
        attrs=[tilefmt.Attr("a", np.int32, filters=[("BYTESHUFFLE", None), ("ZSTD", 1)]),
               tilefmt.Attr("f", np.float64, nullable=True, filters=[("LZ4", None)]),
               tilefmt.Attr("s", str, filters=[("GZIP", 5)]),
               tilefmt.Attr("b", bytes)])
    tilefmt.create(uri, schema)
    rng = np.random.default_rng(1)
    a = rng.integers(-100, 100, (3, 4)).astype(np.int32)
    f = np.ma.array(rng.random((3, 4)), mask=rng.random((3, 4)) < 0.3)
    s = np.array([["x" * i + "é" for i in range(4)] for _ in range(3)], dtype=object)
    b = np.array([[bytes([i, j]) for i in range(4)] for j in range(3)], dtype=object)
    with tilefmt.open(uri, "w") as A:
        A[2:5, 3:7] = {"a": a, "f": f, "s": s, "b": b}
        A[8, 1] = {"a": np.array([7]), "f": np.array([0.5]), "s": np.array(["last"], dtype=object),
                   "b": np.array([b"z"], dtype=object)}
    with tiledb.open(uri) as T, tilefmt.open(uri) as A:
        assert len(A.fragments) == 2
        for sel in [(slice(None), slice(None)), (slice(2, 5), slice(3, 7)), (8, 1)]:
            same(A[sel], T[sel], "A[%r]" % (sel,))
        got = T[2:5, 3:7]
        assert np.array_equal(got["a"], a)
        assert np.array_equal(np.ma.getmaskarray(got["f"]), np.ma.getmaskarray(f))
        assert np.array_equal(got["f"].compressed(), f.compressed())
        assert got["s"].tolist() == s.tolist() and got["b"].tolist() == b.tolist()


def test_sparse(tmp_path):
    uri = str(tmp_path / "s")
    schema = tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("x", (0, 999), 100, np.int64), tilefmt.Dim("y", (-1.0, 1.0), 0.5, np.float64)),
        attrs=[tilefmt.Attr("v", np.uint16), tilefmt.Attr("t", str, nullable=True)],
        sparse=True, capacity=7)
    tilefmt.create(uri, schema)
    rng = np.random.default_rng(2)
    n = 50
    x = rng.permutation(1000)[:n]
    y = rng.uniform(-1, 1, n)
    v = rng.integers(0, 60000, n).astype(np.uint16)
    t = np.ma.array(np.array(["c%d" % i for i in range(n)], dtype=object), mask=rng.random(n) < 0.2)
    with tilefmt.open(uri, "w") as A:
        A[x, y] = {"v": v, "t": t}
    with tiledb.open(uri) as T, tilefmt.open(uri) as A:
        same(A.query(order="G")[:], T.query(order="G")[:], "A[:] global order")
        same_rows(A[:], T[:], "A[:]")
        got = T.query(order="U")[:]
        order = np.argsort(got["x"])
        want = np.argsort(x)
        assert np.array_equal(got["x"][order], x[want])
        assert np.array_equal(got["y"][order], y[want])
        assert np.array_equal(got["v"][order], v[want])
        assert np.array_equal(np.ma.getmaskarray(got["t"])[order], np.ma.getmaskarray(t)[want])


def test_sparse_string_dimension(tmp_path):
    uri = str(tmp_path / "k")
    schema = tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("key", dtype="ascii")),
                            attrs=[tilefmt.Attr("n", np.int32)], sparse=True, allows_duplicates=True)
    tilefmt.create(uri, schema)
    keys = ["pear", "apple", "fig", "apple", ""]
    with tilefmt.open(uri, "w") as A:
        A[keys] = {"n": np.arange(5, dtype=np.int32)}
    with tiledb.open(uri) as T, tilefmt.open(uri) as A:
        assert T.schema.domain.dim(0).dtype == np.dtype("S")
        same_rows(A[:], T[:], "A[:]")
        assert sorted(T[:]["key"].tolist()) == sorted(k.encode() for k in keys)


def test_metadata(tmp_path):
    uri = str(tmp_path / "m")
    tilefmt.create(uri, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 9), 10, np.int32)),
                                       attrs=[tilefmt.Attr("a", np.int8)]))
    with tilefmt.open(uri, "w") as A:
        A.meta["s"] = "héllo"
        A.meta["i"] = 42
        A.meta["f"] = 2.5
        A.meta["t"] = (1, 2, 3)
        A.meta["ft"] = (0.5, 1)
        A.meta["b"] = b"\x00\xff"
        A.meta["np32"] = np.int32(-7)
        A.meta["m"] = np.arange(6, dtype=np.uint16).reshape(3, 2)
        A.meta["v"] = np.array([1.5, 2.5], dtype=np.float32)
    with tiledb.open(uri) as T, tilefmt.open(uri) as A:
        want = {k: T.meta[k] for k in T.meta}
        assert sorted(want) == ["b", "f", "ft", "i", "m", "np32", "s", "t", "v"]
        same({k: A.meta[k] for k in A.meta}, want, "meta")
        assert want["s"] == "héllo" and want["t"] == (1, 2, 3) and want["m"].shape == (3, 2)
    with tilefmt.open(uri, "w") as A:
        del A.meta["i"]
    with tiledb.open(uri) as T:
        assert "i" not in T.meta and T.meta["f"] == 2.5


def test_write_refusals(tmp_path):
    uri = str(tmp_path / "r")
    tilefmt.create(uri, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (1, 10), 5, np.int32)),
                                       attrs=[tilefmt.Attr("a", np.int32), tilefmt.Attr("b", np.float32)]))
    with pytest.raises(OSError):  # already an array
        tilefmt.create(uri, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (1, 10), 5, np.int32)),
                                           attrs=[tilefmt.Attr("a", np.int32)]))
    with pytest.raises(ValueError):  # TileDB refuses a schema without attributes
        tilefmt.create(str(tmp_path / "r2"), tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (1, 10), 5, np.int32))))
    with tilefmt.open(uri, "w") as A:
        with pytest.raises(ValueError):
            A[1:3] = {"a": np.arange(2)}  # b missing
        with pytest.raises(ValueError):
            A[1:3] = {"a": np.arange(3), "b": np.arange(3)}  # 3 values for 2 cells
        with pytest.raises(ValueError):
            A[8:13] = {"a": np.arange(5), "b": np.arange(5)}  # past the domain
    with tilefmt.open(uri) as A:
        assert A.fragments == ()


def test_encrypted(tmp_path):
    """An encrypted array written through every Python writing path: TileDB-Py
    reads it with the key, and refuses it without; tilefmt likewise."""
    key = "tilefmt python encryption key 32"
    assert len(key) == 32
    cfg = tiledb.Config({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": key})
    dense, sparse = str(tmp_path / "d"), str(tmp_path / "s")
    tilefmt.create(dense, tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("r", (1, 8), 4, np.int32), tilefmt.Dim("c", (1, 6), 3, np.int32)),
        attrs=[tilefmt.Attr("a", np.int32, filters=[("ZSTD", 1)]), tilefmt.Attr("f", np.float64, nullable=True),
               tilefmt.Attr("s", str)]), key=key)
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, (3, 4)).astype(np.int32)
    f = np.ma.array(rng.random((3, 4)), mask=rng.random((3, 4)) < 0.3)
    s = np.array([["é" * i + "x" for i in range(4)] for _ in range(3)], dtype=object)
    with tilefmt.open(dense, "w", key=key) as A:
        A[2:5, 3:7] = {"a": a, "f": f, "s": s}
        A.meta["unit"] = "m"
        A.meta["scale"] = (0.5, 2.0)
    tilefmt.create(sparse, tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("x", (0, 99), 10, np.int64), tilefmt.Dim("name", dtype="ascii")),
        attrs=[tilefmt.Attr("v", np.float32)], sparse=True), key=key.encode())
    x = np.array([5, 17, 5, 90], dtype=np.int64)
    names = np.array(["b", "a", "a", "zz"], dtype=object)
    v = np.array([1.5, -2, 3, 4], dtype=np.float32)
    with tilefmt.open(sparse, "w", key=key.encode()) as A:
        A[x, names] = {"v": v}

    with tiledb.open(dense, ctx=tiledb.Ctx(cfg)) as T, tilefmt.open(dense, key=key) as A:
        got = T[2:5, 3:7]
        assert np.array_equal(got["a"], a)
        assert np.array_equal(np.ma.getmaskarray(got["f"]), np.ma.getmaskarray(f))
        assert np.array_equal(got["f"].compressed(), f.compressed())
        assert list(got["s"].ravel()) == list(s.ravel())
        assert T.meta["unit"] == "m" and T.meta["scale"] == (0.5, 2.0)
        same(A[:, :], T[:, :], "dense")
    with tiledb.open(sparse, ctx=tiledb.Ctx(cfg)) as T, tilefmt.open(sparse, key=key) as A:
        got = T[:]
        assert sorted(zip(got["x"].tolist(), got["name"].tolist(), got["v"].tolist())) == \
            sorted(zip(x.tolist(), [n.encode() for n in names], v.tolist()))
        same_rows(A[:], T[:], "sparse")

    with pytest.raises(tiledb.TileDBError):
        tiledb.open(dense)
    with pytest.raises(ValueError):  # no key
        tilefmt.open(dense)
    with pytest.raises(OSError):  # a wrong key does not authenticate
        tilefmt.open(dense, key="X" + key[1:])
    with pytest.raises(ValueError):  # writing without the key
        with tilefmt.open(dense, "w") as A:
            pass
    with pytest.raises(ValueError):  # a key for an array that is not encrypted
        plain = str(tmp_path / "p")
        tilefmt.create(plain, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (1, 4), 2, np.int32)),
                                             attrs=[tilefmt.Attr("a", np.int32)]))
        with tilefmt.open(plain, "w", key=key) as A:
            A[1:3] = {"a": np.arange(2, dtype=np.int32)}


@pytest.mark.parametrize("sparse", [False, True])
def test_values_cast_to_the_attribute_type_as_tiledb_py_casts_them(tmp_path, sparse):
    """Floats, bools and digit strings written to an int32 attribute:
    TileDB-Py 0.36.1 casts them (1.5 -> 1), and so does tilefmt; what one
    refuses the other refuses."""
    dom = dict(name="x", domain=(0, 9), tile=5)
    tilefmt.create(str(tmp_path / "ours"), tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim(dtype=np.int64, **dom)), attrs=[tilefmt.Attr("a", np.int32)], sparse=sparse))
    tiledb.Array.create(str(tmp_path / "theirs"), tiledb.ArraySchema(
        domain=tiledb.Domain(tiledb.Dim(dtype=np.int64, **dom)), attrs=[tiledb.Attr("a", np.int32)], sparse=sparse))
    for v in (np.array([1.5, -2.7]), [1.5, 2.0], np.array([True, False]), np.array(["1", "2"]), np.array([2 ** 40, 1])):
        results = []
        for mod, name in ((tilefmt, "ours"), (tiledb, "theirs")):
            uri = str(tmp_path / name)
            try:
                with mod.open(uri, "w") as A:
                    if sparse:
                        A[np.array([0, 1])] = {"a": v}
                    else:
                        A[0:2] = {"a": v}
                with tiledb.open(uri) as T:
                    results.append(T.multi_index[0:1]["a"].tolist())
            except Exception as e:
                results.append(type(e).__name__)
        assert results[0] == results[1] or (isinstance(results[0], str) and isinstance(results[1], str)), (v, results)


def test_var_size_cells_packed_in_cpp(tmp_path):
    """Var-size cells from str, bytes and bytearray objects (packed by the
    extension), from NumPy unicode arrays and strided views, and var-size
    numbers (packed in Python): TileDB-Py reads back what was given."""
    uri = str(tmp_path / "v")
    tilefmt.create(uri, tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("d", (0, 5), 6, np.int64)),
        attrs=[tilefmt.Attr("s", str), tilefmt.Attr("b", bytes), tilefmt.Attr("n", np.int32, cell_val_num=0)]))
    every = np.array(["zero", "", "dos", "", "quatre", "é", "x", "y", "z", "w", "v", "u"], dtype=object)
    with tilefmt.open(uri, "w") as A:
        A[0:6] = {"s": every[::2],  # a strided view
                  "b": np.array([b"a", bytearray(b"bc"), b"", b"\x00d", bytearray(), b"e"], dtype=object),
                  "n": np.array([np.array([1, 2], np.int32), np.array([], np.int32), np.array([3], np.int32),
                                 np.array([4, 5, 6], np.int32), np.array([7], np.int32), np.array([8], np.int32)],
                                dtype=object)}
        A[4:6] = {"s": np.array(["unicode", "ñ"]), "b": np.array([b"fixed", b"S"]),
                  "n": np.array([np.array([9], np.int32), np.array([10, 11], np.int32)], dtype=object)}
    with tiledb.open(uri) as T:
        got = T[:]
    assert got["s"].tolist() == ["zero", "dos", "quatre", "x", "unicode", "ñ"]
    assert got["b"].tolist() == [b"a", b"bc", b"", b"\x00d", b"fixed", b"S"]
    assert [x.tolist() for x in got["n"]] == [[1, 2], [], [3], [4, 5, 6], [9], [10, 11]]


@pytest.mark.parametrize("shape", ["1d", "2d-one-tile-wide", "2d-col-major"])
def test_var_size_writes_in_storage_order(tmp_path, shape):
    """Var-size cells of a write whose cells, row-major, are already in
    storage order (whole tiles, one tile across every dimension but the
    first) go to the tiles as given; the fragment's data files are byte for
    byte those TileDB-Py writes for the same cells (column-major cells: the
    reordered path, the same check)."""
    def schema(mod):
        if shape == "1d":
            dims = [mod.Dim("d", domain=(0, 11), tile=4, dtype=np.int64)]
        else:
            dims = [mod.Dim("r", domain=(1, 8), tile=2, dtype=np.int32), mod.Dim("c", domain=(1, 3), tile=3, dtype=np.int32)]
        return mod.ArraySchema(domain=mod.Domain(*dims), cell_order="col-major" if shape == "2d-col-major" else "row-major",
                               attrs=[mod.Attr("s", dtype=str, var=True), mod.Attr("b", dtype=bytes, var=True)])
    n = 12 if shape == "1d" else 24
    s = np.array(["%d" % i * (i % 4) for i in range(n)], dtype=object)
    b = np.array([bytes(range(1, 1 + i % 5)) for i in range(n)], dtype=object)
    if shape != "1d":
        s, b = s.reshape(8, 3), b.reshape(8, 3)
    region = np.s_[0:12] if shape == "1d" else np.s_[1:9, 1:4]
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    tilefmt.create(ours, schema(tilefmt))
    tiledb.Array.create(theirs, schema(tiledb))
    with tilefmt.open(ours, "w") as A:
        A[region] = {"s": s, "b": b}
    with tiledb.open(theirs, "w") as T:
        T[region] = {"s": s, "b": b}
    with tiledb.open(ours) as T:
        got = T[region]
    assert got["s"].tolist() == s.tolist() and got["b"].tolist() == b.tolist()

    def data_files(root):
        [frag] = os.listdir(os.path.join(root, "__fragments"))
        folder = os.path.join(root, "__fragments", frag)
        return {f: open(os.path.join(folder, f), "rb").read() for f in sorted(os.listdir(folder))
                if f != "__fragment_metadata.tdb"}
    assert data_files(ours) == data_files(theirs)
