// tilefmt._core: var-size character cells as Python objects, made in C++
// as TileDB-Py makes them, and packed from them for a write. Built one by
// one in Python (a slice, an rstrip and a decode a cell), a column of 2x10^6
// strings took 0.7 s, most of a read; here it is one pass over the bytes,
// straight into a NumPy object array (through NumPy's C API: a list copied
// into one cost a third more). Packed in a Python loop (an encode, a list
// append and a join), the same column took 0.6 s of a 0.8 s write.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

// One translation unit (_core.cpp) holds the extension: it imports NumPy's
// C API (import_numpy) and is the only user of it. The API of NumPy 1.22
// (the oldest the package supports) keeps the extension loadable by every
// NumPy from there on, whichever it was built with.
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL tilefmt_numpy_api
#include <numpy/arrayobject.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tilefmt_python {

namespace nb = nanobind;

/// How the cells become objects.
enum class cell_text : int {
  utf8 = 0,   // str, decoded as UTF-8 (undecodable bytes kept by surrogateescape), trailing NULs dropped
  ascii = 1,  // bytes, trailing NULs dropped (TileDB-Py's NumPy bytes drop them)
  bytes = 2,  // bytes as stored
};

/// Makes NumPy's C API usable; called once when the module loads.
inline void import_numpy() {
  if (_import_array() < 0) throw nb::python_error();
}

/// Whether every byte of `p[0, n)` is ASCII (a whole column at once: its
/// cells then become str without decoding). Eight bytes a step, with no
/// early exit: a loop over single bytes was not vectorised at -O2, and took
/// a sixth of the conversion.
inline bool all_ascii(const std::uint8_t* p, std::size_t n) {
  std::uint64_t high = 0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + i, 32);
    high |= w[0] | w[1] | w[2] | w[3];
  }
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    high |= w;
  }
  for (; i < n; ++i) high |= p[i];
  return (high & 0x8080808080808080ull) == 0;
}

/// Equal cells made into one object, as TileDB-Py does for strings: a
/// column of categories (cell types, genes, labels) repeats a few values
/// millions of times, and a hit costs a hash and a compare instead of a new
/// object. Open addressing over the cells' hashes, the table kept sparse.
/// Cells of up to 16 bytes
/// (most categories) are keyed by their bytes as two words, hashed and
/// compared without a loop or a memcmp; longer ones by a hash of their
/// words, a hit comparing the bytes. Columns of mostly distinct values turn
/// it off after a sample (4,096 cells, then each 4,096 more up to 65,536).
class equal_cells {
public:
  /// `end`: the end of the bytes every cell lies in (short cells are
  /// loaded as whole words where the words lie before it).
  explicit equal_cells(const char* end) : end_(end) {}

  /// The object made before for the `len` bytes at `p`, as a new
  /// reference, or nullptr (then remember() the one made for them).
  PyObject* find(const char* p, std::size_t len) {
    if (!on_) return nullptr;
    key_ = key_of(p, len);
    if (++looked_ % first_sample == 0 && looked_ <= sample && used_ * 2 > looked_) {
      on_ = false;  // mostly distinct so far: not worth it
      return nullptr;
    }
    if (table_.empty()) table_.resize(1024);
    for (std::size_t i = key_.hash & (table_.size() - 1);; i = (i + 1) & (table_.size() - 1)) {
      const entry& e = table_[i];
      if (!e.obj) return nullptr;
      if (e.key.hash == key_.hash && e.key.len == len && e.key.w0 == key_.w0 && e.key.w1 == key_.w1 &&
          (len <= short_cell || std::memcmp(e.bytes, p, len) == 0)) {
        Py_INCREF(e.obj);
        return e.obj;
      }
    }
  }
  /// Remembers `obj` (borrowed: the array holds it) for the bytes find()
  /// last missed.
  void remember(const char* p, PyObject* obj) {
    if (!on_) return;
    // An eighth full while the table is small (1,000 categories: 8,192
    // slots, 384 KiB): a hit then mostly takes the first slot it tries,
    // and a probe that goes on is a mispredicted branch (half full, the
    // lookups took 45% longer); half full past 2^15 slots, where the
    // table outgrows the caches anyway. Half full, too, until the first
    // sample has kept the table on: a column of distinct keys then grows
    // it to 8,192 slots (384 KiB) before giving up, not 32,768 (1.5 MiB of
    // fresh pages, 3 MiB with the tables it outgrew; 100,000 distinct keys
    // made in 3.2-3.5 ms instead of 3.8-4.0).
    const bool sampled = looked_ > first_sample;
    const std::size_t load = sampled && table_.size() < (std::size_t{1} << 15) ? 8 : 2;
    if ((used_ + 1) * load > table_.size()) grow();
    put({key_, p, obj});
    ++used_;
  }

private:
  /// A cell as the table compares it: its first 16 bytes as two words
  /// (zeros past its end), its length, and a hash of all of its bytes.
  struct cell_key {
    std::uint64_t hash = 0, w0 = 0, w1 = 0;
    std::size_t len = 0;
  };
  struct entry {
    cell_key key;
    const char* bytes;
    PyObject* obj;
  };
  // Checked every `first_sample` cells up to `sample`: a column of distinct
  // keys stops paying for the table early, one of a few thousand
  // categories keeps it.
  static constexpr std::size_t first_sample = 1 << 12, sample = 1 << 16, short_cell = 16;

  /// A mask of the low `n` bytes of a word, n in [0, 8].
  static std::uint64_t low_bytes(std::size_t n) {
    const std::uint64_t part = (std::uint64_t{1} << (8 * (n & 7))) - 1;
    return n == 8 ? ~std::uint64_t{0} : part;
  }

  static std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
  }

  cell_key key_of(const char* p, std::size_t len) const {
    cell_key k;
    k.len = len;
    if (len <= short_cell && end_ - p >= 16 && std::endian::native == std::endian::little) {
      // Two unaligned loads, the bytes past the cell masked off, without
      // branches (cell lengths vary from cell to cell).
      std::memcpy(&k.w0, p, 8);
      std::memcpy(&k.w1, p + 8, 8);
      k.w0 &= low_bytes(len < 8 ? len : 8);
      k.w1 &= low_bytes(len < 8 ? 0 : len - 8);
    } else if (len != 0) {
      std::memcpy(&k.w0, p, len < 8 ? len : 8);
      if (len > 8) std::memcpy(&k.w1, p + 8, len < 16 ? len - 8 : 8);
    }
    std::uint64_t h = mix(mix(0x9e3779b97f4a7c15ull ^ len, k.w0), k.w1);
    for (std::size_t i = 16; i < len; i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, p + i, len - i < 8 ? len - i : 8);
      h = mix(h, w);
    }
    k.hash = h * 0xc4ceb9fe1a85ec53ull;
    k.hash ^= k.hash >> 29;
    return k;
  }
  void put(const entry& e) {
    std::size_t i = e.key.hash & (table_.size() - 1);
    while (table_[i].obj) i = (i + 1) & (table_.size() - 1);
    table_[i] = e;
  }
  void grow() {
    std::vector<entry> old(table_.size() * 2);
    old.swap(table_);
    for (const entry& e : old)
      if (e.obj) put(e);
  }

  const char* end_;
  std::vector<entry> table_;
  std::size_t used_ = 0, looked_ = 0;
  cell_key key_;
  bool on_ = true;
};

/// Cells `values[offsets[i], offsets[i + 1])` (the last to the end) as a
/// NumPy object array of `kind` objects. Offsets that decrease or pass the
/// values raise ValueError naming the cell.
inline nb::object unpack_strings(nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> values,
                                 nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> offsets,
                                 int kind) {
  if (kind < 0 || kind > 2) throw std::invalid_argument("tilefmt: unpack_strings: kind is 0, 1 or 2");
  const auto how = static_cast<cell_text>(kind);
  const auto* bytes = reinterpret_cast<const char*>(values.data());
  const std::size_t size = values.shape(0), n = offsets.shape(0);
  const std::uint64_t* off = offsets.data();
  npy_intp dims[1] = {static_cast<npy_intp>(n)};
  // Its slots start NULL (NumPy zero-fills object arrays it makes), each
  // replaced by a new reference below; on an error the array goes with the
  // ones made so far.
  nb::object out = nb::steal(PyArray_SimpleNew(1, dims, NPY_OBJECT));
  if (!out.is_valid()) throw nb::python_error();
  auto** slot = static_cast<PyObject**>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(out.ptr())));
  const bool ascii = how == cell_text::utf8 && all_ascii(values.data(), size);
  equal_cells same(bytes + size);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t start = off[i], stop = i + 1 < n ? off[i + 1] : size;
    if (start > stop || stop > size)
      throw std::invalid_argument("tilefmt: var-size cell " + std::to_string(i) + " spans [" + std::to_string(start) +
                                  ", " + std::to_string(stop) + ") of " + std::to_string(size) + " bytes");
    std::size_t len = static_cast<std::size_t>(stop - start);
    const char* p = bytes + start;
    if (how != cell_text::bytes)
      while (len > 0 && p[len - 1] == '\0') --len;
    PyObject* o = same.find(p, len);
    if (o) {
      slot[i] = o;
      continue;
    }
    if (ascii) {
      // A compact ASCII str is its bytes: no decoder needed.
      o = PyUnicode_New(static_cast<Py_ssize_t>(len), 127);
      if (o && len) std::memcpy(PyUnicode_DATA(o), p, len);
    } else if (how == cell_text::utf8) {
      o = PyUnicode_DecodeUTF8(p, static_cast<Py_ssize_t>(len), "surrogateescape");
    } else {
      o = PyBytes_FromStringAndSize(p, static_cast<Py_ssize_t>(len));
    }
    if (!o) throw nb::python_error();
    slot[i] = o;
    same.remember(p, o);
  }
  return out;
}

/// Var-size cells given as Python objects (`cells`: a 1-D NumPy object
/// array), packed for the writer: their bytes back to back (str as UTF-8,
/// bytes and bytearray as they are) and where each cell starts. None when a
/// cell is anything else: the caller packs those itself.
inline nb::object pack_strings(nb::handle cells) {
  if (!PyArray_Check(cells.ptr())) throw std::invalid_argument("tilefmt: pack_strings takes a NumPy array");
  auto* a = reinterpret_cast<PyArrayObject*>(cells.ptr());
  if (PyArray_TYPE(a) != NPY_OBJECT || PyArray_NDIM(a) != 1 || !PyArray_IS_C_CONTIGUOUS(a))
    throw std::invalid_argument("tilefmt: pack_strings takes a contiguous 1-D object array");
  const auto n = static_cast<std::size_t>(PyArray_SIZE(a));
  auto** item = static_cast<PyObject**>(PyArray_DATA(a));
  // A cell's bytes, borrowed (a str keeps its UTF-8 form once made, so the
  // second pass asks again at no cost), or null for another kind of cell.
  auto cell = [](PyObject* o, std::size_t& len) -> const char* {
    Py_ssize_t size = 0;
    const char* p = nullptr;
    if (PyUnicode_Check(o)) {
      p = PyUnicode_AsUTF8AndSize(o, &size);
      if (!p) throw nb::python_error();
    } else if (PyBytes_Check(o)) {
      p = PyBytes_AS_STRING(o);
      size = PyBytes_GET_SIZE(o);
    } else if (PyByteArray_Check(o)) {
      p = PyByteArray_AS_STRING(o);
      size = PyByteArray_GET_SIZE(o);
    }
    len = static_cast<std::size_t>(size);
    return p;
  };
  // Two passes over the cells, sizes then bytes, rather than a list of
  // (pointer, size) pairs: 16 bytes a cell of fresh memory are dearer to
  // fault in than the second look at each object (docs/performance.md).
  npy_intp offsets_dims[1] = {static_cast<npy_intp>(n)};
  nb::object offsets = nb::steal(PyArray_SimpleNew(1, offsets_dims, NPY_UINT64));
  if (!offsets.is_valid()) throw nb::python_error();
  auto* off = static_cast<std::uint64_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(offsets.ptr())));
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t len = 0;
    if (!cell(item[i], len)) return nb::none();
    off[i] = total;
    total += len;
  }
  npy_intp bytes_dims[1] = {static_cast<npy_intp>(total)};
  nb::object data = nb::steal(PyArray_SimpleNew(1, bytes_dims, NPY_UINT8));
  if (!data.is_valid()) throw nb::python_error();
  auto* to = static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(data.ptr())));
  for (std::size_t i = 0; i < n; ++i) {  // the GIL held throughout: the cells are as the first pass saw them
    std::size_t len = 0;
    const char* p = cell(item[i], len);
    if (len) std::memcpy(to + off[i], p, len);
  }
  return nb::make_tuple(data, offsets);
}

} // namespace tilefmt_python
