// tilefmt — timestamped names (format_spec/timestamped_name.md; parsing as in
// tiledb/sm/fragment/fragment_identifier.cc, generation as in
// tiledb/storage_format/uri/generate_uri.cc and
// tiledb/common/random/random_label.cc).
//
// Three grammars, by the format version that wrote the name:
//
//   __<uuid>_<t>            versions 1-2 (t1 = t2 = t); v1-2 consolidation
//   __<uuid>_<t0>_<t>       also wrote this, t0 being the time it ran
//   __<t1>_<t2>_<uuid>      versions 3-4; schemas and array metadata of every
//                           version (these never carry a version)
//   __<t1>_<t2>_<uuid>_<v>  version 5 and later: fragments, commit, vacuum,
//                           consolidated-commit, ignore, delete and update files,
//                           consolidated fragment metadata
//
// followed by an optional `.<extension>` (`.ok`, `.wrt`, `.vac`, `.con`,
// `.ign`, `.del`, `.upd`, `.meta`, `.tmp`). t1 and t2 are decimal
// milliseconds since the epoch; the uuid (a "label" in current TileDB) is 32
// hexadecimal digits, lowercase when generated. TileDB tells the grammars
// apart by counting underscores: five → the last; else a 32-character last
// field → the second; else the first.
//
// Generating a name needs a random label; this header only formats one from
// the caller's random numbers (format/ takes no dependency on a random source).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tilefmt/codec/error.hpp"

namespace tilefmt::format {

/// Which grammar a timestamped name follows (named after the versions that write it).
enum class NameGrammar : std::uint8_t {
  uuid_timestamp,  // __uuid_t or __uuid_t0_t: versions 1-2
  t1_t2_uuid,      // __t1_t2_uuid: versions 3-4, and every schema / metadata name
  t1_t2_uuid_version,  // __t1_t2_uuid_v: versions 5 and later
};

/// A parsed timestamped name.
struct TimestampedName {
  NameGrammar grammar = NameGrammar::t1_t2_uuid_version;
  std::uint64_t t1 = 0;
  std::uint64_t t2 = 0;
  std::string uuid;                        // 32 hex digits
  std::optional<std::uint32_t> version;    // the `_v` field, when the grammar has one
  std::string extension;                   // after the last '.', without it ("" when none)
  /// `__uuid_t0_t` only: t0, the time a v1-2 consolidation ran. TileDB uses t
  /// as both timestamps and ignores t0.
  std::optional<std::uint64_t> consolidation_time;

  /// The format version the name implies for a fragment: `v`, or 4 for
  /// `__t1_t2_uuid`, or 2 for `__uuid_t` (fragment_identifier.cc). Only
  /// fragment-like names carry a version: for a schema or metadata name this
  /// says nothing about the format.
  std::uint32_t implied_format_version() const noexcept {
    switch (grammar) {
    case NameGrammar::uuid_timestamp: return 2;
    case NameGrammar::t1_t2_uuid: return 4;
    case NameGrammar::t1_t2_uuid_version: return version.value_or(5);
    }
    return 0;
  }

  /// The name without its extension.
  std::string stem() const {
    std::string s = "__";
    if (grammar == NameGrammar::uuid_timestamp) {
      s += uuid + "_";
      if (consolidation_time) s += std::to_string(*consolidation_time) + "_";
      s += std::to_string(t2);
    } else {
      s += std::to_string(t1) + "_" + std::to_string(t2) + "_" + uuid;
      if (grammar == NameGrammar::t1_t2_uuid_version) s += "_" + std::to_string(version.value_or(0));
    }
    return s;
  }
  /// The name, with its extension.
  std::string str() const { return extension.empty() ? stem() : stem() + "." + extension; }

  friend bool operator==(const TimestampedName&, const TimestampedName&) = default;
};

namespace detail {

[[noreturn]] inline void bad_name(std::string_view name, std::string reason, std::size_t offset) {
  format_error e("not a timestamped name: " + std::move(reason), offset);
  e.set_file(std::string(name));
  throw e;
}

inline bool is_hex_label(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

template <class T>
T parse_decimal(std::string_view name, std::string_view field, std::size_t offset, std::string_view what) {
  T v{};
  if (field.empty()) bad_name(name, std::string(what) + " is empty", offset);
  for (std::size_t i = 0; i < field.size(); ++i)
    if (field[i] < '0' || field[i] > '9')
      bad_name(name, std::string(what) + " \"" + std::string(field) + "\" is not a decimal number", offset + i);
  auto res = std::from_chars(field.data(), field.data() + field.size(), v);
  if (res.ec != std::errc{} || res.ptr != field.data() + field.size())
    bad_name(name, std::string(what) + " " + std::string(field) + " is out of range", offset);
  return v;
}

} // namespace detail

/// Parses a timestamped name. `name` may be a path: its last component is
/// used (a trailing '/' is ignored). Throws tilefmt::format_error, whose
/// file() is the name and offset() the position in it, for anything that is
/// not one of the three grammars with decimal timestamps (t1 <= t2), a
/// 32-digit hexadecimal uuid and a decimal 32-bit version.
inline TimestampedName parse_timestamped_name(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const std::size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);

  TimestampedName out;
  std::string_view stem = name;
  if (const std::size_t dot = name.find_last_of('.'); dot != std::string_view::npos) {
    out.extension = std::string(name.substr(dot + 1));
    stem = name.substr(0, dot);
  }
  if (stem.size() < 2 || stem[0] != '_' || stem[1] != '_') detail::bad_name(name, "does not start with \"__\"", 0);

  std::vector<std::string_view> fields;
  std::vector<std::size_t> offsets;
  for (std::size_t pos = 2;;) {
    const std::size_t next = stem.find('_', pos);
    fields.push_back(stem.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    offsets.push_back(pos);
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  auto number = [&](std::size_t i, std::string_view what) {
    return detail::parse_decimal<std::uint64_t>(name, fields[i], offsets[i], what);
  };
  auto label = [&](std::size_t i) {
    if (!detail::is_hex_label(fields[i]))
      detail::bad_name(name, "uuid \"" + std::string(fields[i]) + "\" is not 32 hexadecimal digits", offsets[i]);
    return std::string(fields[i]);
  };

  if (fields.size() == 4) {  // five underscores
    out.grammar = NameGrammar::t1_t2_uuid_version;
    out.t1 = number(0, "t1");
    out.t2 = number(1, "t2");
    out.uuid = label(2);
    out.version = detail::parse_decimal<std::uint32_t>(name, fields[3], offsets[3], "format version");
  } else if (fields.size() == 3 && fields[2].size() == 32) {
    out.grammar = NameGrammar::t1_t2_uuid;
    out.t1 = number(0, "t1");
    out.t2 = number(1, "t2");
    out.uuid = label(2);
  } else if (fields.size() == 2 || fields.size() == 3) {
    out.grammar = NameGrammar::uuid_timestamp;
    out.uuid = label(0);
    if (fields.size() == 3) out.consolidation_time = number(1, "consolidation time");
    out.t1 = out.t2 = number(fields.size() - 1, "timestamp");
  } else {
    detail::bad_name(name, "has " + std::to_string(fields.size() - 1) + " underscores after the leading \"__\"", 2);
  }
  if (out.t1 > out.t2)
    detail::bad_name(name, "t1 " + std::to_string(out.t1) + " is after t2 " + std::to_string(out.t2), offsets[0]);
  return out;
}

/// True when `name` parses (see parse_timestamped_name).
inline bool is_timestamped_name(std::string_view name) noexcept {
  try {
    parse_timestamped_name(name);
    return true;
  } catch (const format_error&) {
    return false;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

/// Checks a name read from a file that the reader will use as one path
/// component (a schema name in a fragment footer, a fragment name in a
/// consolidated file, a field name that names data files): it must be a
/// plain file name, so that a damaged or hostile array cannot make the
/// reader open anything outside its folder. Throws format_error with the
/// offset of the first offending character in `name`.
inline void check_file_name(std::string_view name) {
  if (name.empty()) throw format_error("an empty name cannot name a file", 0);
  if (name == "." || name == "..") throw format_error("\"" + std::string(name) + "\" cannot name a file", 0);
  for (std::size_t i = 0; i < name.size(); ++i)
    if (name[i] == '/' || name[i] == '\\' || name[i] == '\0')
      throw format_error("a file name may not contain '/', '\\' or NUL, found one in \"" + std::string(name) + "\"", i);
}

/// Checks the array schema name a fragment footer gives (v10 on): a
/// timestamped schema file name, or `__array_schema.tdb` for fragments
/// written against an array's first-era schema. See check_file_name.
inline void check_schema_file_name(std::string_view name) {
  check_file_name(name);
  if (name == "__array_schema.tdb") return;
  try {
    (void)parse_timestamped_name(name);
  } catch (const format_error& e) {
    throw format_error("\"" + std::string(name) + "\" is not a schema file name: " + e.reason(), e.offset());
  }
}

/// A random label as current TileDB writes it: 8 hex digits of `counter`,
/// 8 of `random32`, 16 of `random64`, lowercase.
inline std::string format_label(std::uint32_t counter, std::uint32_t random32, std::uint64_t random64) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(7 - i)] = digits[(counter >> (4 * i)) & 15];
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(15 - i)] = digits[(random32 >> (4 * i)) & 15];
  for (int i = 0; i < 16; ++i) s[static_cast<std::size_t>(31 - i)] = digits[(random64 >> (4 * i)) & 15];
  return s;
}

/// The counter part of labels (random_label.cc): a random 31-bit start in
/// each new millisecond, then +1 per label in the same millisecond, so that
/// labels of one millisecond sort in creation order.
class LabelCounter {
public:
  /// `random` is a fresh random number; only its low 31 bits are used, and
  /// only when `now_ms` differs from the previous call's.
  std::uint32_t next(std::uint64_t now_ms, std::uint32_t random) {
    if (!started_ || now_ms != last_ms_) {
      started_ = true;
      last_ms_ = now_ms;
      counter_ = random & 0x7fffffffu;
    } else {
      ++counter_;
      if (counter_ == 0) throw std::overflow_error("tilefmt: more than 2^32 labels in one millisecond");
    }
    return counter_;
  }

private:
  bool started_ = false;
  std::uint64_t last_ms_ = 0;
  std::uint32_t counter_ = 0;
};

/// `__t1_t2_label` (schema and array metadata files), or with a format
/// version `__t1_t2_label_v` (fragments, commit files, ...), without a
/// leading '/'. Throws std::invalid_argument when t1 > t2 or `label` is not
/// 32 hexadecimal digits.
inline std::string make_timestamped_name(std::uint64_t t1, std::uint64_t t2, std::string_view label,
                                         std::optional<std::uint32_t> version = std::nullopt) {
  if (t1 > t2) throw std::invalid_argument("tilefmt: timestamped name: t1 is after t2");
  if (!detail::is_hex_label(label)) throw std::invalid_argument("tilefmt: timestamped name: the label is not 32 hex digits");
  std::string s = "__" + std::to_string(t1) + "_" + std::to_string(t2) + "_" + std::string(label);
  if (version) s += "_" + std::to_string(*version);
  return s;
}

/// The file name of an enumeration, `__<label>_<enumeration version 0>`
/// (enumeration.cc; in `__schema/__enumerations/`).
inline std::string make_enumeration_file_name(std::string_view label, std::uint32_t enumeration_version = 0) {
  if (!detail::is_hex_label(label)) throw std::invalid_argument("tilefmt: enumeration file name: the label is not 32 hex digits");
  return "__" + std::string(label) + "_" + std::to_string(enumeration_version);
}

} // namespace tilefmt::format
