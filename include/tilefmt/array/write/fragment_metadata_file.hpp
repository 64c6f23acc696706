// tilefmt — a fragment's `__fragment_metadata.tdb` as TileDB's
// FragmentMetadata::store writes it at the array's format version: every
// section a generic tile (R-tree, tile offsets, var offsets and sizes,
// validity offsets, tile metadata, the fragment's summary, processed
// conditions), then the footer. Made from the fields the fragment builder
// encoded (field_tiles.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/write/field_tiles.hpp"
#include "tilefmt/array/write/tile_metadata.hpp"
#include "tilefmt/codec/codec.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array::detail {

/// What the metadata file is made from: the schema, the fragment's format
/// version and key, each tile's cells, and every field's tiles.
struct fragment_fields {
  const format::ArraySchema& schema;
  const std::string& schema_name;
  std::uint32_t version;
  std::span<const std::uint8_t> key;  // the array's encryption key; empty: not encrypted
  const std::vector<std::uint64_t>& tile_cells;
  const std::vector<field_tiles>& attrs;
  const std::vector<field_tiles>& dims;
  const std::vector<field_tiles>& specials;  // __timestamps, __delete_timestamps, __delete_condition_index
  const std::vector<field_info>& special_specs;
};

/// The var min/max strings as TileDB's dense writer stores them. Each
/// tile's string has its own size; but when the array has more
/// attributes than the fragment has tiles, TileDB writes the tiles one per
/// batch and copies every batch's strings to tile 0's place, each cut to
/// tile 0's size (OrderedWriter::dense, the "parallelize over attributes"
/// branch restarts its index at every batch): tile 0 ends up with the last
/// tile's strings and the other tiles with zero bytes. Where the last
/// tile's string is shorter than tile 0's, TileDB reads past its end; the
/// rest is written here as zeros. Sparse writes index them correctly.
inline std::vector<tile_stats> var_min_max_slots(std::vector<tile_stats> stats, bool dense, std::size_t attributes,
                                                 std::size_t tiles) {
  if (!dense || attributes <= tiles || stats.empty()) return stats;
  auto place = [&](auto member) {
    std::vector<std::byte> first((stats[0].*member).size(), std::byte{0});
    const auto& last = stats.back().*member;
    std::copy(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(std::min(first.size(), last.size())),
              first.begin());
    for (auto& st : stats) std::fill((st.*member).begin(), (st.*member).end(), std::byte{0});
    stats[0].*member = std::move(first);
  };
  place(&tile_stats::min);
  place(&tile_stats::max);
  return stats;
}

/// `__fragment_metadata.tdb` as FragmentMetadata::store writes it at the
/// array's format version: every section a generic tile, then the footer
/// (and its length, where the version stores one).
inline std::vector<std::byte> fragment_metadata_file(const fragment_fields& in, const fragment_shape& shape) {
  const auto& dims = in.schema.domain.dimensions.value;
  const std::size_t na = in.schema.attributes.size(), nd = dims.size();
  format::FragmentContext ctx;
  ctx.version = in.version;
  ctx.num_attributes = na;
  for (const auto& d : dims) ctx.dims.push_back({d.type.value, d.is_var()});
  ctx.has_timestamps = !in.specials.empty();
  ctx.has_delete_meta = in.specials.size() > 1;
  const std::size_t num = ctx.num_fields();  // attributes, __coords, dimensions, special fields
  const std::size_t coords = ctx.coords_index();
  const format::Datatype coord_type = dims[0].type.value;
  const std::size_t coord_size = format::datatype_size(coord_type);
  const std::size_t tiles = in.tile_cells.size();

  // The fields with tiles of their own: attributes, the dimensions of
  // sparse fragments and the special fields. `__coords` and dense
  // dimensions have none.
  const std::size_t first_special = coords + 1 + nd;
  auto tiles_of = [&](std::size_t k) -> const field_tiles* {
    if (k < na) return &in.attrs[k];
    if (k >= first_special) return &in.specials[k - first_special];
    if (!shape.dense && k > coords && k - coords - 1 < nd) return &in.dims[k - coords - 1];
    return nullptr;
  };
  auto spec_of = [&](std::size_t k) {
    if (k >= first_special) return in.special_specs[k - first_special];
    return k < na ? attribute_field(in.schema, k, in.version) : dimension_field(in.schema, k - coords - 1, in.version);
  };
  auto var = [&](std::size_t k) { return tiles_of(k) && spec_of(k).var(); };
  auto nullable = [&](std::size_t k) { return k < na && in.schema.attributes[k].nullable.value; };

  std::vector<std::vector<tile_stats>> var_slots(na);
  for (std::size_t k = 0; k < na; ++k)
    if (in.schema.attributes[k].is_var())
      var_slots[k] = var_min_max_slots(in.attrs[k].stats, shape.dense && !shape.global_order, na, tiles);

  std::vector<std::byte> file;
  auto section = [&](const auto& payload) {
    const std::uint64_t at = file.size();
    auto tile = filter::write_generic_tile(codec::encode(payload, ctx), in.version, in.key);
    file.insert(file.end(), tile.begin(), tile.end());
    return at;
  };

  format::Footer f{};
  f.version = in.version;
  f.array_schema_name.value.value = in.schema_name;
  f.dense = shape.dense;
  f.null_non_empty_domain = false;
  f.non_empty_domain = shape.non_empty_domain;
  f.sparse_tile_num = shape.sparse_tile_num;
  f.last_tile_cell_num = shape.last_tile_cell_num;
  f.has_timestamps.value = ctx.has_timestamps;
  f.has_delete_meta.value = ctx.has_delete_meta;
  f.file_sizes.value.assign(num, 0);
  f.file_var_sizes.value.assign(num, 0);
  if (in.version >= 7) f.file_validity_sizes.value.assign(num, 0);
  for (std::size_t k = 0; k < num; ++k)
    if (const auto* t = tiles_of(k)) {
      f.file_sizes.value[k] = t->file_size();
      f.file_var_sizes.value[k] = t->var_file_size();
      if (in.version >= 7) f.file_validity_sizes.value[k] = t->validity_file_size();
    }

  f.rtree_offset = section(shape.rtree);

  const std::vector<std::uint64_t> zeros(tiles, 0);
  auto per_field = [&](auto&& make, auto& offsets) {
    offsets.value.resize(num);
    for (std::size_t k = 0; k < num; ++k) offsets.value[k] = section(make(k));
  };
  per_field([&](std::size_t k) { return format::TileOffsets{{tiles_of(k) ? tiles_of(k)->offsets : zeros}}; },
            f.tile_offsets);
  per_field([&](std::size_t k) { return format::TileOffsets{{var(k) ? tiles_of(k)->var_offsets : zeros}}; },
            f.tile_var_offsets);
  per_field([&](std::size_t k) { return format::TileSizes{{var(k) ? tiles_of(k)->var_sizes : zeros}}; },
            f.tile_var_sizes);

  // Sections a version lacks are not written: validity from 7, tile
  // metadata from 11, the fragment's summary from 12, processed conditions
  // from 15.
  if (in.version >= 7)
    per_field([&](std::size_t k) { return format::TileOffsets{{nullable(k) ? in.attrs[k].validity_offsets : zeros}}; },
              f.tile_validity_offsets);

  // `__coords` is not a dimension to TileDB's metadata generator: it gets
  // zero-filled min/max cells (all coordinates of a cell) and zero sums.
  // Dimensions get sums (sparse only) but never min/max.
  const bool coords_min_max = has_min_max(coord_type, 1);
  const bool coords_sum = has_sum(coord_type, 1);
  if (in.version >= 11) {
    auto min_max = [&](bool want_min) {
      return [&, want_min](std::size_t k) {
        format::TileMinMax m{};
        if (var(k) && k < na) {
          // Var fields: a u64 offset per tile into the concatenated strings.
          if (has_var_min_max(in.schema.attributes[k].type)) {
            m.fixed.resize(tiles * 8);
            for (std::size_t t = 0; t < tiles; ++t) {
              const auto& v = want_min ? var_slots[k][t].min : var_slots[k][t].max;
              codec::store_le<std::uint64_t>(m.fixed.data() + t * 8, m.var.size());
              m.var.insert(m.var.end(), v.begin(), v.end());
            }
          }
        } else if (k < na && has_min_max(in.schema.attributes[k].type, in.schema.attributes[k].cell_val_num)) {
          for (const auto& s : in.attrs[k].stats) {
            const auto& v = want_min ? s.min : s.max;
            m.fixed.insert(m.fixed.end(), v.begin(), v.end());
          }
        } else if (k == coords && coords_min_max) {
          m.fixed.assign(tiles * nd * coord_size, std::byte{0});
        } else if (k >= first_special) {
          for (const auto& s : in.specials[k - first_special].stats) {
            const auto& v = want_min ? s.min : s.max;
            m.fixed.insert(m.fixed.end(), v.begin(), v.end());
          }
        }
        return m;
      };
    };
    per_field(min_max(true), f.tile_min_offsets);
    per_field(min_max(false), f.tile_max_offsets);
    per_field(
        [&](std::size_t k) {
          format::TileSums s{};
          const auto* t = tiles_of(k);
          if (t && !var(k) && has_sum(spec_of(k).type, spec_of(k).cell_val_num))
            for (const auto& st : t->stats) s.sums.value.push_back(st.sum);
          if (k == coords && coords_sum) s.sums.value = zeros;
          return s;
        },
        f.tile_sum_offsets);
    per_field(
        [&](std::size_t k) {
          format::TileNullCounts n{};
          if (nullable(k))
            for (const auto& st : in.attrs[k].stats) n.null_counts.value.push_back(st.null_count);
          return n;
        },
        f.tile_null_count_offsets);

  }
  if (in.version >= 12) {
    format::FragmentMinMaxSumNullCount summary;
    for (std::size_t k = 0; k < num; ++k) {
      format::FieldMinMaxSumNullCount e{};
      if (k < na) {
        e = fold_stats(in.schema.attributes[k], var(k) ? var_slots[k] : in.attrs[k].stats, in.tile_cells);
      } else if (k >= first_special) {
        // TileDB folds its special fields as it folds a UINT64 attribute.
        format::Attribute u64{};
        u64.type = format::Datatype::UINT64;
        u64.cell_val_num = 1;
        e = fold_stats(u64, in.specials[k - first_special].stats, in.tile_cells);
      } else if (k == coords && coords_min_max) {
        // The fold reads the zero cells as values of the first dimension's type.
        e.min.value.assign(coord_size, std::byte{0});
        e.max.value.assign(coord_size, std::byte{0});
      } else if (const auto* t = tiles_of(k)) {
        e.sum = fold_dimension_sum(spec_of(k).type, t->stats);
      }
      summary.fields.value.push_back(std::move(e));
    }
    f.fragment_min_max_sum_null_count_offset.value = section(summary);
  }
  // libtiledb 2.11 (version 15) writes the processed conditions tile too,
  // but not its offset, which the footer has from 16.
  if (in.version >= 15) {
    format::ProcessedConditions pc{};
    for (const auto& c : shape.processed_conditions) pc.conditions.value.emplace_back().value = c;
    const std::uint64_t at = section(pc);
    if (in.version >= 16) f.processed_conditions_offset.value = at;
  }

  auto footer = format::write_footer(f, ctx);
  file.insert(file.end(), footer.begin(), footer.end());
  return file;
}

} // namespace tilefmt::array::detail
