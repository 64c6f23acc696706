// tilefmt — crc32_of<"first", "last">: the CRC-32 (ISO-HDLC, as in zlib, PNG,
// gzip and ZIP) of the bytes of earlier fields, verified on decode and
// computed on encode (see checksum<> in checked.hpp).
//
// The CRC is zlib's crc32(), a maintained implementation, so this is the one
// codec header that needs a library besides Boost: link zlib (-lz) when you
// include it. codec.hpp does not include it.
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <zlib.h>

#include "tilefmt/codec/checked.hpp"
#include "tilefmt/codec/fixed_string.hpp"

namespace tilefmt::codec {

/// The checksum<> algorithm: zlib's crc32.
struct zlib_crc32 {
  using value_type = std::uint32_t;
  static constexpr std::string_view name = "CRC-32";

  static value_type compute(std::span<const std::byte> bytes) {
    uLong crc = ::crc32(0L, Z_NULL, 0);
    // crc32() takes a uInt length: feed larger inputs in pieces.
    while (!bytes.empty()) {
      const std::size_t n = std::min<std::size_t>(bytes.size(), UINT_MAX);
      crc = ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n));
      bytes = bytes.subspan(n);
    }
    return static_cast<value_type>(crc);
  }
};

/// The CRC-32 of the fields `First` to `Last` of the same struct, stored in
/// byte order `Order` (PNG: `crc32_of<"type", "data", std::endian::big>`).
template <fixed_string First, fixed_string Last, std::endian Order = std::endian::little>
using crc32_of = checksum<zlib_crc32, First, Last, Order>;

} // namespace tilefmt::codec
