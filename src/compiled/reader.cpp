// tilefmt-compiled: the reader's entry points (array::open, fragment reads,
// query::read), compiled once. See include/tilefmt/codec/compiled.hpp.
#define TILEFMT_COMPILED_BUILD 1

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
