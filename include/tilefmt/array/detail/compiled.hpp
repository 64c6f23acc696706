// tilefmt — the switches of the optional compiled component (meson option
// `compiled`, library tilefmt-compiled, `pkg-config tilefmt-compiled`).
//
// Header-only use is the default and needs none of this. The array layer's
// entry points (opening an array, reading a column, running a query,
// creating an array, writing a dense fragment) pull the whole reader or
// writer into every translation unit that calls them, and compiling that
// code is most of a 15-25 s compile at -O2 (bench/RESULTS.md, "Compile
// time"). A program that defines TILEFMT_COMPILED (the `tilefmt_compiled_dep`
// dependency and the pkg-config file add it) sees those entry points as
// declarations only and links their one compiled copy from the library.
//
// The entry points stay inline functions in the headers; each is written
//
//   #ifdef TILEFMT_DECLARE_ONLY
//     std::string commit(const write_options& opt = {});   // the same declaration
//   #else
//     TILEFMT_EMIT
//     std::string commit(const write_options& opt = {}) { ... }
//   #endif
//
// src/compiled/ includes the headers with TILEFMT_COMPILED_BUILD, where
// TILEFMT_EMIT is [[gnu::used]]: g++ and clang++ then emit an out-of-line
// copy of each such inline function, under the very symbol the declaration
// names (an inline function's mangled name does not say it is inline). So
// translation units built with and without TILEFMT_COMPILED may share a
// program: each symbol has one definition, or identical weak ones.
//
// Constructors are not among them: clang emits only the base-object
// constructor of a [[gnu::used]] one, and programs call the complete-object
// one; the functions a constructor calls are listed instead.
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
