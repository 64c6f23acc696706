// tilefmt — metadata_writer's definitions (write/metadata_writer.hpp),
// left out of programs built with TILEFMT_COMPILED.
#pragma once

#include <stdexcept>
#include <string>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/write/metadata_writer.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/format/feature_versions.hpp"

namespace tilefmt::array {

TILEFMT_FUNC void metadata_writer::open(const write_options& opt) {
  storage_ = detail::or_local(opt.storage);
  listing l = list_array(*storage_, root_);
  if (l.latest_schema.empty()) throw io_error(root_, "has no schema file");
  version_ = detail::read_schema_for_writing(*storage_, l.latest_schema, key_).version.value;
  if (version_ < format::oldest_written_version || version_ > format::written_version)
    throw std::invalid_argument("tilefmt: metadata_writer: writes format versions " +
                                std::to_string(format::oldest_written_version) + " to " +
                                std::to_string(format::written_version) + "; the array's schema is version " +
                                std::to_string(version_));
}

TILEFMT_FUNC metadata_writer& metadata_writer::put(format::MetadataEntry e) {
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

TILEFMT_FUNC std::string metadata_writer::commit(const write_options& opt) {
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

TILEFMT_FUNC void metadata_writer::check_key(const std::string& key) {
  if (key.empty()) throw std::invalid_argument("tilefmt: metadata_writer: a key is empty");
}

} // namespace tilefmt::array
