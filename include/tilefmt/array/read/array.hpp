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
// fragment.hpp (one fragment; its tiles come from read/tile_source.hpp,
// dense geometry from dense_grid.hpp, fields from field.hpp), metadata.hpp
// (array metadata), storage/ (where the bytes are).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/metadata.hpp"
#include "tilefmt/array/model/options.hpp"
#include "tilefmt/array/read/fragment.hpp"
#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/names.hpp"

namespace tilefmt::filter {
struct generic_tile_options;
}

namespace tilefmt::array {

class query;

class array_reader {
public:
  array_reader(const fs::path& root, open_options opt);

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
  /// array/read/query.hpp, which defines it, then `arr.query().subarray({{1, 10}}).read()`.
  tilefmt::array::query query() const;
  /// The enumeration (labels of an attribute's values) the schema names
  /// `name`, read from `__schema/__enumerations/` on each call (they can be
  /// large, and most reads need none).
  format::Enumeration enumeration(std::string_view name) const;
  /// The fragments (folder names) whose footers a consolidated fragment
  /// metadata file (`.meta`, every one listed) holds: TileDB's
  /// FragmentInfo "has consolidated metadata". Read on each call.
  std::set<std::string> consolidated_fragment_names() const;
  /// With open_options::skip_damaged_fragments: the fragments left out, and why.
  const std::vector<std::pair<timestamped_path, std::string>>& damaged_fragments() const noexcept { return damaged_; }

private:
  /// Lists the array and reads what the listing names (the constructor);
  /// before the `last_listing`, a fragment gone since the listing is an
  /// io_error even with skip_damaged_fragments (the array is listed again).
  void open_listed(bool last_listing);
  filter::generic_tile_options tile_options() const;
  std::shared_ptr<const format::ArraySchema> load_schema(const fs::path& p);
  /// The schema a fragment was written with (`name`: from its footer, v10
  /// and later), else the one in force. Only a schema file the listing
  /// found is opened: the footer's name never becomes a path of its own.
  std::shared_ptr<const format::ArraySchema> schema_named(const std::string& name);

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
array_reader open(const fs::path& root, open_options opt = {});

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/read/array-inl.hpp"
#endif
