// tilefmt._core: var-size character cells as Python objects, made in C++
// as TileDB-Py makes them. Built one by one in Python (a slice, an rstrip
// and a decode a cell), a column of 2x10^6 strings took 0.7 s, most of a
// read; here it is one pass over the bytes.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tilefmt_python {

namespace nb = nanobind;

/// How the cells become objects.
enum class cell_text : int {
  utf8 = 0,   // str, decoded as UTF-8 (undecodable bytes kept by surrogateescape), trailing NULs dropped
  ascii = 1,  // bytes, trailing NULs dropped (TileDB-Py's NumPy bytes drop them)
  bytes = 2,  // bytes as stored
};

/// Cells `values[offsets[i], offsets[i + 1])` (the last to the end) as a
/// list of `kind` objects. Offsets that decrease or pass the values raise
/// ValueError naming the cell.
inline nb::list unpack_strings(nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> values,
                               nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> offsets,
                               int kind) {
  if (kind < 0 || kind > 2) throw std::invalid_argument("tilefmt: unpack_strings: kind is 0, 1 or 2");
  const auto* bytes = reinterpret_cast<const char*>(values.data());
  const std::size_t size = values.shape(0), n = offsets.shape(0);
  const std::uint64_t* off = offsets.data();
  nb::list out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t start = off[i], stop = i + 1 < n ? off[i + 1] : size;
    if (start > stop || stop > size)
      throw std::invalid_argument("tilefmt: var-size cell " + std::to_string(i) + " spans [" + std::to_string(start) +
                                  ", " + std::to_string(stop) + ") of " + std::to_string(size) + " bytes");
    std::size_t len = static_cast<std::size_t>(stop - start);
    const char* p = bytes + start;
    if (static_cast<cell_text>(kind) != cell_text::bytes)
      while (len > 0 && p[len - 1] == '\0') --len;
    PyObject* o = static_cast<cell_text>(kind) == cell_text::utf8
                      ? PyUnicode_DecodeUTF8(p, static_cast<Py_ssize_t>(len), "surrogateescape")
                      : PyBytes_FromStringAndSize(p, static_cast<Py_ssize_t>(len));
    if (!o) throw nb::python_error();
    out.append(nb::steal(o));
  }
  return out;
}

} // namespace tilefmt_python
