// tilefmt — the metadata each filter puts at the front of a chunk's metadata
// region (format_spec/tile.md, one struct per table; the filter sections of
// format_spec/filters/ for the rest). Filters that do not filter metadata
// write their own metadata followed by the earlier filters' metadata, so a
// chunk's metadata reads from the last filter to the first.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tilefmt/codec/codec.hpp"

namespace tilefmt::format {

/// Byteshuffle, bitshuffle, XOR, float scale and WebP: the length of each
/// output part.
struct PartLengthsMD {
  codec::counted<std::uint32_t, std::vector<std::uint32_t>> part_lengths;
  friend bool operator==(const PartLengthsMD&, const PartLengthsMD&) = default;
};
using ByteshuffleMD = PartLengthsMD;
using BitshuffleMD = PartLengthsMD;

/// Bit width reduction: one window (`T` is the tile's value type).
template <class T>
struct WindowMD {
  T value_offset;         // subtracted from every value of the window
  std::uint8_t bit_width; // width of the stored values
  std::uint32_t length;   // bytes of the window's input (not its output)
  friend bool operator==(const WindowMD&, const WindowMD&) = default;
};

template <class T>
struct BitWidthReductionMD {
  std::uint32_t input_length;
  codec::counted<std::uint32_t, std::vector<WindowMD<T>>> windows;
  friend bool operator==(const BitWidthReductionMD&, const BitWidthReductionMD&) = default;
};

/// Positive delta: one window.
template <class T>
struct PositiveDeltaWindowMD {
  T delta_offset;         // the window's first value
  std::uint32_t length;   // bytes of the window
  friend bool operator==(const PositiveDeltaWindowMD&, const PositiveDeltaWindowMD&) = default;
};

template <class T>
struct PositiveDeltaMD {
  codec::counted<std::uint32_t, std::vector<PositiveDeltaWindowMD<T>>> windows;
  friend bool operator==(const PositiveDeltaMD&, const PositiveDeltaMD&) = default;
};

/// Compression filters: one per compressed part.
struct CompressedPartMD {
  std::uint32_t original_length;
  std::uint32_t compressed_length;
  friend bool operator==(const CompressedPartMD&, const CompressedPartMD&) = default;
};

/// Compression filters: input metadata parts first, then data parts.
struct CompressionMD {
  codec::count_of<"metadata_parts", std::uint32_t> num_metadata_parts;
  codec::count_of<"data_parts", std::uint32_t> num_data_parts;
  std::vector<CompressedPartMD> metadata_parts;
  std::vector<CompressedPartMD> data_parts;
  friend bool operator==(const CompressionMD&, const CompressionMD&) = default;
};

/// Checksum filters: the digest of one part (16 bytes MD5, 32 bytes SHA-256).
template <std::size_t DigestSize>
struct ChecksumPart {
  std::uint64_t length;
  std::array<std::uint8_t, DigestSize> digest;
  friend bool operator==(const ChecksumPart&, const ChecksumPart&) = default;
};

template <std::size_t DigestSize>
struct ChecksumMD {
  codec::count_of<"metadata_checksums", std::uint32_t> num_metadata_checksums;
  codec::count_of<"data_checksums", std::uint32_t> num_data_checksums;
  std::vector<ChecksumPart<DigestSize>> metadata_checksums;
  std::vector<ChecksumPart<DigestSize>> data_checksums;
  friend bool operator==(const ChecksumMD&, const ChecksumMD&) = default;
};
using ChecksumMD5MD = ChecksumMD<16>;
using ChecksumSHA256MD = ChecksumMD<32>;

/// Encryption (AES-256-GCM): one encrypted part.
struct AESPart {
  std::uint32_t plaintext_length;
  std::uint32_t encrypted_length;
  std::array<std::uint8_t, 12> iv;
  std::array<std::uint8_t, 16> tag;
  friend bool operator==(const AESPart&, const AESPart&) = default;
};

struct EncryptionMD {
  codec::count_of<"metadata_parts", std::uint32_t> num_metadata_parts;
  codec::count_of<"data_parts", std::uint32_t> num_data_parts;
  std::vector<AESPart> metadata_parts;
  std::vector<AESPart> data_parts;
  friend bool operator==(const EncryptionMD&, const EncryptionMD&) = default;
};

/// XOR, float scale and WebP: the length of each output part (float scale
/// and WebP: the parts' lengths in input order, though their data is stored
/// last part first).
using XorMD = PartLengthsMD;
using FloatScaleMD = PartLengthsMD;
using WebpMD = PartLengthsMD;

// Not metadata: the head of each part DELTA and DOUBLE_DELTA compress (the
// values follow it in the part's data).

/// DELTA (format_spec/filters/delta.md): then the first value and n - 1
/// deltas, each as wide as the element type.
struct DeltaHeader {
  std::uint64_t num_values;
  friend bool operator==(const DeltaHeader&, const DeltaHeader&) = default;
};

/// DOUBLE_DELTA (format_spec/filters/double_delta.md): then the first two
/// values and a bit stream of (sign, |double delta|) pairs, or the raw
/// values when `bitsize` >= 8 x element size - 1.
struct DoubleDeltaHeader {
  std::uint8_t bitsize;
  std::uint64_t num_values;
  friend bool operator==(const DoubleDeltaHeader&, const DoubleDeltaHeader&) = default;
};

/// RLE and DICTIONARY on var-size STRING_ASCII / STRING_UTF8 data tiles:
/// what replaces the compression header (tiledb/sm/filter/
/// compression_filter.cc, compress_var_string_coords).
struct VarStringMD {
  std::uint32_t num_metadata_parts; // always 0
  std::uint32_t num_data_parts;     // always 1
  std::uint32_t input_length;       // bytes of the var tile
  std::uint32_t output_length;      // bytes of the encoded data
  std::uint32_t offsets_length;     // bytes of the cell offsets: 8 per cell
  friend bool operator==(const VarStringMD&, const VarStringMD&) = default;
};

/// RLE on var-size strings. The data: per run, the run length (big-endian,
/// `run_length_width` bytes), the string's length (big-endian,
/// `string_length_width` bytes) and its bytes.
struct StringRLEMD {
  VarStringMD strings;
  std::uint8_t run_length_width;
  std::uint8_t string_length_width;
  friend bool operator==(const StringRLEMD&, const StringRLEMD&) = default;
};

/// DICTIONARY (format_spec/filters/dictionary_encoding.md, as the code
/// writes it): the dictionary is the distinct strings in order of first
/// appearance, each as its length (big-endian, `string_length_width` bytes)
/// and its bytes, with no count. The data: one id per cell, big-endian,
/// `id_width` bytes.
struct DictionaryMD {
  VarStringMD strings;
  std::uint8_t id_width;
  std::uint8_t string_length_width;
  codec::counted<std::uint32_t, std::vector<std::byte>> dictionary;
  friend bool operator==(const DictionaryMD&, const DictionaryMD&) = default;
};

} // namespace tilefmt::format
