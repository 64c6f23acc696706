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
  codec::count_of<2, std::uint32_t> num_metadata_parts;
  codec::count_of<3, std::uint32_t> num_data_parts;
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
  codec::count_of<2, std::uint32_t> num_metadata_checksums;
  codec::count_of<3, std::uint32_t> num_data_checksums;
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
  codec::count_of<2, std::uint32_t> num_metadata_parts;
  codec::count_of<3, std::uint32_t> num_data_parts;
  std::vector<AESPart> metadata_parts;
  std::vector<AESPart> data_parts;
  friend bool operator==(const EncryptionMD&, const EncryptionMD&) = default;
};

} // namespace tilefmt::format
