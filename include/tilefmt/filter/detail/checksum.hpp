// tilefmt — what the two checksum filters share (format_spec/tile.md,
// "Checksum Filters"): a digest of every input part, the data passed on
// unchanged, the earlier metadata kept after this filter's own.
#pragma once

#include <algorithm>
#include <string>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter::detail {

/// Hash plugs in with `static constexpr std::size_t digest_size` and
/// `static void digest(bytes_view, std::uint8_t* out)`.
template <class Hash>
void checksum_forward(forward_io& io) {
  constexpr std::size_t entry = 8 + Hash::digest_size;
  const part_list& md = io.in_metadata;
  const part_list& data = io.in_data;
  auto header = scratch::sized(io.buf.metadata, 8 + (md.size() + data.size()) * entry);
  codec::store_le<std::uint32_t>(header.data(), static_cast<std::uint32_t>(md.size()));
  codec::store_le<std::uint32_t>(header.data() + 4, static_cast<std::uint32_t>(data.size()));
  std::byte* p = header.data() + 8;
  auto one = [&](bytes_view part) {
    codec::store_le<std::uint64_t>(p, part.size());
    Hash::digest(part, reinterpret_cast<std::uint8_t*>(p + 8));
    p += entry;
  };
  for (std::size_t i = 0; i < md.size(); ++i) one(md[i]);
  for (std::size_t i = 0; i < data.size(); ++i) one(data[i]);
  io.out_metadata.push_back(header);
  io.out_metadata.append(md);
  io.out_data.append(data);
}

template <class Hash>
void checksum_reverse(reverse_io& io, format::FilterType type) {
  format::ChecksumMD<Hash::digest_size> md;
  std::size_t used = read_metadata(type, io.metadata, md);
  bytes_view rest = io.metadata.subspan(used);
  if (io.ctx.verify_checksums) {
    std::array<std::uint8_t, Hash::digest_size> got;
    auto check = [&](bytes_view region, std::size_t& at, const format::ChecksumPart<Hash::digest_size>& part,
                     const char* what, std::size_t index) {
      if (part.length > region.size() - at)
        corrupt(type, std::string(what) + " part " + std::to_string(index) + " claims " +
                          std::to_string(part.length) + " bytes, " + std::to_string(region.size() - at) + " left");
      Hash::digest(region.subspan(at, static_cast<std::size_t>(part.length)), got.data());
      if (got != part.digest)
        throw checksum_error(std::string(format::codec_enum_name(type)) + " mismatch in " + what + " part " +
                                 std::to_string(index),
                             at);
      at += static_cast<std::size_t>(part.length);
    };
    std::size_t at = 0;
    for (std::size_t i = 0; i < md.metadata_checksums.size(); ++i) check(rest, at, md.metadata_checksums[i], "metadata", i);
    at = 0;
    for (std::size_t i = 0; i < md.data_checksums.size(); ++i) check(io.data, at, md.data_checksums[i], "data", i);
  }
  io.out_metadata = rest;
  io.out_data = io.data;
}

} // namespace tilefmt::filter::detail
