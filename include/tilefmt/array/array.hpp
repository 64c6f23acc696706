// tilefmt — opening a TileDB array and reading its fragments.
//
//   auto arr = tilefmt::array::open("path/to/array");
//   const auto& schema = arr.schema();                 // in force at the open timestamp
//   for (const auto& frag : arr.fragments()) {         // committed, oldest first
//     auto a = frag.read<std::int32_t>("a");            // a std::vector (column<T>)
//     auto name = frag.read_var<char>("name");          // offsets + bytes
//     std::vector<std::uint8_t> valid = frag.read_validity("maybe");
//   }
//   auto scale = arr.metadata().get<double>("scale");
//
// Thread safety: an opened array is immutable. Any const member of it and of
// its fragments may be called from many threads at once.
//
// The parts: options.hpp (how to open), directory.hpp (which files count),
// fragment.hpp (one fragment; its tiles come from detail/tile_source.hpp,
// dense geometry from dense_grid.hpp, fields from field.hpp), metadata.hpp
// (array metadata), storage/ (where the bytes are).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/column.hpp"
#include "tilefmt/array/detail/compiled.hpp"
#include "tilefmt/array/detail/schema_file.hpp"
#include "tilefmt/array/directory.hpp"
#include "tilefmt/array/fragment.hpp"
#include "tilefmt/array/io.hpp"
#include "tilefmt/array/metadata.hpp"
#include "tilefmt/array/options.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/names.hpp"

namespace tilefmt::array {

class query;

class array_reader {
public:
  array_reader(const fs::path& root, open_options opt)
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

  const fs::path& path() const noexcept { return root_; }
  /// Where the array's files are.
  const storage::backend& storage() const noexcept { return *storage_; }
  const format::ArraySchema& schema() const noexcept { return *schema_; }
  const std::vector<fragment>& fragments() const noexcept { return fragments_; }
  const metadata_map& metadata() const noexcept { return metadata_; }
  const listing& files() const noexcept { return listing_; }
  /// The options the array was opened with.
  const open_options& options() const noexcept { return opt_; }
  /// A read of a region of the array across its fragments: include
  /// array/query.hpp, which defines it, then `arr.query().subarray({{1, 10}}).read()`.
  tilefmt::array::query query() const;
  /// The enumeration (labels of an attribute's values) the schema names
  /// `name`, read from `__schema/__enumerations/` on each call (they can be
  /// large, and most reads need none).
  format::Enumeration enumeration(std::string_view name) const {
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
  /// With open_options::skip_damaged_fragments: the fragments left out, and why.
  const std::vector<std::pair<timestamped_path, std::string>>& damaged_fragments() const noexcept { return damaged_; }

private:
  filter::generic_tile_options tile_options() const {
    return {opt_.verify_checksums, opt_.encryption_key, opt_.max_allocation};
  }

  std::shared_ptr<const format::ArraySchema> load_schema(const fs::path& p) {
    auto it = schemas_.find(p.string());
    if (it != schemas_.end()) return it->second;
    auto s = std::make_shared<const format::ArraySchema>(detail::read_schema(*storage_, p, tile_options()));
    schemas_.emplace(p.string(), s);
    return s;
  }

  /// The schema a fragment was written with (named in its footer from v10),
  /// else the one in force. The footer's name is checked to be a schema file
  /// name (format::check_schema_file_name) before it becomes a path.
  std::shared_ptr<const format::ArraySchema> schema_for(const timestamped_path& f) {
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

  fs::path root_;
  open_options opt_;
  std::shared_ptr<const storage::backend> storage_;
  listing listing_;
  std::map<std::string, std::shared_ptr<const format::ArraySchema>> schemas_;
  std::shared_ptr<const format::ArraySchema> schema_;
  std::vector<fragment> fragments_;
  std::vector<std::pair<timestamped_path, std::string>> damaged_;
  metadata_map metadata_;
};

/// Opens the array at `root` for reading.
#ifdef TILEFMT_DECLARE_ONLY
array_reader open(const fs::path& root, open_options opt = {});
#else
TILEFMT_EMIT
inline array_reader open(const fs::path& root, open_options opt = {}) { return array_reader(root, std::move(opt)); }
#endif

} // namespace tilefmt::array

// The compiled component's extern templates (with TILEFMT_COMPILED).
#include "tilefmt/array/detail/compiled_instances.hpp"
