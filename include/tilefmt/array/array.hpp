// tilefmt — opening a TileDB array and reading its fragments.
//
//   auto arr = tilefmt::array::open("path/to/array");
//   const auto& schema = arr.schema();                 // in force at the open timestamp
//   for (const auto& frag : arr.fragments()) {         // committed, oldest first
//     std::vector<std::int32_t> a = frag.read<std::int32_t>("a");
//     auto name = frag.read_var<char>("name");          // offsets + bytes
//     std::vector<std::uint8_t> valid = frag.read_validity("maybe");
//   }
//   auto scale = arr.metadata().get<double>("scale");
//
// Values come back in storage order: a dense fragment gives every cell of the
// space tiles it covers (tile order, then cell order; cells it did not write
// hold the fill value), a sparse fragment its cells in global order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <exception>
#include <thread>
#include <vector>

#include "tilefmt/array/directory.hpp"
#include "tilefmt/array/io.hpp"
#include "tilefmt/array/metadata.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array {

struct open_options {
  /// AES-256-GCM key of an encrypted array (32 bytes), or empty.
  std::vector<std::uint8_t> encryption_key{};
  /// Open at [timestamp_start, timestamp_end] (ms since the epoch).
  std::uint64_t timestamp_start = 0;
  std::uint64_t timestamp_end = std::numeric_limits<std::uint64_t>::max();
  /// Skip checksum verification for speed.
  bool verify_checksums = true;
  /// Threads decoding the tiles of a column (0: one per core).
  unsigned threads = 0;
};

/// A var-size column: `values` holds every cell's values back to back and
/// `offsets[i]` is where cell i starts (in elements of T), with no trailing
/// offset.
template <class T>
struct var_column {
  std::vector<std::uint64_t> offsets;
  std::vector<T> values;
};

/// One tile of one field, unfiltered.
struct tile_data {
  std::vector<std::byte> values;          // fixed values, or the var bytes
  std::vector<std::uint64_t> offsets;     // var fields: start of each cell within `values`
  std::vector<std::uint8_t> validity;     // nullable attributes
};

/// A field of the schema as a fragment stores it.
struct field_info {
  std::string name;
  bool is_dimension = false;
  std::size_t index = 0;        // attribute or dimension number
  std::size_t footer_index = 0; // position in the footer's per-field arrays
  format::Datatype type = format::Datatype::INT32;
  std::uint32_t cell_val_num = 1;
  bool var = false;
  bool nullable = false;
  const format::FilterPipeline* filters = nullptr;

  std::size_t cell_size() const { return var ? 8 : cell_val_num * format::datatype_size(type); }
};

namespace detail {

inline format::ArraySchema read_schema(const fs::path& p, const open_options& opt) {
  return naming_file(p, [&] {
    auto bytes = read_file(p);
    auto g = filter::read_generic_tile(bytes, {opt.verify_checksums, opt.encryption_key});
    return codec::decode<format::ArraySchema>(g.payload);
  });
}

/// v8 fragment file names percent-encode a field name with TileDB's own
/// table (fragment_metadata.cc encode_name).
inline std::string encode_name_v8(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    switch (c) {
    case '<': out += "%20"; break;
    case '>': out += "%2D"; break;
    case '\\': out += "%30"; break;
    case '|': out += "%3C"; break;
    case '%': out += "%25"; break;
    case ':': out += "%3A"; break;
    case '"': out += "%22"; break;
    case '/': out += "%2F"; break;
    case '?': out += "%3F"; break;
    case '*': out += "%2A"; break;
    default: out += static_cast<char>(c);
    }
  }
  return out;
}

} // namespace detail

class fragment {
public:
  fragment(timestamped_path where, std::shared_ptr<const format::ArraySchema> schema, const open_options& opt)
      : where_(std::move(where)), schema_(std::move(schema)), opt_(opt) {
    meta_path_ = where_.path / "__fragment_metadata.tdb";
    version_ = where_.name.implied_format_version();
    naming_file(meta_path_, [&] {
      meta_ = read_file(meta_path_);
      ctx_.version = version_;
      ctx_.num_attributes = schema_->attributes.size();
      for (const auto& d : schema_->domain.dimensions) ctx_.dims.push_back({d.type.value, d.is_var()});
      footer_ = format::read_footer(meta_, ctx_);
      ctx_ = format::with_footer_flags(ctx_, footer_);
      return 0;
    });
  }

  const fs::path& path() const noexcept { return where_.path; }
  const format::TimestampedName& name() const noexcept { return where_.name; }
  std::uint64_t timestamp_start() const noexcept { return where_.name.t1; }
  std::uint64_t timestamp_end() const noexcept { return where_.name.t2; }
  std::uint32_t format_version() const noexcept { return version_; }
  bool dense() const noexcept { return footer_.dense; }
  const format::Footer& footer() const noexcept { return footer_; }
  const format::MBR& non_empty_domain() const noexcept { return footer_.non_empty_domain; }
  const format::ArraySchema& schema() const noexcept { return *schema_; }

  /// Number of tiles of every field.
  std::size_t tile_num() const { return tile_offsets(fields().front()).size(); }

  /// Cells the fragment stores (dense: whole space tiles).
  std::uint64_t cell_num() const {
    std::size_t n = tile_num();
    if (n == 0) return 0;
    return (n - 1) * full_tile_cells() + tile_cells(n - 1);
  }

  /// The fields this fragment stores: attributes, then (sparse) dimensions.
  std::vector<field_info> fields() const {
    std::vector<field_info> out;
    for (std::size_t i = 0; i < schema_->attributes.size(); ++i) {
      const auto& a = schema_->attributes[i];
      out.push_back({a.name.value, false, i, i, a.type, a.cell_val_num, a.is_var(),
                     version_ >= 7 && a.nullable.value, &a.filters});
    }
    if (!dense()) {
      for (std::size_t d = 0; d < schema_->domain.dimensions.size(); ++d) {
        const auto& dim = schema_->domain.dimensions[d];
        out.push_back({dim.name.value, true, d, ctx_.dim_index(d), dim.type.value, dim.is_var() ? format::var_num : 1u,
                       dim.is_var(), false, &schema_->dimension_filters(d)});
      }
    }
    return out;
  }

  field_info field(std::string_view name) const {
    for (auto& f : fields())
      if (f.name == name) return f;
    throw std::invalid_argument("tilefmt: fragment " + where_.name.str() + " has no field \"" + std::string(name) + "\"");
  }

  /// Tile `i` of a field, unfiltered. (Column reads decode tiles on several
  /// threads; a fragment itself is not meant to be shared between threads.)
  tile_data read_tile(const field_info& f, std::size_t i) const {
    tile_data t;
    const std::size_t cells = tile_cells(i);
    try {
      if (f.var) {
        // RLE and dictionary on strings store the offsets inside the var
        // tile (the v12/v13/v17 rule, judged by the schema's version); the
        // offsets file then holds an empty tile per tile.
        const bool rebuilt = filter::skip_offsets_filtering(*f.filters, f.type, schema_->version.value);
        if (!rebuilt) {
          auto offs = read_raw_tile(f, data_file(f, ""), tile_offsets(f), file_size(footer_.file_sizes, f), i,
                                    *offsets_pipeline(), cells * 8, 8);
          t.offsets.resize(cells);
          codec::load_le_array(offs.data(), t.offsets.data(), cells);
        } else {
          t.offsets.assign(cells, 0);
        }
        const auto& var_sizes = cached(section_kind::var_sizes, f);
        if (i >= var_sizes.size()) throw format_error("tile " + std::to_string(i) + " has no var size", 0);
        const std::uint64_t var_size = var_sizes[i];
        t.values = read_raw_tile(f, data_file(f, "_var"), cached(section_kind::var_offsets, f),
                                 file_size(footer_.file_var_sizes, f), i, *field_pipeline(f), var_size,
                                 format::datatype_size(f.type), rebuilt ? &t.offsets : nullptr);
        if (t.offsets.size() != cells)
          throw format_error("var tile rebuilds " + std::to_string(t.offsets.size()) + " offsets, the tile has " +
                                 std::to_string(cells) + " cells",
                             0);
        for (std::size_t c = 0; c < cells; ++c)
          if (t.offsets[c] > var_size || (c && t.offsets[c] < t.offsets[c - 1]))
            throw format_error("offset of cell " + std::to_string(c) + " is " + std::to_string(t.offsets[c]) +
                                   ", the var tile has " + std::to_string(var_size) + " bytes",
                               c * 8);
      } else {
        t.values = read_raw_tile(f, data_file(f, ""), tile_offsets(f), file_size(footer_.file_sizes, f), i,
                                 *field_pipeline(f), cells * f.cell_size(), f.cell_size());
      }
      if (f.nullable) {
        auto v = read_raw_tile(f, data_file(f, "_validity"), cached(section_kind::validity_offsets, f),
                               file_size(footer_.file_validity_sizes, f), i, *validity_pipeline(), cells, 1);
        t.validity.assign(reinterpret_cast<const std::uint8_t*>(v.data()),
                          reinterpret_cast<const std::uint8_t*>(v.data()) + v.size());
      }
    } catch (format_error& e) {
      e.prepend_field("fragment " + where_.name.str() + ", field " + f.name + ", tile " + std::to_string(i));
      throw;
    }
    if (dense() && !f.is_dimension) apply_fill(f, i, t);
    return t;
  }

  /// For each cell of dense tile `i`, whether it lies in the fragment's
  /// non-empty domain (the region the write covered). TileDB stores whole
  /// space tiles; the cells outside the written region read as fill values.
  std::vector<bool> written_cells(std::size_t i) const {
    const auto& dims = schema_->domain.dimensions.value;
    const std::size_t nd = dims.size();
    std::vector<std::int64_t> lo(nd), ext(nd), ned_lo(nd), ned_hi(nd), tiles(nd), first_tile(nd);
    for (std::size_t d = 0; d < nd; ++d) {
      filter::with_integer_type(dims[d].type.value, [&]<class T>() {
        auto [dl, dh] = dims[d].domain_as<T>();
        (void)dh;
        lo[d] = static_cast<std::int64_t>(dl);
        ext[d] = static_cast<std::int64_t>(extent_cells(dims[d]));
        auto [a, b] = footer_.non_empty_domain.ranges.at(d).template as<T>();
        ned_lo[d] = static_cast<std::int64_t>(a);
        ned_hi[d] = static_cast<std::int64_t>(b);
      });
      first_tile[d] = (ned_lo[d] - lo[d]) / ext[d];
      tiles[d] = (ned_hi[d] - lo[d]) / ext[d] - first_tile[d] + 1;
    }
    const bool tile_row = schema_->tile_order != format::Layout::COL_MAJOR;
    const bool cell_row = schema_->cell_order != format::Layout::COL_MAJOR;
    // Tile i's position in the tile grid.
    std::vector<std::int64_t> tile_pos(nd);
    std::size_t rest = i;
    for (std::size_t k = 0; k < nd; ++k) {
      std::size_t d = tile_row ? nd - 1 - k : k;
      tile_pos[d] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(tiles[d]));
      rest /= static_cast<std::size_t>(tiles[d]);
    }
    const std::size_t cells = full_tile_cells();
    std::vector<bool> out(cells);
    std::vector<std::int64_t> cell(nd);
    for (std::size_t c = 0; c < cells; ++c) {
      std::size_t r = c;
      bool inside = true;
      for (std::size_t k = 0; k < nd; ++k) {
        std::size_t d = cell_row ? nd - 1 - k : k;
        std::int64_t off = static_cast<std::int64_t>(r % static_cast<std::size_t>(ext[d]));
        r /= static_cast<std::size_t>(ext[d]);
        std::int64_t coord = lo[d] + (first_tile[d] + tile_pos[d]) * ext[d] + off;
        inside = inside && coord >= ned_lo[d] && coord <= ned_hi[d];
      }
      out[c] = inside;
    }
    return out;
  }

  /// Every value of a fixed-size field, as raw little-endian bytes.
  std::vector<std::byte> read_bytes(std::string_view name) const {
    auto f = field(name);
    std::vector<std::byte> out;
    for (auto& t : read_all_tiles(f)) out.insert(out.end(), t.values.begin(), t.values.end());
    return out;
  }

  template <class T>
  std::vector<T> read(std::string_view name) const {
    auto f = field(name);
    if (f.var) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is var-size: use read_var");
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: field \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values, not " +
                                  std::to_string(sizeof(T)) + "-byte ones");
    auto bytes = read_bytes(name);
    std::vector<T> out(bytes.size() / sizeof(T));
    codec::load_le_array(bytes.data(), out.data(), out.size());
    return out;
  }

  template <class T>
  var_column<T> read_var(std::string_view name) const {
    auto f = field(name);
    if (!f.var) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is fixed-size: use read");
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: field \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values");
    var_column<T> out;
    std::vector<std::byte> bytes;
    for (auto& t : read_all_tiles(f)) {
      const std::uint64_t base = bytes.size();
      for (auto o : t.offsets) out.offsets.push_back((base + o) / sizeof(T));
      bytes.insert(bytes.end(), t.values.begin(), t.values.end());
    }
    out.values.resize(bytes.size() / sizeof(T));
    codec::load_le_array(bytes.data(), out.values.data(), out.values.size());
    return out;
  }

  std::vector<std::uint8_t> read_validity(std::string_view name) const {
    auto f = field(name);
    if (!f.nullable) throw std::invalid_argument("tilefmt: field \"" + f.name + "\" is not nullable");
    std::vector<std::uint8_t> out;
    for (auto& t : read_all_tiles(f)) out.insert(out.end(), t.validity.begin(), t.validity.end());
    return out;
  }

  /// Cells in a full tile: the product of the tile extents (dense) or the
  /// capacity (sparse).
  std::uint64_t full_tile_cells() const {
    if (!dense()) return schema_->capacity;
    std::uint64_t n = 1;
    for (const auto& d : schema_->domain.dimensions) n *= extent_cells(d);
    return n;
  }
  /// Cells in tile i (a sparse fragment's last tile may be shorter).
  std::uint64_t tile_cells(std::size_t i) const {
    if (!dense() && i + 1 == tile_num() && footer_.last_tile_cell_num != 0) return footer_.last_tile_cell_num;
    return full_tile_cells();
  }

private:
  void apply_fill(const field_info& f, std::size_t i, tile_data& t) const {
    auto written = written_cells(i);
    if (std::all_of(written.begin(), written.end(), [](bool b) { return b; })) return;
    const auto& attr = schema_->attributes.value.at(f.index);
    const std::vector<std::byte> fill = attr.fill();
    if (f.var) {
      std::vector<std::byte> values;
      std::vector<std::uint64_t> offsets(written.size());
      for (std::size_t c = 0; c < written.size(); ++c) {
        offsets[c] = values.size();
        if (written[c]) {
          std::uint64_t b = t.offsets[c], e = c + 1 < written.size() ? t.offsets[c + 1] : t.values.size();
          values.insert(values.end(), t.values.begin() + static_cast<std::ptrdiff_t>(b),
                        t.values.begin() + static_cast<std::ptrdiff_t>(e));
        } else {
          values.insert(values.end(), fill.begin(), fill.end());
        }
      }
      t.values = std::move(values);
      t.offsets = std::move(offsets);
    } else {
      const std::size_t cs = f.cell_size();
      if (fill.size() != cs) throw format_error("fill value of " + f.name + " has " + std::to_string(fill.size()) + " bytes, a cell " + std::to_string(cs), 0);
      for (std::size_t c = 0; c < written.size(); ++c)
        if (!written[c]) std::memcpy(t.values.data() + c * cs, fill.data(), cs);
    }
    if (f.nullable)
      for (std::size_t c = 0; c < written.size(); ++c)
        if (!written[c]) t.validity[c] = attr.fill_value_validity.value;
  }

  static std::uint64_t extent_cells(const format::Dimension& d) {
    std::uint64_t out = 0;
    filter::with_integer_type(d.type.value, [&]<class T>() {
      T e = d.tile_extent_as<T>().value_or(T{1});
      out = static_cast<std::uint64_t>(e);
    });
    if (out == 0) throw format_error("dimension " + d.name.value + " has no integer tile extent", 0);
    return out;
  }

  fs::path data_file(const field_info& f, const char* suffix) const {
    std::string base;
    if (version_ >= 9)
      base = std::string(f.is_dimension ? "d" : "a").append(std::to_string(f.index));
    else if (version_ == 8)
      base = detail::encode_name_v8(f.name);
    else
      base = f.name;
    return where_.path / (base + suffix + ".tdb");
  }

  template <class L>
  std::uint64_t file_size(const codec::sized<L, std::vector<std::uint64_t>>& sizes, const field_info& f) const {
    return sizes.value.at(f.footer_index);
  }

  template <class Section>
  Section section(std::uint64_t offset) const {
    return naming_file(meta_path_, [&] {
      if (offset >= meta_.size())
        throw format_error("section offset " + std::to_string(offset) + " is past the end of the file", offset);
      auto g = filter::read_generic_tile(std::span<const std::byte>(meta_).subspan(static_cast<std::size_t>(offset)),
                                         {opt_.verify_checksums, opt_.encryption_key});
      try {
        return codec::decode<Section>(g.payload, ctx_);
      } catch (format_error& e) {
        e.add_offset(offset);
        throw;
      }
    });
  }

  enum class section_kind { offsets, var_offsets, var_sizes, validity_offsets };

  /// A per-field section, decoded once. Filled before tiles are decoded in
  /// parallel (prepare), so that the threads only read the cache.
  const std::vector<std::uint64_t>& cached(section_kind k, const field_info& f) const {
    auto key = std::make_pair(static_cast<int>(k), f.footer_index);
    auto it = sections_.find(key);
    if (it == sections_.end()) {
      std::vector<std::uint64_t> v;
      switch (k) {
      case section_kind::offsets: v = section<format::TileOffsets>(footer_.tile_offsets.value.at(f.footer_index)).offsets.value; break;
      case section_kind::var_offsets: v = section<format::TileOffsets>(footer_.tile_var_offsets.value.at(f.footer_index)).offsets.value; break;
      case section_kind::var_sizes: v = section<format::TileSizes>(footer_.tile_var_sizes.value.at(f.footer_index)).sizes.value; break;
      case section_kind::validity_offsets: v = section<format::TileOffsets>(footer_.tile_validity_offsets.value.at(f.footer_index)).offsets.value; break;
      }
      it = sections_.emplace(key, std::move(v)).first;
    }
    return it->second;
  }
  const std::vector<std::uint64_t>& tile_offsets(const field_info& f) const { return cached(section_kind::offsets, f); }

  /// Loads every section and pipeline tile reads of `f` will use.
  void prepare(const field_info& f) const {
    (void)tile_offsets(f);
    (void)field_pipeline(f);
    if (f.var) {
      (void)cached(section_kind::var_offsets, f);
      (void)cached(section_kind::var_sizes, f);
      (void)offsets_pipeline();
    }
    if (f.nullable) {
      (void)cached(section_kind::validity_offsets, f);
      (void)validity_pipeline();
    }
  }

  /// Every tile of `f`, decoded by up to opt_.threads threads.
  std::vector<tile_data> read_all_tiles(const field_info& f) const {
    prepare(f);
    const std::size_t n = tile_num();
    std::vector<tile_data> tiles(n);
    unsigned threads = opt_.threads ? opt_.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, n));
    if (threads <= 1) {
      for (std::size_t i = 0; i < n; ++i) tiles[i] = read_tile(f, i);
      return tiles;
    }
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < threads; ++w)
      pool.emplace_back([&, w] {
        try {
          for (std::size_t i = w; i < n; i += threads) tiles[i] = read_tile(f, i);
        } catch (...) {
          errors[w] = std::current_exception();
        }
      });
    for (auto& t : pool) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    return tiles;
  }

  std::vector<std::byte> read_raw_tile(const field_info& f, const fs::path& file, const std::vector<std::uint64_t>& offsets,
                                       std::uint64_t file_size, std::size_t i, const filter::runtime_pipeline& rp,
                                       std::uint64_t expected, std::size_t cell_size,
                                       std::vector<std::uint64_t>* rebuilt_offsets = nullptr) const {
    (void)f;
    if (i >= offsets.size()) throw format_error("tile " + std::to_string(i) + " has no offset", 0);
    const std::uint64_t begin = offsets[i];
    const std::uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : file_size;
    if (end < begin) throw format_error("tile offsets decrease", 0);
    auto bytes = naming_file(file, [&] { return read_range(file, begin, end - begin); });
    return naming_file(file, [&] {
      auto tile = codec::decode<format::TileView>(bytes);
      if (filter::detail::unfiltered_size(tile) != expected)
        throw format_error("tile holds " + std::to_string(filter::detail::unfiltered_size(tile)) +
                               " bytes, expected " + std::to_string(expected),
                           static_cast<std::size_t>(begin));
      std::vector<std::byte> out(static_cast<std::size_t>(expected));
      filter::tile_context ctx;
      ctx.version = version_;
      ctx.cell_size = cell_size;
      ctx.verify_checksums = opt_.verify_checksums;
      ctx.encryption_key = opt_.encryption_key;
      ctx.rebuilt_offsets = rebuilt_offsets;
      try {
        rp.decode_into(tile, out, ctx);
      } catch (format_error& e) {
        e.add_offset(static_cast<std::size_t>(begin));
        throw;
      }
      return out;
    });
  }

  const filter::runtime_pipeline* pipeline_for(const format::FilterPipeline& p, format::Datatype t) const {
    auto key = std::make_pair(&p, t);
    auto it = pipelines_.find(key);
    if (it == pipelines_.end()) {
      filter::runtime_pipeline rp(p, t, schema_->version.value);
      if (!opt_.encryption_key.empty()) rp.append(filter::encryption_aes256gcm{});
      it = pipelines_.emplace(key, std::make_unique<filter::runtime_pipeline>(std::move(rp))).first;
    }
    return it->second.get();
  }
  const filter::runtime_pipeline* field_pipeline(const field_info& f) const { return pipeline_for(*f.filters, f.type); }
  const filter::runtime_pipeline* offsets_pipeline() const {
    return pipeline_for(schema_->offsets_filters, format::Datatype::UINT64);
  }
  const filter::runtime_pipeline* validity_pipeline() const {
    return pipeline_for(schema_->validity_filters.value, format::Datatype::UINT8);
  }

  timestamped_path where_;
  std::shared_ptr<const format::ArraySchema> schema_;
  open_options opt_;
  fs::path meta_path_;
  std::uint32_t version_ = 0;
  std::vector<std::byte> meta_;
  format::FragmentContext ctx_;
  format::Footer footer_;
  mutable std::map<std::pair<int, std::size_t>, std::vector<std::uint64_t>> sections_;
  mutable std::map<std::pair<const format::FilterPipeline*, format::Datatype>, std::unique_ptr<filter::runtime_pipeline>>
      pipelines_;
};

class array_reader {
public:
  array_reader(const fs::path& root, open_options opt) : root_(root), opt_(std::move(opt)) {
    listing_ = list_array(root_, opt_.timestamp_start, opt_.timestamp_end);
    schema_ = load_schema(listing_.latest_schema);
    for (const auto& f : listing_.fragments) fragments_.emplace_back(f, schema_for(f), opt_);
    metadata_ = read_metadata_files(listing_.metadata, opt_.verify_checksums, opt_.encryption_key);
  }

  const fs::path& path() const noexcept { return root_; }
  const format::ArraySchema& schema() const noexcept { return *schema_; }
  const std::vector<fragment>& fragments() const noexcept { return fragments_; }
  const metadata_map& metadata() const noexcept { return metadata_; }
  const listing& files() const noexcept { return listing_; }

private:
  std::shared_ptr<const format::ArraySchema> load_schema(const fs::path& p) {
    auto it = schemas_.find(p.string());
    if (it != schemas_.end()) return it->second;
    auto s = std::make_shared<const format::ArraySchema>(detail::read_schema(p, opt_));
    schemas_.emplace(p.string(), s);
    return s;
  }

  /// The schema a fragment was written with (named in its footer from v10),
  /// else the one in force.
  std::shared_ptr<const format::ArraySchema> schema_for(const timestamped_path& f) {
    if (f.name.implied_format_version() >= 10) {
      fs::path meta = f.path / "__fragment_metadata.tdb";
      std::string name = naming_file(meta, [&] { return format::footer_schema_name(read_file(meta)); });
      fs::path p = root_ / "__schema" / name;
      if (detail::exists(p)) return load_schema(p);
    }
    return schema_;
  }

  fs::path root_;
  open_options opt_;
  listing listing_;
  std::map<std::string, std::shared_ptr<const format::ArraySchema>> schemas_;
  std::shared_ptr<const format::ArraySchema> schema_;
  std::vector<fragment> fragments_;
  metadata_map metadata_;
};

/// Opens the array at `root` for reading.
inline array_reader open(const fs::path& root, open_options opt = {}) { return array_reader(root, std::move(opt)); }

} // namespace tilefmt::array
