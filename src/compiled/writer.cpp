// tilefmt-compiled: the writer's entry points (array::create, dense
// fragments), compiled once. See include/tilefmt/codec/compiled.hpp.
#define TILEFMT_COMPILED_BUILD 1

#include "tilefmt/array/write.hpp"
