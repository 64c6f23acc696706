// tilefmt — an array's metadata (format_spec/metadata.md): key/value pairs
// from every `__meta` file in the open timestamp range, applied oldest first
// so that a later value or deletion wins.
#pragma once

#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/print.hpp"

namespace tilefmt::array {

class metadata_map {
public:
  /// Applies one file's entries on top of what is there.
  void apply(const format::ArrayMetadata& file) {
    for (const auto& e : file.entries) {
      if (e.deleted())
        entries_.erase(e.key.value);
      else
        entries_[e.key.value] = e;
    }
  }

  bool contains(const std::string& key) const { return entries_.count(key) != 0; }
  std::size_t size() const noexcept { return entries_.size(); }
  /// Entries by key, in byte order of the keys (as TileDB sorts them).
  const std::map<std::string, format::MetadataEntry>& entries() const noexcept { return entries_; }

  const format::MetadataEntry& at(const std::string& key) const {
    auto it = entries_.find(key);
    if (it == entries_.end()) throw std::out_of_range("tilefmt: no metadata key \"" + key + "\"");
    return it->second;
  }
  /// The values of `key` as T (see format::MetadataEntry::as).
  template <class T>
  std::vector<T> get(const std::string& key) const {
    return at(key).as<T>();
  }
  std::string get_string(const std::string& key) const { return at(key).as_string(); }

  /// One line per key: `key: TYPE[n] values`.
  std::string to_text() const {
    std::ostringstream os;
    for (const auto& [k, e] : entries_)
      os << k << ": " << format::codec_enum_name(e.type()) << "[" << e.num() << "] "
         << format::values_to_text(e.type(), e.bytes()) << "\n";
    return os.str();
  }
  std::string to_json() const {
    std::ostringstream os;
    os << "{";
    bool first = true;
    for (const auto& [k, e] : entries_) {
      os << (first ? "" : ",") << "\n  " << codec::json_string(k) << ": {\"type\": \""
         << format::codec_enum_name(e.type()) << "\", \"values\": " << format::values_to_text(e.type(), e.bytes(), true)
         << "}";
      first = false;
    }
    os << (first ? "}" : "\n}");
    return os.str();
  }

private:
  std::map<std::string, format::MetadataEntry> entries_;
};

} // namespace tilefmt::array
