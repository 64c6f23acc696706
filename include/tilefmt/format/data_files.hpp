// tilefmt — the names of a fragment's data files (format_spec/fragment.md,
// "Fragment"; tiledb/sm/fragment/fragment_metadata.cc encode_name), by the
// fragment's format version:
//
//   v9 and later   a<i>.tdb, a<i>_var.tdb, a<i>_validity.tdb for attribute i;
//                  d<i>.tdb, d<i>_var.tdb for dimension i;
//                  t.tdb (cell timestamps, v14), dt.tdb and dci.tdb (delete
//                  timestamps and condition indices, v15)
//   v8             the field's name, percent-encoded (encode_name_v8)
//   v1 to v7       the field's name as it is; before v5 one `__coords.tdb`
//                  holds every dimension of a sparse fragment
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tilefmt/codec/error.hpp"
#include "tilefmt/format/names.hpp"

namespace tilefmt::format {

/// What a field of a fragment is, for naming its files.
enum class FieldKind : std::uint8_t {
  attribute,
  dimension,
  coords,                  // `__coords`: every dimension of a sparse fragment before v5
  timestamps,              // `__timestamps` (v14)
  delete_timestamps,       // `__delete_timestamps` (v15)
  delete_condition_index,  // `__delete_condition_index` (v15)
};

/// Which of a field's files.
enum class DataFile : std::uint8_t {
  fixed,     // fixed-size values, or the offsets of a var-size field
  var,       // var-size values (`_var`)
  validity,  // validity bytes of a nullable attribute (`_validity`)
};

/// v8 percent-encodes a field name: RFC 3986's reserved characters, plus
/// characters Windows forbids, with TileDB's own codes for the latter.
inline std::string encode_name_v8(std::string_view name) {
  constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    switch (c) {
    case '<': out += "%20"; break;
    case '>': out += "%2D"; break;
    case '\\': out += "%30"; break;
    case '|': out += "%3C"; break;
    case '"': out += "%22"; break;
    case '!': case '#': case '$': case '%': case '&': case '\'': case '(': case ')': case '*': case '+':
    case ',': case '/': case ':': case ';': case '=': case '?': case '@': case '[': case ']':
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
      break;
    default: out += static_cast<char>(c);
    }
  }
  return out;
}

/// The name a field's files share before their suffix (`a3`, `d0`, `t`, or
/// a field name before v9). `index` is the attribute or dimension number,
/// `name` the field's name in the schema. Before v8 the name is used as it
/// is, so one that is not a plain file name is a format_error.
inline std::string data_file_base(std::uint32_t version, FieldKind kind, std::size_t index, std::string_view name) {
  switch (kind) {
  case FieldKind::timestamps: return "t";
  case FieldKind::delete_timestamps: return "dt";
  case FieldKind::delete_condition_index: return "dci";
  case FieldKind::coords: return "__coords";
  case FieldKind::attribute:
  case FieldKind::dimension: break;
  }
  if (version >= 9) return (kind == FieldKind::dimension ? "d" : "a") + std::to_string(index);
  if (version == 8) return encode_name_v8(name);
  check_file_name(name);
  return std::string(name);
}

/// The file name of one of a field's data files, e.g. `a0_var.tdb`.
inline std::string data_file_name(std::uint32_t version, FieldKind kind, std::size_t index, std::string_view name,
                                  DataFile which) {
  std::string out = data_file_base(version, kind, index, name);
  if (which == DataFile::var) out += "_var";
  if (which == DataFile::validity) out += "_validity";
  return out + ".tdb";
}

} // namespace tilefmt::format
