// tilefmt — the text files of the commit and metadata folders:
// vacuum files `.vac` (format_spec/vacuum_file.md), ignore files `.ign`
// (ignore_file.md) and consolidated commits files `.con`
// (consolidated_commits_file.md), as TileDB's consolidator.cc and
// array_directory.cc write and read them.
//
// Each is a list of lines ending in '\n'. The paths of `.ign` and `.con`
// files, and of `.vac` files from version 19, are relative to the array URI
// (the array URI string removed from the front, so they usually start with
// '/'); older `.vac` files hold absolute URIs. In a `.con` file, a line
// naming a delete commit (`.del`) is followed by the size and the bytes of
// that whole file. The spec says the same of update commits (`.upd`), but
// TileDB embeds only deletes and reads nothing after an `.upd` line.
// Empty commit-marker files (`.wrt`, `.ok`) have no content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/codec/codec.hpp"

namespace tilefmt::format {

/// One line of text, without its '\n' (which must be there: TileDB ends
/// every line with one). Decoded by a codec::traits<> specialisation below,
/// as its length is found by looking for the terminator.
struct TextLine {
  std::string text;
  friend bool operator==(const TextLine&, const TextLine&) = default;
};

/// vacuum_file.md and ignore_file.md: one path per line.
struct PathList {
  codec::rest<std::vector<TextLine>> lines;

  static PathList of(const std::vector<std::string>& paths) {
    PathList l;
    for (const auto& p : paths) l.lines.value.push_back({p});
    return l;
  }
  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& l : lines) out.push_back(l.text);
    return out;
  }
  friend bool operator==(const PathList&, const PathList&) = default;
};
using VacuumFile = PathList;
using IgnoreFile = PathList;

namespace detail {
struct is_delete_commit {
  template <class P>
  bool operator()(const P& entry) const {
    return std::string_view(entry.uri.text).ends_with(".del");
  }
};
} // namespace detail

/// consolidated_commits_file.md: one commit. For a delete commit the whole
/// `.del` file (a generic tile holding the delete condition) follows the line,
/// after its byte size.
struct ConsolidatedCommit {
  TextLine uri;  // relative to the array URI, e.g. "/__commits/__1_1_<label>_22.wrt"
  codec::when<detail::is_delete_commit, codec::counted<std::uint64_t, std::vector<std::byte>>> delete_condition_tile;

  friend bool operator==(const ConsolidatedCommit&, const ConsolidatedCommit&) = default;
};

/// The payload of a `.con` file (not a generic tile: the file itself).
struct ConsolidatedCommits {
  codec::rest<std::vector<ConsolidatedCommit>> commits;
  friend bool operator==(const ConsolidatedCommits&, const ConsolidatedCommits&) = default;
};

/// TileDB keeps only the part of a vacuum-file line from `__fragments` or
/// `__meta` on, or else its last path component (array_directory.cc
/// `get_full_vac_uri`), and appends that to the array URI: the name to match
/// against the listing, whatever the array's URI was when it was written.
/// A line with none of these has no '/', which TileDB rejects.
inline std::string_view vacuum_entry_name(std::string_view line) {
  for (std::string_view folder : {"__fragments", "__meta"}) {
    const std::size_t at = line.find(folder);
    if (at != std::string_view::npos) return line.substr(at);
  }
  const std::size_t slash = line.find_last_of('/');
  if (slash == std::string_view::npos)
    throw format_error("vacuum file line \"" + std::string(line) + "\" is not a path", 0);
  return line.substr(slash + 1);
}

/// Dumps (codec::to_text / to_json) show a line as a string.
inline std::ostream& operator<<(std::ostream& os, const TextLine& l) {
  os << codec::json_string(l.text);
  return os;
}

} // namespace tilefmt::format

/// A TextLine is the bytes up to the next '\n', which is consumed; a line
/// cannot contain '\n' on encode.
template <>
struct tilefmt::codec::traits<tilefmt::format::TextLine> {
  static constexpr std::size_t min_size = 1;

  template <class S>
  static void decode(reader& r, format::TextLine& v, S&) {
    const std::byte* begin = r.position();
    std::size_t n = 0;
    while (n < r.remaining() && begin[n] != std::byte{'\n'}) ++n;
    if (n == r.remaining()) {
      r.take(n);
      r.fail("a line without its terminating newline");
    }
    const std::byte* p = r.take(n + 1);
    v.text.assign(reinterpret_cast<const char*>(p), n);
  }
  template <class S>
  static void encode(writer& w, const format::TextLine& v, S&) {
    if (v.text.find('\n') != std::string::npos)
      throw std::invalid_argument("tilefmt: a TextLine cannot contain a newline");
    w.write_bytes(reinterpret_cast<const std::byte*>(v.text.data()), v.text.size());
    w.write<std::uint8_t>('\n');
  }
  template <class S>
  static std::size_t size(const format::TextLine& v, S&) {
    return v.text.size() + 1;
  }
};
