// tilefmt — where an array's bytes live.
//
// The array layer reaches files only through this interface: the size of a
// file, all of it, a byte range of it, a folder's entries, an atomic write,
// a folder made, a file or folder removed. `storage::local` is the
// computer's own file system, `storage::memory` a map of paths to bytes (for
// tests, fuzzing, and arrays assembled in memory); an object store is one
// more implementation of the same few functions.
//
// Contract for implementations:
//  - Every `const` member may be called from many threads at once.
//  - A path names a regular file or a folder. Reads refuse anything else
//    (a FIFO, a device, a symbolic link), so that a name in a damaged array
//    cannot make a reader hang or leave the array.
//  - `read` never allocates more than the caller's `max_bytes`: a file
//    larger than that is an io_error before anything is allocated.
//  - `write` is atomic: a reader sees the old contents or the new, never a
//    part (a temporary name, then a rename, on a file system).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilefmt::storage {

namespace fs = std::filesystem;

/// A file that should be there is missing, unreadable, of the wrong kind, or
/// larger than the reader allows.
class io_error : public std::runtime_error {
public:
  io_error(const fs::path& p, const std::string& what) : std::runtime_error(p.string() + ": " + what), path_(p) {}
  const fs::path& path() const noexcept { return path_; }

private:
  fs::path path_;
};

/// One entry of a folder.
struct entry {
  std::string name;     // the last path component
  bool folder = false;
};

/// No limit on what one read may allocate.
inline constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

class backend {
public:
  virtual ~backend() = default;

  /// The size of the regular file at `p`, or nullopt when there is none
  /// (missing, a folder, or not a regular file).
  std::optional<std::uint64_t> file_size(const fs::path& p) const { return do_file_size(p); }
  /// Whether `p` is a folder.
  bool is_folder(const fs::path& p) const { return do_is_folder(p); }
  /// The whole regular file at `p`; an io_error when it is larger than
  /// `max_bytes`, before anything is allocated.
  std::vector<std::byte> read(const fs::path& p, std::uint64_t max_bytes = unlimited) const {
    return do_read(p, max_bytes);
  }
  /// `n` bytes at `offset` of the regular file at `p`; an io_error when the
  /// file is shorter.
  std::vector<std::byte> read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const {
    return do_read_range(p, offset, n);
  }
  /// The entries of folder `p`, sorted by name; empty when `p` is no folder.
  std::vector<entry> list(const fs::path& p) const { return do_list(p); }

  /// Replaces or creates the file at `p` with `bytes`, atomically. Its
  /// folder must exist.
  void write(const fs::path& p, std::span<const std::byte> bytes) { do_write(p, bytes); }
  /// Creates folder `p` and any missing parents.
  void make_folder(const fs::path& p) { do_make_folder(p); }
  /// Removes the file or the folder tree at `p` (nothing when it is absent).
  void remove(const fs::path& p) { do_remove(p); }

  /// Whether `p` is a regular file.
  bool is_file(const fs::path& p) const { return file_size(p).has_value(); }
  /// Whether `p` is a regular file or a folder.
  bool exists(const fs::path& p) const { return is_file(p) || is_folder(p); }

private:
  // What an implementation provides (the public functions above say what each does).
  virtual std::optional<std::uint64_t> do_file_size(const fs::path& p) const = 0;
  virtual bool do_is_folder(const fs::path& p) const = 0;
  virtual std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const = 0;
  virtual std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const = 0;
  virtual std::vector<entry> do_list(const fs::path& p) const = 0;
  virtual void do_write(const fs::path& p, std::span<const std::byte> bytes) = 0;
  virtual void do_make_folder(const fs::path& p) = 0;
  virtual void do_remove(const fs::path& p) = 0;
};

} // namespace tilefmt::storage
