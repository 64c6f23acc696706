// tilefmt — the DICTIONARY filter (filter type 14, compressor byte 7;
// format_spec/filters/dictionary_encoding.md; tiledb/sm/compressors/
// dict_compressor.cc). It applies only to var-size STRING_ASCII /
// STRING_UTF8 data tiles, where it encodes the cells and their offsets
// together (detail/var_strings.hpp) behind format::DictionaryMD:
// - the dictionary: the distinct strings in order of first appearance, each
//   as its length (big-endian, string_length_width bytes) and its bytes, no
//   count, after a little-endian u32 byte size;
// - the data: one id per cell, big-endian, id_width bytes.
// As TileDB writes it (the spec says otherwise), id_width is the smallest
// of 1, 2, 4, 8 bytes that holds the number of cells, not the number of
// distinct strings; string_length_width holds the longest string.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tilefmt/filter/detail/compression.hpp"
#include "tilefmt/filter/detail/var_strings.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter {

namespace detail {

inline void dictionary_forward(forward_io& io) {
  constexpr auto type = format::FilterType::DICTIONARY;
  const string_cells cells = var_string_input(io, type);
  const std::size_t n = cells.size();
  const std::uint8_t id_width = byte_width_for(n);
  std::uint64_t longest = 0;
  for (std::size_t i = 0; i < n; ++i) longest = std::max<std::uint64_t>(longest, cells[i].size());
  const std::uint8_t length_width = byte_width_for(longest);

  auto ids = scratch::sized(io.buf.data, n * id_width);
  std::unordered_map<std::string_view, std::uint64_t> seen;
  seen.reserve(n);
  format::DictionaryMD md{var_string_header(cells, ids.size()), id_width, length_width, {}};
  std::vector<std::byte>& dict = md.dictionary.value;
  for (std::size_t i = 0; i < n; ++i) {
    bytes_view s = cells[i];
    std::string_view key(reinterpret_cast<const char*>(s.data()), s.size());
    auto [it, added] = seen.try_emplace(key, seen.size());
    if (added) {
      std::size_t at = dict.size();
      dict.resize(at + length_width + s.size());
      store_be(dict.data() + at, s.size(), length_width);
      if (!s.empty()) std::memcpy(dict.data() + at + length_width, s.data(), s.size());
    }
    store_be(ids.data() + i * id_width, it->second, id_width);
  }
  if (dict.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("tilefmt: DICTIONARY dictionary exceeds uint32");
  io.out_metadata.push_back(write_metadata(io.buf.metadata, md));
  io.out_data.push_back(ids);
}

inline void dictionary_reverse(reverse_io& io) {
  constexpr auto type = format::FilterType::DICTIONARY;
  // The dictionary is read in place: a view of the metadata, not a copy.
  codec::reader r(io.metadata);
  format::VarStringMD h;
  std::uint8_t id_width = 0, length_width = 0;
  std::uint32_t dict_size = 0;
  bytes_view dict;
  try {
    h = codec::decode<format::VarStringMD>(r);
    id_width = r.read<std::uint8_t>();
    length_width = r.read<std::uint8_t>();
    dict_size = r.read<std::uint32_t>();
    dict = bytes_view(r.take(dict_size), dict_size);
  } catch (format_error& e) {
    e.prepend_field("DICTIONARY filter metadata");
    throw;
  }
  const std::size_t used = r.offset();
  if (!valid_byte_width(id_width) || !valid_byte_width(length_width))
    corrupt(type, "id and string length widths " + std::to_string(id_width) + ", " + std::to_string(length_width) +
                      " are not 1, 2, 4 or 8 bytes");

  // Entries of the dictionary: (offset, length) into `dict`.
  std::vector<std::pair<std::size_t, std::size_t>> words;
  words.reserve(dict.size() / length_width);
  for (std::size_t at = 0; at < dict.size();) {
    if (dict.size() - at < length_width) corrupt(type, "dictionary entry header truncated", at);
    std::uint64_t len = load_be(dict.data() + at, length_width);
    at += length_width;
    if (len > dict.size() - at) corrupt(type, "dictionary string of " + std::to_string(len) + " bytes runs past it", at);
    words.emplace_back(at, static_cast<std::size_t>(len));
    at += static_cast<std::size_t>(len);
  }

  string_output dest = var_string_output(io, type, h);
  if (io.data.size() % id_width != 0 || io.data.size() / id_width != dest.cells)
    corrupt(type, std::to_string(io.data.size()) + " bytes of " + std::to_string(id_width) + "-byte ids for " +
                      std::to_string(dest.cells) + " cells");
  std::size_t out_at = 0;
  dest.offsets.reserve(dest.cells);
  for (std::size_t i = 0; i < dest.cells; ++i) {
    std::uint64_t id = load_be(io.data.data() + i * id_width, id_width);
    if (id >= words.size())
      corrupt(type, "id " + std::to_string(id) + " is not in the dictionary of " + std::to_string(words.size()), i * id_width);
    auto [w_at, w_len] = words[static_cast<std::size_t>(id)];
    if (w_len > dest.data.size() - out_at)
      corrupt(type, "strings decode past the " + std::to_string(dest.data.size()) + " bytes declared", i * id_width);
    dest.offsets.push_back(out_at);
    if (w_len != 0) std::memcpy(dest.data.data() + out_at, dict.data() + w_at, w_len);
    out_at += w_len;
  }
  if (out_at != dest.data.size())
    corrupt(type, "strings decode to " + std::to_string(out_at) + " bytes, the header declares " +
                      std::to_string(dest.data.size()));
  io.out_metadata = io.metadata.subspan(used);
  io.out_data = dest.data;
}

} // namespace detail

/// DICTIONARY; TileDB stores a level but ignores it.
template <int Level = -1>
struct dictionary {
  static constexpr format::FilterType filter_type = format::FilterType::DICTIONARY;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::compression_descriptor(filter_type, format::Compressor::DICTIONARY_ENCODING, level, version);
  }
  static dictionary from_filter(const format::Filter& f, std::uint32_t version) {
    return dictionary{detail::compression_level(f, format::Compressor::DICTIONARY_ENCODING, version)};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }

  void forward(forward_io& io) const {
    if (!detail::var_strings_forward(io, filter_type))
      throw std::invalid_argument(
          "tilefmt: DICTIONARY applies only to var-size STRING_ASCII (format version 13 on) or STRING_UTF8 (17 on) "
          "data tiles, given with their cell offsets");
    detail::dictionary_forward(io);
  }
  void reverse(reverse_io& io) const {
    if (!detail::var_strings_reverse(io))
      throw format_error("DICTIONARY filter: applies only to var-size STRING_ASCII / STRING_UTF8 data tiles whose "
                         "offsets are rebuilt from them",
                         0);
    detail::dictionary_reverse(io);
  }
};

} // namespace tilefmt::filter
