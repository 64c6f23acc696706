// tilefmt — the definitions of array.hpp's members: opening an array reads
// its schemas, fragment metadata and array metadata through the filter
// pipeline, which programs built against the compiled component
// (support/compiled.hpp) do not parse. Header-only programs get this file
// from array.hpp.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/model/metadata_files.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/array/read/fragment-inl.hpp"
#include "tilefmt/filter/generic_tile.hpp"

namespace tilefmt::array {

TILEFMT_FUNC array_reader::array_reader(const fs::path& root, open_options opt)
    : root_(root), opt_(std::move(opt)), storage_(detail::or_local(opt_.storage)) {
  listing_ = list_array(*storage_, root_, opt_.timestamp_start, opt_.timestamp_end);
  schema_ = load_schema(listing_.latest_schema);
  // Sparse arrays also read fragments that overlap the range in part.
  if (schema_->is_sparse()) listing_ = list_array(*storage_, root_, opt_.timestamp_start, opt_.timestamp_end, true);
  for (const auto& f : listing_.fragments) {
    if (!opt_.skip_damaged_fragments) {
      fragments_.emplace_back(storage_, f, schema_for(f), opt_);
      continue;
    }
    try {
      fragments_.emplace_back(storage_, f, schema_for(f), opt_);
    } catch (const format_error& e) {
      damaged_.push_back({f, e.what()});
    } catch (const io_error& e) {
      damaged_.push_back({f, e.what()});
    }
  }
  metadata_ = read_metadata_files(*storage_, listing_.metadata, tile_options());
}

TILEFMT_FUNC format::Enumeration array_reader::enumeration(std::string_view name) const {
  for (const auto& e : schema_->enumerations.value.value) {
    if (e.name.value != name) continue;
    // The file name comes from the schema: checked before it becomes a path.
    naming_file(root_ / "__schema" / "__enumerations", [&] { format::check_file_name(e.filename.value); });
    const fs::path p = root_ / "__schema" / "__enumerations" / e.filename.value;
    return naming_file(p, [&] {
      const auto g = filter::read_generic_tile(storage_->read(p, opt_.max_allocation), tile_options());
      return codec::decode<format::Enumeration>(g.payload);
    });
  }
  throw std::invalid_argument("tilefmt: the array schema has no enumeration \"" + std::string(name) + "\"");
}

TILEFMT_FUNC filter::generic_tile_options array_reader::tile_options() const {
  return {opt_.verify_checksums, opt_.encryption_key, opt_.max_allocation};
}

TILEFMT_FUNC std::shared_ptr<const format::ArraySchema> array_reader::load_schema(const fs::path& p) {
  auto it = schemas_.find(p.string());
  if (it != schemas_.end()) return it->second;
  auto s = std::make_shared<const format::ArraySchema>(detail::read_schema(*storage_, p, tile_options()));
  schemas_.emplace(p.string(), s);
  return s;
}

TILEFMT_FUNC std::shared_ptr<const format::ArraySchema> array_reader::schema_for(const timestamped_path& f) {
  if (f.name.implied_format_version() >= 10) {
    fs::path meta = f.path / "__fragment_metadata.tdb";
    std::string name = naming_file(meta, [&] {
      return format::footer_schema_name(storage_->read(meta, opt_.max_allocation));
    });
    fs::path p = root_ / "__schema" / name;
    if (storage_->is_file(p)) return load_schema(p);
  }
  return schema_;
}

TILEFMT_FUNC array_reader open(const fs::path& root, open_options opt) { return array_reader(root, std::move(opt)); }

} // namespace tilefmt::array
