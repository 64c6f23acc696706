// tilefmt — the switches of the optional compiled component (meson option
// `compiled`, library tilefmt-compiled, `pkg-config tilefmt-compiled`).
//
// Header-only use is the default and needs none of this. The array layer's
// entry points (opening an array, reading a column, running a query,
// creating an array, writing a dense fragment) pull the whole reader or
// writer into every translation unit that calls them, and compiling that
// code is most of a 15-25 s compile at -O2 (docs/performance.md, "Compile
// time"). A program that defines TILEFMT_COMPILED (the `tilefmt_compiled_dep`
// dependency and the pkg-config file add it) sees those entry points as
// declarations only and links their one compiled copy from the library.
//
// One way a header keeps its code out of such a program, as {fmt}'s
// format.h and format-inl.h do: the public classes are declared in their
// header and defined in a `-inl.hpp` beside it, which the header includes
// at its end unless TILEFMT_DECLARE_ONLY. A program built with
// TILEFMT_COMPILED then parses only the declarations (and the light
// headers they name: format/, column.hpp, query_result.hpp, the writers'
// options and cell APIs), not the filter pipelines, the tile source, the
// query readers or the fragment builder. Each definition there is written
// `TILEFMT_FUNC`, that is `inline` (and emitted by the compiled component).
//
// - The reader (read/fragment.hpp, array.hpp, query.hpp) declares its
//   classes whole; the member templates that take a callable
//   (fragment::read_values_in_chunks, for_each_tile) are defined only in
//   the -inl.hpp: a compiled-mode program that calls them includes it.
// - The writers (write/dense_writer.hpp, sparse_writer.hpp,
//   global_order_writer.hpp, dense_global_order_writer.hpp) are handles:
//   one pointer to their implementation, defined in the -inl.hpp and
//   known to the handle by its interface (detail::cell_sink, cells_api.hpp),
//   so that the class has the same layout in both kinds of program. Their set() templates (cells_api.hpp,
//   coordinates_api.hpp) turn typed cells into bytes and call declared
//   member functions. metadata_writer and create() are split the same way.
// - Free functions (array::create, list_array, schema_from_bytes) are
//   declared in the header and defined in its -inl.hpp the same way.
//
// src/compiled/ includes the headers with TILEFMT_COMPILED_BUILD, where
// TILEFMT_EMIT is [[gnu::used]]: g++ and clang++ then emit an out-of-line
// copy of each such inline function, under the very symbol the declaration
// names (an inline function's mangled name does not say it is inline). So
// translation units built with and without TILEFMT_COMPILED may share a
// program: each symbol has one definition, or identical weak ones.
//
// Constructors a program calls are not emitted this way: clang emits only
// the base-object constructor of a [[gnu::used]] one, and programs call the
// complete-object one. The classes a program constructs itself (query, the
// writers) keep their constructors in the header, where a writer's calls a
// free function (detail::make_dense_writer, ...) that makes its
// implementation; array_reader and fragment are made by array::open,
// inside the component.
//
// - filter::runtime_pipeline (filter/runtime_pipeline.hpp) declares the
//   members that run a pipeline's stages and defines them in
//   runtime_pipeline-inl.hpp: their bodies instantiate every filter's
//   kernels, which an array header parsed alone paid for again (half of
//   read/sparse/reader.hpp's 12 s at -O0).
//
// The switches live here, in the lowest layer, because the filter layer
// reads them as well as the array layer.
//
// The compile-time filter::pipeline<...> and every other template stay in
// the headers: set<P>() encodes with P in the including translation unit.
#pragma once

#if defined(TILEFMT_COMPILED) && !defined(TILEFMT_COMPILED_BUILD)
#define TILEFMT_DECLARE_ONLY 1
#endif

#if defined(TILEFMT_COMPILED_BUILD)
#define TILEFMT_EMIT [[gnu::used]]
#else
#define TILEFMT_EMIT
#endif

// A definition in a -inl.hpp header (see above).
#define TILEFMT_FUNC TILEFMT_EMIT inline
