// tilefmt — reading arrays: opening one (read/array.hpp: its schema, its
// fragments, its metadata) and querying it with TileDB's semantics
// (read/query.hpp: subarrays, layouts, conditions, aggregates, batches).
//
//   auto arr = tilefmt::array::open("path/to/array");
//   auto r = arr.query().subarray({{1, 100}}).attributes({"a"}).read();
//   auto a = r.get<std::int32_t>("a");
//
// docs/reading.md is the manual. Each header of read/ may be included alone.
#pragma once

#include "tilefmt/array/read/aggregate.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/read/query_result.hpp"
