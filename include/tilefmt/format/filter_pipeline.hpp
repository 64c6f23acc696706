// tilefmt — filter pipelines as stored in schemas and generic tile headers
// (format_spec/filter_pipeline.md; enum values from
// tiledb/sm/enums/filter_type.h and compressor.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::format {

/// The `Filter type` byte of a serialized filter.
enum class FilterType : std::uint8_t {
  NONE = 0, GZIP = 1, ZSTD = 2, LZ4 = 3, RLE = 4, BZIP2 = 5, DOUBLE_DELTA = 6,
  BIT_WIDTH_REDUCTION = 7, BITSHUFFLE = 8, BYTESHUFFLE = 9, POSITIVE_DELTA = 10,
  /// Internal: never in a schema, but written in encrypted generic tile headers.
  AES_256_GCM = 11,
  CHECKSUM_MD5 = 12, CHECKSUM_SHA256 = 13, DICTIONARY = 14, SCALE_FLOAT = 15, XOR = 16,
  /// Deprecated; TileDB rejects it on read.
  DEPRECATED = 17,
  WEBP = 18, DELTA = 19,
};

constexpr bool codec_enum_valid(FilterType t) { return static_cast<std::uint8_t>(t) <= 19; }
constexpr std::string_view codec_enum_name(FilterType t) {
  constexpr std::string_view names[] = {
      "NONE", "GZIP", "ZSTD", "LZ4", "RLE", "BZIP2", "DOUBLE_DELTA", "BIT_WIDTH_REDUCTION",
      "BITSHUFFLE", "BYTESHUFFLE", "POSITIVE_DELTA", "AES_256_GCM", "CHECKSUM_MD5",
      "CHECKSUM_SHA256", "DICTIONARY", "SCALE_FLOAT", "XOR", "DEPRECATED", "WEBP", "DELTA"};
  return codec_enum_valid(t) ? names[static_cast<std::uint8_t>(t)] : "INVALID";
}

/// The first byte of a compression filter's options. TileDB builds the
/// filter from this byte, so DICTIONARY carries 7 and DELTA 8.
enum class Compressor : std::uint8_t {
  NO_COMPRESSION = 0, GZIP = 1, ZSTD = 2, LZ4 = 3, RLE = 4, BZIP2 = 5, DOUBLE_DELTA = 6,
  DICTIONARY_ENCODING = 7, DELTA = 8,
};
constexpr bool codec_enum_valid(Compressor c) { return static_cast<std::uint8_t>(c) <= 8; }
constexpr std::string_view codec_enum_name(Compressor c) {
  constexpr std::string_view names[] = {"NO_COMPRESSION", "GZIP",   "ZSTD",
                                        "LZ4",            "RLE",    "BZIP2",
                                        "DOUBLE_DELTA",   "DICTIONARY_ENCODING", "DELTA"};
  return codec_enum_valid(c) ? names[static_cast<std::uint8_t>(c)] : "INVALID";
}

// ---- Filter options (format_spec/filter_pipeline.md, "Filter Options") ----

/// GZIP, ZSTD, LZ4, RLE, BZIP2, DICTIONARY.
struct CompressionOptions {
  Compressor compressor;
  std::int32_t level;
};

/// DELTA: a reinterpret datatype from format version 19.
struct DeltaOptions {
  Compressor compressor;
  std::int32_t level;
  codec::since<19, Datatype> reinterpret_datatype{Datatype::ANY};
};

/// DOUBLE_DELTA: a reinterpret datatype from format version 20.
struct DoubleDeltaOptions {
  Compressor compressor;
  std::int32_t level;
  codec::since<20, Datatype> reinterpret_datatype{Datatype::ANY};
};

/// BIT_WIDTH_REDUCTION and POSITIVE_DELTA.
struct WindowOptions {
  std::uint32_t max_window_size;
};

/// SCALE_FLOAT. TileDB writes the C struct, which has no padding here.
struct FloatScaleOptions {
  double scale;
  double offset;
  std::uint64_t byte_width;
};

/// WEBP. TileDB writes the C struct including its two trailing padding bytes.
struct WebpOptions {
  float quality;
  std::uint8_t format;
  std::uint8_t lossless;
  std::uint16_t y_extent;
  std::uint16_t x_extent;
  std::array<std::uint8_t, 2> padding;
};

/// One serialized filter: its type, then its options as a length-prefixed
/// blob (kept as bytes so every stored filter round-trips; `options_as`
/// reads them as the declared struct).
struct Filter {
  FilterType type;
  codec::counted<std::uint32_t, std::vector<std::byte>> options;

  /// The options as a declared struct; `version` is the format version of
  /// the enclosing object (schema or generic tile header).
  template <class Options>
  Options options_as(std::uint32_t version) const {
    struct ctx_t { std::uint32_t version; } ctx{version};
    return codec::decode<Options>(std::span<const std::byte>(options.value), ctx);
  }

  template <class Options>
  static Filter make(FilterType type, const Options& opts, std::uint32_t version) {
    struct ctx_t { std::uint32_t version; } ctx{version};
    return Filter{type, {codec::encode(opts, ctx)}};
  }
  static Filter make(FilterType type) { return Filter{type, {}}; }

  friend bool operator==(const Filter&, const Filter&) = default;
};

/// `max_chunk_size` only says whether tiles are chunked (0 = one chunk per
/// tile); the chunk size itself is TileDB's 64 KiB constant.
struct FilterPipeline {
  std::uint32_t max_chunk_size = 65536;
  codec::counted<std::uint32_t, std::vector<Filter>> filters;

  friend bool operator==(const FilterPipeline&, const FilterPipeline&) = default;
};

} // namespace tilefmt::format
