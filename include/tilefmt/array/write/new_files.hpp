// tilefmt — what a write does before its first file: the names' parts as
// TileDB makes them (a timestamp and random_label.cc's label), and the
// schema it writes with, read with its encryption key.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include <openssl/err.h>
#include <openssl/rand.h>

#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/names.hpp"
#include "tilefmt/storage/backend.hpp"

namespace tilefmt::array {

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
