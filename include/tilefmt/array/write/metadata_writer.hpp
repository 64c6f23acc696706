// tilefmt — writing array metadata (format_spec/metadata.md): puts and
// deletions of keys, committed as one `__meta/__t_t_label` file, the way
// TileDB writes the metadata of an array opened for writing when it closes.
//
//   array::metadata_writer m("path/to/array");
//   m.put("scale", std::vector<double>{0.5}).put_string("units", "m/s").remove("old");
//   m.commit();                       // one file; readers apply files oldest first
//
// Part of the writer (array/write.hpp); its definitions are in
// metadata_writer-inl.hpp, left out of programs built in compiled mode.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/format/array_metadata.hpp"

namespace tilefmt::array {

namespace fs = std::filesystem;

class metadata_writer {
public:
  /// Writes metadata of the array at `root` (its latest schema decides the
  /// format version of the file). Throws io_error when `root` is not an array.
  explicit metadata_writer(const fs::path& root, std::shared_ptr<storage::backend> storage = {})
      : metadata_writer(root, write_options{.storage = std::move(storage)}) {}
  /// The same with the storage and, for an encrypted array, the encryption
  /// key taken from `opt`: the file is then encrypted, as TileDB encrypts it.
  metadata_writer(const fs::path& root, const write_options& opt) : root_(root), key_(opt.encryption_key) { open(opt); }

  /// Sets `key` to `values`, stored as `type` (of sizeof(T) bytes; T's own
  /// datatype by default). A later put or remove of the key replaces it.
  template <class T>
  metadata_writer& put(std::string key, std::span<const T> values, format::Datatype type = format::datatype_of<T>()) {
    return put(format::MetadataEntry::of(std::move(key), values, type));
  }
  template <class T>
  metadata_writer& put(std::string key, const std::vector<T>& values, format::Datatype type = format::datatype_of<T>()) {
    return put(std::move(key), std::span<const T>(values), type);
  }
  /// A string value (STRING_UTF8 by default, as TileDB-Py stores str).
  metadata_writer& put_string(std::string key, std::string_view s, format::Datatype type = format::Datatype::STRING_UTF8) {
    return put(format::MetadataEntry::of_string(std::move(key), s, type));
  }
  /// Any entry, as format::MetadataEntry builds it.
  metadata_writer& put(format::MetadataEntry e);
  /// Deletes `key` (for readers of this file and later ones).
  metadata_writer& remove(std::string key) { return put(format::MetadataEntry::deletion_of(std::move(key))); }

  std::size_t size() const noexcept { return entries_.size(); }

  /// Writes the entries, sorted by key as TileDB sorts them, as one
  /// `__meta/__t_t_label` file and returns its name; with no entry, writes
  /// nothing (as TileDB) and returns an empty string. Commits once.
  std::string commit(const write_options& opt = {});

private:
  void open(const write_options& opt);
  static void check_key(const std::string& key);

  fs::path root_;
  std::shared_ptr<storage::backend> storage_;
  std::vector<std::uint8_t> key_;  // the array's encryption key; empty: not encrypted
  std::uint32_t version_ = format::written_version;
  std::map<std::string, format::MetadataEntry> entries_;  // by key, in byte order: as TileDB writes them
  bool committed_ = false;
};

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/write/metadata_writer-inl.hpp"
#endif
