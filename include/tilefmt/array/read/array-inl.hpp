// tilefmt — the definitions of array.hpp's members: opening an array reads
// its schemas, fragment metadata and array metadata through the filter
// pipeline, which programs built against the compiled component
// (codec/compiled.hpp) do not parse. Header-only programs get this file
// from array.hpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/model/metadata_files.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/array/read/fragment-inl.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/filter/generic_tile.hpp"

namespace tilefmt::array {

TILEFMT_FUNC array_reader::array_reader(const fs::path& root, open_options opt)
    : root_(root), opt_(std::move(opt)), storage_(detail::or_local(opt_.storage)) {
  // A consolidation's vacuum can remove files between the listing and
  // their reading (a fragment, its metadata, a `.vac` file): a listed file
  // that is gone when read makes the open start again from a new listing,
  // a few times at most. A file that is there and still cannot be read is
  // an error at once; one still gone after the last listing is what it
  // would have been without the others (an error, or with
  // skip_damaged_fragments a damaged fragment).
  constexpr int most_listings = 4;
  for (int listings = 1;; ++listings) {
    try {
      open_listed(listings == most_listings);
      return;
    } catch (const io_error& e) {
      if (listings == most_listings || storage_->file_size(e.path())) throw;
    }
    listing_ = {};
    schemas_.clear();
    schema_.reset();
    fragments_.clear();
    damaged_.clear();
    metadata_ = {};
  }
}

TILEFMT_FUNC void array_reader::open_listed(bool last_listing) {
  const auto folders = detail::list_folders(*storage_, root_);
  listing_ = list_array(*storage_, root_, folders, opt_.timestamp_start, opt_.timestamp_end, false);
  schema_ = load_schema(listing_.latest_schema);
  // Sparse arrays also read fragments that overlap the range in part.
  if (schema_->is_sparse())
    listing_ = list_array(*storage_, root_, folders, opt_.timestamp_start, opt_.timestamp_end, true);
  // Every fragment's metadata is fetched at once (on an object store each
  // is a request whose wait, not its bytes, sets the time), then the
  // schemas their footers name, then the footers are decoded.
  const auto& listed = listing_.fragments;
  const std::size_t n = listed.size();
  struct opened {
    std::optional<std::vector<std::byte>> bytes;
    std::string schema;  // the footer's schema name (format 10 and later)
    std::optional<fragment> frag;
    std::string error;
  };
  std::vector<opened> found(n);
  const unsigned requests = detail::requests_in_flight(opt_, *storage_, detail::thread_count(opt_.threads));
  auto damaged = [&](opened& o, auto&& work) {
    if (!opt_.skip_damaged_fragments) return work();
    try {
      work();
    } catch (const format_error& e) {
      o.error = e.what();
    } catch (const io_error& e) {
      if (!last_listing && !storage_->file_size(e.path())) throw;  // gone since the listing: listed again
      o.error = e.what();
    }
  };
  detail::parallel_for(n, requests, [&](std::size_t i) {
    damaged(found[i], [&] {
      const fs::path meta = listed[i].path / "__fragment_metadata.tdb";
      found[i].bytes = storage_->read(meta, opt_.max_allocation);
      if (listed[i].name.implied_format_version() >= 10)
        found[i].schema = naming_file(meta, [&] { return format::footer_schema_name(*found[i].bytes); });
    });
  });
  std::vector<std::shared_ptr<const format::ArraySchema>> schemas(n);
  for (std::size_t i = 0; i < n; ++i)
    if (found[i].error.empty()) damaged(found[i], [&] { schemas[i] = schema_named(found[i].schema); });
  detail::parallel_for(n, opt_.threads, [&](std::size_t i) {
    if (found[i].error.empty())
      damaged(found[i], [&] { found[i].frag.emplace(storage_, listed[i], schemas[i], opt_, std::move(found[i].bytes)); });
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (found[i].frag) fragments_.push_back(std::move(*found[i].frag));
    else damaged_.push_back({listed[i], found[i].error});
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

TILEFMT_FUNC std::set<std::string> array_reader::consolidated_fragment_names() const {
  std::set<std::string> out;
  for (const auto& m : listing_.fragment_meta) {
    naming_file(m.path, [&] {
      const auto g = filter::read_generic_tile(storage_->read(m.path, opt_.max_allocation), tile_options());
      for (const auto& f : codec::decode<format::ConsolidatedFragmentMetadata>(g.payload).fragments.value)
        out.insert(detail::last_component(f.name.value));
    });
  }
  return out;
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

TILEFMT_FUNC std::shared_ptr<const format::ArraySchema> array_reader::schema_named(const std::string& name) {
  // A footer names its schema from format 10; the name must be a schema
  // file the listing found (it is checked before it becomes a path), else
  // the latest schema serves, as TileDB falls back.
  if (name.empty()) return schema_;
  const fs::path p = root_ / "__schema" / name;
  for (const auto& s : listing_.schemas)
    if (s == p) return load_schema(p);
  return schema_;
}

TILEFMT_FUNC array_reader open(const fs::path& root, open_options opt) { return array_reader(root, std::move(opt)); }

} // namespace tilefmt::array
