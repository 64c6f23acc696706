"""tilefmt's Python API against TileDB-Py itself on the committed arrays:
the same calls, the same answers (values, dtypes, shapes, masks, object
arrays, orders). Skipped when TileDB-Py is not installed."""

import math
import os

import numpy as np
import pytest

import tilefmt

tiledb = pytest.importorskip("tiledb")

from conftest import DATA

KEY = "0123456789abcdeF0123456789abcdeF"


def path(name):
    return os.path.join(DATA, "tiledb", name, "array")


def both(name, timestamp=None):
    key = KEY if name.startswith("encrypted") else None
    cfg = tiledb.Config({"sm.encryption_type": "AES_256_GCM", "sm.encryption_key": KEY}) if key else None
    ctx = tiledb.Ctx(cfg) if cfg else None
    return (tilefmt.open(path(name), key=key, timestamp=timestamp),
            tiledb.open(path(name), ctx=ctx, timestamp=timestamp))


def same(got, want, what="", unmasked=False):
    """Equal as TileDB-Py users see it: type, keys and order, dtype, shape,
    memory order, masks, values (NaN equal to NaN). `unmasked`: TileDB-Py
    gives nullable attributes without their mask here (multi_index), where
    tilefmt gives a masked array: the data are compared."""
    if isinstance(want, dict):
        assert isinstance(got, dict), what
        assert list(got) == list(want), "%s: keys %r, TileDB-Py %r" % (what, list(got), list(want))
        for k in want:
            same(got[k], want[k], "%s[%r]" % (what, k), unmasked)
        return
    if isinstance(want, np.ndarray):
        if unmasked and isinstance(got, np.ma.MaskedArray) and not isinstance(want, np.ma.MaskedArray):
            got = got.data
        assert isinstance(got, np.ndarray), "%s: %r" % (what, type(got))
        assert isinstance(got, np.ma.MaskedArray) == isinstance(want, np.ma.MaskedArray), "%s: masked?" % what
        assert got.dtype == want.dtype, "%s: dtype %r, TileDB-Py %r" % (what, got.dtype, want.dtype)
        assert got.shape == want.shape, "%s: shape %r, TileDB-Py %r" % (what, got.shape, want.shape)
        if want.ndim > 1:
            assert got.flags.f_contiguous == want.flags.f_contiguous, "%s: memory order" % what
        if isinstance(want, np.ma.MaskedArray):
            assert np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want)), "%s: mask" % what
            got, want = got.data, want.data
        if want.dtype == object:
            for g, w in zip(got.ravel(), want.ravel()):
                if isinstance(w, np.ndarray):
                    assert g.dtype == w.dtype and np.array_equal(g, w), what
                else:
                    assert type(g) is type(w) and g == w, "%s: %r, TileDB-Py %r" % (what, g, w)
        else:
            assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), "%s: values differ" % what
        return
    if isinstance(want, float) and math.isnan(want):
        assert isinstance(got, float) and math.isnan(got), what
        return
    assert got == want, "%s: %r, TileDB-Py %r" % (what, got, want)


def check(f_got, f_want, what, unmasked=False):
    """Runs both; TileDB-Py's refusals must be tilefmt's too."""
    try:
        want = f_want()
    except Exception as e:  # TileDB-Py refused: tilefmt must refuse as well
        with pytest.raises(Exception):
            f_got()
        return
    same(f_got(), want, what, unmasked)


ALL = [n for n in sorted(os.listdir(os.path.join(DATA, "tiledb"))) if os.path.isdir(path(n))]


@pytest.mark.parametrize("name", ALL)
def test_schema(name):
    A, T = both(name)
    s, t = A.schema, T.schema
    assert s.sparse == t.sparse
    assert s.cell_order == t.cell_order and s.tile_order == t.tile_order
    assert s.capacity == t.capacity
    if s.sparse:
        assert s.allows_duplicates == t.allows_duplicates
    assert [d.name for d in s.domain.dims] == [t.domain.dim(i).name for i in range(t.domain.ndim)]
    for i, d in enumerate(s.domain.dims):
        td = t.domain.dim(i)
        assert d.dtype == td.dtype, (d.name, d.dtype, td.dtype)
        assert d.isvar == td.isvar
        if not d.isvar:
            assert tuple(d.domain) == tuple(td.domain)
            assert d.tile == td.tile
    assert [a.name for a in s.attrs] == [t.attr(i).name for i in range(t.nattr)]
    for i, a in enumerate(s.attrs):
        ta = t.attr(i)
        assert a.dtype == ta.dtype, (a.name, a.dtype, ta.dtype)
        assert a.isvar == ta.isvar and a.isnullable == ta.isnullable


@pytest.mark.parametrize("name", ALL)
def test_nonempty_domain_meta_fragments(name):
    A, T = both(name)
    same(A.nonempty_domain(), T.nonempty_domain(), "nonempty_domain")
    same({k: A.meta[k] for k in A.meta}, {k: T.meta[k] for k in T.meta}, "meta")
    assert len(A.meta) == len(T.meta)
    info = tiledb.array_fragments(T.uri, ctx=T.ctx)
    assert [f.timestamp_range for f in A.fragments] == [tuple(t) for t in info.timestamp_range]
    assert [f.cell_num for f in A.fragments] == list(info.cell_num)


DENSE_1D_ARRAYS = ["dense_1d_int32", "nullable_dense", "filter_dictionary_utf8", "consolidated_fragment_metadata",
                   "encrypted_dense", "enumeration"]
DENSE_1D = [slice(None), slice(1, 11), slice(5, 6), 7, -1, slice(-10, None), slice(90, 200), slice(3, 40, 7)]


@pytest.mark.parametrize("name", DENSE_1D_ARRAYS)
@pytest.mark.parametrize("sel", DENSE_1D, ids=repr)
def test_dense_getitem_1d(name, sel):
    A, T = both(name)
    if name == "enumeration" and isinstance(sel, int):
        # TileDB-Py 0.36.1 raises TypeError mapping a single cell to its
        # label; tilefmt gives the label.
        assert A[sel]["c"] == T.enum("colors").values()[T.query()[sel]["c"]]
        return
    check(lambda: A[sel], lambda: T[sel], "A[%r]" % (sel,))


DENSE_2D = [(slice(None), slice(None)), (slice(1, 4), slice(2, 9)), (3, slice(None)), (slice(None), 7),
            (5, 6), Ellipsis, (Ellipsis, slice(2, 4)), (slice(2, 11, 3), slice(1, 15, 4))]


@pytest.mark.parametrize("name", ["dense_2d_tilecol_cellcol", "dense_fragments_custom_fill"])
@pytest.mark.parametrize("sel", DENSE_2D, ids=repr)
@pytest.mark.parametrize("order", ["C", "F", "G"])
def test_dense_getitem_2d(name, sel, order):
    A, T = both(name)
    check(lambda: A.query(order=order)[sel], lambda: T.query(order=order)[sel], "query(order=%r)[%r]" % (order, sel))


SPARSE = {
    "sparse_2d_duplicates": [(slice(None), slice(None)), (slice(10, 40), slice(0, 50)), (5, slice(None))],
    "sparse_string_dim": [slice(None), (slice("a", "m"), slice(None))],
    "sparse_float_dims": [(slice(-50.0, 50.0), slice(0.2, 0.7))],
    "sparse_datetime_dim": [slice(np.datetime64("2005-01-01", "ns"), np.datetime64("2030-01-01", "ns"))],
    "encrypted_sparse": [slice(None), slice(10, 500)],
    "sparse_hilbert": [(slice(0, 500), slice(100, 900))],
}


def cells(v):
    """A result field as a list of comparable cells (masked: None)."""
    mask = np.ma.getmaskarray(v) if isinstance(v, np.ma.MaskedArray) else np.zeros(len(v), dtype=bool)
    data = v.data if isinstance(v, np.ma.MaskedArray) else v
    out = []
    for m, x in zip(mask.tolist(), list(data)):
        if isinstance(x, np.ndarray):
            x = (str(x.dtype), x.tobytes())
        elif isinstance(x, np.generic):
            x = x.item()
        out.append(None if m else (type(x).__name__, x))
    return out


def same_rows(got, want, what, ndims=0):
    """Sparse results compared as rows: in any order (ndims 0), else in
    order of the first `ndims` fields (coordinates) but in any order among
    cells of equal coordinates (duplicates: TileDB's sort is not stable)."""
    assert list(got) == list(want), "%s: keys %r, TileDB-Py %r" % (what, list(got), list(want))
    for k in want:
        assert got[k].dtype == want[k].dtype, "%s[%r]: dtype %r, TileDB-Py %r" % (what, k, got[k].dtype, want[k].dtype)
        assert isinstance(got[k], np.ma.MaskedArray) == isinstance(want[k], np.ma.MaskedArray), what
    g = list(zip(*[cells(got[k]) for k in got]))
    w = list(zip(*[cells(want[k]) for k in want]))
    assert len(g) == len(w), "%s: %d cells, TileDB-Py %d" % (what, len(g), len(w))
    if ndims == 0:
        assert sorted(g, key=repr) == sorted(w, key=repr), what
        return
    b = 0
    while b < len(w):
        e = b + 1
        while e < len(w) and w[e][:ndims] == w[b][:ndims]:
            e += 1
        assert sorted(g[b:e], key=repr) == sorted(w[b:e], key=repr), "%s: cells %d to %d differ" % (what, b, e)
        b = e


def check_sparse(A, f_got, f_want, what, order, unmasked):
    try:
        want = f_want()
    except Exception:
        with pytest.raises(Exception):
            f_got()
        return
    got = f_got()
    if unmasked:  # see same()
        for k in want:
            if isinstance(got.get(k), np.ma.MaskedArray) and not isinstance(want[k], np.ma.MaskedArray):
                got[k] = got[k].data
    if order == "U":
        same_rows(got, want, what)
    elif A.schema.allows_duplicates:
        # Coordinates in order; attributes in any order among duplicates.
        names = [d.name for d in A.schema.domain.dims]
        keys = [k for k in want if k in names] + [k for k in want if k not in names]
        reorder = lambda r: {k: r[k] for k in keys}
        assert list(got) == list(want), what
        same_rows(reorder(got), reorder(want), what, ndims=len(names))
    else:
        same(got, want, what)


@pytest.mark.parametrize("name,sel", [(n, s) for n, ss in SPARSE.items() for s in ss], ids=repr)
@pytest.mark.parametrize("order", ["C", "F", "G", "U"])
def test_sparse_getitem(name, sel, order):
    A, T = both(name)
    check_sparse(A, lambda: A.query(order=order)[sel], lambda: T.query(order=order)[sel],
                 "query(order=%r)[%r]" % (order, sel), order, False)


MULTI = {
    "dense_1d_int32": [slice(1, 10), [(1, 3), 7, slice(50, 60)], 100],
    "dense_2d_tilecol_cellcol": [(slice(1, 4), slice(2, 9)), ([(1, 2), (5, 6)], 3), (slice(None), [1, 15])],
    "nullable_dense": [slice(1, 60), [(3, 9), 20]],
    "sparse_2d_duplicates": [(slice(None), slice(None)), ([(1, 20), (60, 80)], slice(0, 50))],
    "sparse_string_dim": [(slice("b", "k"),), ([("a", "c"), ("x", "z")],)],
    "sparse_3d_mixed_dims": [(slice(None), slice(-0.5, 0.5))],
    "enumeration": [slice(0, 19), [(2, 5), 9]],
}


def several_ranges(sel):
    """Whether a multi_index selection gives some dimension several ranges."""
    return any(isinstance(s, list) and len(s) > 1 for s in (sel if isinstance(sel, tuple) else (sel,)))


@pytest.mark.parametrize("name,sel", [(n, s) for n, ss in MULTI.items() for s in ss], ids=repr)
@pytest.mark.parametrize("order", ["C", "F", "G"])
def test_multi_index(name, sel, order):
    A, T = both(name)
    if not A.schema.sparse and order == "G" and several_ranges(sel):
        # TileDB refuses several ranges in a global-order dense read, but
        # libtiledb 2.30 computes the tile overlap first from memory it does
        # not own (AddressSanitizer: an allocation of ~2^61 bytes in
        # Subarray::ndrange; mostly std::bad_alloc, at times a crash), so it
        # is not asked here.
        with pytest.raises(ValueError, match="several ranges per dimension cannot be read in global order"):
            A.query(order=order).multi_index[sel]
        return
    if A.schema.sparse:
        check_sparse(A, lambda: A.query(order=order).multi_index[sel], lambda: T.query(order=order).multi_index[sel],
                     "multi_index[%r] order %r" % (sel, order), order, True)
        return
    check(lambda: A.query(order=order).multi_index[sel], lambda: T.query(order=order).multi_index[sel],
          "multi_index[%r] order %r" % (sel, order), unmasked=True)


CONDS = {
    "dense_2d_tilecol_cellcol": ["a > 0", "a > 0 and f < 0.5", "a < 0 or f >= 0.25", "not (a > 0)"],
    "nullable_dense": ["i32 > 0", "i32 == None", "f64 != None and u8 < 100", "u8 < 3 or u8 > 200"],
    "sparse_2d_duplicates": ["f > 0.5", "n == None or f < 0.1", "r < 30 and c >= 20"],
    "sparse_string_dim": ["v > 10", "key > 'k'"],
    "encrypted_dense": ["s == 'x'", "s > 'm'"],
    "enumeration": ["c == 'red'", "c != 'hé' and v > 0", "c in ['blue', 'green']", "c == 'nope'"],
}


@pytest.mark.parametrize("name,cond", [(n, c) for n, cs in CONDS.items() for c in cs], ids=repr)
def test_condition(name, cond):
    A, T = both(name)
    check(lambda: A.query(cond=cond)[:], lambda: T.query(cond=cond)[:], "query(cond=%r)[:]" % cond)
    check(lambda: A.query(cond=cond).multi_index[:], lambda: T.query(cond=cond).multi_index[:],
          "multi_index, cond=%r" % cond, unmasked=True)


AGGS = {
    "dense_1d_int32": [("sum", slice(None)), (["count", "min", "max", "mean"], slice(10, 60)),
                       ({"a": ["sum", "max"]}, slice(3, 4))],
    "dense_2d_tilecol_cellcol": [("max", (slice(1, 5), slice(None))), ({"f": ["mean", "min"]}, Ellipsis)],
    "nullable_dense": [({"i32": ["null_count", "sum", "count"]}, slice(None)), ({"f64": ["min", "max"]}, slice(2, 30))],
    "sparse_2d_duplicates": [({"f": ["sum", "count", "min"]}, (slice(None), slice(None))),
                             ({"n": ["null_count", "max"]}, (slice(1, 30), slice(None)))],
}


@pytest.mark.parametrize("name,agg,sel", [(n, a, s) for n, xs in AGGS.items() for a, s in xs], ids=repr)
def test_aggregate(name, agg, sel):
    A, T = both(name)
    got = A.query().agg(agg)[sel]
    want = T.query().agg(agg)[sel]
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            g, w = got[k], want[k]
            if isinstance(w, float) and not math.isnan(w):
                assert g == pytest.approx(w, rel=1e-12), k
            else:
                same(g, w, k)
    elif isinstance(want, float) and not math.isnan(want):
        assert got == pytest.approx(want, rel=1e-12)
    else:
        same(got, want, "agg")
    got = A.query(cond=None).agg(agg).multi_index[sel if sel is not Ellipsis else slice(None)]
    want = T.query(cond=None).agg(agg).multi_index[sel if sel is not Ellipsis else slice(None)]
    assert (list(got) if isinstance(got, dict) else None) == (list(want) if isinstance(want, dict) else None)


def test_timestamp():
    A = tilefmt.open(path("dense_fragments_custom_fill"))
    first = A.fragments[0].timestamp_range[1]
    B, T = both("dense_fragments_custom_fill", timestamp=first)
    assert len(B.fragments) == 1
    same(B[:], T[:], "A[:] at the first fragment's timestamp")


def test_context_manager_closes():
    with tilefmt.open(path("dense_1d_int32")) as A:
        assert A.isopen
    assert not A.isopen
    with pytest.raises(RuntimeError):
        A[:]


def test_meta_read_only():
    A = tilefmt.open(path("metadata_all_types"))
    assert len(A.meta) > 0
    with pytest.raises(TypeError):
        A.meta["x"] = 1


def test_bad_condition():
    A = tilefmt.open(path("dense_1d_int32"))
    with pytest.raises(ValueError):
        A.query(cond="nope > 3")
    with pytest.raises(ValueError):
        A.query(cond="a >")


def test_results_are_not_copied():
    # Fixed-size results are views of the buffers the reader filled (their
    # memory belongs to the extension), not arrays NumPy allocated.
    with tilefmt.open(path("dense_1d_int32")) as A:
        a = A[:]["a"]
        assert not a.flags.owndata and a.base is not None


def test_threads():
    # Reads from several threads at once (the GIL is released while tiles
    # decode) give the answers of a read alone.
    import concurrent.futures
    A = tilefmt.open(path("sparse_2d_duplicates"))
    want = A.query(order="G")[:]
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        for got in ex.map(lambda _: A.query(order="G")[:], range(8)):
            same(got, want, "threaded read")


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("sel", [(slice(2, 5), slice(3, 7)), (slice(None), 4)], ids=repr)
def test_dense_coords(order, sel):
    A, T = both("dense_2d_tilecol_cellcol")
    check(lambda: A.query(coords=True, order=order)[sel], lambda: T.query(coords=True, order=order)[sel],
          "query(coords=True)[%r]" % (sel,))
    msel = tuple(slice(s.start, s.stop - 1) if isinstance(s, slice) and s.stop else s for s in sel)
    check(lambda: A.query(coords=True, order=order).multi_index[msel],
          lambda: T.query(coords=True, order=order).multi_index[msel], "multi_index[%r]" % (msel,))


def test_var_size_cells_are_made_in_cpp():
    """Var-size character cells become str / bytes in the extension, as
    TileDB-Py's do: UTF-8 decoded with surrogateescape and ASCII without
    trailing NULs, other characters as stored; bad offsets raise."""
    from tilefmt import _core

    values = np.frombuffer(b"ab\0\0" + b"\xffz" + b"" + b"c\0", dtype=np.uint8)
    offsets = np.array([0, 4, 6, 6], dtype=np.uint64)
    def unpack(v, o, kind):
        out = _core.unpack_strings(v, o, kind)
        assert isinstance(out, np.ndarray) and out.dtype == object and out.shape == (len(o),)
        return out.tolist()

    assert unpack(values, offsets, 0) == ["ab", "\udcffz", "", "c"]
    assert unpack(values, offsets, 1) == [b"ab", b"\xffz", b"", b"c"]
    assert unpack(values, offsets, 2) == [b"ab\0\0", b"\xffz", b"", b"c\0"]
    assert unpack(values[:0], offsets[:0], 0) == []
    # All ASCII: made without the decoder, the same str.
    ascii_values = np.frombuffer(b"ab\0cde", dtype=np.uint8)
    assert unpack(ascii_values, np.array([0, 3, 3], dtype=np.uint64), 0) == ["ab", "", "cde"]
    # Equal cells are one object; a column of mostly distinct cells (past
    # the sample after which the cache turns off) is made right too.
    words = ["w%d" % (i % 7) for i in range(1000)] + ["d%d" % i for i in range(100_000)] + ["w1", "w1\0", "x"]
    blob = "".join(words).encode()
    offs = np.cumsum([0] + [len(w) for w in words[:-1]]).astype(np.uint64)
    for kind, conv in ((0, str), (1, lambda w: w.rstrip("\0").encode()), (2, str.encode)):
        got = _core.unpack_strings(np.frombuffer(blob, dtype=np.uint8), offs, kind)
        want = [conv(w) for w in words]
        if kind == 0:
            want = [w.rstrip("\0") for w in want]
        assert got.tolist() == want, kind
        assert got[1] is got[8] and got[-3] == got[1]
    # Twenty thousand categories, each block of a thousand repeated five
    # times: the table of equal cells stays on and grows past its sparse
    # small sizes (2^15 slots) to its half-full large ones.
    words = [w for b in range(20) for _ in range(5) for w in ("c%d" % (b * 1000 + i) for i in range(1000))]
    blob = "".join(words).encode()
    offs = np.cumsum([0] + [len(w) for w in words[:-1]]).astype(np.uint64)
    got = _core.unpack_strings(np.frombuffer(blob, dtype=np.uint8), offs, 0)
    assert got.tolist() == words
    assert len({id(o) for o in got}) == 20_000
    with pytest.raises(ValueError, match="cell 1 spans"):
        _core.unpack_strings(values, np.array([0, 2, 9], dtype=np.uint64), 1)
    with pytest.raises(ValueError, match="cell 0 spans"):
        _core.unpack_strings(values, np.array([5, 2], dtype=np.uint64), 1)


def test_var_size_cells_of_every_length():
    """The extension's cells against Python's own making of them, over
    random cells of 0 to 40 bytes (NULs, ASCII, UTF-8 and undecodable
    bytes; short cells keyed by their words, longer ones by a hash, cells
    near the end of the buffer), for each kind; cells that differ only past
    their 16th byte or by trailing NULs stay apart; equal cells are one
    object while the column repeats itself."""
    from tilefmt import _core

    rng = np.random.default_rng(11)
    alphabet = [b"a", b"b", b"\0", b"\xc3\xa9", b"\xff", b"z"]
    base = [b"".join(rng.choice(alphabet, size=int(n), p=[0.3, 0.3, 0.1, 0.1, 0.05, 0.15]))
            for n in rng.integers(0, 20, 300)]
    prefix = b"0123456789abcdef"
    cells = base + [prefix + b"x", prefix + b"y", prefix + b"x\0", prefix, prefix[:8], prefix[:8] + b"\0"]
    cells = cells * 3 + [b"".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(0, 41, 200)]
    blob = b"".join(cells)
    offs = np.cumsum([0] + [len(c) for c in cells[:-1]]).astype(np.uint64)
    making = {0: lambda c: c.rstrip(b"\0").decode("utf-8", "surrogateescape"),
              1: lambda c: c.rstrip(b"\0"), 2: lambda c: c}
    for kind, make in making.items():
        got = _core.unpack_strings(np.frombuffer(blob, dtype=np.uint8), offs, kind).tolist()
        assert got == [make(c) for c in cells], kind
        firsts = {}
        for i, c in enumerate(cells[:len(base) + 6]):  # repeated three times: one object per distinct cell
            key = make(c)
            if key in firsts:
                assert got[i] is got[firsts[key]], (kind, c)
            firsts.setdefault(key, i)
    # Every position of a non-ASCII character in a column otherwise ASCII
    # (the ASCII test reads words): decoded, not copied.
    for at in range(70):
        text = "a" * at + "\u00e9" + "b" * (69 - at)
        raw = text.encode()
        got = _core.unpack_strings(np.frombuffer(raw, dtype=np.uint8), np.array([0, len(raw) // 2], dtype=np.uint64), 0)
        assert "".join(got.tolist()) == text.encode()[:len(raw) // 2].decode("utf-8", "surrogateescape") + \
            raw[len(raw) // 2:].decode("utf-8", "surrogateescape"), at


def _bounds(ned):
    return [v for r in (ned or ()) for v in r]


@pytest.mark.parametrize("name", ALL)
def test_schema_shortcuts_and_fragment_info(name):
    """A.ndim, A.nattr, A.shape, A.domain (iterable), A.dim(), A.attr(),
    nonempty_domain's Python types, tilefmt.array_fragments and
    tilefmt.array_exists, as TileDB-Py's."""
    A, T = both(name)
    assert (A.ndim, A.nattr, len(A.domain)) == (T.ndim, T.nattr, len(T.domain))
    check(lambda: A.shape, lambda: T.shape, "shape")
    assert [d.name for d in A.domain] == [d.name for d in T.domain]
    for i in range(T.ndim):
        assert A.dim(i).name == T.dim(i).name and A.dim(T.dim(i).name).name == T.dim(i).name
    for i in range(T.nattr):
        assert A.attr(i).name == T.attr(i).name and A.attr(T.attr(i).name).name == T.attr(i).name
    ned, tned = A.nonempty_domain(), T.nonempty_domain()
    assert [type(v) for v in _bounds(ned)] == [type(v) for v in _bounds(tned)], (ned, tned)
    key = KEY if name.startswith("encrypted") else None
    ctx = T.ctx
    got, want = tilefmt.array_fragments(path(name), key=key), tiledb.array_fragments(path(name), ctx=ctx)
    assert len(got) == len(want)
    for prop in ("uri", "timestamp_range", "cell_num", "version", "sparse", "nonempty_domain", "array_schema_name",
                 "has_consolidated_metadata", "to_vacuum"):
        g, w = getattr(got, prop), getattr(want, prop)
        assert list(g) == [tuple(x) if isinstance(x, list) else x for x in w], prop
    assert got.unconsolidated_metadata_num == want.unconsolidated_metadata_num
    for f, t in zip(got, want):
        assert (f.uri, f.num, f.cell_num, f.version, f.sparse) == (t.uri, t.num, t.cell_num, t.version, t.sparse)
        assert (f.array_schema_name, f.has_consolidated_metadata, f.unconsolidated_metadata_num) == \
            (t.array_schema_name, t.has_consolidated_metadata, t.unconsolidated_metadata_num)
        assert [type(v) for v in _bounds(f.nonempty_domain)] == [type(v) for v in _bounds(t.nonempty_domain)]
    for flags in ({}, {"isdense": True}, {"issparse": True}):
        assert tilefmt.array_exists(path(name), key=key, **flags) == tiledb.array_exists(path(name), ctx=ctx, **flags)


def test_array_exists_elsewhere(tmp_path):
    for p in (str(tmp_path), str(tmp_path / "missing"), os.path.join(DATA, "tiledb")):
        assert tilefmt.array_exists(p) == tiledb.array_exists(p) == False


def test_timestamp_forms():
    """(start, end) tuples with open ends, one end time; other forms refused
    with TileDB-Py's TypeError."""
    p = path("dense_fragments_custom_fill")
    for ts in ((None, None), (0, None), (None, 10 ** 15), 10 ** 15):
        B, T = tilefmt.open(p, timestamp=ts), tiledb.open(p, timestamp=ts)
        assert B.nonempty_domain() == T.nonempty_domain(), ts
    for ts in ([0, 10 ** 15], "5", 1.5):
        with pytest.raises(TypeError) as theirs:
            tiledb.open(p, timestamp=ts)
        with pytest.raises(TypeError) as ours:
            tilefmt.open(p, timestamp=ts)
        assert str(ours.value) == str(theirs.value), ts
