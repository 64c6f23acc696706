// tilefmt — writing array metadata (format_spec/metadata.md): puts and
// deletions of keys, committed as one `__meta/__t_t_label` file, the way
// TileDB writes the metadata of an array opened for writing when it closes.
//
//   array::metadata_writer m("path/to/array");
//   m.put("scale", std::vector<double>{0.5}).put_string("units", "m/s").remove("old");
//   m.commit();                       // one file; readers apply files oldest first
//
// Part of the writer (array/write.hpp).
#pragma once

#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/format/feature_versions.hpp"

namespace tilefmt::array {

class metadata_writer {
public:
  /// Writes metadata of the array at `root` (its latest schema decides the
  /// format version of the file). Throws io_error when `root` is not an array.
  explicit metadata_writer(const fs::path& root, std::shared_ptr<storage::backend> storage = {})
      : metadata_writer(root, write_options{.storage = std::move(storage)}) {}
  /// The same with the storage and, for an encrypted array, the encryption
  /// key taken from `opt`: the file is then encrypted, as TileDB encrypts it.
  metadata_writer(const fs::path& root, const write_options& opt)
      : root_(root), storage_(detail::or_local(opt.storage)), key_(opt.encryption_key) {
    listing l = list_array(*storage_, root_);
    if (l.latest_schema.empty()) throw io_error(root_, "has no schema file");
    version_ = detail::read_schema_for_writing(*storage_, l.latest_schema, key_).version.value;
    if (version_ < format::oldest_written_version || version_ > format::written_version)
      throw std::invalid_argument("tilefmt: metadata_writer: writes format versions " +
                                  std::to_string(format::oldest_written_version) + " to " +
                                  std::to_string(format::written_version) + "; the array's schema is version " +
                                  std::to_string(version_));
  }

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
  metadata_writer& put(format::MetadataEntry e) {
    check_key(e.key.value);
    if (!e.deleted()) {
      if (e.type() == format::Datatype::ANY)
        throw std::invalid_argument("tilefmt: metadata_writer: key \"" + e.key.value + "\": TileDB refuses ANY values");
      if (format::first_version(e.type()) > version_)
        throw std::invalid_argument("tilefmt: metadata_writer: key \"" + e.key.value + "\": " +
                                    std::string(format::codec_enum_name(e.type())) + " values need format version " +
                                    std::to_string(format::first_version(e.type())) + ", the array is version " +
                                    std::to_string(version_));
    }
    entries_[e.key.value] = std::move(e);
    return *this;
  }
  /// Deletes `key` (for readers of this file and later ones).
  metadata_writer& remove(std::string key) { return put(format::MetadataEntry::deletion_of(std::move(key))); }

  std::size_t size() const noexcept { return entries_.size(); }

  /// Writes the entries, sorted by key as TileDB sorts them, as one
  /// `__meta/__t_t_label` file and returns its name; with no entry, writes
  /// nothing (as TileDB) and returns an empty string. Commits once.
  std::string commit(const write_options& opt = {}) {
    if (committed_) throw std::logic_error("tilefmt: metadata_writer: already committed");
    if (!opt.encryption_key.empty() && opt.encryption_key != key_)
      throw std::invalid_argument("tilefmt: metadata_writer: commit: the encryption key is not the one the writer was "
                                  "opened with");
    committed_ = true;
    if (entries_.empty()) return {};
    format::ArrayMetadata file;
    for (auto& [key, e] : entries_) file.entries.value.push_back(std::move(e));
    auto [t, label] = detail::name_parts(opt);
    const std::string name = format::make_timestamped_name(t, t, label);
    const auto bytes = filter::write_generic_tile(codec::encode(file), version_, key_);
    storage_->make_folder(root_ / "__meta");
    storage_->write(root_ / "__meta" / name, bytes);
    return name;
  }

private:
  static void check_key(const std::string& key) {
    if (key.empty()) throw std::invalid_argument("tilefmt: metadata_writer: a key is empty");
  }

  fs::path root_;
  std::shared_ptr<storage::backend> storage_;
  std::vector<std::uint8_t> key_;  // the array's encryption key; empty: not encrypted
  std::uint32_t version_ = format::written_version;
  std::map<std::string, format::MetadataEntry> entries_;  // by key, in byte order: as TileDB writes them
  bool committed_ = false;
};

} // namespace tilefmt::array
