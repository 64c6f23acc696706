// tilefmt — keeping an array in shape: consolidation of fragments, array
// metadata, commits and fragment metadata (maintain/consolidate.hpp),
// vacuuming what consolidation replaced (maintain/vacuum.hpp), schema
// evolution (maintain/schema_evolution.hpp), deleting cells by a
// condition (maintain/delete.hpp) and deleting whole fragments or the whole
// array (maintain/delete_fragments.hpp). These read through the query layer and
// write through the writers, so they sit above both.
//
//   array::consolidate_fragments("path/to/array");
//   array::vacuum_fragments("path/to/array");
//   array::delete_cells("path/to/sparse", array::field("t") < 100);
//
// docs/maintenance.md is the manual. Each header may be included alone.
#pragma once

#include "tilefmt/array/maintain/consolidate.hpp"
#include "tilefmt/array/maintain/delete.hpp"
#include "tilefmt/array/maintain/delete_fragments.hpp"
#include "tilefmt/array/maintain/schema_evolution.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
