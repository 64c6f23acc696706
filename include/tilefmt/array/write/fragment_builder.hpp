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
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/array/support/in_order.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/array/write/cell_checks.hpp"
#include "tilefmt/array/write/field_tiles.hpp"
#include "tilefmt/array/write/fragment_metadata_file.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/array/write/tile_encoder.hpp"
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

/// The writers' door for fragments that rewrite others (rewrite_access.hpp).
struct rewrite_access;

/// The cells of tile `tile` for encoding (little-endian bytes): a view of
/// the caller's cells where the tile lies among them as stored, or the cells
/// gathered into `scratch`, the buffer of the thread encoding the tile
/// (reused from tile to tile).
using tile_cells = std::function<std::span<const std::byte>(std::size_t tile, std::vector<std::byte>& scratch)>;

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

  /// The checks of what a set() or set_var() was given (cell_checks.hpp),
  /// refused once the fragment is committed.
  cell_checks checks() const {
    if (committed_) throw std::logic_error(message("set: the fragment is already committed"));
    return cell_checks(schema_, version_, who_);
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
    restart(out, f);
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
    // A tile streamed through no filters from the caller's cells (not a worker's scratch, reused
    // by then) goes to its file as chunk headers around them: no encoded copy (from_numpy).
    const bool direct = out.stream && !own && rp->stages().empty();
    const std::size_t largest = tile_cells_.empty() ? 0 : static_cast<std::size_t>(tile_cells_.front());
    for_tiles<encoded_tile>(
        largest * cell_size,
        [&](std::size_t t, std::vector<std::byte>& scratch, encoded_tile& e) {
          const auto [first, cells] = tile_span(t);
          const auto tile = cells_of(t, scratch);
          const bool as_is = direct && tile.data() != scratch.data();
          e.raw = as_is ? tile : std::span<const std::byte>{};
          if (!as_is) own ? encoder(tile, e.data) : rp->encode_into(tile, ctx, e.data);
          e.stats = tile_metadata(f, validity, t, first, cells, e.validity,
                                  [&](tile_metadata_generator& g, auto valid, std::size_t b, std::size_t end) {
                                    g.fixed_slab(tile, cell_size, valid, b, end);
                                  });
        },
        [&](std::size_t t, encoded_tile& e) {
          if (e.raw.data())
            append_unfiltered(*out.stream->file, out.offsets, *rp, ctx, e.raw);
          else if (out.stream)
            append_tile(*out.stream->file, out.offsets, e.data);  // to storage, as the next tiles encode
          else {
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
    restart(out, f);
    const filter::runtime_pipeline rp = pipeline(*f.filters, f.type);
    const filter::tile_context ctx = context(rp, format::datatype_size(f.type));
    const filter::runtime_pipeline offsets_rp = pipeline(schema_.offsets_filters, format::Datatype::UINT64);
    const filter::tile_context offsets_ctx = context(offsets_rp, 8);
    // RLE and DICTIONARY on strings carry the offsets in the var tile; the
    // offsets file then holds a tile of no chunks (WriterBase::filter_tile).
    const bool skip_offsets = filter::skip_offsets_filtering(*f.filters, f.type, version_);
    // Tiles encode on the workers, and go to the files in order.
    for_tiles<encoded_var_tile>(
        tile_num() ? values.size() / tile_num() + 8 * static_cast<std::size_t>(tile_cells_.front()) : 0,
        [&](std::size_t t, std::vector<std::byte>& offset_bytes, encoded_var_tile& e) {
          const auto [first, cells] = tile_span(t);
          const std::size_t begin = static_cast<std::size_t>(offsets[first]) * value_size;
          const std::size_t end = first + cells < offsets.size()
                                      ? static_cast<std::size_t>(offsets[first + cells]) * value_size
                                      : values.size();
          std::vector<std::uint64_t> tile_offsets(cells);
          for (std::size_t c = 0; c < cells; ++c)
            tile_offsets[c] = offsets[first + c] * value_size - begin;  // bytes, from the tile's start
          encode_var_tile(f, rp, ctx, offsets_rp, offsets_ctx, skip_offsets, values.subspan(begin, end - begin),
                          tile_offsets, validity, t, first, offset_bytes, e);
        },
        [&](std::size_t, encoded_var_tile& e) { take_var_tile(out, f, e); });
    out.set = true;
  }

  /// Streams the fragment's tiles: names the fragment now, makes its folder
  /// and opens each field's data files (attributes, and dimensions unless
  /// `dense`), which then take each tile as it is encoded (encode_*, or
  /// stream_fixed()/stream_var() after add_tile()); commit() commits them
  /// before the fragment metadata. `provisional`: the name is the folder's
  /// only; commit() names the fragment from its options, as unstreamed, and
  /// moves each file there (file_writer::commit_as: storage that
  /// streams_writes()).
  void begin_stream(const write_options& opt, bool dense, bool provisional = false) {
    if (stream_) throw std::logic_error(message("the fragment is already being written"));
    auto [name, dir] = fragment_dir(opt);
    storage_->make_folder(dir);
    stream_ = std::make_unique<stream_folder>(stream_folder{std::move(name), std::move(dir), provisional});
    for (std::size_t i = 0; i < attrs_.size(); ++i) open_stream(attrs_[i], attribute_spec(i));
    if (!dense)
      for (std::size_t d = 0; d < dims_.size(); ++d) open_stream(dims_[d], dimension_spec(d));
  }
  /// A dense fragment's files streamed under a provisional name
  /// (begin_stream) where the storage can move them at commit, so that its
  /// encoded tiles are never held whole; nothing where it streams already.
  void stream_where_possible() {
    if (!stream_ && !committed_ && storage_->streams_writes()) begin_stream({}, true, true);
  }
  bool streaming() const noexcept { return stream_ != nullptr; }
  /// A streamed fragment given up: its open data files dropped (their
  /// temporary files removed), then its folder; after a commit, a
  /// provisional stream's folder (its files moved out). Best effort: a
  /// folder left without a commit marker is no fragment, readers skip it.
  void drop_stream() noexcept {
    if (!stream_ || (committed_ && !stream_->provisional)) return;
    for (auto* v : {&attrs_, &dims_})
      for (auto& t : *v) t.stream.reset();
    try {
      storage_->remove(stream_->dir);
    } catch (...) {
    }
    stream_.reset();
  }
  fragment_builder(fragment_builder&&) = default;
  fragment_builder& operator=(fragment_builder&&) = default;
  /// An uncommitted streamed fragment is dropped (drop_stream).
  ~fragment_builder() { drop_stream(); }
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
    encoded_var_tile e;
    encode_var_tile(f, *s.pipeline, s.context, *s.offsets_pipeline, s.offsets_context, s.skip_offsets, values, offsets,
                    validity, tile_num() - 1, 0, s.offsets_tile, e);
    take_var_tile(out, f, e);
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
    // A provisional stream's files move into the folder named now.
    const bool named = stream_ && !stream_->provisional;
    const auto where = named ? std::pair{stream_->name, stream_->dir} : fragment_dir(opt);
    const std::string& name = where.first;
    const fs::path& dir = where.second;
    std::vector<std::byte> meta = fragment_metadata_file(
        {schema_, schema_name_, version_, key_, tile_cells_, attrs_, dims_, specials_, special_specs_}, shape);
    if (!named) storage_->make_folder(dir);
    // Every data file and the metadata are uploads of their own, run
    // together on an object store (write_options::io_concurrency); the
    // commit marker goes after all of them, so that a fragment is seen
    // only whole.
    std::vector<std::function<void()>> uploads;
    auto write_field = [&](const field_info& f, const field_tiles& t) {
      using enum format::DataFile;
      if (t.stream) {
        for (const auto& [file, kind] : {std::pair{&t.stream->file, fixed}, {&t.stream->var_file, var},
                                         {&t.stream->validity_file, validity}})
          if (*file)
            uploads.emplace_back([w = file->get(), to = named ? fs::path() : dir / f.file_name(version_, kind)] {
              to.empty() ? w->commit() : w->commit_as(to);
            });
        return;
      }
      auto upload = [&](format::DataFile kind, std::span<const std::byte> bytes) {
        uploads.emplace_back([this, path = dir / f.file_name(version_, kind), bytes] { storage_->write(path, bytes); });
      };
      upload(fixed, t.file);
      if (f.var()) upload(var, t.var_file);
      if (f.nullable) upload(validity, t.validity_file);
    };
    for (std::size_t i = 0; i < attrs_.size(); ++i) write_field(attribute_spec(i), attrs_[i]);
    if (!shape.dense)
      for (std::size_t d = 0; d < dims_.size(); ++d) write_field(dimension_spec(d), dims_[d]);
    for (std::size_t k = 0; k < specials_.size(); ++k) write_field(special_specs_[k], specials_[k]);
    uploads.emplace_back([&] { storage_->write(dir / "__fragment_metadata.tdb", meta); });
    const unsigned in_flight = opt.io_concurrency ? opt.io_concurrency : storage_->prefers_merged_reads() ? 16u : 1u;
    parallel_for(uploads.size(), in_flight, [&](std::size_t i) { uploads[i](); });
    if (folders) {
      storage_->make_folder(root_ / "__commits");
      storage_->write(root_ / "__commits" / (name + ".wrt"), std::span<const std::byte>{});
    } else {
      storage_->write(root_ / (name + ".ok"), std::span<const std::byte>{});
    }
    committed_ = true;
    if (!named) drop_stream();
    return name;
  }

private:
  /// Empties a field before its tiles are encoded; a streamed field keeps
  /// its files, opened anew if a tile went to them (the field set again).
  void restart(field_tiles& out, const field_info& f) const {
    auto stream = std::move(out.stream);
    out = field_tiles{};
    if (stream && stream->file->size() != 0) {
      stream.reset();  // first: the old writers' temporary files go
      open_stream(out, f);
    } else {
      out.stream = std::move(stream);
    }
  }

  /// Opens a streamed field's data files in the stream's folder and builds
  /// its pipelines.
  void open_stream(field_tiles& t, const field_info& f) const {
    t = field_tiles{};
    auto s = std::make_unique<field_stream>();
    const fs::path& d = stream_->dir;
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

  /// One tile encoded by a worker thread: its data, its validity tile
  /// (nullable fields) and its metadata.
  struct encoded_tile {
    std::vector<std::byte> data, validity;
    tile_stats stats;
    std::span<const std::byte> raw;  // a tile of no filters, as given: it stands for `data`
  };

  /// One var-size tile encoded: its offsets tile, its var tile, the var
  /// tile's size before filtering, and its validity and metadata.
  struct encoded_var_tile {
    std::vector<std::byte> offsets, data;
    std::size_t var_size = 0;
    encoded_tile meta;
  };

  /// Encodes var-size tile `tile` (cells from `first` of the fragment), on
  /// any thread: `data` its values, `tile_offsets` where each cell starts in
  /// bytes from the tile's start, `validity` the fragment's validity bytes
  /// (from `first`); take_var_tile() then appends it to the field.
  void encode_var_tile(const field_info& f, const filter::runtime_pipeline& rp, const filter::tile_context& ctx,
                       const filter::runtime_pipeline& offsets_rp, const filter::tile_context& offsets_ctx,
                       bool skip_offsets, std::span<const std::byte> data, std::span<const std::uint64_t> tile_offsets,
                       std::span<const std::uint8_t> validity, std::size_t tile, std::size_t first,
                       std::vector<std::byte>& offset_bytes, encoded_var_tile& e) const {
    const std::size_t cells = tile_offsets.size();
    if (skip_offsets) {
      e.offsets.assign(8, std::byte{0});  // RLE / DICTIONARY strings: a tile of no chunks
    } else {
      offset_bytes.resize(cells * 8);
      codec::store_le_array(offset_bytes.data(), tile_offsets.data(), cells);
      e.offsets = offsets_rp.encode(offset_bytes, offsets_ctx);
    }
    e.data = rp.encode_var(data, tile_offsets, ctx);
    e.var_size = data.size();
    e.meta.stats = tile_metadata(f, validity, tile, first, cells, e.meta.validity,
                                 [&](tile_metadata_generator& g, auto valid, std::size_t b, std::size_t end) {
                                   g.var_slab(data, tile_offsets, valid, b, end);
                                 });
  }

  /// Appends an encoded var tile to its field's files (or streams), in tile order.
  static void take_var_tile(field_tiles& out, const field_info& f, encoded_var_tile& e) {
    field_stream* s = out.stream.get();
    if (s) {
      append_tile(*s->file, out.offsets, e.offsets);
      append_tile(*s->var_file, out.var_offsets, e.data);
    } else {
      append_tile(out.file, out.offsets, e.offsets);
      append_tile(out.var_file, out.var_offsets, e.data);
    }
    out.var_sizes.push_back(e.var_size);
    take_metadata(out, f, e.meta);
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


  /// Runs encode(t, scratch, result) for every tile t on up to threads_
  /// threads and take(t, result) on this thread, in tile order, as the
  /// tiles are done (support/in_order.hpp), at most a window of tiles ahead
  /// of the next one taken: a few tiles a thread and at least 32 MiB of
  /// cells (`tile_bytes` a tile), which bounds the encoded tiles held
  /// outside their files.
  template <class Result, class Encode, class Take>
  void for_tiles(std::size_t tile_bytes, Encode&& encode, Take&& take) const {
    const std::size_t n = tile_num();
    const std::size_t workers = std::min<std::size_t>(thread_count(threads_), n);
    const std::size_t window =
        std::min(n, std::max<std::size_t>(2 * workers, (std::size_t{32} << 20) / std::max<std::size_t>(1, tile_bytes)));
    for_each_in_order<Result>(n, workers, window, encode, take);
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
  struct stream_folder {
    std::string name;
    fs::path dir;
    bool provisional = false;  // the name is the folder's only (begin_stream)
  };
  std::unique_ptr<stream_folder> stream_;
};

} // namespace detail
} // namespace tilefmt::array
