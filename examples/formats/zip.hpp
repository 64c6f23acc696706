// ZIP declared with the codec, two ways over the same record declarations.
//
// As a sequence (File): every record starts "PK" and a two-byte type that
// selects its body (a tagged union): local file headers with their data,
// central directory entries, and the end of central directory record, which
// ends the file. This decodes every byte and re-encodes byte for byte.
//
// As a reader finds the entries (directory()): the end record is searched
// for backwards from the end of the file (its comment has a variable
// length), the central directory is decoded at the offset the end record
// holds, and each local header at the offset its central entry holds. Those
// offsets point back into the file, so they are followed with decode_at;
// update_offsets() computes them from the encoded sizes of the records
// before a changed File is encoded.
//
// Dates and times are DOS bit fields; contents() inflates (zlib) and checks
// the CRC-32 a local header holds, naming that field when it disagrees.
//
// Not covered: data descriptors (flag bit 3, sizes after the data), ZIP64,
// encryption, multi-disk archives.
//
// Reference: PKWARE, APPNOTE.TXT (.ZIP File Format Specification), 4.3.7
// (local file header), 4.3.12 (central directory), 4.3.16 (end of central
// directory record), 4.4.6 (date and time).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <zlib.h>

#include <tilefmt/codec/bits.hpp>
#include <tilefmt/codec/codec.hpp>
#include <tilefmt/codec/crc32.hpp>
#include <tilefmt/codec/offset.hpp>
#include <tilefmt/codec/switch.hpp>

namespace zip {
namespace codec = tilefmt::codec;

/// MS-DOS time then date, two little-endian 16-bit words: bit 0 first.
struct DosDateTime {
  codec::bits_le<5> second_half{};  // seconds / 2
  codec::bits_le<6> minute{};
  codec::bits_le<5> hour{};
  codec::bits_le<5> day{};
  codec::bits_le<4> month{};
  codec::bits_le<7> year_from_1980{};
  friend bool operator==(const DosDateTime&, const DosDateTime&) = default;
};

/// A local file header (after "PK\3\4") and the file's data.
struct LocalFile {
  std::uint16_t version_needed{};
  std::uint16_t flags{};
  std::uint16_t method{};  // 0 stored, 8 deflated
  DosDateTime modified{};
  std::uint32_t crc32{};   // of the uncompressed data
  codec::count_of<"data", std::uint32_t> compressed_size{};
  std::uint32_t uncompressed_size{};
  codec::count_of<"name", std::uint16_t> name_length{};
  codec::count_of<"extra", std::uint16_t> extra_length{};
  std::string name{};
  std::vector<std::byte> extra{};
  std::vector<std::byte> data{};
  friend bool operator==(const LocalFile&, const LocalFile&) = default;
};

/// A central directory entry (after "PK\1\2").
struct CentralEntry {
  std::uint16_t version_made_by{};
  std::uint16_t version_needed{};
  std::uint16_t flags{};
  std::uint16_t method{};
  DosDateTime modified{};
  std::uint32_t crc32{};
  std::uint32_t compressed_size{};
  std::uint32_t uncompressed_size{};
  codec::count_of<"name", std::uint16_t> name_length{};
  codec::count_of<"extra", std::uint16_t> extra_length{};
  codec::count_of<"comment", std::uint16_t> comment_length{};
  std::uint16_t disk_start{};
  std::uint16_t internal_attributes{};
  std::uint32_t external_attributes{};
  std::uint32_t local_header_offset{};
  std::string name{};
  std::vector<std::byte> extra{};
  std::string comment{};
  friend bool operator==(const CentralEntry&, const CentralEntry&) = default;
};

/// The end of central directory record (after "PK\5\6").
struct EndRecord {
  std::uint16_t disk{};
  std::uint16_t directory_disk{};
  std::uint16_t entries_on_disk{};
  std::uint16_t entries{};
  std::uint32_t directory_size{};
  std::uint32_t directory_offset{};
  codec::counted<std::uint16_t, std::string> comment{};
  friend bool operator==(const EndRecord&, const EndRecord&) = default;
};

/// One record: "PK", then a type (read little-endian: "\3\4" is 0x0403).
struct Record {
  codec::magic<"PK"> pk{};
  codec::tagged<std::uint16_t, codec::alt<0x0403, LocalFile>, codec::alt<0x0201, CentralEntry>,
                codec::alt<0x0605, EndRecord>>
      body{};
  friend bool operator==(const Record&, const Record&) = default;
};

struct IsEnd {
  bool operator()(const Record& r) const { return std::holds_alternative<EndRecord>(r.body.value); }
};

/// The whole file as a sequence of records, up to the end record.
struct File {
  codec::repeat_until<IsEnd, std::vector<Record>> records{};
  friend bool operator==(const File&, const File&) = default;
};

// The records with their signatures, as found at an offset.
struct LocalAt {
  codec::magic<"PK\x03\x04"> signature{};
  LocalFile file{};
};
struct CentralAt {
  codec::magic<"PK\x01\x02"> signature{};
  CentralEntry entry{};
};
struct EndAt {
  codec::magic<"PK\x05\x06"> signature{};
  EndRecord end{};
};

/// The entries as a reader finds them, by offsets.
struct Directory {
  std::size_t end_at = 0;  // where the end record starts
  EndRecord end;
  std::vector<CentralEntry> central;
  std::vector<LocalFile> local;  // local[i] is where central[i] points
};

namespace detail {
inline tilefmt::format_error field_error(std::string field, std::string reason, std::size_t offset) {
  tilefmt::format_error e(std::move(reason), offset);
  e.prepend_field(field);
  return e;
}
} // namespace detail

/// Finds the end record (the last "PK\5\6" whose comment reaches the end
/// of the file exactly), then the central directory and the local headers
/// through their offsets. Errors name the field holding a bad offset.
inline Directory directory(std::span<const std::byte> bytes) {
  constexpr std::size_t end_size = 22;
  Directory d;
  bool found = false;
  if (bytes.size() >= end_size) {
    const std::size_t lowest = bytes.size() - end_size > 0xffff ? bytes.size() - end_size - 0xffff : 0;
    for (std::size_t i = bytes.size() - end_size + 1; i-- > lowest;) {
      if (std::memcmp(bytes.data() + i, "PK\x05\x06", 4) != 0) continue;
      std::uint16_t comment = codec::load_le<std::uint16_t>(bytes.data() + i + 20);
      if (i + end_size + comment != bytes.size()) continue;
      d.end_at = i;
      d.end = codec::decode<EndAt>(bytes.subspan(i)).end;
      found = true;
      break;
    }
  }
  if (!found) throw tilefmt::format_error("no end of central directory record (\"PK\\5\\6\") ends the file", bytes.size());

  const std::uint64_t offset = d.end.directory_offset, size = d.end.directory_size;
  if (offset + size > d.end_at)
    throw detail::field_error("Directory.end.directory_offset",
                              "the central directory (" + std::to_string(size) + " bytes at offset " +
                                  std::to_string(offset) + ") does not end before the end record (at " +
                                  std::to_string(d.end_at) + ")",
                              d.end_at + 16);
  // The directory's bytes, with offsets in errors counted from the file's start.
  codec::reader r(bytes.first(static_cast<std::size_t>(offset + size)));
  r.take(static_cast<std::size_t>(offset));
  // Each entry takes at least 46 bytes: a count the bytes cannot hold allocates nothing.
  if (d.end.entries > size / 46)
    throw detail::field_error("Directory.end.entries",
                              std::to_string(d.end.entries) + " entries do not fit in a central directory of " +
                                  std::to_string(size) + " bytes",
                              d.end_at + 10);
  d.central.reserve(d.end.entries);
  for (std::size_t i = 0; i < d.end.entries; ++i) d.central.push_back(codec::decode<CentralAt>(r).entry);
  if (!r.at_end())
    throw detail::field_error("Directory.end.directory_size",
                              std::to_string(r.remaining()) + " bytes of the central directory follow its " +
                                  std::to_string(d.end.entries) + " entries",
                              r.offset());
  for (std::size_t i = 0; i < d.central.size(); ++i) {
    try {
      d.local.push_back(codec::decode_at<LocalAt>(bytes, d.central[i].local_header_offset).file);
    } catch (tilefmt::format_error& e) {
      e.prepend_field("Directory.central[" + std::to_string(i) + "].local_header_offset");
      throw;
    }
  }
  return d;
}

/// The uncompressed data of a local file, whose CRC-32 must equal the
/// header's. `at` is where the local header starts in the file (for errors).
inline std::vector<std::byte> contents(const LocalFile& f, std::size_t at = 0) {
  std::vector<std::byte> out;
  if (f.method == 0) {
    out = f.data;
  } else if (f.method == 8) {
    // Deflate expands at most 1032 to 1: a larger size is not believed.
    if (f.uncompressed_size > 1032 * static_cast<std::uint64_t>(f.data.size()) + 64)
      throw detail::field_error("LocalFile.uncompressed_size",
                                std::to_string(f.uncompressed_size) + " bytes cannot come from " +
                                    std::to_string(f.data.size()) + " deflated bytes",
                                at + 22);
    // One byte more than expected: room to see data that inflates to more,
    // and never an empty output buffer, on which zlib makes no progress.
    out.resize(std::size_t{f.uncompressed_size} + 1);
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(f.data.data()));
    z.avail_in = static_cast<uInt>(f.data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    const std::size_t produced = out.size() - z.avail_out;
    inflateEnd(&z);
    out.resize(produced);
    if (rc != Z_STREAM_END || produced != f.uncompressed_size)
      throw detail::field_error("LocalFile.data", "the deflated data does not inflate to uncompressed_size (" +
                                                      std::to_string(f.uncompressed_size) + " bytes)",
                                at + 30 + f.name.size() + f.extra.size());
  } else {
    throw detail::field_error("LocalFile.method", "compression method " + std::to_string(f.method) + " is not supported",
                              at + 8);
  }
  const std::uint32_t crc = codec::zlib_crc32::compute(out);
  if (crc != f.crc32)
    throw detail::field_error("LocalFile.crc32",
                              "CRC-32 mismatch: stored " + std::to_string(f.crc32) + ", computed " +
                                  std::to_string(crc) + " over the uncompressed data",
                              at + 14);
  return out;
}

/// Sets the offsets and counts that records hold about each other from
/// their encoded sizes: each central entry's local_header_offset (the i-th
/// entry points at the i-th local header) and the end record's directory
/// offset, size and entry counts.
inline void update_offsets(File& f) {
  std::vector<std::uint32_t> locals;
  std::uint64_t at = 0, directory_at = 0, directory_size = 0;
  std::size_t entries = 0;
  bool in_directory = false;
  for (Record& r : f.records) {
    const std::size_t n = codec::encoded_size(r);
    if (std::holds_alternative<LocalFile>(r.body.value)) {
      locals.push_back(static_cast<std::uint32_t>(at));
    } else if (auto* c = std::get_if<CentralEntry>(&r.body.value)) {
      if (!in_directory) directory_at = at;
      in_directory = true;
      if (entries >= locals.size()) throw std::invalid_argument("zip: more central entries than local headers");
      c->local_header_offset = locals[entries++];
      directory_size += n;
    } else if (auto* e = std::get_if<EndRecord>(&r.body.value)) {
      if (at > std::numeric_limits<std::uint32_t>::max() || entries > 0xffff)
        throw std::length_error("zip: the archive needs ZIP64");
      e->directory_offset = static_cast<std::uint32_t>(in_directory ? directory_at : at);
      e->directory_size = static_cast<std::uint32_t>(directory_size);
      e->entries = e->entries_on_disk = static_cast<std::uint16_t>(entries);
    }
    at += n;
  }
}

} // namespace zip
