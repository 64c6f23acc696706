// Arrow streams for Python: a query's batches as an ArrowArrayStream in a
// PyCapsule named "arrow_array_stream", what Arrow's PyCapsule interface
// (`__arrow_c_stream__`) hands over; pyarrow, Polars and DuckDB import it.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>

#include "tilefmt/array/read/query.hpp"
#include "tilefmt/arrow/export.hpp"

namespace tilefmt_python {

namespace nb = nanobind;

/// The capsule of query `q`'s stream, holding `keep` (its array) until the
/// stream is released. A consumer that takes the stream moves it out of
/// the capsule (its release left null); one that does not leaves it to the
/// capsule's destructor.
inline nb::object arrow_stream_capsule(const tilefmt::array::query& q, std::uint64_t batch_bytes,
                                       std::shared_ptr<const void> keep) {
  auto stream = std::make_unique<ArrowArrayStream>();
  tilefmt::arrow::export_stream(q, batch_bytes, stream.get(), std::move(keep));
  PyObject* cap = PyCapsule_New(stream.get(), "arrow_array_stream", [](PyObject* c) {
    auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(c, "arrow_array_stream"));
    if (s == nullptr) return PyErr_Clear();
    if (s->release) s->release(s);
    delete s;
  });
  if (cap == nullptr) {
    stream->release(stream.get());
    throw nb::python_error();
  }
  stream.release();
  return nb::steal(cap);
}

} // namespace tilefmt_python
