// tilefmt — the sections of a fragment's `__fragment_metadata.tdb`: its
// footer, and the generic tiles the footer points at (per field: tile
// offsets, var-size offsets and sizes, validity offsets, tile metadata;
// the R-tree, processed conditions). Each is decoded on first use and kept.
//
// Every const member is safe to call from many threads: the caches are
// once_maps. preload, for sections of legacy fragment metadata, is called
// before the object is shared.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/options.hpp"
#include "tilefmt/array/support/once_map.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/tile.hpp"

namespace tilefmt::array::detail {

class fragment_sections {
public:
  /// The per-field sections that locate tiles.
  enum class section_kind : int { offsets, var_offsets, var_sizes, validity_offsets };

  struct fragment_files {
    std::shared_ptr<const storage::backend> storage;
    fs::path folder;
    std::uint32_t version = 0;  // 0: TileDB 1.3, tiles stored unfiltered
    std::vector<std::byte> metadata;  // `__fragment_metadata.tdb`
    format::FragmentContext ctx;
    format::Footer footer;
  };

  fragment_sections(fragment_files files, const open_options& opt)
      : files_(std::move(files)),
        verify_checksums_(opt.verify_checksums),
        encryption_key_(opt.encryption_key),
        max_allocation_(opt.max_allocation) {}

  std::uint32_t version() const noexcept { return files_.version; }
  const format::Footer& footer() const noexcept { return files_.footer; }
  const format::FragmentContext& context() const noexcept { return files_.ctx; }
  const fs::path& folder() const noexcept { return files_.folder; }
  const std::shared_ptr<const storage::backend>& storage() const noexcept { return files_.storage; }
  const fs::path metadata_path() const { return files_.folder / "__fragment_metadata.tdb"; }

  filter::generic_tile_options generic_tile_options() const {
    return {verify_checksums_, encryption_key_, max_allocation_};
  }

  /// The generic tile at `offset` of the fragment metadata file, decoded as `Section`.
  template <class Section>
  Section read_section(std::uint64_t offset) const {
    const auto& meta = files_.metadata;
    return naming_file(metadata_path(), [&] {
      if (offset >= meta.size())
        throw format_error("section offset " + std::to_string(offset) + " is past the end of the file", offset);
      auto g = filter::read_generic_tile(std::span<const std::byte>(meta).subspan(static_cast<std::size_t>(offset)),
                                         generic_tile_options());
      try {
        return codec::decode<Section>(g.payload, files_.ctx);
      } catch (format_error& e) {
        e.add_offset(offset);
        throw;
      }
    });
  }

  /// Field `f`'s entry of a per-field list of section offsets in the footer.
  static std::uint64_t field_offset(const std::vector<std::uint64_t>& offsets, const field_info& f, const char* what) {
    if (f.footer_index >= offsets.size())
      throw format_error(std::string("the footer has no ") + what + " of field " + f.name, 0);
    return offsets[f.footer_index];
  }

  /// A per-field section, decoded once.
  const std::vector<std::uint64_t>& section(section_kind k, const field_info& f) const {
    return sections_.get({k, f.footer_index}, [&] {
      const auto& footer = files_.footer;
      auto at = [&](const auto& offsets) { return field_offset(offsets.value, f, "section"); };
      switch (k) {
      case section_kind::offsets: return read_section<format::TileOffsets>(at(footer.tile_offsets)).offsets.value;
      case section_kind::var_offsets: return read_section<format::TileOffsets>(at(footer.tile_var_offsets)).offsets.value;
      case section_kind::var_sizes: return read_section<format::TileSizes>(at(footer.tile_var_sizes)).sizes.value;
      case section_kind::validity_offsets:
        return read_section<format::TileOffsets>(at(footer.tile_validity_offsets)).offsets.value;
      }
      return std::vector<std::uint64_t>{};
    });
  }
  /// A field's tile metadata (format 11 on): per tile its min and max, sum
  /// and null count, as stored; fields without them have them empty.
  struct tile_metadata_sections {
    format::TileMinMax min, max;
    std::vector<std::uint64_t> sums, null_counts;
    std::uint64_t min_offset = 0, max_offset = 0;  // where min and max are in the metadata file
  };

  /// Field `f`'s tile metadata sections, decoded once.
  const tile_metadata_sections& tile_metadata(const field_info& f) const {
    return tile_metadata_.get(f.footer_index, [&] {
      const auto& footer = files_.footer;
      auto at = [&](const auto& offsets) { return field_offset(offsets.value, f, "tile metadata"); };
      tile_metadata_sections s;
      s.min_offset = at(footer.tile_min_offsets);
      s.max_offset = at(footer.tile_max_offsets);
      s.min = read_section<format::TileMinMax>(s.min_offset);
      s.max = read_section<format::TileMinMax>(s.max_offset);
      s.sums = read_section<format::TileSums>(at(footer.tile_sum_offsets)).sums.value;
      s.null_counts = read_section<format::TileNullCounts>(at(footer.tile_null_count_offsets)).null_counts.value;
      return s;
    });
  }

  /// Stores a section that came from elsewhere (legacy fragment metadata).
  void preload(section_kind k, std::size_t footer_index, std::vector<std::uint64_t> values) {
    sections_.put({k, footer_index}, std::move(values));
  }

  /// Where `which` of field `f` is stored.
  fs::path file_path(const field_info& f, format::DataFile which) const {
    return files_.folder / f.file_name(files_.version, which);
  }

  /// The tile offsets of `which` of field `f`.
  const std::vector<std::uint64_t>& offsets_of(const field_info& f, format::DataFile which) const {
    switch (which) {
    case format::DataFile::fixed: return section(section_kind::offsets, f);
    case format::DataFile::var: return section(section_kind::var_offsets, f);
    case format::DataFile::validity: return section(section_kind::validity_offsets, f);
    }
    return section(section_kind::offsets, f);
  }

  /// The size of `which` of field `f`'s data file, as the footer says.
  std::uint64_t file_size_of(const field_info& f, format::DataFile which) const {
    const auto& footer = files_.footer;
    const auto& sizes = which == format::DataFile::fixed ? footer.file_sizes.value
                        : which == format::DataFile::var ? footer.file_var_sizes.value
                                                         : footer.file_validity_sizes.value;
    if (f.footer_index >= sizes.size()) throw format_error("the footer has no file size of field " + f.name, 0);
    return sizes[f.footer_index];
  }

  /// Where tile i's stored bytes are in its file, [first, second), checked
  /// against the size limit (as `expected`, its unfiltered size).
  std::pair<std::uint64_t, std::uint64_t> stored_range(const field_info& f, format::DataFile which, std::size_t i,
                                                       std::uint64_t expected) const {
    const auto& offsets = offsets_of(f, which);
    if (i >= offsets.size()) throw format_error("tile " + std::to_string(i) + " has no offset", 0);
    if (expected > max_allocation_)
      throw format_error("tile " + std::to_string(i) + " would hold " + std::to_string(expected) +
                             " bytes, more than the " + std::to_string(max_allocation_) +
                             " a tile may claim (open_options::max_allocation)",
                         0);
    const std::uint64_t begin = offsets[i], end = i + 1 < offsets.size() ? offsets[i + 1] : file_size_of(f, which);
    if (end < begin) throw format_error("tile offsets decrease", 0);
    if (end - begin > max_allocation_)
      throw format_error("tile " + std::to_string(i) + " is stored in " + std::to_string(end - begin) +
                             " bytes, more than the " + std::to_string(max_allocation_) + " a tile may claim",
                         0);
    return {begin, end};
  }

private:
  fragment_files files_;
  bool verify_checksums_;
  std::vector<std::uint8_t> encryption_key_;
  std::uint64_t max_allocation_;
  once_map<std::pair<section_kind, std::size_t>, std::vector<std::uint64_t>> sections_;
  once_map<std::size_t, tile_metadata_sections> tile_metadata_;
};

} // namespace tilefmt::array::detail
