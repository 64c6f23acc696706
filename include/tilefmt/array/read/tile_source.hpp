// tilefmt — where a fragment's tiles come from: the run-time pipelines that
// unfilter them and the reads of their bytes through the storage backend,
// at the places the fragment metadata's sections give (fragment_sections.hpp).
//
// A tile's way from file to values: `sections().stored_range` gives where
// the tile is in its data file (its offset, and the next tile's offset or
// the file size from the footer, its end); `fetch` reads those bytes and checks that the chunk
// headers add up to the unfiltered size the caller expects, before that
// much is allocated; `pipeline` runs the filters in reverse into the
// caller's buffer. A tile stored in more than open_options::tile_read_window
// bytes is not fetched whole where the storage takes small requests well:
// `stream_chunks` reads it a window at a time and each chunk is decoded as
// it comes, so that a decoding thread holds a window and a chunk, not the
// stored tile beside the decoded one.
//
// Every const member is safe to call from many threads: the section and
// pipeline caches are once_maps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/options.hpp"
#include "tilefmt/array/read/fetched_tiles.hpp"
#include "tilefmt/array/read/fragment_sections.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/array/support/once_map.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/array/support/resident.hpp"
#include "tilefmt/filter/encryption_aes256gcm.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/tile.hpp"

namespace tilefmt::array::detail {

class tile_source {
public:
  using section_kind = fragment_sections::section_kind;
  using fragment_files = fragment_sections::fragment_files;

  tile_source(fragment_files files, std::shared_ptr<const format::ArraySchema> schema, open_options opt)
      : sections_(std::move(files), opt), schema_(std::move(schema)), opt_(std::move(opt)) {}

  const format::ArraySchema& schema() const noexcept { return *schema_; }
  const std::shared_ptr<const format::ArraySchema>& schema_ptr() const noexcept { return schema_; }
  const open_options& options() const noexcept { return opt_; }

  /// The fragment metadata's sections (tile offsets, sizes, tile metadata,
  /// and any other generic tile of `__fragment_metadata.tdb`).
  const fragment_sections& sections() const noexcept { return sections_; }
  /// Before the source is shared: sections that came from elsewhere.
  fragment_sections& sections() noexcept { return sections_; }

  std::uint32_t version() const noexcept { return sections_.version(); }
  const format::Footer& footer() const noexcept { return sections_.footer(); }
  const format::FragmentContext& context() const noexcept { return sections_.context(); }
  const fs::path& folder() const noexcept { return sections_.folder(); }

  /// A per-field section, decoded once.
  const std::vector<std::uint64_t>& section(section_kind k, const field_info& f) const { return sections_.section(k, f); }

  /// The run-time pipeline of `filters` over `type`, built once; encrypted
  /// arrays end every pipeline with AES-256-GCM.
  const filter::runtime_pipeline& pipeline(const format::FilterPipeline& filters, format::Datatype type) const {
    return pipelines_.get({&filters, type}, [&] {
      filter::runtime_pipeline rp(filters, type, schema_->version.value);
      if (!opt_.encryption_key.empty()) rp.append(filter::encryption_aes256gcm{});
      return rp;
    });
  }

  /// The pipeline that unfilters `which` of field `f`.
  const filter::runtime_pipeline& pipeline(const field_info& f, format::DataFile which) const {
    if (which == format::DataFile::validity) return pipeline(schema_->validity_filters.value, format::Datatype::UINT8);
    if (which == format::DataFile::fixed && f.var()) return pipeline(schema_->offsets_filters, format::Datatype::UINT64);
    return pipeline(*f.filters, f.type);
  }

  /// Loads what reading `f`'s tiles needs, so that threads then only look it up.
  void prepare(const field_info& f) const {
    (void)section(section_kind::offsets, f);
    (void)pipeline(f, format::DataFile::fixed);
    if (f.var()) {
      (void)section(section_kind::var_offsets, f);
      (void)section(section_kind::var_sizes, f);
      (void)pipeline(f, format::DataFile::var);
    }
    if (f.nullable) {
      (void)section(section_kind::validity_offsets, f);
      (void)pipeline(f, format::DataFile::validity);
    }
  }

  fs::path file_path(const field_info& f, format::DataFile which) const { return sections_.file_path(f, which); }

  /// The stored bytes of tiles `tiles` of `f` (each of its files), read
  /// with one read_range per run of tiles adjacent in a file (at most
  /// `merged_read_limit` bytes), `requests` at once (0: the array's
  /// threads), when the backend prefers merged reads; else nothing. A run that cannot be read
  /// (a file shorter than the footer says, offsets out of order) is left
  /// out: fetch then reads its tiles one by one and says what is wrong.
  fetched_tiles fetch_ahead(const field_info& f, std::vector<std::size_t> tiles, unsigned requests = 0) const {
    fetched_tiles out;
    if (!sections_.storage()->prefers_merged_reads() || sections_.version() == 0 || f.in_coords_file) return out;
    std::sort(tiles.begin(), tiles.end());
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    std::vector<format::DataFile> which{format::DataFile::fixed};
    if (f.var()) which.push_back(format::DataFile::var);
    if (f.nullable) which.push_back(format::DataFile::validity);
    const std::uint64_t limit = std::min(merged_read_limit, opt_.max_allocation);
    std::vector<std::uint64_t> begins;  // of each run, in its file
    for (const auto w : which) {
      const auto& offsets = sections_.offsets_of(f, w);
      const std::uint64_t file_size = sections_.file_size_of(f, w);
      auto end_of = [&](std::size_t i) { return i + 1 < offsets.size() ? offsets[i + 1] : file_size; };
      for (std::size_t a = 0; a < tiles.size() && tiles[a] < offsets.size();) {
        fetched_tiles::run r{w, tiles[a], {}, {}};
        const std::uint64_t begin = offsets[tiles[a]];
        std::size_t b = a;
        for (; b < tiles.size() && tiles[b] < offsets.size() && tiles[b] == tiles[a] + (b - a); ++b) {
          const std::uint64_t end = end_of(tiles[b]);
          const std::uint64_t last = r.ends.empty() ? 0 : r.ends.back();
          if (end < begin || end - begin < last || (end - begin > limit && b > a)) break;
          r.ends.push_back(end - begin);
        }
        if (r.ends.empty() || r.ends.back() > limit) {  // out of order or too large: fetch's errors
          a = std::max(b, a + 1);
          continue;
        }
        out.runs_.push_back(std::move(r));
        begins.push_back(begin);
        a = b;
      }
    }
    std::vector<char> read(out.runs_.size(), 0);
    detail::parallel_for(out.runs_.size(), requests ? requests : opt_.threads, [&](std::size_t k) {
      auto& r = out.runs_[k];
      try {
        r.bytes = sections_.storage()->read_range(file_path(f, r.which), begins[k], r.ends.back());
        read[k] = 1;
      } catch (const io_error&) {
      }
    });
    fetched_tiles kept;
    for (std::size_t k = 0; k < out.runs_.size(); ++k)
      if (read[k]) kept.runs_.push_back(std::move(out.runs_[k]));
    return kept;
  }

  /// Tiles [0, n) of `f` as runs [first, last) of adjacent tiles for a
  /// whole-column read to fetch_ahead one at a time: one run of all of them
  /// where the backend does not prefer merged reads (nothing is fetched
  /// ahead there), else runs whose stored bytes, in all of the field's
  /// files, add up to at most `limit` (or one tile larger than that), so
  /// that a column of any size is fetched in bounded pieces.
  std::vector<std::pair<std::size_t, std::size_t>> tile_batches(const field_info& f, std::size_t n,
                                                                std::uint64_t limit) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    if (n == 0) return out;
    if (!sections_.storage()->prefers_merged_reads() || sections_.version() == 0 || f.in_coords_file) return {{0, n}};
    std::vector<std::pair<const std::vector<std::uint64_t>*, std::uint64_t>> files;
    auto add = [&](format::DataFile w) { files.emplace_back(&sections_.offsets_of(f, w), sections_.file_size_of(f, w)); };
    add(format::DataFile::fixed);
    if (f.var()) add(format::DataFile::var);
    if (f.nullable) add(format::DataFile::validity);
    // A tile's stored size as its offsets say (0 where they do not add up:
    // fetch then reports the damage).
    auto stored = [&](std::size_t i) {
      std::uint64_t total = 0;
      for (const auto& [offsets, file_size] : files) {
        if (i >= offsets->size()) continue;
        const std::uint64_t begin = (*offsets)[i], end = i + 1 < offsets->size() ? (*offsets)[i + 1] : file_size;
        if (end >= begin) total += std::min(end - begin, limit);
      }
      return total;
    };
    std::size_t first = 0;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t b = stored(i);
      if (i > first && bytes + b > limit) {
        out.emplace_back(first, i);
        first = i;
        bytes = 0;
      }
      bytes += b;
    }
    out.emplace_back(first, n);
    return out;
  }

  /// Tile `i` of `which` of `f`, unfiltered: `expected` bytes of cells of
  /// `cell_size` bytes. For RLE and dictionary strings, the var tile
  /// rebuilds the cell offsets into `rebuilt_offsets`. Its stored bytes
  /// come from `ahead` when it holds them.
  column<std::byte> read(const field_info& f, format::DataFile which, std::size_t i, std::uint64_t expected,
                         std::size_t cell_size, std::vector<std::uint64_t>* rebuilt_offsets = nullptr,
                              const fetched_tiles* ahead = nullptr) const {
    if (!rebuilt_offsets) {  // (tiles whose offsets the var tile rebuilds are one chunk: read whole)
      const auto ctx = decode_context(cell_size, nullptr);
      std::optional<filter::runtime_pipeline::chunk_decoder> decoder;
      column<std::byte> out;
      // Sized when the first chunk header has been checked (a tile of no
      // chunks holds nothing, and fails stream_chunks' checks unless
      // nothing is expected).
      if (stream_chunks(f, which, i, expected, ahead, [&](std::uint64_t at, const stored_chunk& c) {
            if (!decoder) {
              decoder.emplace(pipeline(f, which), ctx);
              out.resize(static_cast<std::size_t>(expected));
            }
            decode_chunk(*decoder, c, std::span(out).subspan(static_cast<std::size_t>(at), c.original_length));
          }))
        return out;
    }
    auto t = fetch(f, which, i, expected, ahead);
    if (!t.view) return column<std::byte>(t.bytes.begin(), t.bytes.end());
    column<std::byte> out(static_cast<std::size_t>(expected));
    unfilter(f, which, t, out, cell_size, rebuilt_offsets);
    return out;
  }

  /// Tiles from this size on that decode straight into a buffer already in
  /// memory (resident.hpp: a result buffer reused from read to read) are
  /// written around the caches where the last filter can
  /// (tile_context::stream_destination): larger than a core's L2, so that
  /// a tile's first chunks are out of it by the time its last is decoded
  /// anyway, and the stores skip reading each line before writing it.
  static constexpr std::size_t streamed_tile_bytes = std::size_t{1} << 20;

  /// Tile `i` of `f`'s file `which` (values of `cell_size` bytes),
  /// unfiltered straight into `out`, which holds exactly its bytes.
  void read_into(const field_info& f, format::DataFile which, std::size_t i, std::span<std::byte> out,
                 std::size_t cell_size, const fetched_tiles* ahead = nullptr) const {
    auto ctx = decode_context(cell_size, nullptr);
    ctx.stream_destination = out.size() >= streamed_tile_bytes && resident(out);
    std::optional<filter::runtime_pipeline::chunk_decoder> decoder;
    if (stream_chunks(f, which, i, out.size(), ahead, [&](std::uint64_t at, const stored_chunk& c) {
          if (!decoder) decoder.emplace(pipeline(f, which), ctx);
          decode_chunk(*decoder, c, out.subspan(static_cast<std::size_t>(at), c.original_length));
        }))
      return;
    auto t = fetch(f, which, i, out.size(), ahead);
    if (!t.view) {
      std::memcpy(out.data(), t.bytes.data(), t.bytes.size());
      return;
    }
    decoding(f, which, t, [&] { pipeline(f, which).decode_into(*t.view, out, ctx); });
  }

  /// Tile `i` of `f`'s fixed file (`expected` bytes), unfiltered a chunk at
  /// a time into one buffer: `want(begin, end)` and `take(begin, bytes)`
  /// count bytes of the unfiltered tile, and each piece holds whole cells
  /// (wanted_chunks says which come whole).
  void read_chunks(const field_info& f, std::size_t i, std::uint64_t expected, const fetched_tiles* ahead,
                   function_ref<bool(std::size_t, std::size_t)> want,
                   function_ref<void(std::size_t, std::span<const std::byte>)> take) const {
    std::vector<std::byte> chunk;
    wanted_chunks(
        f, i, expected, ahead, want,
        [&](filter::runtime_pipeline::chunk_decoder& d, const stored_chunk& c, std::size_t begin) {
          chunk.resize(c.original_length);
          decode_chunk(d, c, chunk);
          take(begin, std::span<const std::byte>(chunk));
        },
        take);
  }

  /// Of tile `i` of `f`'s fixed file (`expected` bytes), only the bytes
  /// `pieces` name (`begin` counting bytes of the unfiltered tile; sorted
  /// by it, each of whole cells), each written to its destination. Only
  /// the chunks that hold some are decoded, and a pipeline whose first
  /// filter can (a byte shuffle) writes them there itself: no buffer for a
  /// chunk, no copy (runner::reverse_chunk_pieces).
  void read_pieces(const field_info& f, std::size_t i, std::uint64_t expected, const fetched_tiles* ahead,
                   std::span<const filter::chunk_piece> pieces) const {
    std::vector<filter::chunk_piece> in_chunk;
    std::size_t longest = 1;
    for (const auto& p : pieces) longest = std::max(longest, p.size);
    // The parts of `pieces` within tile bytes [begin, end), relative to
    // begin. None starting before begin - longest reaches begin: a tile
    // read a cell here and a cell there (a sparse box) has thousands.
    auto clip = [&](std::size_t begin, std::size_t end) {
      in_chunk.clear();
      const std::size_t from = begin >= longest ? begin - longest + 1 : 0;
      const auto first = std::partition_point(pieces.begin(), pieces.end(),
                                              [from](const filter::chunk_piece& p) { return p.begin < from; });
      for (const auto& p : std::span(first, pieces.end())) {
        if (p.begin >= end) break;
        const std::size_t a = std::max(p.begin, begin), b = std::min(p.begin + p.size, end);
        if (a < b) in_chunk.push_back({a - begin, b - a, p.dest + (a - p.begin)});
      }
    };
    wanted_chunks(
        f, i, expected, ahead,
        [&](std::size_t begin, std::size_t end) {
          clip(begin, end);
          return !in_chunk.empty();
        },
        [&](filter::runtime_pipeline::chunk_decoder& d, const stored_chunk& c, std::size_t begin) {
          clip(begin, begin + c.original_length);
          naming_chunk(c, [&] { d.decode_pieces(c.metadata, c.data, c.original_length, in_chunk); });
        },
        [&](std::size_t begin, std::span<const std::byte> bytes) {
          clip(begin, begin + bytes.size());
          for (const auto& p : in_chunk) std::memcpy(p.dest, bytes.data() + p.begin, p.size);
        });
  }

  /// The most bytes fetch_ahead reads with one request.
  static constexpr std::uint64_t merged_read_limit = std::uint64_t{64} << 20;

private:
  /// A tile's stored bytes and, except for TileDB 1.3, its chunks (pointing
  /// into bytes). The bytes are those fetched ahead, or read here into
  /// `read`, a buffer not zeroed first (moving it keeps the bytes in place).
  struct fetched_tile {
    column<std::byte> read;
    std::span<const std::byte> bytes;
    std::optional<format::TileView> view;
    std::uint64_t begin = 0;
  };


  /// One chunk of a tile read a piece at a time: its header's original
  /// length, its metadata and data (valid during the call that gets them),
  /// its index and where its header is in the file.
  struct stored_chunk {
    std::size_t index;
    std::uint64_t offset;
    std::uint32_t original_length;
    std::span<const std::byte> metadata, data;
  };

  /// Reads tile i's chunks through a buffer of about
  /// open_options::tile_read_window bytes (or one chunk, if larger) and
  /// hands each in order to `each(at, chunk)`, `at` being where its bytes
  /// start in the unfiltered tile: a tile larger than the window is never
  /// held whole. False, and nothing read, where the tile is read whole
  /// instead: no larger than the window, fetched ahead, on storage that
  /// prefers few requests, or stored without chunks (TileDB 1.3). The chunk
  /// headers are checked as they come: none may decode past `expected`
  /// bytes, and they must add up to it.
  bool stream_chunks(const field_info& f, format::DataFile which, std::size_t i, std::uint64_t expected,
                     const fetched_tiles* ahead, function_ref<void(std::uint64_t, const stored_chunk&)> each) const {
    if (sections_.version() == 0 || sections_.storage()->prefers_merged_reads() || (ahead && ahead->find(which, i))) return false;
    const auto range = sections_.stored_range(f, which, i, expected);
    const std::uint64_t begin = range.first, end = range.second;  // (lambdas below capture them)
    const std::uint64_t window = std::max<std::uint64_t>(opt_.tile_read_window, 1);
    if (end - begin <= window) return false;
    const fs::path file = file_path(f, which);
    column<std::byte> buf;
    std::uint64_t buf_at = 0, buf_len = 0;
    // Bytes [at, at + n) of the file, n <= end - at (checked by the caller).
    auto bytes = [&](std::uint64_t at, std::uint64_t n) -> const std::byte* {
      if (at >= buf_at && at + n <= buf_at + buf_len) return buf.data() + (at - buf_at);
      const std::uint64_t len = std::max(n, std::min(window, end - at));
      if (buf.size() < len) buf = column<std::byte>(static_cast<std::size_t>(len));
      try {
        sections_.storage()->read_range_into(file, at, std::span(buf.data(), static_cast<std::size_t>(len)));
      } catch (const io_error& e) {
        throw format_error(e.what(), static_cast<std::size_t>(at));
      }
      buf_at = at;
      buf_len = len;
      return buf.data();
    };
    naming_file(file, [&] {
      std::uint64_t pos = begin;
      if (end - begin < 8) throw format_error("the tile has no chunk count", static_cast<std::size_t>(begin));
      const auto count = codec::load_le<std::uint64_t>(bytes(pos, 8));
      pos += 8;
      if (count > (end - pos) / 12)
        throw format_error("the tile claims " + std::to_string(count) + " chunks, more than its " +
                               std::to_string(end - begin) + " bytes hold",
                           static_cast<std::size_t>(begin));
      std::uint64_t at = 0;
      for (std::uint64_t k = 0; k < count; ++k) {
        if (end - pos < 12)
          throw format_error("chunk " + std::to_string(k) + "'s header runs past the tile's end", static_cast<std::size_t>(pos));
        const std::byte* h = bytes(pos, 12);
        const auto original = codec::load_le<std::uint32_t>(h), filtered = codec::load_le<std::uint32_t>(h + 4),
                   metadata = codec::load_le<std::uint32_t>(h + 8);
        if (original > expected - at)
          throw format_error("chunk " + std::to_string(k) + " decodes past the tile's size (" + std::to_string(expected) +
                                 " bytes)",
                             static_cast<std::size_t>(pos));
        const std::uint64_t body = std::uint64_t{filtered} + metadata;
        if (body > end - pos - 12)
          throw format_error("chunk " + std::to_string(k) + " runs past the tile's end", static_cast<std::size_t>(pos));
        const std::byte* b = bytes(pos + 12, body);
        each(at, stored_chunk{static_cast<std::size_t>(k), pos, original, std::span(b, metadata),
                              std::span(b + metadata, filtered)});
        at += original;
        pos += 12 + body;
      }
      if (at != expected)
        throw format_error("tile holds " + std::to_string(at) + " bytes, expected " + std::to_string(expected),
                           static_cast<std::size_t>(begin));
      if (pos != end)
        throw format_error(std::to_string(end - pos) + " trailing bytes after the tile's last chunk",
                           static_cast<std::size_t>(pos));
      return 0;
    });
    return true;
  }

  /// The chunks of tile `i` of `f`'s fixed file (`expected` bytes) that
  /// `want(begin, end)` asks for (bytes of the unfiltered tile), each handed
  /// to `decode(decoder, chunk, begin)` undecoded. Bytes already unfiltered
  /// go to `take(begin, bytes)`: a tile stored without chunks (TileDB 1.3)
  /// as one piece, and from a chunk that splits a cell on (TileDB's writers
  /// split none), the rest of the tile as one piece, which ends at a cell's
  /// end. The tile is read a window at a time where stream_chunks can, else
  /// whole.
  void wanted_chunks(const field_info& f, std::size_t i, std::uint64_t expected, const fetched_tiles* ahead,
                     function_ref<bool(std::size_t, std::size_t)> want,
                     function_ref<void(filter::runtime_pipeline::chunk_decoder&, const stored_chunk&, std::size_t)> decode,
                     function_ref<void(std::size_t, std::span<const std::byte>)> take) const {
    const std::size_t cell_size = f.cell_size();
    const auto ctx = decode_context(cell_size, nullptr);
    std::optional<filter::runtime_pipeline::chunk_decoder> decoder;
    std::vector<std::byte> rest;
    std::size_t rest_at = 0;
    bool split = false;
    auto each = [&](std::uint64_t at, const stored_chunk& c) {
      const auto begin = static_cast<std::size_t>(at);
      split = split || cell_size == 0 || c.original_length % cell_size != 0;
      if (!split && !want(begin, begin + c.original_length)) return;
      if (!decoder) decoder.emplace(pipeline(f, format::DataFile::fixed), ctx);
      if (!split) {
        decode(*decoder, c, begin);
        return;
      }
      if (rest.empty()) rest_at = begin;
      const std::size_t from = rest.size();
      rest.resize(from + c.original_length);
      decode_chunk(*decoder, c, std::span(rest).subspan(from));
    };
    if (!stream_chunks(f, format::DataFile::fixed, i, expected, ahead, each)) {
      auto t = fetch(f, format::DataFile::fixed, i, expected, ahead);
      if (!t.view) {
        take(std::size_t{0}, t.bytes);
        return;
      }
      // The chunks of the tile in memory, as stream_chunks hands them on
      // (their places counted from the tile's start, which decoding adds).
      decoding(f, format::DataFile::fixed, t, [&] {
        std::uint64_t at = 0, pos = 8;
        for (std::size_t k = 0; k < t.view->chunks.size(); ++k) {
          const auto& c = t.view->chunks[k];
          each(at, stored_chunk{k, pos, c.original_length, c.metadata.bytes(), c.data.bytes()});
          at += c.original_length;
          pos += 12 + c.metadata.bytes().size() + c.data.bytes().size();
        }
      });
    }
    if (!rest.empty()) take(rest_at, std::span<const std::byte>(rest));
  }

  /// Runs `decode()` on a chunk of stream_chunks; its format errors name the
  /// chunk and its place in the file.
  template <class Decode>
  static void naming_chunk(const stored_chunk& c, Decode&& decode) {
    try {
      decode();
    } catch (format_error& e) {
      e.prepend_field("chunk " + std::to_string(c.index));
      e.add_offset(static_cast<std::size_t>(c.offset));
      throw;
    }
  }

  /// Decodes a chunk of stream_chunks into `dest`.
  static void decode_chunk(filter::runtime_pipeline::chunk_decoder& d, const stored_chunk& c, std::span<std::byte> dest) {
    naming_chunk(c, [&] { d.decode(c.metadata, c.data, dest); });
  }

  /// Tile i's stored bytes, checked: its chunk headers must add up to
  /// `expected` unfiltered bytes before anything that size is allocated.
  fetched_tile fetch(const field_info& f, format::DataFile which, std::size_t i, std::uint64_t expected,
                     const fetched_tiles* ahead) const {
    const fs::path file = file_path(f, which);
    fetched_tile t;
    const auto [begin, end] = sections_.stored_range(f, which, i, expected);
    t.begin = begin;
    // A data file shorter than the footer says is a format_error (not an
    // io_error), so that the caller can name the fragment, field and tile.
    try {
      const auto held = ahead ? ahead->find(which, i) : std::nullopt;
      if (held && held->size() == end - t.begin) {
        t.bytes = *held;
      } else {
        t.read = column<std::byte>(static_cast<std::size_t>(end - t.begin));
        sections_.storage()->read_range_into(file, t.begin, t.read);
        t.bytes = t.read;
      }
    } catch (const io_error& e) {
      format_error fe(e.what(), static_cast<std::size_t>(t.begin));
      fe.set_file(file.string());
      throw fe;
    }
    naming_file(file, [&] {
      if (sections_.version() == 0) {
        check_unfiltered_tile(f, t.bytes, t.begin, expected);
        return 0;
      }
      t.view = codec::decode<format::TileView>(t.bytes);
      const std::uint64_t holds = filter::detail::unfiltered_size(*t.view);
      if (holds != expected)
        throw format_error("tile holds " + std::to_string(holds) + " bytes, expected " + std::to_string(expected),
                           static_cast<std::size_t>(t.begin));
      return 0;
    });
    return t;
  }

  filter::tile_context decode_context(std::size_t cell_size, std::vector<std::uint64_t>* rebuilt_offsets) const {
    filter::tile_context ctx;
    ctx.version = sections_.version();
    ctx.cell_size = cell_size;
    ctx.verify_checksums = opt_.verify_checksums;
    ctx.encryption_key = opt_.encryption_key;
    ctx.rebuilt_offsets = rebuilt_offsets;
    ctx.max_part_size = opt_.max_allocation;
    return ctx;
  }

  /// Runs `decode()`; its format errors name the file and the tile's offset.
  template <class Decode>
  void decoding(const field_info& f, format::DataFile which, const fetched_tile& t, Decode&& decode) const {
    naming_file(file_path(f, which), [&] {
      try {
        decode();
      } catch (format_error& e) {
        e.add_offset(static_cast<std::size_t>(t.begin));
        throw;
      }
      return 0;
    });
  }

  void unfilter(const field_info& f, format::DataFile which, const fetched_tile& t, std::span<std::byte> out,
                std::size_t cell_size, std::vector<std::uint64_t>* rebuilt_offsets) const {
    const auto ctx = decode_context(cell_size, rebuilt_offsets);
    decoding(f, which, t, [&] { pipeline(f, which).decode_into(*t.view, out, ctx); });
  }

  /// TileDB 1.3 stored uncompressed tiles as they are (no chunk header); its
  /// compressed tiles have a chunk layout of their own, not read here.
  static void check_unfiltered_tile(const field_info& f, std::span<const std::byte> bytes, std::uint64_t begin,
                                    std::uint64_t expected) {
    if (!f.filters->filters.value.empty())
      throw format_error("tiles of TileDB 1.3 compressed with " +
                             std::string(format::codec_enum_name(f.filters->filters.value.front().type)) +
                             " are not supported",
                         static_cast<std::size_t>(begin));
    if (bytes.size() != expected)
      throw format_error("tile holds " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(expected),
                         static_cast<std::size_t>(begin));
  }

  fragment_sections sections_;
  std::shared_ptr<const format::ArraySchema> schema_;
  open_options opt_;
  once_map<std::pair<const format::FilterPipeline*, format::Datatype>, filter::runtime_pipeline> pipelines_;
};

} // namespace tilefmt::array::detail

// The compiled component's extern templates (with TILEFMT_COMPILED).
#include "tilefmt/array/model/compiled_instances.hpp"
