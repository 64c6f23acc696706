// tilefmt — how a write names and protects what it writes: write_options
// (timestamp, label, storage, format version, enumerations, dimension labels,
// encryption key),
// shared by every writer and by maintenance. Light on purpose: every
// writer's declaration names it (write/new_files.hpp does what it says).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tilefmt/array/write/dimension_labels.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/version.hpp"

namespace tilefmt::storage {
class backend;
} // namespace tilefmt::storage

namespace tilefmt::array {

/// How new files are named. Both default to what TileDB does: the current
/// time, and a fresh random label. Fixed values make the output reproducible.
struct write_options {
  /// Milliseconds since the epoch (both timestamps of the name).
  std::optional<std::uint64_t> timestamp{};
  /// 32 lowercase hexadecimal digits.
  std::optional<std::string> label{};
  /// Where the array's files are (array::create); null: the local file system.
  std::shared_ptr<storage::backend> storage{};
  /// array::create only: the format version of the new array, from
  /// format::oldest_written_version (5, libtiledb 2.0) to
  /// format::written_version (22). Its fragments are written at that version,
  /// whoever writes them, as TileDB does.
  std::uint32_t format_version = format::written_version;
  /// array::create only: the enumerations the schema's attributes take
  /// labels from (format::make_enumeration; format 20 and later), written to
  /// `__schema/__enumerations/` before the schema, which lists them. Each
  /// keeps its path_name, or gets a fresh `__<label>_0` as TileDB names them.
  std::vector<format::Enumeration> enumerations{};
  /// The AES-256-GCM key (32 bytes) of an encrypted array, or empty. With
  /// array::create it makes the array encrypted, as TileDB's
  /// sm.encryption_type/sm.encryption_key do: every file that is a generic
  /// tile (schema, enumerations, fragment metadata sections, array
  /// metadata, delete commits) and every data tile then ends its filter
  /// pipeline with AES-256-GCM. Every later write to such an array needs
  /// the same key (writers read its schema with it); a key for an array
  /// that is not encrypted is refused, as TileDB refuses it.
  std::vector<std::uint8_t> encryption_key{};
  /// Uploads in flight at once while a fragment is committed: its data
  /// files and their pieces, then its metadata, then (alone, last) the
  /// commit marker. 0: 16 where the storage is an object store, whose
  /// latency sets the time, else one at a time.
  unsigned io_concurrency = 0;
  /// array::create only: dimension labels to make with the array (format 18
  /// and later), each a reference in the schema and an empty label array in
  /// `__labels/l<k>` (write/dimension_labels.hpp). Last, so that the fields
  /// above keep their places in aggregate initialisation.
  std::vector<dimension_label_options> dimension_labels{};
};

} // namespace tilefmt::array
