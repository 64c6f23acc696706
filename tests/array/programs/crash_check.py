#!/usr/bin/env python3
"""TileDB-Py's side of the crash and concurrency tests (crash_writer.cpp).

Started once by crash-writer (--checker), it prints `ready ...` and then
answers one line per request read from standard input:

    check DENSE SPARSE NAMES0 NAMES1 new|all [BANDS]

    watch DENSE SPARSE SECONDS BANDS

NAMES0 and NAMES1 are the fragments tilefmt lists in the dense and the sparse
array (comma-separated, `-` for none). TileDB must open both arrays and list
exactly those fragments; it then reads fragments back alone (opened at the
fragment's timestamp, over the region its label gives) and compares every
cell with the values the label gives, computed here as crash_writer.cpp
computes them. `new`: the fragments this process has not read yet (tilefmt
rereads old ones after every kill, TileDB when the arrays are replaced);
`all`: every fragment. The answer is
`ok ...` or `fail REASON`. `watch` opens the arrays over and over while
writers commit to them (each open must succeed, the fragment list must
never shrink, the newest fragment must read back) and answers when
SECONDS have passed.
"""

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "interop"))

import tiledb  # noqa: E402
import tdbcompat as tc  # noqa: E402
import expected as ex  # noqa: E402

M64 = (1 << 64) - 1
U = np.uint64


def splitmix64_int(x):
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def splitmix64(x):
    with np.errstate(over="ignore"):
        z = x + U(0x9E3779B97F4A7C15)
        z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
        return z ^ (z >> U(31))


def seed_of(label):
    return splitmix64_int(int(label[:16], 16) ^ splitmix64_int(int(label[16:], 16)))


def cell_strings(h):
    """Offsets (bytes) and data of the strings crash_writer.cpp gives hashes h."""
    lengths = ((h >> U(40)) & U(7)).astype(np.int64)
    start = (((h >> U(32)) & U(255)) % U(26)).astype(np.int64)
    offsets = np.zeros(len(h), dtype=np.uint64)
    if len(h) > 1:
        offsets[1:] = np.cumsum(lengths)[:-1]
    total = int(lengths.sum())
    pos = np.arange(total, dtype=np.int64) - np.repeat(offsets.astype(np.int64), lengths)
    data = ((np.repeat(start, lengths) + pos) % 26 + ord("a")).astype(np.uint8).tobytes()
    return offsets, data


def cell_doubles(h):
    return (h >> U(11)).astype(np.float64) * 2.0 ** -53


DENSE_SIDE, DENSE_EXTENT = 1024, 64
DENSE_TILES = DENSE_SIDE // DENSE_EXTENT
FRAG_TILE_ROWS, FRAG_TILE_COLS = 2, 8
SPARSE_CELLS = 65536


def dense_region(seed, band, bands):
    band_rows = DENSE_TILES // bands
    tr = band * band_rows + seed % (band_rows - FRAG_TILE_ROWS + 1)
    tc_ = (seed >> 8) % (DENSE_TILES - FRAG_TILE_COLS + 1)
    return (1 + tr * DENSE_EXTENT, (tr + FRAG_TILE_ROWS) * DENSE_EXTENT,
            1 + tc_ * DENSE_EXTENT, (tc_ + FRAG_TILE_COLS) * DENSE_EXTENT)


def sparse_base(seed, band):
    return (band << 36) + (seed & ((1 << 30) - 1))


class Mismatch(Exception):
    pass


def same(what, got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        raise Mismatch("%s: %s values read, %s written" % (what, got.shape, want.shape))
    bad = np.nonzero(got != want)[0]
    if len(bad):
        i = int(bad[0])
        raise Mismatch("%s[%d]: TileDB reads %r, written %r (%d cells differ)" % (what, i, got[i], want[i], len(bad)))


def check_strings(what, buf, h):
    offsets, data = cell_strings(h)
    same(what + " offsets", np.asarray(buf.offsets, dtype=np.uint64), offsets)
    if bytes(buf.data) != data:
        raise Mismatch("%s: the string bytes differ" % what)


def parse_name(name):
    parts = name.split("_")  # __t1_t2_label_v
    return int(parts[2]), int(parts[3]), parts[4]


def check_dense(uri, frag, bands):
    t1, t2, label = parse_name(frag["name"])
    seed = seed_of(label)
    ned = [tuple(int(x) for x in r) for r in frag["non_empty_domain_raw"]]
    regions = [dense_region(seed, b, bands) for b in range(bands)]
    got_region = (ned[0][0], ned[0][1], ned[1][0], ned[1][1])
    if got_region not in regions:
        raise Mismatch("%s: TileDB's non-empty domain %s is not where its label puts it" % (frag["name"], ned))
    r0, r1, c0, c1 = got_region
    with tc.open_array(uri, timestamp=(t1, t2)) as A:
        s = A.schema
        bufs = tc.raw_read(A, s, ["a", "b", "c", "s"], "C", [(r0, r1), (c0, c1)], uri=uri, timestamp=(t1, t2))
    rows, cols = np.meshgrid(np.arange(r0, r1 + 1, dtype=np.uint64), np.arange(c0, c1 + 1, dtype=np.uint64), indexing="ij")
    h = splitmix64(U(seed) ^ splitmix64((rows.ravel() << U(32)) | cols.ravel()))
    who = frag["name"]
    same(who + ".a", np.frombuffer(bufs["a"].data, dtype=np.int32), (h & U(0xFFFFFFFF)).astype(np.uint32).view(np.int32))
    same(who + ".b", np.frombuffer(bufs["b"].data, dtype=np.float64), cell_doubles(h))
    valid = (((h >> U(45)) & U(7)) != 0).astype(np.uint8)
    same(who + ".c validity", np.asarray(bufs["c"].validity, dtype=np.uint8), valid)
    c = np.frombuffer(bufs["c"].data, dtype=np.uint16)
    want_c = (h >> U(48)).astype(np.uint16)
    same(who + ".c", c[valid == 1], want_c[valid == 1])
    check_strings(who + ".s", bufs["s"], h)


def check_sparse(uri, frag):
    t1, t2, label = parse_name(frag["name"])
    seed = seed_of(label)
    ned = [tuple(int(x) for x in r) for r in frag["non_empty_domain_raw"]]
    band = ned[0][0] >> 36
    base = sparse_base(seed, band)
    lo, hi = base, base + 3 * (SPARSE_CELLS - 1)
    if ned[0][0] != lo or ned[0][1] != hi:
        raise Mismatch("%s: TileDB's non-empty domain %s is not where its label puts it" % (frag["name"], ned))
    with tc.open_array(uri, timestamp=(t1, t2)) as A:
        s = A.schema
        bufs = tc.raw_read(A, s, ["x", "y", "a", "b", "s"], "C", [(lo, hi), (0, 999999)], uri=uri, timestamp=(t1, t2))
    who = frag["name"]
    i = np.arange(SPARSE_CELLS, dtype=np.uint64)
    h = splitmix64(U(seed) ^ splitmix64(i))
    same(who + ".x", np.frombuffer(bufs["x"].data, dtype=np.int64), base + 3 * i.astype(np.int64))
    same(who + ".y", np.frombuffer(bufs["y"].data, dtype=np.int32), (h % U(1000000)).astype(np.int32))
    same(who + ".a", np.frombuffer(bufs["a"].data, dtype=np.int32), ((h >> U(7)) & U(0xFFFFFFFF)).astype(np.uint32).view(np.int32))
    same(who + ".b", np.frombuffer(bufs["b"].data, dtype=np.float64), cell_doubles(h))
    check_strings(who + ".s", bufs["s"], h)


class Checker:
    def __init__(self):
        self.read_before = {}  # array path -> names read back already
        self.fragments_read = 0

    def check(self, uri, names, sparse, mode, bands):
        try:
            with tc.open_array(uri) as A:
                A.schema
        except Exception as e:
            raise Mismatch("TileDB cannot open %s: %s" % (uri, e))
        frags, _ = ex.list_fragments(uri)
        listed = {f["name"]: f for f in frags}
        if set(listed) != set(names):
            extra = sorted(set(listed) - set(names))
            missing = sorted(set(names) - set(listed))
            raise Mismatch("%s: TileDB lists %d fragments, tilefmt %d (only TileDB: %s; only tilefmt: %s)"
                           % (os.path.basename(uri), len(listed), len(names), extra[:2], missing[:2]))
        done = self.read_before.setdefault(uri, set())
        if mode == "all":
            todo = sorted(names)
        else:
            todo = sorted(n for n in names if n not in done)
        for n in todo:
            if sparse:
                check_sparse(uri, listed[n])
            else:
                check_dense(uri, listed[n], bands)
            done.add(n)
            self.fragments_read += 1
        return len(todo)

    def watch(self, dense, sparse, seconds, bands):
        """Opens both arrays over and over for `seconds` while writers
        commit: each open must succeed, the fragment list must never
        shrink, and the newest fragment listed must read back as written."""
        end = time.monotonic() + seconds
        seen = {dense: 0, sparse: 0}
        opens = reads = 0
        while time.monotonic() < end:
            for uri, sparse_ in ((dense, False), (sparse, True)):
                try:
                    with tc.open_array(uri) as A:
                        A.schema
                    frags, _ = ex.list_fragments(uri)
                except Exception as e:
                    raise Mismatch("TileDB cannot open %s while it is written: %s" % (os.path.basename(uri), e))
                opens += 1
                if len(frags) < seen[uri]:
                    raise Mismatch("%s: TileDB listed %d fragments, then %d" % (os.path.basename(uri), seen[uri], len(frags)))
                seen[uri] = len(frags)
                if frags:
                    newest = max(frags, key=lambda f: (f["timestamp_range"], f["name"]))
                    if sparse_:
                        check_sparse(uri, newest)
                    else:
                        check_dense(uri, newest, bands)
                    reads += 1
        return "ok watched the writers: %d opens, %d fragments read, %d dense and %d sparse fragments listed at the end" % (
            opens, reads, seen[dense], seen[sparse])

    def handle(self, words):
        if words[0] == "watch":
            return self.watch(words[1], words[2], float(words[3]), int(words[4]))
        if words[0] != "check":
            raise Mismatch("unknown request %r" % words[0])
        dense, sparse, n0, n1, mode = words[1:6]
        bands = int(words[6]) if len(words) > 6 else 1
        names = [[] if n == "-" else n.split(",") for n in (n0, n1)]
        read = self.check(dense, names[0], False, mode, bands)
        read += self.check(sparse, names[1], True, mode, bands)
        return "ok %d fragments read" % read


def main():
    checker = Checker()
    print("ready TileDB-Py %s libtiledb %s" % (tiledb.__version__, tc.lib_version()), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            reply = checker.handle(words)
        except Exception as e:  # any failure is an answer, never a crash
            reply = "fail %s: %s" % (type(e).__name__, str(e).replace("\n", " "))
        print(reply, flush=True)


if __name__ == "__main__":
    main()
