// tilefmt — copying a folder tree from one storage backend to another (an
// array from disk into memory, or from memory to an object store).
#pragma once

#include "tilefmt/storage/backend.hpp"

namespace tilefmt::storage {

/// Copies the folder `from_path` of `from`, with everything below it, to
/// `to_path` of `to`. Files that are not regular files are skipped.
inline void copy_tree(const backend& from, const fs::path& from_path, backend& to, const fs::path& to_path) {
  to.make_folder(to_path);
  for (const auto& e : from.list(from_path)) {
    if (e.folder)
      copy_tree(from, from_path / e.name, to, to_path / e.name);
    else if (from.is_file(from_path / e.name))
      to.write(to_path / e.name, from.read(from_path / e.name));
  }
}

} // namespace tilefmt::storage
