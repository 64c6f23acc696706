// tilefmt — creating an array: the folders TileDB makes and the schema file,
// after the checks TileDB makes of a schema before it creates an array
// (write/schema_rules.hpp). Part of the writer (array/write.hpp).
#pragma once

#include <filesystem>
#include <string>

#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array {

namespace fs = std::filesystem;

/// Creates a new array at `root` with `schema`, at format version
/// `opt.format_version` (format::written_version unless given; from 5 to 22),
/// whatever `schema.version` says: the folders and schema file the
/// libtiledb of that version makes (below). Returns the schema file's name:
/// `__t_t_label` in `root/__schema/` from version 10, `__array_schema.tdb` in
/// `root` before. Throws std::invalid_argument for a schema TileDB would
/// refuse (see detail::check_schema) or one the version cannot hold (a
/// filter, datatype or feature newer than it: format::unsupported_at), and
/// io_error when `root` already holds an array or a folder cannot be made.
///
/// Folders by version: `__meta/` always; `__lock.tdb` (empty) before 11;
/// `__schema/` from 10; `__commits/`, `__fragments/` and `__fragment_meta/`
/// from 12; `__labels/` from 18; `__schema/__enumerations/` from 20.
std::string create(const fs::path& root, format::ArraySchema schema, const write_options& opt = {});

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/write/create-inl.hpp"
#endif
