"""libtiledb driven through its C API with ctypes, without TileDB-Py or headers.

Older TileDB-Py wheels bundle their libtiledb; that shared library loads on
a current Linux and answers the C API, so arrays of every format version since
libtiledb 1.5 can be written and read by the library that defines them. Only
the functions the C generator (generate_c.py) needs are declared, and only in
the forms every release from 1.5 to 2.12 exports (tiledb_query_set_buffer and
friends, deprecated from 2.4 but still there in 2.12).

    lib = Lib("/path/to/wheel/tiledb.libs")   # folder holding libtiledb*.so*
    lib.version                               # (1, 5, 0)
    ctx = lib.ctx()
"""

import ctypes as C
import glob
import os

# Enum values of tiledb_enum.h; they have not changed since 1.5.
DATATYPES = {
    "INT32": 0, "INT64": 1, "FLOAT32": 2, "FLOAT64": 3, "CHAR": 4, "INT8": 5, "UINT8": 6, "INT16": 7,
    "UINT16": 8, "UINT32": 9, "UINT64": 10, "STRING_ASCII": 11, "STRING_UTF8": 12,
}
TYPE_SIZE = {
    "INT32": 4, "INT64": 8, "FLOAT32": 4, "FLOAT64": 8, "CHAR": 1, "INT8": 1, "UINT8": 1, "INT16": 2,
    "UINT16": 2, "UINT32": 4, "UINT64": 8, "STRING_ASCII": 1, "STRING_UTF8": 1,
}
STRUCT_CODE = {
    "INT32": "i", "INT64": "q", "FLOAT32": "f", "FLOAT64": "d", "CHAR": "c", "INT8": "b", "UINT8": "B",
    "INT16": "h", "UINT16": "H", "UINT32": "I", "UINT64": "Q", "STRING_ASCII": "c", "STRING_UTF8": "c",
}
FILTERS = {
    "NONE": 0, "GZIP": 1, "ZSTD": 2, "LZ4": 3, "RLE": 4, "BZIP2": 5, "DOUBLE_DELTA": 6,
    "BIT_WIDTH_REDUCTION": 7, "BITSHUFFLE": 8, "BYTESHUFFLE": 9, "POSITIVE_DELTA": 10,
    "CHECKSUM_MD5": 12, "CHECKSUM_SHA256": 13, "DICTIONARY": 14, "SCALE_FLOAT": 15, "XOR": 16,
}
FILTER_OPTION_COMPRESSION_LEVEL = 0
QUERY_READ, QUERY_WRITE, QUERY_DELETE, QUERY_UPDATE = 0, 1, 2, 3
CONDITION_OPS = {"<": 0, "<=": 1, ">": 2, ">=": 3, "==": 4, "!=": 5}
DENSE, SPARSE = 0, 1
LAYOUTS = {"row-major": 0, "col-major": 1, "global": 2, "unordered": 3, "hilbert": 4}
STATUS_COMPLETED = 1
AES_256_GCM = 1
VAR_NUM = 0xFFFFFFFF


class TileDBError(RuntimeError):
    pass


class Missing(TileDBError):
    """The loaded release lacks a function (a feature newer than it)."""


def find_library(folder):
    """The libtiledb shared object in a wheel's library folder, and its
    siblings (zlib etc.), which must be loaded first with RTLD_GLOBAL."""
    libs = sorted(p for p in glob.glob(os.path.join(folder, "*.so*")) if os.path.isfile(p))
    main = [p for p in libs if os.path.basename(p).startswith("libtiledb")]
    if len(main) != 1:
        raise TileDBError("expected one libtiledb*.so* in %s, found %s" % (folder, main))
    return main[0], [p for p in libs if p != main[0]]


def loaded_library():
    """The path of the libtiledb this process has loaded already (TileDB-Py's),
    from /proc/self/maps; None if there is none."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if name.startswith("libtiledb") and ".so" in name and "cpython" not in name:
                return path
    return None


class Lib:
    def __init__(self, folder=None, path=None):
        """The libtiledb of a wheel's library folder, or the one at `path`
        (already loaded, with its siblings, by TileDB-Py)."""
        if path is None:
            main, siblings = find_library(folder)
            for s in siblings:
                C.CDLL(s, mode=C.RTLD_GLOBAL)
        else:
            main = path
        self.dll = C.CDLL(main)
        v = [C.c_int32() for _ in range(3)]
        self.dll.tiledb_version(*[C.byref(x) for x in v])
        self.version = tuple(x.value for x in v)

    def has(self, name):
        return hasattr(self.dll, name)

    def fn(self, name):
        if not self.has(name):
            raise Missing("libtiledb %s has no %s" % (".".join(map(str, self.version)), name))
        return getattr(self.dll, name)

    def ctx(self, settings=None):
        return Ctx(self, settings)

    def config(self, settings):
        """A tiledb_config_t with `settings` ({key: value}), or None."""
        if not settings:
            return None
        cfg, err = C.c_void_p(), C.c_void_p()
        if self.fn("tiledb_config_alloc")(C.byref(cfg), C.byref(err)) != 0:
            raise TileDBError("tiledb_config_alloc failed")
        for k, v in settings.items():
            if self.fn("tiledb_config_set")(cfg, k.encode(), str(v).encode(), C.byref(err)) != 0:
                raise TileDBError("tiledb_config_set %s=%s failed" % (k, v))
        return cfg


class Ctx:
    """A tiledb_ctx_t and the calls made through it; every call's return code
    is checked and turned into TileDBError with libtiledb's own message."""

    def __init__(self, lib, settings=None):
        self.lib = lib
        self.ptr = C.c_void_p()
        rc = lib.fn("tiledb_ctx_alloc")(lib.config(settings), C.byref(self.ptr))
        if rc != 0:
            raise TileDBError("tiledb_ctx_alloc failed (%d)" % rc)

    def error(self):
        err = C.c_void_p()
        self.lib.fn("tiledb_ctx_get_last_error")(self.ptr, C.byref(err))
        if not err:
            return "no error message"
        msg = C.c_char_p()
        self.lib.fn("tiledb_error_message")(err, C.byref(msg))
        text = msg.value.decode("utf-8", "replace") if msg.value else ""
        self.lib.fn("tiledb_error_free")(C.byref(err))
        return text

    def call(self, name, *args):
        rc = self.lib.fn(name)(self.ptr, *args)
        if rc != 0:
            raise TileDBError("%s: %s" % (name, self.error()))

    def alloc(self, name, *args):
        out = C.c_void_p()
        self.call(name, *args, C.byref(out))
        return out

    # -- schema
    def filter_list(self, filters, max_chunk_size=None):
        """filters: [(type name, level or None)]"""
        fl = self.alloc("tiledb_filter_list_alloc")
        for name, level in filters:
            f = self.alloc("tiledb_filter_alloc", C.c_int(FILTERS[name]))
            if level is not None:
                lv = C.c_int32(level)
                self.call("tiledb_filter_set_option", f, C.c_int(FILTER_OPTION_COMPRESSION_LEVEL), C.byref(lv))
            self.call("tiledb_filter_list_add_filter", fl, f)
        if max_chunk_size is not None:
            self.call("tiledb_filter_list_set_max_chunk_size", fl, C.c_uint32(max_chunk_size))
        return fl

    def schema(self, spec):
        """spec: the manifest's schema facts (array_type, cell_order,
        tile_order, capacity, allows_duplicates, dims, attrs; filters as
        [(name, level)] lists under `filter_list`)."""
        sparse = spec["array_type"] == "sparse"
        s = self.alloc("tiledb_array_schema_alloc", C.c_int(SPARSE if sparse else DENSE))
        dom = self.alloc("tiledb_domain_alloc")
        for d in spec["dims"]:
            code = STRUCT_CODE[d["type"]]
            lo_hi = (C.c_byte * (2 * TYPE_SIZE[d["type"]])).from_buffer_copy(
                _pack(code, d["domain"]))
            ext = (C.c_byte * TYPE_SIZE[d["type"]]).from_buffer_copy(_pack(code, [d["tile_extent"]]))
            dim = self.alloc("tiledb_dimension_alloc", d["name"].encode(), C.c_int(DATATYPES[d["type"]]), lo_hi, ext)
            if d.get("filter_list"):
                self.call("tiledb_dimension_set_filter_list", dim, self.filter_list(d["filter_list"]))
            self.call("tiledb_domain_add_dimension", dom, dim)
        self.call("tiledb_array_schema_set_domain", s, dom)
        for a in spec["attrs"]:
            self.call("tiledb_array_schema_add_attribute", s, self.attribute(a))
        self.call("tiledb_array_schema_set_cell_order", s, C.c_int(LAYOUTS[spec["cell_order"]]))
        self.call("tiledb_array_schema_set_tile_order", s, C.c_int(LAYOUTS[spec["tile_order"]]))
        if sparse:
            self.call("tiledb_array_schema_set_capacity", s, C.c_uint64(spec["capacity"]))
            if spec.get("allows_duplicates"):
                self.call("tiledb_array_schema_set_allows_dups", s, C.c_int(1))
        self.call("tiledb_array_schema_check", s)
        return s

    def attribute(self, a):
        attr = self.alloc("tiledb_attribute_alloc", a["name"].encode(), C.c_int(DATATYPES[a["type"]]))
        if a["cell_val_num"] != 1:
            self.call("tiledb_attribute_set_cell_val_num", attr, C.c_uint32(a["cell_val_num"]))
        if a["nullable"]:
            self.call("tiledb_attribute_set_nullable", attr, C.c_uint8(1))
        if a.get("filter_list"):
            self.call("tiledb_attribute_set_filter_list", attr, self.filter_list(a["filter_list"]))
        return attr

    def create(self, uri, spec, key=None):
        s = self.schema(spec)
        if key is None:
            self.call("tiledb_array_create", uri.encode(), s)
        else:
            self.call("tiledb_array_create_with_key", uri.encode(), s, C.c_int(AES_256_GCM), key, C.c_uint32(len(key)))

    # -- arrays
    def open(self, uri, query_type, key=None):
        arr = self.alloc("tiledb_array_alloc", uri.encode())
        if key is None:
            self.call("tiledb_array_open", arr, C.c_int(query_type))
        else:
            self.call("tiledb_array_open_with_key", arr, C.c_int(query_type), C.c_int(AES_256_GCM), key,
                      C.c_uint32(len(key)))
        return Array(self, arr)

    def config(self, settings):
        return self.lib.config(settings)

    def update(self, uri, timestamp, condition, values):
        """An update commit (__commits/*.upd, libtiledb's experimental update
        query) at `timestamp`: cells where `condition` = (field, op, type
        name, value) holds are to take `values` ({field: (type name,
        value)})."""
        arr = self.alloc("tiledb_array_alloc", uri.encode())
        self.call("tiledb_array_set_open_timestamp_end", arr, C.c_uint64(timestamp))
        self.call("tiledb_array_open", arr, C.c_int(QUERY_UPDATE))
        try:
            q = self.alloc("tiledb_query_alloc", arr, C.c_int(QUERY_UPDATE))
            field, op, type_name, value = condition
            raw = _pack(STRUCT_CODE[type_name], [value])
            cond_value = C.create_string_buffer(raw, len(raw))
            qc = self.alloc("tiledb_query_condition_alloc")
            self.call("tiledb_query_condition_init", qc, field.encode(), cond_value, C.c_uint64(len(raw)),
                      C.c_int(CONDITION_OPS[op]))
            self.call("tiledb_query_set_condition", q, qc)
            keep = []
            for name, (vtype, v) in values.items():
                vraw = _pack(STRUCT_CODE[vtype], [v])
                keep.append(C.create_string_buffer(vraw, len(vraw)))
                self.call("tiledb_query_add_update_value", q, name.encode(), keep[-1], C.c_uint64(len(vraw)))
            self.call("tiledb_query_submit", q)
            self.lib.fn("tiledb_query_free")(C.byref(q))
            self.lib.fn("tiledb_query_condition_free")(C.byref(qc))
        finally:
            self.call("tiledb_array_close", arr)
            self.lib.fn("tiledb_array_free")(C.byref(arr))

    def consolidate(self, uri, key=None, settings=None):
        cfg = self.config(settings)
        if key is None:
            self.call("tiledb_array_consolidate", uri.encode(), cfg)
        else:
            self.call("tiledb_array_consolidate_with_key", uri.encode(), C.c_int(AES_256_GCM), key,
                      C.c_uint32(len(key)), cfg)

    def evolve_add_attribute(self, uri, spec):
        """Schema evolution (2.4 on): adds the attribute `spec` describes."""
        evo = self.alloc("tiledb_array_schema_evolution_alloc")
        self.call("tiledb_array_schema_evolution_add_attribute", evo, self.attribute(spec))
        self.call("tiledb_array_evolve", uri.encode(), evo)

    def vacuum(self, uri):
        self.call("tiledb_array_vacuum", uri.encode(), None)


def _pack(code, values):
    import struct
    return struct.pack("<%d%s" % (len(values), code), *values)


class Array:
    def __init__(self, ctx, ptr):
        self.ctx = ctx
        self.ptr = ptr

    def close(self):
        self.ctx.call("tiledb_array_close", self.ptr)
        self.ctx.lib.fn("tiledb_array_free")(C.byref(self.ptr))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def put_metadata(self, key, type_name, count, payload):
        buf = C.create_string_buffer(payload, len(payload))
        self.ctx.call("tiledb_array_put_metadata", self.ptr, key.encode(), C.c_int(DATATYPES[type_name]),
                      C.c_uint32(count), buf)

    def get_metadata(self, key):
        """(type code, count, bytes) as libtiledb reads them back."""
        t, n, v = C.c_int(), C.c_uint32(), C.c_void_p()
        self.ctx.call("tiledb_array_get_metadata", self.ptr, key.encode(), C.byref(t), C.byref(n), C.byref(v))
        if not v.value:
            return None
        name = {code: nm for nm, code in DATATYPES.items()}[t.value]
        return name, n.value, C.string_at(v.value, n.value * TYPE_SIZE[name])

    def query(self, query_type, layout, subarray=None, sub_type=None):
        return Query(self, query_type, layout, subarray, sub_type)


class Query:
    """One submitted query. Buffers are kept alive on the object; after a
    read, `result(name)` slices them to the sizes libtiledb reported."""

    def __init__(self, array, query_type, layout, subarray, sub_type):
        self.ctx = array.ctx
        self.ptr = self.ctx.alloc("tiledb_query_alloc", array.ptr, C.c_int(query_type))
        self.ctx.call("tiledb_query_set_layout", self.ptr, C.c_int(LAYOUTS[layout]))
        self.keep = {}
        if subarray is not None:
            raw = _pack(STRUCT_CODE[sub_type], [v for r in subarray for v in r])
            self.sub = C.create_string_buffer(raw, len(raw))
            self.ctx.call("tiledb_query_set_subarray", self.ptr, self.sub)

    def buffer(self, name, data=b"", offsets=None, validity=None, capacity=None):
        """Sets a field's buffers: for a write their contents, for a read
        `capacity` = (data bytes, cells of offsets and validity) to allocate."""
        if capacity is not None:
            nbytes, cells = capacity
            data_buf = C.create_string_buffer(max(nbytes, 1))
            off_buf = (C.c_uint64 * max(cells // 8, 1))() if offsets is not None else None
            val_buf = (C.c_uint8 * max(cells, 1))() if validity is not None else None
            sizes = (C.c_uint64(nbytes), C.c_uint64(8 * (cells // 8)), C.c_uint64(cells))
        else:
            data_buf = C.create_string_buffer(bytes(data), max(len(data), 1))
            off_buf = (C.c_uint64 * max(len(offsets), 1))(*offsets) if offsets is not None else None
            val_buf = (C.c_uint8 * max(len(validity), 1))(*validity) if validity is not None else None
            sizes = (C.c_uint64(len(data)), C.c_uint64(8 * len(offsets or ())), C.c_uint64(len(validity or ())))
        dsz, osz, vsz = sizes
        n = name.encode()
        if off_buf is not None and val_buf is not None:
            self.ctx.call("tiledb_query_set_buffer_var_nullable", self.ptr, n, off_buf, C.byref(osz), data_buf,
                          C.byref(dsz), val_buf, C.byref(vsz))
        elif off_buf is not None:
            self.ctx.call("tiledb_query_set_buffer_var", self.ptr, n, off_buf, C.byref(osz), data_buf, C.byref(dsz))
        elif val_buf is not None:
            self.ctx.call("tiledb_query_set_buffer_nullable", self.ptr, n, data_buf, C.byref(dsz), val_buf,
                          C.byref(vsz))
        else:
            self.ctx.call("tiledb_query_set_buffer", self.ptr, n, data_buf, C.byref(dsz))
        self.keep[name] = (data_buf, off_buf, val_buf, dsz, osz, vsz)

    def submit(self):
        self.ctx.call("tiledb_query_submit", self.ptr)
        st = C.c_int()
        self.ctx.call("tiledb_query_get_status", self.ptr, C.byref(st))
        if st.value != STATUS_COMPLETED:
            raise TileDBError("query status %d, not completed (buffers too small?)" % st.value)
        self.ctx.call("tiledb_query_finalize", self.ptr)

    def result(self, name):
        """(data bytes, offsets list or None, validity bytes or None)"""
        data_buf, off_buf, val_buf, dsz, osz, vsz = self.keep[name]
        data = C.string_at(data_buf, dsz.value)
        offsets = list(off_buf[: osz.value // 8]) if off_buf is not None else None
        validity = bytes(val_buf[: vsz.value]) if val_buf is not None else None
        return data, offsets, validity

    def free(self):
        self.ctx.lib.fn("tiledb_query_free")(C.byref(self.ptr))
