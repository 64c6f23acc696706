// tilefmt-compiled: the explicit instantiations of
// include/tilefmt/array/model/compiled_instances.hpp.
#define TILEFMT_COMPILED_BUILD 1
#define TILEFMT_COMPILED_INSTANTIATE 1

#include "tilefmt/array/model/compiled_instances.hpp"
