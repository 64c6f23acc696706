// tilefmt — writing arrays: creating one, and writing dense and sparse
// fragments.
//
//   using IntP = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
//   auto schema = format::make_array_schema({.type = format::ArrayType::DENSE, .dimensions = //
//   {format::make_dimension<std::int32_t>("rows", 1, 8, 4)}, .attributes = //       {format::make_attribute({.name =
//   "a", .type = format::Datatype::INT32, .filters = IntP::descriptor(22)})}}); array::create("path/to/array", schema);
//
//   array::dense_writer frag("path/to/array", {{1, 8}});   // whole space tiles, storage order
//   // or {{2, 5}}, array::cell_layout::row_major: any subarray, cells row-major
//   frag.set<IntP>("a", values);     // tiles encoded by IntP itself
//   frag.set("b", other_values);     // or by the schema's pipeline, built at run time
//   std::string name = frag.commit();
//
//   array::sparse_writer s("path/to/sparse");              // cells in any order
//   s.set_coords<std::int32_t>("x", xs).set_coords<std::int64_t>("y", ys).set("a", values);
//   s.commit();
//
//   array::global_order_writer g("path/to/sparse");          // cells in global order, streamed:
//   g.set_coords("x", xs1).set_coords("y", ys1).set("a", a1); g.submit();   // as many submissions
//   g.set_coords("x", xs2).set_coords("y", ys2).set("a", a2); g.submit();   // as needed, each
//   g.finalize();                                            // continuing the order
//
// Tiles are encoded on every core (`frag.threads(n)` before the cells for
// n threads; the files are the same for any n). A sparse fragment sorts its
// cells once every dimension has coordinates: attributes set after that are
// encoded at once and not kept, so setting the coordinates first saves a
// copy of every attribute.
//
// Var-size attributes take values and offsets (or one std::string per
// cell), nullable ones a validity byte per cell:
//
//   frag.set_var("name", std::vector<std::string>{"x", "yy", ...});
//   frag.set("count", counts, validity);       // 0 = null
//
// The files are those TileDB 2.30 writes (format 22) for the same schema and
// cells, written as TileDB-Py writes them (a row-major query for dense
// fragments, an unordered one for sparse fragments): a new array gets the
// folders `__schema/` (+ `__enumerations/`), `__commits/`, `__fragments/`,
// `__fragment_meta/`, `__meta/`, `__labels/` and one schema file; a fragment
// gets `a<i>.tdb` per attribute (+ `a<i>_var.tdb` for var-size ones, the
// former then holding the offsets, + `a<i>_validity.tdb` for nullable ones),
// `d<j>.tdb` per dimension of a sparse fragment, `__fragment_metadata.tdb`
// and the commit marker `__commits/<name>.wrt`. Timestamps and the random
// labels in file names are the only differences, and both can be passed in
// (write_options).
//
// Older format versions: `array::create(root, schema, {.format_version = N})`
// for N from 5 (libtiledb 2.0) to 22 makes the array that version's
// libtiledb made (`__array_schema.tdb` and `__lock.tdb` before 10, fragments
// in the array folder with `<name>.ok` markers before 12, data files named
// after attributes before 9, no tile metadata before 11, ...), refusing a
// schema the version cannot hold (format::unsupported_at: a filter,
// datatype or order newer than it, nullable attributes before 7, ...).
// Fragments take the array's version, also when appended to an array an old
// libtiledb created. Each version's arrays are read back by that version's
// libtiledb (tests/interop/twins_check.sh).
//
// A write is crash-safe as TileDB's is: data files first, fragment metadata
// next, the commit marker last, each written under a temporary name and
// renamed. A fragment without its marker is invisible to readers. On the
// local file system each file is also fsync'ed before its rename and its
// folder after it (storage/local.hpp), so a marker cannot outlive a power
// failure that the fragment's files did not. A writer killed during a
// commit leaves at most a fragment folder without a marker and `*.tmp`
// files in it or in `__commits/`: TileDB (2.25, 2.30) and tilefmt ignore
// both, and nothing removes them (TileDB leaves the same behind). A
// global_order_writer (or dense_global_order_writer) makes its fragment's
// folder and the temporary data files at its first submission, so a process killed before finalize()
// leaves the same (dropped unfinished, the writer removes them). Several
// processes may commit to one array at once: fragment names differ by their
// random labels, in the same millisecond too (tests/array/programs/crash_writer.cpp).
//
// Scope: dense fragments (any subarray with cell_layout::row_major, whole
// space tiles in storage order otherwise, or in global order from several
// submissions); sparse fragments with fixed-size
// and string (var-size STRING_ASCII) dimensions in row-major, column-major
// or Hilbert cell order; array metadata; encrypted arrays
// at every format version create writes (AES-256-GCM:
// write_options::encryption_key given to create and to every writer after
// it; the fragment and metadata writers take it through their constructors
// taking write_options). Anything else is rejected with
// std::invalid_argument before a file is written.
//
// This header includes the writers of write/: create.hpp (create),
// dense_writer.hpp (cell_layout, dense_writer), sparse_writer.hpp
// (sparse_writer), global_order_writer.hpp (global_order_writer: one
// sparse fragment from submissions in global order, its tiles written as
// they fill), dense_global_order_writer.hpp (the same for a dense
// fragment) and metadata_writer.hpp (array metadata); each may be included
// alone. Fragments are written through detail::fragment_builder
// (write/fragment_builder.hpp). Deletes, schema evolution, consolidation
// and vacuuming are in array/maintain.hpp.
#pragma once

#include "tilefmt/array/write/create.hpp"
#include "tilefmt/array/write/dense_global_order_writer.hpp"
#include "tilefmt/array/write/dense_writer.hpp"
#include "tilefmt/array/write/global_order_writer.hpp"
#include "tilefmt/array/write/metadata_writer.hpp"
#include "tilefmt/array/write/sparse_writer.hpp"
