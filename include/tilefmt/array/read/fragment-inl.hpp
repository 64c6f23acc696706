// tilefmt — the definitions of fragment.hpp's members: the tile source, the
// filter pipeline and the legacy formats they need stay out of programs
// built against the compiled component (codec/compiled.hpp), which include
// only fragment.hpp. Header-only programs get this file from fragment.hpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/legacy.hpp"
#include "tilefmt/array/read/fill.hpp"
#include "tilefmt/array/read/fragment.hpp"
#include "tilefmt/array/read/tile_source.hpp"
#include "tilefmt/array/support/parallel.hpp"

namespace tilefmt::array {

TILEFMT_FUNC fragment::fragment(std::shared_ptr<const storage::backend> st, timestamped_path where,
                                std::shared_ptr<const format::ArraySchema> schema, const open_options& opt,
                                std::optional<std::vector<std::byte>> metadata)
    : where_(std::move(where)), guard_(where_.path / "__fragment_metadata.tdb", opt.max_allocation) {
  detail::tile_source::fragment_files files;
  files.storage = std::move(st);
  files.folder = where_.path;
  files.version = where_.name.implied_format_version();
  const fs::path meta_path = where_.path / "__fragment_metadata.tdb";
  std::optional<detail::legacy_fragment_metadata> legacy;
  naming_file(meta_path, [&] {
    files.metadata = metadata ? std::move(*metadata) : files.storage->read(meta_path, opt.max_allocation);
    files.ctx.version = files.version;
    files.ctx.num_attributes = schema->attributes.size();
    for (const auto& d : schema->domain.dimensions) files.ctx.dims.push_back({d.type.value, d.is_var()});
    if (files.version < 3) {
      legacy = detail::read_legacy_fragment_metadata(files.metadata, files.ctx,
                                                     {opt.verify_checksums, opt.encryption_key, opt.max_allocation});
      files.footer = legacy->footer;
      files.version = legacy->version;
    } else {
      files.footer = format::read_footer(files.metadata, files.ctx);
      // A `__t1_t2_uuid` name says 4, yet libtiledb 1.6 wrote such names
      // with version 3 footers; TileDB takes the footer's (the two lay
      // out alike).
      if (where_.name.grammar == format::NameGrammar::t1_t2_uuid && files.footer.version == 3)
        files.version = files.ctx.version = 3;
      files.ctx = format::with_footer_flags(files.ctx, files.footer);
    }
    return 0;
  });
  auto source = std::make_shared<detail::tile_source>(std::move(files), std::move(schema), opt);
  if (legacy) {
    using k = detail::tile_source::section_kind;
    for (std::size_t i = 0; i < legacy->tile_offsets.size(); ++i) {
      source->sections().preload(k::offsets, i, std::move(legacy->tile_offsets[i]));
      source->sections().preload(k::var_offsets, i, std::move(legacy->var_offsets[i]));
      source->sections().preload(k::var_sizes, i, std::move(legacy->var_sizes[i]));
    }
  }
  source_ = std::move(source);
  fields_ = fragment_fields(this->schema(), format_version(), dense());
  special_fields_ = array::special_fields(this->schema(), footer_context());
  if (dense() && !footer().null_non_empty_domain)
    grid_.emplace(naming_file(meta_path, [&] { return dense_grid::of_region(this->schema(), footer().non_empty_domain); }));
}

TILEFMT_FUNC std::uint32_t fragment::format_version() const noexcept { return source_->version(); }
TILEFMT_FUNC const format::Footer& fragment::footer() const noexcept { return source_->footer(); }
TILEFMT_FUNC const format::FragmentContext& fragment::footer_context() const noexcept { return source_->context(); }
TILEFMT_FUNC const format::ArraySchema& fragment::schema() const noexcept { return source_->schema(); }

TILEFMT_FUNC std::size_t fragment::tile_num() const {
  return source_->section(detail::tile_source::section_kind::offsets, fields_.front()).size();
}

TILEFMT_FUNC std::uint64_t fragment::cell_num() const {
  std::size_t n = tile_num();
  if (n == 0) return 0;
  return guard_.sum(guard_.product(n - 1, full_tile_cells(), "cells"), tile_cells(n - 1), "cells");
}

TILEFMT_FUNC const field_info& fragment::field(std::string_view name) const {
  for (const auto& f : fields_)
    if (f.name == name) return f;
  for (const auto& f : special_fields_)
    if (f.name == name) return f;
  throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no field \"" + std::string(name) + "\"");
}

TILEFMT_FUNC std::vector<std::string> fragment::processed_conditions() const {
  if (format_version() < 16) return {};
  auto pc = source_->sections().read_section<format::ProcessedConditions>(footer().processed_conditions_offset.value);
  std::vector<std::string> out;
  for (const auto& c : pc.conditions.value) out.push_back(c.value);
  return out;
}

TILEFMT_FUNC std::vector<format::MBR> fragment::mbrs() const {
  if (dense() || format_version() < 3) return {};
  auto tree = source_->sections().read_section<format::RTree>(footer().rtree_offset);
  if (tree.levels.value.empty()) return {};
  auto leaves = std::move(tree.levels.value.back().mbrs.value);
  if (leaves.size() != tile_num())
    throw format_error("the R-tree of fragment " + where_.name.str() + " has " + std::to_string(leaves.size()) +
                           " leaves for " + std::to_string(tile_num()) + " tiles",
                       footer().rtree_offset);
  return leaves;
}

TILEFMT_FUNC fetched_tiles fragment::fetch_tiles(const field_info& f, std::vector<std::size_t> tiles,
                                                 unsigned requests) const {
  return source_->fetch_ahead(f, std::move(tiles), requests);
}

TILEFMT_FUNC tile_data fragment::read_tile(const field_info& f, std::size_t i, const fetched_tiles* ahead) const {
  tile_data t = read_tile_as_stored(f, i, ahead);
  if (fills(f)) apply_fill(f, i, t);
  return t;
}

TILEFMT_FUNC void fragment::read_values_as_stored_into(const field_info& f, std::size_t i, std::span<std::byte> out,
                                                       const fetched_tiles* ahead) const {
  try {
    if (f.var()) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size");
    if (out.size() != guard_.product(tile_cells(i), f.cell_size(), "bytes in a tile"))
      throw std::invalid_argument("tilefmt: read_values_as_stored_into: the buffer does not hold tile " +
                                  std::to_string(i) + " of \"" + f.name + "\"");
    if (f.in_coords_file) {
      auto v = read_coords_tile(f, i, tile_cells(i));
      if (v.size() != out.size()) throw format_error("coordinate tile size", 0);
      std::memcpy(out.data(), v.data(), v.size());
    } else {
      source_->read_into(f, format::DataFile::fixed, i, out, f.cell_size(), ahead);
    }
  } catch (format_error& e) {
    e.prepend_field(where(f, i));
    throw;
  }
}

TILEFMT_FUNC void fragment::read_cells_into(const field_info& f, std::size_t i, std::span<const cell_copy> copies,
                                            const fetched_tiles* ahead) const {
  const std::size_t cs = f.cell_size();
  try {
    if (f.var() || cs == 0) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size");
    const std::uint64_t cells = tile_cells(i);
    const std::size_t bytes = guard_.product(cells, cs, "bytes in a tile");
    std::vector<filter::chunk_piece> pieces;
    pieces.reserve(copies.size());
    for (const auto& c : copies) {
      if (c.first > cells || c.count > cells - c.first)
        throw format_error("cells [" + std::to_string(c.first) + ", " + std::to_string(c.first + c.count) +
                               ") lie outside the tile's " + std::to_string(cells),
                           0);
      // (Both products are at most `bytes`.)
      pieces.push_back({static_cast<std::size_t>(c.first) * cs, static_cast<std::size_t>(c.count) * cs, c.dest});
    }
    const auto by_begin = [](const filter::chunk_piece& a, const filter::chunk_piece& b) { return a.begin < b.begin; };
    if (!std::is_sorted(pieces.begin(), pieces.end(), by_begin)) std::sort(pieces.begin(), pieces.end(), by_begin);
    if (f.in_coords_file) {
      const auto v = read_coords_tile(f, i, cells);
      if (v.size() != bytes) throw format_error("coordinate tile size", 0);
      for (const auto& p : pieces) std::memcpy(p.dest, v.data() + p.begin, p.size);
      return;
    }
    source_->read_pieces(f, i, bytes, ahead, pieces);
  } catch (format_error& e) {
    e.prepend_field(where(f, i));
    throw;
  }
}

template <class Want, class Take>
void fragment::read_values_in_chunks(const field_info& f, std::size_t i, Want&& want, Take&& take,
                                     const fetched_tiles* ahead) const {
  const std::size_t cs = f.cell_size();
  try {
    if (f.var() || cs == 0) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size");
    const std::uint64_t cells = tile_cells(i);
    if (f.in_coords_file) {
      const auto v = read_coords_tile(f, i, cells);
      if (v.size() != guard_.product(cells, cs, "bytes in a tile")) throw format_error("coordinate tile size", 0);
      take(std::size_t{0}, std::span<const std::byte>(v));
      return;
    }
    source_->read_chunks(
        f, i, guard_.product(cells, cs, "bytes in a tile"), ahead,
        [&](std::size_t begin, std::size_t end) { return want(begin / cs, end / cs); },
        [&](std::size_t begin, std::span<const std::byte> values) { take(begin / cs, values); });
  } catch (format_error& e) {
    e.prepend_field(where(f, i));
    throw;
  }
}

TILEFMT_FUNC tile_data fragment::read_tile_as_stored(const field_info& f, std::size_t i,
                                                     const fetched_tiles* ahead) const {
  tile_data t;
  const std::size_t cells = static_cast<std::size_t>(tile_cells(i));
  try {
    if (f.var()) {
      read_var_tile(f, i, cells, t, ahead);
    } else if (f.in_coords_file) {
      t.values = read_coords_tile(f, i, cells);
    } else {
      t.values = source_->read(f, format::DataFile::fixed, i, guard_.product(cells, f.cell_size(), "bytes in a tile"),
                               f.cell_size(), nullptr, ahead);
    }
    if (f.nullable) {
      auto v = source_->read(f, format::DataFile::validity, i, cells, 1, nullptr, ahead);
      t.validity.assign(reinterpret_cast<const std::uint8_t*>(v.data()),
                        reinterpret_cast<const std::uint8_t*>(v.data()) + v.size());
    }
  } catch (format_error& e) {
    e.prepend_field(where(f, i));
    throw;
  }
  return t;
}

TILEFMT_FUNC std::optional<tile_summary> fragment::tile_metadata(std::string_view name, std::size_t i) const {
  if (format_version() < 11) return std::nullopt;
  const field_info f = field(name);
  if (!f.is_attribute()) throw std::invalid_argument("tilefmt: \"" + f.name + "\" is not an attribute");
  return naming_metadata([&] {
    const auto& md = source_->sections().tile_metadata(f);
    const std::size_t tiles = tile_num();
    if (i >= tiles) throw std::out_of_range("tilefmt: fragment " + where_.name.str() + " has no tile " + std::to_string(i));
    tile_summary out;
    out.cell_num = tile_cells(i);
    out.min = stored_extreme(md.min, f, i, tiles, md.min_offset);
    out.max = stored_extreme(md.max, f, i, tiles, md.max_offset);
    if (!md.sums.empty()) {
      if (md.sums.size() != tiles) throw format_error("field " + f.name + ": the tile sums do not match the tiles", 0);
      out.sum = md.sums[i];
    }
    if (f.nullable) {
      if (md.null_counts.size() != tiles)
        throw format_error("field " + f.name + ": the tile null counts do not match the tiles", 0);
      out.null_count = md.null_counts[i];
    }
    return out;
  });
}

TILEFMT_FUNC std::vector<bool> fragment::written_cells(std::size_t i) const {
  check_tile_size(full_tile_cells());
  if (!grid_) return std::vector<bool>(static_cast<std::size_t>(full_tile_cells()), true);
  return naming_metadata([&] { return grid_->covered_cells(i); });
}

TILEFMT_FUNC bool fragment::fully_written(std::size_t i) const {
  return !grid_ || naming_metadata([&] { return grid_->full(i); });
}

TILEFMT_FUNC column<std::byte> fragment::read_bytes(std::string_view name) const {
  auto f = field(name);
  column<std::byte> out(column_bytes(f));
  read_fixed_into(f, out);
  return out;
}

TILEFMT_FUNC column<std::uint8_t> fragment::read_validity(std::string_view name) const {
  auto f = field(name);
  if (!f.nullable) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is not nullable");
  column<std::uint8_t> out;
  for (auto& t : read_all_tiles(f)) out.insert(out.end(), t.validity.begin(), t.validity.end());
  return out;
}

TILEFMT_FUNC std::uint64_t fragment::full_tile_cells() const {
  if (!dense()) return schema().capacity;
  if (grid_) return grid_->cells_per_tile();
  std::uint64_t n = 1;
  for (const auto& d : schema().domain.dimensions)
    format::visit_integer_type(d.type.value, [&]<class T>() {
      n = guard_.product(n, static_cast<std::uint64_t>(d.tile_extent_as<T>().value_or(T{1})), "cells in a space tile");
    });
  return n;
}

TILEFMT_FUNC std::uint64_t fragment::tile_cells(std::size_t i) const {
  if (!dense() && i + 1 == tile_num() && footer().last_tile_cell_num != 0) return footer().last_tile_cell_num;
  return full_tile_cells();
}

/// Tile `i`'s min or max in a stored "Tile Mins" or "Tile Maxes" section at
/// `offset`: a cell of each tile, or an offset per tile into the strings of
/// var-size fields. Empty when the field has none.
TILEFMT_FUNC std::span<const std::byte> fragment::stored_extreme(const format::TileMinMax& s, const field_info& f,
                                                                std::size_t i, std::size_t tiles,
                                                                std::uint64_t offset) {
  if (s.fixed.empty()) return {};
  const std::size_t size = f.cell_size();
  auto fail = [&](const std::string& what) {
    return format_error("field " + f.name + ": the tile " + what, static_cast<std::size_t>(offset));
  };
  if (size == 0 || s.fixed.size() / size != tiles || s.fixed.size() % size != 0)
    throw fail("mins or maxes hold " + std::to_string(s.fixed.size()) + " bytes for " + std::to_string(tiles) +
               " tiles");
  if (!f.var()) return std::span<const std::byte>(s.fixed).subspan(i * size, size);
  const std::uint64_t begin = codec::load_le<std::uint64_t>(s.fixed.data() + i * 8);
  const std::uint64_t end = i + 1 < tiles ? codec::load_le<std::uint64_t>(s.fixed.data() + (i + 1) * 8) : s.var.size();
  if (begin > end || end > s.var.size()) throw fail("min or max strings' offsets are out of order");
  return std::span<const std::byte>(s.var).subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
}

TILEFMT_FUNC std::size_t fragment::column_bytes(const field_info& f) const {
  const std::uint64_t bytes = guard_.product(cell_num(), f.cell_size(), "bytes in the column");
  try {
    guard_.check(bytes, "its column", "one read (read it tile by tile with read_tile)");
  } catch (format_error& e) {
    e.prepend_field("fragment " + where_.name.str() + ", field " + f.name);
    throw;
  }
  return static_cast<std::size_t>(bytes);
}

/// The var-size path of read_tile: offsets (from the offsets file, or
/// rebuilt from the var tile by RLE and dictionary strings), then values.
TILEFMT_FUNC void fragment::read_var_tile(const field_info& f, std::size_t i, std::size_t cells, tile_data& t,
                                          const fetched_tiles* ahead) const {
  // RLE and dictionary on strings store the offsets inside the var tile
  // (the v12/v13/v17 rule, judged by the schema's version); the offsets
  // file then holds an empty tile per tile.
  const bool rebuilt = filter::skip_offsets_filtering(*f.filters, f.type, schema().version.value);
  check_tile_size(guard_.product(cells, 8, "bytes in a tile"));
  if (!rebuilt) {
    t.offsets.resize(cells);
    read_tile_offsets(f, i, t.offsets, ahead);
  } else {
    t.offsets.assign(cells, 0);
  }
  const std::uint64_t var_size = stored_var_size(f, i);
  t.values = source_->read(f, format::DataFile::var, i, var_size, format::datatype_size(f.type),
                           rebuilt ? &t.offsets : nullptr, ahead);
  if (t.offsets.size() != cells)
    throw format_error("var tile rebuilds " + std::to_string(t.offsets.size()) + " offsets, the tile has " +
                           std::to_string(cells) + " cells",
                       0);
  check_var_offsets(f, rebuilt, t.offsets, var_size);
}

TILEFMT_FUNC std::optional<std::uint64_t> fragment::var_tile_bytes(const field_info& f, std::size_t i) const {
  if (!f.var()) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is fixed-size");
  if (filter::skip_offsets_filtering(*f.filters, f.type, schema().version.value)) return std::nullopt;
  try {
    return stored_var_size(f, i);
  } catch (format_error& e) {
    e.prepend_field(where(f, i));
    throw;
  }
}

TILEFMT_FUNC void fragment::read_var_tile_into(const field_info& f, std::size_t i, std::span<std::byte> values,
                                               std::span<std::uint64_t> offsets, const fetched_tiles* ahead) const {
  try {
    const auto bytes = var_tile_bytes(f, i);
    if (!bytes) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" stores its offsets in its var tiles");
    if (values.size() != *bytes || offsets.size() != tile_cells(i))
      throw std::invalid_argument("tilefmt: read_var_tile_into: the buffers do not hold tile " + std::to_string(i) +
                                  " of \"" + f.name + "\"");
    check_tile_size(guard_.product(offsets.size(), 8, "bytes in a tile"));
    read_tile_offsets(f, i, offsets, ahead);
    check_var_offsets(f, false, offsets, *bytes);
    source_->read_into(f, format::DataFile::var, i, values, format::datatype_size(f.type), ahead);
  } catch (format_error& e) {
    e.prepend_field(where(f, i));
    throw;
  }
}

/// Tile i's cell offsets from the offsets file, as numbers, into `out`
/// (one per cell).
TILEFMT_FUNC void fragment::read_tile_offsets(const field_info& f, std::size_t i, std::span<std::uint64_t> out,
                                              const fetched_tiles* ahead) const {
  if constexpr (std::endian::native == std::endian::little) {
    // Stored as they are in memory: decoded in place, without a buffer.
    source_->read_into(f, format::DataFile::fixed, i, std::as_writable_bytes(out), 8, ahead);
    return;
  }
  auto offs = source_->read(f, format::DataFile::fixed, i, out.size() * 8, 8, nullptr, ahead);
  codec::load_le_array(offs.data(), out.data(), out.size());
}

/// The unfiltered size of tile i's var tile, from the fragment's metadata.
TILEFMT_FUNC std::uint64_t fragment::stored_var_size(const field_info& f, std::size_t i) const {
  const auto& var_sizes = source_->section(detail::tile_source::section_kind::var_sizes, f);
  if (i >= var_sizes.size()) throw format_error("tile " + std::to_string(i) + " has no var size", 0);
  return var_sizes[i];
}

/// Offsets that point outside the var tile, or go back: the offsets file is
/// wrong (or, when the offsets are rebuilt from the var tile, that one).
TILEFMT_FUNC void fragment::check_var_offsets(const field_info& f, bool rebuilt, std::span<const std::uint64_t> offsets,
                                              std::uint64_t var_size) const {
  naming_file(source_->file_path(f, rebuilt ? format::DataFile::var : format::DataFile::fixed), [&] {
    for (std::size_t c = 0; c < offsets.size(); ++c)
      if (offsets[c] > var_size || (c && offsets[c] < offsets[c - 1]))
        throw format_error("offset of cell " + std::to_string(c) + " is " + std::to_string(offsets[c]) +
                               ", the var tile has " + std::to_string(var_size) + " bytes",
                           c * 8);
    return 0;
  });
}

/// Tile i of one dimension, taken from a `__coords` tile (formats < 5).
/// The tile holds every dimension's coordinates: zipped (x0 y0 x1 y1 ...)
/// as format 1 wrote them without compression, else split (all x, then
/// all y), which TileDB zips after unfiltering (reader_base.cc
/// zip_tile_coordinates).
TILEFMT_FUNC column<std::byte> fragment::read_coords_tile(const field_info& f, std::size_t i,
                                                              std::uint64_t cells) const {
  const std::size_t nd = schema().domain.dimensions.size();
  const std::size_t cs = format::datatype_size(f.type);
  auto all = source_->read(f, format::DataFile::fixed, i, guard_.product(cells, nd * cs, "bytes in a tile"), nd * cs);
  bool compressed = false;
  for (const auto& flt : f.filters->filters.value)
    switch (flt.type) {
    case format::FilterType::GZIP:
    case format::FilterType::ZSTD:
    case format::FilterType::LZ4:
    case format::FilterType::RLE:
    case format::FilterType::BZIP2:
    case format::FilterType::DOUBLE_DELTA:
    case format::FilterType::DICTIONARY:
    case format::FilterType::DELTA: compressed = true; break;
    default: break;
    }
  const bool split = format_version() > 1 || compressed;
  column<std::byte> out(static_cast<std::size_t>(cells) * cs);
  for (std::size_t c = 0; c < cells; ++c) {
    const std::size_t from = split ? (f.index * cells + c) * cs : (c * nd + f.index) * cs;
    std::memcpy(out.data() + c * cs, all.data() + from, cs);
  }
  return out;
}

TILEFMT_FUNC void fragment::apply_fill(const field_info& f, std::size_t i, tile_data& t) const {
  if (fully_written(i)) return;
  const auto written = written_cells(i);
  const auto& attr = schema().attributes.value.at(f.index);
  if (f.var())
    detail::fill_var_cells(attr, written, t.values, t.offsets);
  else
    detail::fill_fixed_cells(attr, f.cell_size(), written, t.values);
  if (f.nullable) detail::fill_validity(attr, written, t.validity);
}

/// Dense tiles cover whole space tiles; cells outside the fragment's
/// non-empty domain read as the attribute's fill value.
TILEFMT_FUNC void fragment::fill_fixed(const field_info& f, std::size_t i, std::span<std::byte> values) const {
  if (fully_written(i)) return;
  detail::fill_fixed_cells(schema().attributes.value.at(f.index), f.cell_size(), written_cells(i), values);
}

/// Where the storage prefers few requests, the tiles are fetched ahead in
/// runs of adjacent tiles, a bounded run at a time
/// (tile_source::tile_batches), and `ahead` holds the run's.
template <class Fn>
void fragment::for_each_tile(const field_info& f, Fn&& fn) const {
  source_->prepare(f);
  const unsigned threads = source_->options().threads;
  const std::uint64_t limit = std::min(detail::tile_source::merged_read_limit * detail::thread_count(threads),
                                       source_->options().max_allocation);
  for (const auto& batch : source_->tile_batches(f, tile_num(), limit)) {
    const std::size_t first = batch.first, n = batch.second - batch.first;
    std::vector<std::size_t> tiles(n);
    for (std::size_t k = 0; k < n; ++k) tiles[k] = first + k;
    const auto ahead = fetch_tiles(f, std::move(tiles));
    detail::parallel_for(n, threads, [&](std::size_t k) { fn(first + k, &ahead); });
  }
}

/// Every tile of `f`, decoded on up to open_options::threads threads.
TILEFMT_FUNC std::vector<tile_data> fragment::read_all_tiles(const field_info& f) const {
  std::vector<tile_data> tiles(tile_num());
  for_each_tile(f, [&](std::size_t i, const fetched_tiles* ahead) { tiles[i] = read_tile(f, i, ahead); });
  return tiles;
}

TILEFMT_FUNC tile_data fragment::read_var_bytes(const field_info& f) const {
  tile_data out;
  for (auto& t : read_all_tiles(f)) {
    const std::uint64_t base = out.values.size();
    for (auto o : t.offsets) out.offsets.push_back(base + o);
    out.values.insert(out.values.end(), t.values.begin(), t.values.end());
  }
  return out;
}

/// The fixed-size path of read_tile, writing tile i's cells to `out`.
TILEFMT_FUNC void fragment::read_fixed_tile_into(const field_info& f, std::size_t i, std::span<std::byte> out,
                                                 const fetched_tiles* ahead) const {
  read_values_as_stored_into(f, i, out, ahead);
  if (fills(f)) fill_fixed(f, i, out);
}

TILEFMT_FUNC void fragment::read_fixed_into(const field_info& f, std::span<std::byte> out) const {
  const std::size_t cs = f.cell_size();
  const std::size_t full = static_cast<std::size_t>(full_tile_cells()) * cs;
  for_each_tile(f, [&](std::size_t i, const fetched_tiles* ahead) {
    read_fixed_tile_into(f, i, out.subspan(i * full, static_cast<std::size_t>(tile_cells(i)) * cs), ahead);
  });
}

} // namespace tilefmt::array
