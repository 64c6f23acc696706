// tilefmt — what the dense and sparse fragment writers share (write.hpp):
// the array's latest schema, the fragment's tiles, every field's encoded
// files with their tile metadata, `__fragment_metadata.tdb` and the order in
// which a fragment reaches the disk.
//
// A field here is an attribute or, in sparse fragments, a dimension; the
// fragment metadata indexes them as TileDB does: attributes, `__coords`,
// then the dimensions.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <openssl/err.h>
#include <openssl/rand.h>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/array/write/tile_metadata.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/feature_versions.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/names.hpp"

namespace tilefmt::array {

namespace detail {

/// Consolidation (array/maintain/consolidate.hpp) writes through the fragment
/// writers' internals: cells as raw bytes, a name spanning several writes,
/// per-cell timestamps.
struct consolidator;

template <class P>
struct is_pipeline : std::false_type {};
template <class... F>
struct is_pipeline<filter::pipeline<F...>> : std::true_type {};

/// Encodes one fixed-size tile (given by set<P>) into its second argument
/// (contents replaced, capacity reused); empty: the field's pipeline from
/// the schema, built at run time.
using tile_encoder = std::function<void(std::span<const std::byte>, std::vector<std::byte>&)>;

/// The cells of a fragment as little-endian bytes: a view of them on
/// little-endian hosts, a converted copy in `copy` elsewhere.
template <class T>
std::span<const std::byte> le_bytes(std::span<const T> values, std::vector<std::byte>& copy) {
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    return std::as_bytes(values);
  } else {
    copy.resize(values.size_bytes());
    codec::store_le_array(copy.data(), values.data(), values.size());
    return copy;
  }
}

/// What a field whose tiles are streamed (fragment_builder::begin_stream)
/// keeps from tile to tile: its data files, open until the commit, and its
/// pipelines, built once.
struct field_stream {
  std::unique_ptr<storage::file_writer> file, var_file, validity_file;
  std::optional<filter::runtime_pipeline> pipeline, offsets_pipeline;
  filter::tile_context context, offsets_context;
  bool skip_offsets = false;
  std::vector<std::byte> tile, offsets_tile;  // each encoded tile, reused
};

/// One field's encoded tiles and their metadata.
struct field_tiles {
  bool set = false;
  // Data files are array::column buffers: huge pages where the system
  // allows, so that first touching hundreds of MiB of encoded tiles does
  // not take a page fault every 4 KiB.
  column<std::byte> file;                    // fixed tiles, or var offsets tiles, back to back (a<i>.tdb)
  std::vector<std::uint64_t> offsets;        // where each tile starts
  column<std::byte> var_file;                // var tiles (a<i>_var.tdb)
  std::vector<std::uint64_t> var_offsets;    // where each var tile starts
  std::vector<std::uint64_t> var_sizes;      // each var tile's unfiltered size
  std::vector<std::byte> validity_file;      // validity tiles (a<i>_validity.tdb)
  std::vector<std::uint64_t> validity_offsets;
  std::vector<tile_stats> stats;             // as stored: all-null tiles keep zero min/max
  /// Streamed: the tiles went to these files instead of the three above.
  std::unique_ptr<field_stream> stream;

  std::uint64_t file_size() const { return stream ? stream->file->size() : file.size(); }
  std::uint64_t var_file_size() const { return stream && stream->var_file ? stream->var_file->size() : var_file.size(); }
  std::uint64_t validity_file_size() const {
    return stream && stream->validity_file ? stream->validity_file->size() : validity_file.size();
  }
};

/// Appends an encoded tile to a data file and records where it starts.
template <class File>
void append_tile(File& file, std::vector<std::uint64_t>& offsets, std::span<const std::byte> tile) {
  offsets.push_back(file.size());
  file.insert(file.end(), tile.begin(), tile.end());
}

/// The same for a file streamed to storage.
inline void append_tile(storage::file_writer& file, std::vector<std::uint64_t>& offsets, std::span<const std::byte> tile) {
  offsets.push_back(file.size());
  file.append(tile);
}

/// Makes room in a data file for what its remaining tiles will likely hold,
/// judged by the `done` of `total` tiles appended so far: one allocation of
/// about the final size instead of repeated doublings, each of which would
/// hold the old and the new buffer at once.
template <class File>
void reserve_file(File& file, std::size_t done, std::size_t total) {
  if (done == 0 || done >= total || file.empty()) return;
  const std::size_t want = file.size() / done * total + file.size() / done / 2 * (total - done);
  if (want > file.capacity()) file.reserve(want);
}

/// The cells of tile `tile` for encoding (little-endian bytes): a view of
/// the caller's cells where the tile lies among them as stored, or the cells
/// gathered into `scratch`, the buffer of the thread encoding the tile
/// (reused from tile to tile).
using tile_cells = std::function<std::span<const std::byte>(std::size_t tile, std::vector<std::byte>& scratch)>;

/// Copies cells `order[0..n)` of `from` (cells of `cell_size` bytes) to `to`,
/// one after another.
template <class Index>
void gather_cells(std::byte* to, const std::byte* from, std::size_t cell_size, const Index* order, std::size_t n) {
  auto copy = [&]<std::size_t S>() {
    // The cells are scattered (a sort's permutation): asking for a cell some
    // iterations ahead hides most of the wait for memory.
    constexpr std::size_t ahead = 16;
    std::size_t k = 0;
#if defined(__GNUC__)
    for (; k + ahead < n; ++k) {
      __builtin_prefetch(from + static_cast<std::size_t>(order[k + ahead]) * S);
      std::memcpy(to + k * S, from + static_cast<std::size_t>(order[k]) * S, S);
    }
#endif
    for (; k < n; ++k) std::memcpy(to + k * S, from + static_cast<std::size_t>(order[k]) * S, S);
  };
  switch (cell_size) {  // fixed sizes: one load and store per cell
    case 1: return copy.template operator()<1>();
    case 2: return copy.template operator()<2>();
    case 4: return copy.template operator()<4>();
    case 8: return copy.template operator()<8>();
    case 16: return copy.template operator()<16>();
    default:
      for (std::size_t k = 0; k < n; ++k)
        std::memcpy(to + k * cell_size, from + static_cast<std::size_t>(order[k]) * cell_size, cell_size);
  }
}

/// What the footer and R-tree say of a fragment's extent.
struct fragment_shape {
  bool dense = true;
  /// The commits (delete markers) already applied to the cells, as a
  /// consolidation records them.
  std::vector<std::string> processed_conditions;
  format::MBR non_empty_domain;
  format::RTree rtree;                      // dense: no levels
  std::uint64_t sparse_tile_num = 0;
  std::uint64_t last_tile_cell_num = 0;     // dense: the cells of a space tile
  /// Dense: written as TileDB's global-order writer writes (tile by tile),
  /// not its ordered dense writer, whose var min/max quirk
  /// (var_min_max_slots) it does not share.
  bool global_order = false;
};

/// Calls f(start, n) for the runs of cells of tile `tile` (of `cells`
/// cells) in the order TileDB feeds them to its metadata generator.
using slab_plan =
    std::function<void(std::size_t tile, std::uint64_t cells, const std::function<void(std::size_t, std::size_t)>& f)>;

class fragment_builder {
public:
  /// Loads the array's latest schema; `who` names the writer in messages.
  /// `key`: the array's encryption key, or empty (write_options::encryption_key).
  fragment_builder(const fs::path& root, std::string who, bool sparse, std::shared_ptr<storage::backend> st,
                   std::span<const std::uint8_t> key = {})
      : root_(root), who_(std::move(who)), storage_(detail::or_local(std::move(st))), key_(key.begin(), key.end()) {
    listing l = list_array(*storage_, root_);
    if (l.latest_schema.empty()) throw io_error(root_, "has no schema file");
    schema_ = read_schema_for_writing(*storage_, l.latest_schema, key_);
    schema_name_ = l.latest_schema.filename().string();
    if (schema_.is_sparse() != sparse)
      throw std::invalid_argument(message(std::string("the array is ") + (schema_.is_sparse() ? "sparse" : "dense")));
    // Fragments take the array's version, as TileDB writes them.
    version_ = schema_.version.value;
    if (version_ < format::oldest_written_version || version_ > format::written_version)
      throw std::invalid_argument(message("writes format versions " + std::to_string(format::oldest_written_version) +
                                          " to " + std::to_string(format::written_version) +
                                          "; the array's schema is version " + std::to_string(version_)));
    attrs_.resize(schema_.attributes.size());
    dims_.resize(schema_.domain.dimensions.size());
    validity_pipeline_.emplace(pipeline(schema_.validity_filters.value, format::Datatype::UINT8));
  }

  /// Whether the array's tiles are encrypted (it was opened with a key).
  bool encrypted() const noexcept { return !key_.empty(); }

  /// The run-time pipeline of `filters` over `type` as this array's tiles
  /// are written: an encrypted array appends AES-256-GCM to every pipeline
  /// (attribute, dimension, offsets, validity), as WriterBase::filter_tile.
  filter::runtime_pipeline pipeline(const format::FilterPipeline& filters, format::Datatype type) const {
    filter::runtime_pipeline rp(filters, type, version_);
    if (encrypted()) rp.append(filter::encryption_aes256gcm{});
    return rp;
  }
  /// Its context for cells of `cell_size` bytes, with the key.
  filter::tile_context context(const filter::runtime_pipeline& rp, std::size_t cell_size) const {
    filter::tile_context ctx = rp.context(cell_size);
    ctx.encryption_key = key_;
    return ctx;
  }
  /// A generic tile of this array (fragment metadata sections; the other
  /// writers call filter::write_generic_tile with the key themselves).
  std::vector<std::byte> generic_tile(std::span<const std::byte> payload) const {
    return filter::write_generic_tile(payload, version_, key_);
  }

  const fs::path& root() const noexcept { return root_; }
  const format::ArraySchema& schema() const noexcept { return schema_; }
  const std::string& schema_name() const noexcept { return schema_name_; }
  bool committed() const noexcept { return committed_; }

  /// "tilefmt: <who>: <what>".
  std::string message(const std::string& what) const { return "tilefmt: " + who_ + ": " + what; }

  /// The fragment's tiles by their cell counts, in order.
  void set_tiles(std::vector<std::uint64_t> cells) {
    tile_cells_ = std::move(cells);
    tile_first_.assign(tile_cells_.size(), 0);
    for (std::size_t t = 1; t < tile_cells_.size(); ++t) tile_first_[t] = tile_first_[t - 1] + tile_cells_[t - 1];
  }
  void set_slabs(slab_plan plan) { slabs_ = std::move(plan); }
  /// Names the fragment `__t1_t2_...` instead of by one timestamp: a
  /// consolidated fragment spans the writes it replaces.
  void set_time_range(std::uint64_t t1, std::uint64_t t2) { time_range_ = {t1, t2}; }

  /// The fields TileDB adds to consolidated sparse fragments: a timestamp
  /// per cell (`__timestamps`), and with `delete_meta` the delete timestamp
  /// and condition index (`__delete_timestamps`, `__delete_condition_index`);
  /// each a u64 per cell, in storage order.
  void set_special(std::span<const std::uint64_t> timestamps, std::span<const std::uint64_t> delete_timestamps = {},
                   std::span<const std::uint64_t> delete_condition_index = {}) {
    format::FragmentContext ctx;
    ctx.version = version_;
    ctx.num_attributes = schema_.attributes.size();
    ctx.dims.resize(schema_.domain.dimensions.size());
    ctx.has_timestamps = true;
    ctx.has_delete_meta = !delete_timestamps.empty();
    if (version_ < 14 || (ctx.has_delete_meta && version_ < 15))
      throw std::invalid_argument(message("per-cell timestamps need format 14, delete metadata 15"));
    special_specs_ = special_fields(schema_, ctx);
    specials_.clear();
    specials_.resize(special_specs_.size());
    std::span<const std::uint64_t> columns[] = {timestamps, delete_timestamps, delete_condition_index};
    for (std::size_t k = 0; k < special_specs_.size(); ++k) {
      std::vector<std::byte> copy;
      encode_fixed(specials_[k], special_specs_[k], le_bytes(columns[k], copy), {}, {});
    }
  }
  std::size_t tile_num() const noexcept { return tile_cells_.size(); }
  std::uint64_t cell_num() const noexcept { return tile_cells_.empty() ? 0 : tile_first_.back() + tile_cells_.back(); }

  field_info attribute_spec(std::size_t i) const { return attribute_field(schema_, i, version_); }
  field_info dimension_spec(std::size_t d) const { return dimension_field(schema_, d, version_); }

  /// The attribute called `name`, checked against what set() or set_var()
  /// was given: `n` values (fixed) or offsets (var) of `value_size` bytes
  /// for `cells` cells, and a validity byte per cell for nullable ones.
  std::size_t attribute(std::string_view name, std::size_t value_size, std::size_t n, bool var,
                        std::span<const std::uint8_t> validity, std::uint64_t cells) const {
    if (committed_) throw std::logic_error(message("set: the fragment is already committed"));
    std::size_t i = 0;
    for (; i < schema_.attributes.size(); ++i)
      if (schema_.attributes[i].name.value == name) break;
    if (i == schema_.attributes.size())
      throw std::invalid_argument(message(std::string("set: the array has no attribute \"").append(name).append("\"")));
    const format::Attribute& a = schema_.attributes[i];
    const std::string who = "set: attribute \"" + a.name.value + "\"";
    if (format::datatype_size(a.type) != value_size)
      throw std::invalid_argument(message(who + " holds " + std::string(format::codec_enum_name(a.type)) +
                                          " values, not " + std::to_string(value_size) + "-byte ones"));
    if (a.is_var() != var)
      throw std::invalid_argument(message(who + " is " + (a.is_var() ? "var-size: use set_var" : "fixed-size: use set")));
    if (a.nullable.value && validity.size() != cells)
      throw std::invalid_argument(message(who + " is nullable and needs a validity byte per cell: " +
                                          std::to_string(cells) + ", got " + std::to_string(validity.size())));
    if (!a.nullable.value && !validity.empty())
      throw std::invalid_argument(message(who + " is not nullable; it takes no validity"));
    const std::uint64_t want = var ? cells : cells * a.cell_val_num;
    if (n != want)
      throw std::invalid_argument(message(who + " needs " + std::to_string(want) + (var ? " offsets" : " values") +
                                          " (" + std::to_string(cells) + " cells), got " + std::to_string(n)));
    return i;
  }

  /// Offsets start at 0, never decrease and stay within the values.
  /// attribute() for a set() of `n` values of a fixed-size attribute,
  /// whose cells are n / cell_val_num unless earlier calls fixed `cells`:
  /// the attribute's index and the call's cell count.
  std::pair<std::size_t, std::uint64_t> fixed_attribute(std::string_view name, std::size_t value_size, std::size_t n,
                                                        std::span<const std::uint8_t> validity,
                                                        std::optional<std::uint64_t> cells) const {
    std::uint64_t count = cells.value_or(0);
    if (!cells)
      for (const auto& a : schema_.attributes)
        if (a.name.value == name && !a.is_var() && a.cell_val_num) count = n / a.cell_val_num;
    return {attribute(name, value_size, n, false, validity, count), count};
  }
  /// attribute() and check_var_offsets() for a set_var() of a cell per offset.
  std::size_t var_attribute(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
                            std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity,
                            std::optional<std::uint64_t> cells) const {
    const std::size_t i = attribute(name, value_size, offsets.size(), true, validity, cells.value_or(offsets.size()));
    check_var_offsets(attribute_spec(i).name, offsets, values.size() / value_size);
    return i;
  }

  void check_var_offsets(const std::string& field, std::span<const std::uint64_t> offsets, std::size_t values) const {
    for (std::size_t c = 0; c < offsets.size(); ++c) {
      const std::uint64_t prev = c ? offsets[c - 1] : 0;
      if ((c == 0 && offsets[0] != 0) || offsets[c] < prev || offsets[c] > values)
        throw std::invalid_argument(message("set_var: \"" + field + "\": offset " + std::to_string(c) + " is " +
                                            std::to_string(offsets[c]) +
                                            (c == 0 ? " (the first must be 0)" : std::string(", after ") + std::to_string(prev)) +
                                            ", with " + std::to_string(values) + " values"));
    }
  }

  field_tiles& attribute_tiles(std::size_t i) { return attrs_[i]; }
  field_tiles& dimension_tiles(std::size_t d) { return dims_[d]; }

  /// Threads encoding tiles (0: one per core).
  void set_threads(unsigned n) noexcept { threads_ = n; }
  unsigned threads() const noexcept { return threads_; }

  /// Encodes a fixed-size field's cells (little-endian bytes, in storage
  /// order) tile by tile.
  void encode_fixed(field_tiles& out, const field_info& f, std::span<const std::byte> bytes,
                    std::span<const std::uint8_t> validity, const tile_encoder& encoder) const {
    const std::size_t cell_size = f.cell_size();
    encode_fixed(
        out, f,
        [&](std::size_t t, std::vector<std::byte>&) {
          const auto [first, cells] = tile_span(t);
          return bytes.subspan(first * cell_size, cells * cell_size);
        },
        validity, encoder);
  }

  /// The same with each tile's cells given by `cells_of` (storage order;
  /// `validity` is for every cell of the fragment, in storage order).
  void encode_fixed(field_tiles& out, const field_info& f, const tile_cells& cells_of,
                    std::span<const std::uint8_t> validity, const tile_encoder& encoder) const {
    restart(out);
    const std::size_t cell_size = f.cell_size();
    // A pipeline set<P> was given encodes without the encryption filter: an
    // encrypted array's tiles take the schema's pipeline (the same filters,
    // as set<P> checked) with AES-256-GCM appended.
    const bool own = encoder && !encrypted();
    std::optional<filter::runtime_pipeline> rp;
    filter::tile_context ctx;
    if (!own) {
      rp.emplace(pipeline(*f.filters, f.type));
      ctx = context(*rp, cell_size);
    }
    const std::size_t largest = tile_cells_.empty() ? 0 : static_cast<std::size_t>(tile_cells_.front());
    for_tiles<encoded_tile>(
        largest * cell_size,
        [&](std::size_t t, std::vector<std::byte>& scratch, encoded_tile& e) {
          const auto [first, cells] = tile_span(t);
          const auto tile = cells_of(t, scratch);
          if (own)
            encoder(tile, e.data);
          else
            rp->encode_into(tile, ctx, e.data);
          e.stats = tile_metadata(f, validity, t, first, cells, e.validity,
                                  [&](tile_metadata_generator& g, auto valid, std::size_t b, std::size_t end) {
                                    g.fixed_slab(tile, cell_size, valid, b, end);
                                  });
        },
        [&](std::size_t t, encoded_tile& e) {
          if (out.stream) {
            append_tile(*out.stream->file, out.offsets, e.data);  // to storage, as the next tiles encode
          } else {
            append_tile(out.file, out.offsets, e.data);
            reserve_file(out.file, t + 1, tile_num());
          }
          take_metadata(out, f, e);
        });
    out.set = true;
  }

  /// Encodes a var-size field: `values` (little-endian bytes) holds every
  /// cell's values, `offsets[c]` where cell c starts, in values of
  /// `value_size` bytes.
  void encode_var(field_tiles& out, const field_info& f, std::span<const std::byte> values,
                  std::span<const std::uint64_t> offsets, std::size_t value_size,
                  std::span<const std::uint8_t> validity) const {
    restart(out);
    const filter::runtime_pipeline rp = pipeline(*f.filters, f.type);
    const filter::tile_context ctx = context(rp, format::datatype_size(f.type));
    const filter::runtime_pipeline offsets_rp = pipeline(schema_.offsets_filters, format::Datatype::UINT64);
    const filter::tile_context offsets_ctx = context(offsets_rp, 8);
    // RLE and DICTIONARY on strings carry the offsets in the var tile; the
    // offsets file then holds a tile of no chunks (WriterBase::filter_tile).
    const bool skip_offsets = filter::skip_offsets_filtering(*f.filters, f.type, version_);
    std::vector<std::uint64_t> tile_offsets;
    std::vector<std::byte> offset_bytes, var_tile;
    for (std::size_t t = 0; t < tile_num(); ++t) {
      const auto [first, cells] = tile_span(t);
      const std::size_t begin = static_cast<std::size_t>(offsets[first]) * value_size;
      const std::size_t end =
          first + cells < offsets.size() ? static_cast<std::size_t>(offsets[first + cells]) * value_size : values.size();
      tile_offsets.resize(cells);
      for (std::size_t c = 0; c < cells; ++c)
        tile_offsets[c] = offsets[first + c] * value_size - begin;  // bytes, from the tile's start
      var_tile_into(out, f, rp, ctx, offsets_rp, offsets_ctx, skip_offsets, values.subspan(begin, end - begin),
                    tile_offsets, validity, t, first, offset_bytes, var_tile);
    }
    out.set = true;
  }

  /// Streams the fragment's tiles (a global-order write): names the
  /// fragment now, makes its folder and opens each field's data files
  /// (attributes, and dimensions unless `dense`), which then take every
  /// tile as stream_fixed() and stream_var() encode it; tiles are counted by
  /// add_tile(). commit() then commits these files (they appear only then)
  /// before the fragment metadata.
  void begin_stream(const write_options& opt, bool dense) {
    if (stream_) throw std::logic_error(message("the fragment is already being written"));
    auto [name, dir] = fragment_dir(opt);
    storage_->make_folder(dir);
    stream_ = std::make_unique<std::pair<std::string, fs::path>>(std::move(name), std::move(dir));
    auto open = [&](field_tiles& t, const field_info& f) {
      t = field_tiles{};
      auto s = std::make_unique<field_stream>();
      const fs::path& d = stream_->second;
      s->file = storage_->open_write(d / f.file_name(version_, format::DataFile::fixed));
      if (f.var()) s->var_file = storage_->open_write(d / f.file_name(version_, format::DataFile::var));
      if (f.nullable) s->validity_file = storage_->open_write(d / f.file_name(version_, format::DataFile::validity));
      s->pipeline.emplace(pipeline(*f.filters, f.type));
      if (f.var()) {
        s->context = context(*s->pipeline, format::datatype_size(f.type));
        s->offsets_pipeline.emplace(pipeline(schema_.offsets_filters, format::Datatype::UINT64));
        s->offsets_context = context(*s->offsets_pipeline, 8);
        s->skip_offsets = filter::skip_offsets_filtering(*f.filters, f.type, version_);
      } else {
        s->context = context(*s->pipeline, f.cell_size());
      }
      t.stream = std::move(s);
    };
    for (std::size_t i = 0; i < attrs_.size(); ++i) open(attrs_[i], attribute_spec(i));
    if (!dense)
      for (std::size_t d = 0; d < dims_.size(); ++d) open(dims_[d], dimension_spec(d));
  }
  bool streaming() const noexcept { return stream_ != nullptr; }
  /// A streamed fragment given up: its open data files dropped (their
  /// temporary files removed), then its folder. Best effort: a folder left
  /// without a commit marker is no fragment, readers skip it.
  void drop_stream() noexcept {
    if (!stream_ || committed_) return;
    for (auto* v : {&attrs_, &dims_})
      for (auto& t : *v) t.stream.reset();
    try {
      storage_->remove(stream_->second);
    } catch (...) {
    }
    stream_.reset();
  }
  fragment_builder(fragment_builder&&) = default;
  fragment_builder& operator=(fragment_builder&&) = default;
  /// An uncommitted streamed fragment is dropped (drop_stream).
  ~fragment_builder() { drop_stream(); }
  /// The streamed fragment's name (begin_stream).
  const std::string& stream_name() const { return stream_->first; }
  /// Streaming: one more tile of `cells` cells. Its fields are then given
  /// by stream_fixed() and stream_var().
  void add_tile(std::uint64_t cells) {
    tile_first_.push_back(tile_cells_.empty() ? 0 : tile_first_.back() + tile_cells_.back());
    tile_cells_.push_back(cells);
  }
  /// Streaming: encodes the last tile added of a fixed-size field (`cells`
  /// as little-endian bytes, `validity` a byte per cell for nullable ones)
  /// and appends it to the field's files; `encoder` as for encode_fixed.
  void stream_fixed(field_tiles& out, const field_info& f, std::span<const std::byte> cells,
                    std::span<const std::uint8_t> validity, const tile_encoder& encoder) const {
    auto& s = *out.stream;
    if (encoder && !encrypted())  // as in encode_fixed
      encoder(cells, s.tile);
    else
      s.pipeline->encode_into(cells, s.context, s.tile);
    encoded_tile e;
    e.stats = tile_metadata(f, validity, tile_num() - 1, 0, cells.size() / f.cell_size(), e.validity,
                            [&](tile_metadata_generator& g, auto valid, std::size_t b, std::size_t end) {
                              g.fixed_slab(cells, f.cell_size(), valid, b, end);
                            });
    append_tile(*s.file, out.offsets, s.tile);
    take_metadata(out, f, e);
    out.set = true;
  }
  /// Streaming: the same for a var-size field: `values` (little-endian
  /// bytes) of the tile's cells, `offsets[c]` where cell c starts, in bytes
  /// from the tile's start.
  void stream_var(field_tiles& out, const field_info& f, std::span<const std::byte> values,
                  std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) const {
    auto& s = *out.stream;
    std::vector<std::byte> var_tile;
    var_tile_into(out, f, *s.pipeline, s.context, *s.offsets_pipeline, s.offsets_context, s.skip_offsets, values,
                  offsets, validity, tile_num() - 1, 0, s.offsets_tile, var_tile);
    out.set = true;
  }

  /// Writes the fragment: data files, `__fragment_metadata.tdb`, then the
  /// commit marker. Returns the fragment's name. A streamed fragment keeps
  /// the name it was given by begin_stream (`opt` is not used).
  std::string commit(const write_options& opt, const fragment_shape& shape) {
    if (committed_) throw std::logic_error(message("commit: already committed"));
    if (!opt.encryption_key.empty() && !std::ranges::equal(opt.encryption_key, key_))
      throw std::invalid_argument(message("commit: the encryption key is not the one the fragment was opened with"));
    for (std::size_t i = 0; i < attrs_.size(); ++i)
      if (!attrs_[i].set)
        throw std::invalid_argument(message("commit: attribute \"" + schema_.attributes[i].name.value +
                                            "\" has no cells (TileDB writes every attribute)"));
    const bool folders = version_ >= 12;
    std::string name;
    fs::path dir;
    if (stream_) {
      name = stream_->first;
      dir = stream_->second;
    } else {
      std::tie(name, dir) = fragment_dir(opt);
    }
    std::vector<std::byte> meta = fragment_metadata(shape);
    if (!stream_) storage_->make_folder(dir);
    auto write_field = [&](const field_info& f, const field_tiles& t) {
      if (t.stream) {
        t.stream->file->commit();
        if (t.stream->var_file) t.stream->var_file->commit();
        if (t.stream->validity_file) t.stream->validity_file->commit();
        return;
      }
      storage_->write(dir / f.file_name(version_, format::DataFile::fixed), t.file);
      if (f.var()) storage_->write(dir / f.file_name(version_, format::DataFile::var), t.var_file);
      if (f.nullable)
        storage_->write(dir / f.file_name(version_, format::DataFile::validity), t.validity_file);
    };
    for (std::size_t i = 0; i < attrs_.size(); ++i) write_field(attribute_spec(i), attrs_[i]);
    if (!shape.dense)
      for (std::size_t d = 0; d < dims_.size(); ++d) write_field(dimension_spec(d), dims_[d]);
    for (std::size_t k = 0; k < specials_.size(); ++k) write_field(special_specs_[k], specials_[k]);
    storage_->write(dir / "__fragment_metadata.tdb", meta);
    if (folders) {
      storage_->make_folder(root_ / "__commits");
      storage_->write(root_ / "__commits" / (name + ".wrt"), std::span<const std::byte>{});
    } else {
      storage_->write(root_ / (name + ".ok"), std::span<const std::byte>{});
    }
    committed_ = true;
    return name;
  }

private:
  /// Empties a field before its tiles are encoded; a streamed field keeps
  /// its files, which must not have a tile yet.
  void restart(field_tiles& out) const {
    if (out.stream && out.stream->file->size() != 0)
      throw std::logic_error(message("set: the field's tiles are written already (a streamed fragment takes each field once)"));
    auto stream = std::move(out.stream);
    out = field_tiles{};
    out.stream = std::move(stream);
  }

  /// A new fragment's name and folder. Fragments live in `__fragments/`
  /// with a `__commits/<name>.wrt` marker from version 12 (libtiledb 2.8);
  /// before, in the array folder, with a `<name>.ok` marker beside them.
  std::pair<std::string, fs::path> fragment_dir(const write_options& opt) const {
    auto [t, label] = name_parts(opt);
    const auto [t1, t2] = time_range_.value_or(std::pair{t, t});
    std::string name = format::make_timestamped_name(t1, t2, label, version_);
    fs::path dir = (version_ >= 12 ? root_ / "__fragments" : root_) / name;
    if (storage_->exists(dir)) throw io_error(dir, "already exists");
    return {std::move(name), std::move(dir)};
  }

  /// Encodes var-size tile `tile` (cells from `first` of the fragment):
  /// `data` its values, `tile_offsets` where each cell starts in bytes from
  /// the tile's start, `validity` the fragment's validity bytes (from
  /// `first`); appends its offsets, var and validity tiles to the field.
  void var_tile_into(field_tiles& out, const field_info& f, const filter::runtime_pipeline& rp,
                     const filter::tile_context& ctx, const filter::runtime_pipeline& offsets_rp,
                     const filter::tile_context& offsets_ctx, bool skip_offsets, std::span<const std::byte> data,
                     std::span<const std::uint64_t> tile_offsets, std::span<const std::uint8_t> validity,
                     std::size_t tile, std::size_t first, std::vector<std::byte>& offset_bytes,
                     std::vector<std::byte>& var_tile) const {
    const std::size_t cells = tile_offsets.size();
    auto put = [&](column<std::byte>& file, std::unique_ptr<storage::file_writer>* to, std::vector<std::uint64_t>& at,
                   std::span<const std::byte> bytes) {
      if (out.stream)
        append_tile(**to, at, bytes);
      else
        append_tile(file, at, bytes);
    };
    field_stream* s = out.stream.get();
    if (skip_offsets) {
      const std::vector<std::byte> empty(8, std::byte{0});
      put(out.file, s ? &s->file : nullptr, out.offsets, empty);
    } else {
      offset_bytes.resize(cells * 8);
      codec::store_le_array(offset_bytes.data(), tile_offsets.data(), cells);
      const auto encoded = offsets_rp.encode(offset_bytes, offsets_ctx);
      put(out.file, s ? &s->file : nullptr, out.offsets, encoded);
    }
    var_tile = rp.encode_var(data, tile_offsets, ctx);
    put(out.var_file, s ? &s->var_file : nullptr, out.var_offsets, var_tile);
    out.var_sizes.push_back(data.size());
    encoded_tile e;
    e.stats = tile_metadata(f, validity, tile, first, cells, e.validity,
                            [&](tile_metadata_generator& g, auto valid, std::size_t b, std::size_t end) {
                              g.var_slab(data, tile_offsets, valid, b, end);
                            });
    take_metadata(out, f, e);
  }

  std::pair<std::size_t, std::size_t> tile_span(std::size_t t) const {
    return {static_cast<std::size_t>(tile_first_[t]), static_cast<std::size_t>(tile_cells_[t])};
  }

  void slabs(std::size_t tile, std::size_t cells, const std::function<void(std::size_t, std::size_t)>& f) const {
    if (slabs_)
      slabs_(tile, cells, f);
    else
      f(0, cells);
  }

  /// One tile encoded by a worker thread: its data, its validity tile
  /// (nullable fields) and its metadata.
  struct encoded_tile {
    std::vector<std::byte> data, validity;
    tile_stats stats;
  };

  /// Runs encode(t, scratch, result) for every tile t on up to threads_
  /// threads and take(t, result) on this thread, in tile order, as the
  /// tiles are done. Threads take the next tile as they become free (a
  /// thread the system stalls holds up no one else), up to a window of tiles
  /// ahead of the next one taken: a few tiles a thread and at least 32 MiB
  /// of cells (`tile_bytes` a tile), which bounds the encoded tiles held
  /// outside their files. Each result slot and each thread's scratch buffer
  /// is reused from tile to tile.
  template <class Result, class Encode, class Take>
  void for_tiles(std::size_t tile_bytes, Encode&& encode, Take&& take) const {
    const std::size_t n = tile_num();
    if (n == 0) return;
    const std::size_t workers = std::min<std::size_t>(thread_count(threads_), n);
    if (workers <= 1) {
      Result result;
      std::vector<std::byte> scratch;
      for (std::size_t t = 0; t < n; ++t) {
        encode(t, scratch, result);
        take(t, result);
      }
      return;
    }
    const std::size_t window =
        std::min(n, std::max<std::size_t>(2 * workers, (std::size_t{32} << 20) / std::max<std::size_t>(1, tile_bytes)));
    std::vector<Result> results(window);
    std::mutex m;
    std::condition_variable cv;
    // Guarded by m: the slots holding a finished tile, the next tile to
    // start, the tiles taken, and the first error.
    std::vector<char> ready(window, 0);
    std::size_t next = 0, taken = 0;
    std::exception_ptr error;
    auto fail = [&](std::exception_ptr e) {
      std::lock_guard<std::mutex> lock(m);
      if (!error) error = e;
      cv.notify_all();
    };
    auto work = [&] {
      std::vector<std::byte> scratch;
      while (true) {
        std::size_t t = 0;
        {
          std::unique_lock<std::mutex> lock(m);
          cv.wait(lock, [&] { return error || next >= n || next < taken + window; });
          if (error || next >= n) return;
          t = next++;
        }
        try {
          encode(t, scratch, results[t % window]);
        } catch (...) {
          return fail(std::current_exception());
        }
        std::lock_guard<std::mutex> lock(m);
        ready[t % window] = 1;
        cv.notify_all();
      }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers);
    try {
      for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);
      for (std::size_t t = 0; t < n; ++t) {
        {
          std::unique_lock<std::mutex> lock(m);
          cv.wait(lock, [&] { return error || ready[t % window]; });
          if (error) break;
        }
        take(t, results[t % window]);
        std::lock_guard<std::mutex> lock(m);
        ready[t % window] = 0;
        ++taken;
        cv.notify_all();
      }
    } catch (...) {
      fail(std::current_exception());
    }
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
  }

  /// A tile's metadata, `feed(generator, validity, start, end)` giving the
  /// generator each slab of the tile, and for nullable fields its validity
  /// tile in `validity_tile`.
  template <class Feed>
  tile_stats tile_metadata(const field_info& f, std::span<const std::uint8_t> validity, std::size_t tile,
                           std::size_t first, std::size_t cells, std::vector<std::byte>& validity_tile,
                           Feed&& feed) const {
    const auto valid = validity.empty() ? validity : validity.subspan(first, cells);
    if (f.nullable) {
      const auto& rp = *validity_pipeline_;
      rp.encode_into(std::as_bytes(valid), context(rp, 1), validity_tile);
    }
    tile_metadata_generator g(f.type, f.cell_val_num, f.var(), f.nullable);
    slabs(tile, cells, [&](std::size_t start, std::size_t n) { feed(g, valid, start, start + n); });
    tile_stats st = g.result();
    if (f.nullable && st.null_count == cells) {
      // An all-null tile keeps the zero min and max TileDB's buffers start
      // with (its writer sets them only for tiles with a non-null cell).
      std::fill(st.min.begin(), st.min.end(), std::byte{0});
      std::fill(st.max.begin(), st.max.end(), std::byte{0});
      if (f.var()) st.min.clear(), st.max.clear();
    }
    return st;
  }

  /// Appends a tile's validity tile and metadata to the field.
  static void take_metadata(field_tiles& out, const field_info& f, encoded_tile& e) {
    if (f.nullable && out.stream)
      append_tile(*out.stream->validity_file, out.validity_offsets, e.validity);
    else if (f.nullable)
      append_tile(out.validity_file, out.validity_offsets, e.validity);
    out.stats.push_back(std::move(e.stats));
  }

  /// The var min/max strings as TileDB's dense writer stores them. Each
  /// tile's string has its own size; but when the array has more
  /// attributes than the fragment has tiles, TileDB writes the tiles one per
  /// batch and copies every batch's strings to tile 0's place, each cut to
  /// tile 0's size (OrderedWriter::dense, the "parallelize over attributes"
  /// branch restarts its index at every batch): tile 0 ends up with the last
  /// tile's strings and the other tiles with zero bytes. Where the last
  /// tile's string is shorter than tile 0's, TileDB reads past its end; the
  /// rest is written here as zeros. Sparse writes index them correctly.
  std::vector<tile_stats> var_min_max_slots(std::vector<tile_stats> stats, bool dense) const {
    if (!dense || schema_.attributes.size() <= tile_num() || stats.empty()) return stats;
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
  std::vector<std::byte> fragment_metadata(const fragment_shape& shape) const {
    const auto& dims = schema_.domain.dimensions.value;
    const std::size_t na = schema_.attributes.size(), nd = dims.size();
    format::FragmentContext ctx;
    ctx.version = version_;
    ctx.num_attributes = na;
    for (const auto& d : dims) ctx.dims.push_back({d.type.value, d.is_var()});
    ctx.has_timestamps = !specials_.empty();
    ctx.has_delete_meta = specials_.size() > 1;
    const std::size_t num = ctx.num_fields();  // attributes, __coords, dimensions, special fields
    const std::size_t coords = ctx.coords_index();
    const format::Datatype coord_type = dims[0].type.value;
    const std::size_t coord_size = format::datatype_size(coord_type);
    const std::size_t tiles = tile_num();

    // The fields with tiles of their own: attributes, the dimensions of
    // sparse fragments and the special fields. `__coords` and dense
    // dimensions have none.
    const std::size_t first_special = coords + 1 + nd;
    auto tiles_of = [&](std::size_t k) -> const field_tiles* {
      if (k < na) return &attrs_[k];
      if (k >= first_special) return &specials_[k - first_special];
      if (!shape.dense && k > coords && k - coords - 1 < nd) return &dims_[k - coords - 1];
      return nullptr;
    };
    auto spec_of = [&](std::size_t k) {
      if (k >= first_special) return special_specs_[k - first_special];
      return k < na ? attribute_spec(k) : dimension_spec(k - coords - 1);
    };
    auto var = [&](std::size_t k) { return tiles_of(k) && spec_of(k).var(); };
    auto nullable = [&](std::size_t k) { return k < na && schema_.attributes[k].nullable.value; };

    std::vector<std::vector<tile_stats>> var_slots(na);
    for (std::size_t k = 0; k < na; ++k)
      if (schema_.attributes[k].is_var())
        var_slots[k] = var_min_max_slots(attrs_[k].stats, shape.dense && !shape.global_order);

    std::vector<std::byte> file;
    auto section = [&](const auto& payload) {
      const std::uint64_t at = file.size();
      auto tile = generic_tile(codec::encode(payload, ctx));
      file.insert(file.end(), tile.begin(), tile.end());
      return at;
    };

    format::Footer f{};
    f.version = version_;
    f.array_schema_name.value.value = schema_name_;
    f.dense = shape.dense;
    f.null_non_empty_domain = false;
    f.non_empty_domain = shape.non_empty_domain;
    f.sparse_tile_num = shape.sparse_tile_num;
    f.last_tile_cell_num = shape.last_tile_cell_num;
    f.has_timestamps.value = ctx.has_timestamps;
    f.has_delete_meta.value = ctx.has_delete_meta;
    f.file_sizes.value.assign(num, 0);
    f.file_var_sizes.value.assign(num, 0);
    if (version_ >= 7) f.file_validity_sizes.value.assign(num, 0);
    for (std::size_t k = 0; k < num; ++k)
      if (const auto* t = tiles_of(k)) {
        f.file_sizes.value[k] = t->file_size();
        f.file_var_sizes.value[k] = t->var_file_size();
        if (version_ >= 7) f.file_validity_sizes.value[k] = t->validity_file_size();
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
    if (version_ >= 7)
      per_field([&](std::size_t k) { return format::TileOffsets{{nullable(k) ? attrs_[k].validity_offsets : zeros}}; },
                f.tile_validity_offsets);

    // `__coords` is not a dimension to TileDB's metadata generator: it gets
    // zero-filled min/max cells (all coordinates of a cell) and zero sums.
    // Dimensions get sums (sparse only) but never min/max.
    const bool coords_min_max = has_min_max(coord_type, 1);
    const bool coords_sum = has_sum(coord_type, 1);
    if (version_ >= 11) {
      auto min_max = [&](bool want_min) {
        return [&, want_min](std::size_t k) {
          format::TileMinMax m{};
          if (var(k) && k < na) {
            // Var fields: a u64 offset per tile into the concatenated strings.
            if (has_var_min_max(schema_.attributes[k].type)) {
              m.fixed.resize(tiles * 8);
              for (std::size_t t = 0; t < tiles; ++t) {
                const auto& v = want_min ? var_slots[k][t].min : var_slots[k][t].max;
                codec::store_le<std::uint64_t>(m.fixed.data() + t * 8, m.var.size());
                m.var.insert(m.var.end(), v.begin(), v.end());
              }
            }
          } else if (k < na && has_min_max(schema_.attributes[k].type, schema_.attributes[k].cell_val_num)) {
            for (const auto& s : attrs_[k].stats) {
              const auto& v = want_min ? s.min : s.max;
              m.fixed.insert(m.fixed.end(), v.begin(), v.end());
            }
          } else if (k == coords && coords_min_max) {
            m.fixed.assign(tiles * nd * coord_size, std::byte{0});
          } else if (k >= first_special) {
            for (const auto& s : specials_[k - first_special].stats) {
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
              for (const auto& st : attrs_[k].stats) n.null_counts.value.push_back(st.null_count);
            return n;
          },
          f.tile_null_count_offsets);

    }
    if (version_ >= 12) {
      format::FragmentMinMaxSumNullCount summary;
      for (std::size_t k = 0; k < num; ++k) {
        format::FieldMinMaxSumNullCount e{};
        if (k < na) {
          e = fold_stats(schema_.attributes[k], var(k) ? var_slots[k] : attrs_[k].stats, tile_cells_);
        } else if (k >= first_special) {
          // TileDB folds its special fields as it folds a UINT64 attribute.
          format::Attribute u64{};
          u64.type = format::Datatype::UINT64;
          u64.cell_val_num = 1;
          e = fold_stats(u64, specials_[k - first_special].stats, tile_cells_);
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
    if (version_ >= 15) {
      format::ProcessedConditions pc{};
      for (const auto& c : shape.processed_conditions) pc.conditions.value.emplace_back().value = c;
      const std::uint64_t at = section(pc);
      if (version_ >= 16) f.processed_conditions_offset.value = at;
    }

    auto footer = format::write_footer(f, ctx);
    file.insert(file.end(), footer.begin(), footer.end());
    return file;
  }

  fs::path root_;
  std::string who_;
  std::shared_ptr<storage::backend> storage_;
  std::vector<std::uint8_t> key_;  // the array's encryption key; empty: not encrypted
  format::ArraySchema schema_;
  std::string schema_name_;
  std::uint32_t version_ = format::written_version;  // the array's, and so the fragment's
  std::vector<std::uint64_t> tile_cells_, tile_first_;
  slab_plan slabs_;
  std::optional<filter::runtime_pipeline> validity_pipeline_;  // built once: every nullable tile uses it
  std::vector<field_tiles> attrs_, dims_;
  std::vector<field_tiles> specials_;       // __timestamps, __delete_timestamps, __delete_condition_index
  std::vector<field_info> special_specs_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> time_range_;
  unsigned threads_ = 0;
  bool committed_ = false;
  /// A streamed fragment's name and folder (begin_stream); a pointer, so
  /// that a builder moved from has none to drop.
  std::unique_ptr<std::pair<std::string, fs::path>> stream_;
};

} // namespace detail
} // namespace tilefmt::array
