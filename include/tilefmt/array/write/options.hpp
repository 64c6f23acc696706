// tilefmt — how a write names and protects what it writes: write_options
// (timestamp, label, storage, format version, enumerations, encryption key),
// shared by every writer and by maintenance, the names' parts as TileDB
// makes them (random_label.cc), and the schema a write reads with its key.
#pragma once

#include <chrono>
#include <filesystem>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <openssl/err.h>
#include <openssl/rand.h>

#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/names.hpp"
#include "tilefmt/format/version.hpp"
#include "tilefmt/storage/backend.hpp"

namespace tilefmt::array {

/// How new files are named. Both default to what TileDB does: the current
/// time, and a fresh random label. Fixed values make the output reproducible.
struct write_options {
  /// Milliseconds since the epoch (both timestamps of the name).
  std::optional<std::uint64_t> timestamp{};
  /// 32 lowercase hexadecimal digits.
  std::optional<std::string> label{};
  /// Where the array's files are (array::create); null: the local file system.
  std::shared_ptr<storage::backend> storage{};
  /// array::create only: the format version of the new array, from
  /// format::oldest_written_version (5, libtiledb 2.0) to
  /// format::written_version (22). Its fragments are written at that version,
  /// whoever writes them, as TileDB does.
  std::uint32_t format_version = format::written_version;
  /// array::create only: the enumerations the schema's attributes take
  /// labels from (format::make_enumeration; format 20 and later), written to
  /// `__schema/__enumerations/` before the schema, which lists them. Each
  /// keeps its path_name, or gets a fresh `__<label>_0` as TileDB names them.
  std::vector<format::Enumeration> enumerations{};
  /// The AES-256-GCM key (32 bytes) of an encrypted array, or empty. With
  /// array::create it makes the array encrypted, as TileDB's
  /// sm.encryption_type/sm.encryption_key do: every file that is a generic
  /// tile (schema, enumerations, fragment metadata sections, array
  /// metadata, delete commits) and every data tile then ends its filter
  /// pipeline with AES-256-GCM. Every later write to such an array needs
  /// the same key (writers read its schema with it); a key for an array
  /// that is not encrypted is refused, as TileDB refuses it.
  std::vector<std::uint8_t> encryption_key{};
};

namespace detail {

inline std::uint64_t now_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

/// A label as TileDB makes one (random_label.cc): a counter that starts at a
/// random value in each millisecond and counts up within it, so that labels
/// of one millisecond sort in creation order, then 96 random bits. The
/// random bytes come from OpenSSL's RAND_bytes.
inline std::string random_label(std::uint64_t ms) {
  static std::mutex m;
  static format::LabelCounter counter;
  std::uint32_t r[2];
  std::uint64_t r64 = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(r), sizeof r) != 1 ||
      RAND_bytes(reinterpret_cast<unsigned char*>(&r64), sizeof r64) != 1) {
    ERR_clear_error();
    throw std::runtime_error("tilefmt: OpenSSL's random generator failed (no random label for a new file)");
  }
  std::lock_guard<std::mutex> lock(m);
  return format::format_label(counter.next(ms, r[0]), r[1], r64);
}

/// Refuses a key that is neither empty nor 32 bytes.
inline void check_encryption_key(std::span<const std::uint8_t> key) {
  if (!key.empty() && key.size() != 32)
    throw std::invalid_argument("tilefmt: write_options.encryption_key: AES-256-GCM keys are 32 bytes, got " +
                                std::to_string(key.size()));
}

/// The timestamp and label a new file gets.
inline std::pair<std::uint64_t, std::string> name_parts(const write_options& opt) {
  const std::uint64_t t = opt.timestamp.value_or(now_ms());
  std::string label = opt.label ? *opt.label : random_label(t);
  if (!format::detail::is_hex_label(label))
    throw std::invalid_argument("tilefmt: write_options.label must be 32 hexadecimal digits, got \"" + label + "\"");
  for (char c : label)
    if (c >= 'A' && c <= 'F')
      throw std::invalid_argument("tilefmt: write_options.label must be lowercase (TileDB sorts names bytewise)");
  return {t, std::move(label)};
}

/// The schema in file `p`, read to write to its array with `key`. Whether
/// the array is encrypted is decided here, by the schema file's generic
/// tile header, as TileDB decides it when it opens an array: a key for an
/// unencrypted array, or none for an encrypted one, is refused (naming the
/// file) before anything is written.
inline format::ArraySchema read_schema_for_writing(const storage::backend& st, const fs::path& p,
                                                   std::span<const std::uint8_t> key) {
  check_encryption_key(key);
  const filter::generic_tile_options opt{.encryption_key = key};
  const auto bytes = naming_file(p, [&] { return st.read(p, opt.max_tile_size); });
  bool encrypted = false;
  try {
    codec::reader r(bytes);
    encrypted = codec::decode<format::GenericTileHeader>(r).encryption_type == format::EncryptionType::AES_256_GCM;
  } catch (const format_error&) {
    // Not a generic tile (TileDB 1.3's schema file): never encrypted; or
    // damaged, which reading it says.
  }
  if (encrypted && key.empty())
    throw std::invalid_argument("tilefmt: " + p.string() +
                                ": the array is encrypted (AES-256-GCM); write to it with its key "
                                "(write_options::encryption_key)");
  if (!encrypted && !key.empty())
    throw std::invalid_argument("tilefmt: " + p.string() +
                                ": the array is not encrypted; write to it without an encryption key");
  return schema_from_bytes(p, bytes, opt);
}

} // namespace detail

} // namespace tilefmt::array
