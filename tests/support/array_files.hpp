// Every file of an array folder with its bytes, and the check that two
// arrays hold the same files byte for byte (writers that must write what
// another writer, or TileDB, wrote).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "testing.hpp"

namespace tilefmt::testing {

/// Every regular file under `root`, relative to it, with its bytes.
inline std::map<std::string, std::vector<std::byte>> files_under(const std::filesystem::path& root) {
  std::map<std::string, std::vector<std::byte>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[std::filesystem::relative(e.path(), root).string()] = file_bytes(e.path());
  return out;
}

/// The same file names under both roots, each with the same bytes.
inline void check_same_files(const std::filesystem::path& ours, const std::filesystem::path& theirs) {
  const auto a = files_under(ours), b = files_under(theirs);
  std::set<std::string> na, nb;
  for (const auto& f : a) na.insert(f.first);
  for (const auto& f : b) nb.insert(f.first);
  CHECK(na == nb);
  for (const auto& f : b) {
    INFO(f.first);
    if (a.count(f.first)) CHECK(a.at(f.first) == f.second);
  }
}

} // namespace tilefmt::testing
