// tilefmt — query results through the Arrow C Data and C Stream interfaces:
// any Arrow implementation (pyarrow, Polars, DuckDB, arrow-rs, nanoarrow)
// takes them without copying and without tilefmt linking Arrow.
//
//   auto arr = tilefmt::array::open("path/to/array");
//   auto q = arr.query().attributes({"a", "label"});
//   ArrowSchema schema;
//   ArrowArray batch;
//   tilefmt::arrow::export_result(q, q.read(), &schema, &batch);   // one record batch
//   ...                                                            // the consumer releases both
//
//   ArrowArrayStream stream;
//   tilefmt::arrow::export_stream(q, 64 << 20, &stream);          // batches of about 64 MiB
//
// A result is a record batch: a struct array ("+s") of one child per
// field, in the result's order (a sparse array's dimensions, then the
// attributes). Field types: arrow/types.hpp; buffers and ownership:
// arrow/columns.hpp, arrow/owners.hpp. The result's columns move into the
// exported arrays and are freed by their release callbacks.
//
// A stream reads the query's batches (array::query::batches, TileDB's
// incomplete queries) one at a time as the consumer asks: a batch's columns
// are the memory held, whatever the result's size. The stream keeps a copy
// of the query, which points to its array: the array must outlive the
// stream (export_stream's `keep` can own it). A failed read answers get_next with EIO and get_last_error with
// the error's text.
#pragma once

#include <cerrno>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/arrow/c_data.hpp"
#include "tilefmt/arrow/columns.hpp"
#include "tilefmt/arrow/owners.hpp"
#include "tilefmt/arrow/types.hpp"

namespace tilefmt::arrow {

/// The schema of a record batch of `fields`.
inline void export_schema(const std::vector<field_spec>& fields, ArrowSchema* out) {
  std::vector<ArrowSchema*> children;
  try {
    for (const auto& f : fields) {
      detail::owned<ArrowSchema> c;
      detail::field_schema(f, c.get());
      children.push_back(c.hand_on());
    }
    detail::make_schema(out, "+s", "", {}, 0, std::move(children));
  } catch (...) {
    for (ArrowSchema* c : children) detail::release_schema(c), delete c;
    throw;
  }
}

/// `result` (moved from) as a record batch of `fields` (its fields, in its
/// order: field_specs of result.names()).
inline void export_batch(const std::vector<field_spec>& fields, array::query_result&& result, ArrowArray* out) {
  const std::uint64_t cells = result.cell_num();
  auto columns = std::move(result).release_fields();
  if (columns.size() != fields.size())
    throw std::logic_error("tilefmt: arrow: the result has " + std::to_string(columns.size()) + " fields, not " +
                           std::to_string(fields.size()));
  std::vector<ArrowArray*> children;
  try {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (columns[i].name != fields[i].name)
        throw std::logic_error("tilefmt: arrow: result field " + columns[i].name + " is not " + fields[i].name);
      detail::owned<ArrowArray> c;
      detail::field_array(fields[i], std::move(columns[i]), cells, c.get());
      children.push_back(c.hand_on());
    }
    detail::make_array(out, static_cast<std::int64_t>(cells), 0, nullptr, {nullptr}, std::move(children));
  } catch (...) {
    for (ArrowArray* c : children) detail::release_array(c), delete c;
    throw;
  }
}

/// The result of query `q` (moved from) as a record batch and its schema.
inline void export_result(const array::query& q, array::query_result&& result, ArrowSchema* schema,
                          ArrowArray* batch) {
  const auto fields = field_specs(q.reader(), result.names());
  export_schema(fields, schema);
  try {
    export_batch(fields, std::move(result), batch);
  } catch (...) {
    schema->release(schema);
    throw;
  }
}

namespace detail {

struct stream_state {
  std::vector<field_spec> fields;
  array::query_batches batches;
  std::shared_ptr<const void> keep;
  std::string error;
};

inline stream_state& state_of(ArrowArrayStream* s) { return *static_cast<stream_state*>(s->private_data); }

inline int stream_schema(ArrowArrayStream* s, ArrowSchema* out) {
  try {
    export_schema(state_of(s).fields, out);
    return 0;
  } catch (const std::exception& e) {
    state_of(s).error = e.what();
    return EIO;
  }
}

inline int stream_next(ArrowArrayStream* s, ArrowArray* out) {
  auto& st = state_of(s);
  try {
    auto part = st.batches.next();
    if (!part) {
      out->release = nullptr;  // the end
      return 0;
    }
    export_batch(st.fields, std::move(*part), out);
    return 0;
  } catch (const std::bad_alloc&) {
    st.error = "tilefmt: arrow: out of memory reading a batch";
    return ENOMEM;
  } catch (const std::exception& e) {
    st.error = e.what();
    return EIO;
  }
}

inline const char* stream_error(ArrowArrayStream* s) {
  const auto& e = state_of(s).error;
  return e.empty() ? nullptr : e.c_str();
}

inline void stream_release(ArrowArrayStream* s) {
  if (s == nullptr || s->release == nullptr) return;
  delete static_cast<stream_state*>(s->private_data);
  s->release = nullptr;
}

} // namespace detail

/// Query `q` read in batches of about `batch_bytes`, as a stream: the
/// consumer pulls the batches and releases the stream. `q`'s array must
/// outlive the stream: `keep`, held until the release, may hold it.
inline void export_stream(const array::query& q, std::uint64_t batch_bytes, ArrowArrayStream* out,
                          std::shared_ptr<const void> keep = {}) {
  auto st = std::unique_ptr<detail::stream_state>(
      new detail::stream_state{field_specs(q.reader(), q.fields()), q.batches(batch_bytes), std::move(keep), {}});
  out->get_schema = &detail::stream_schema;
  out->get_next = &detail::stream_next;
  out->get_last_error = &detail::stream_error;
  out->release = &detail::stream_release;
  out->private_data = st.release();
}

} // namespace tilefmt::arrow
