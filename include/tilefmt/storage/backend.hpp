// tilefmt — where an array's bytes live.
//
// The array layer reaches files only through this interface: the size of a
// file, all of it, a byte range of it, a folder's entries, an atomic write
// (of bytes at hand, or appended piece by piece), a folder made, a file or
// folder removed. `storage::local` is the
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
//  - `open_write` is the same write given in pieces: a `file_writer` takes
//    bytes by `append` and makes the file appear, whole and atomically as
//    `write` does, at `commit`; destroyed uncommitted, it leaves the old
//    contents (or no file). It exists so that a file larger than memory (a
//    fragment's data file written tile by tile as a stream of submissions,
//    or while later tiles are still encoding) need not be held whole. The
//    default buffers the bytes and calls `write` at commit, which is all an
//    object store's one PUT can do (S3's multipart upload would stream, and
//    is not used); `local` writes each piece to the temporary file at once.
//    A writer is used by one thread at a time; several may be open at once.
//  - `streams_writes` says that a writer sends each piece on as it comes
//    and can still be given another name at its commit (`commit_as`): a
//    writer that does not know yet where its file goes (a dense fragment,
//    named when it commits) then streams all the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
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

/// A file being written in pieces (backend::open_write): nothing appears
/// under its name until commit(), and then all of it at once.
class file_writer {
public:
  file_writer() = default;
  file_writer(const file_writer&) = delete;
  file_writer& operator=(const file_writer&) = delete;
  /// Uncommitted: the bytes appended are dropped (a temporary file removed).
  virtual ~file_writer() = default;

  /// Adds `bytes` at the end of the file.
  void append(std::span<const std::byte> bytes) {
    if (committed_) throw std::logic_error("tilefmt: file_writer::append after commit");
    do_append(bytes);
    size_ += bytes.size();
  }
  /// Makes the file appear under its name with every byte appended. Once.
  void commit() {
    if (committed_) throw std::logic_error("tilefmt: file_writer::commit twice");
    do_commit();
    committed_ = true;
  }
  /// The same under another name than the one it was opened with (in a
  /// folder that exists by then), where the backend streams_writes(); a
  /// std::logic_error elsewhere (an upload whose key is fixed when it starts).
  void commit_as(const fs::path& p) {
    if (committed_) throw std::logic_error("tilefmt: file_writer::commit twice");
    do_commit_as(p);
    committed_ = true;
  }
  /// The bytes appended so far.
  std::uint64_t size() const noexcept { return size_; }
  bool committed() const noexcept { return committed_; }

private:
  virtual void do_append(std::span<const std::byte> bytes) = 0;
  virtual void do_commit() = 0;
  virtual void do_commit_as(const fs::path&) {
    throw std::logic_error("tilefmt: this storage cannot commit a file under another name");
  }

  std::uint64_t size_ = 0;
  bool committed_ = false;
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
  /// The same into `out` (`out.size()` bytes), which the caller provides:
  /// a reader that decodes the bytes next needs no zeroed buffer of its own.
  void read_range_into(const fs::path& p, std::uint64_t offset, std::span<std::byte> out) const {
    do_read_range_into(p, offset, out);
  }
  /// The entries of folder `p`, sorted by name; empty when `p` is no folder.
  std::vector<entry> list(const fs::path& p) const { return do_list(p); }
  /// Whether each request costs more than its bytes (a round trip to an
  /// object store): readers then read adjacent tiles with one read_range
  /// rather than one each. False by default (local files, memory).
  bool prefers_merged_reads() const { return do_prefers_merged_reads(); }
  /// Whether open_write's writers send each piece on as it comes (rather
  /// than keep the file until commit) and take file_writer::commit_as: a
  /// writer may then stream a file before it knows the file's name. True
  /// for local files; false by default.
  bool streams_writes() const { return do_streams_writes(); }

  /// Replaces or creates the file at `p` with `bytes`, atomically. Its
  /// folder must exist.
  void write(const fs::path& p, std::span<const std::byte> bytes) { do_write(p, bytes); }
  /// A writer that replaces or creates the file at `p` with the bytes it is
  /// given, atomically, at its commit(). Its folder must exist (by then).
  std::unique_ptr<file_writer> open_write(const fs::path& p) { return do_open_write(p); }
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
  /// By default the bytes are kept and given to do_write at commit.
  virtual std::unique_ptr<file_writer> do_open_write(const fs::path& p);
  virtual bool do_prefers_merged_reads() const { return false; }
  virtual bool do_streams_writes() const { return false; }
  /// By default do_read_range's bytes, copied.
  virtual void do_read_range_into(const fs::path& p, std::uint64_t offset, std::span<std::byte> out) const {
    const auto bytes = do_read_range(p, offset, out.size());
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  }
};

namespace detail {

/// The default file_writer: the whole file in memory, one write at commit.
class buffered_file_writer final : public file_writer {
public:
  buffered_file_writer(backend& b, fs::path p) : backend_(b), path_(std::move(p)) {}

private:
  void do_append(std::span<const std::byte> bytes) override { bytes_.insert(bytes_.end(), bytes.begin(), bytes.end()); }
  void do_commit() override { do_commit_as(path_); }
  void do_commit_as(const fs::path& p) override {
    backend_.write(p, bytes_);
    bytes_ = {};
  }

  backend& backend_;
  fs::path path_;
  std::vector<std::byte> bytes_;
};

} // namespace detail

inline std::unique_ptr<file_writer> backend::do_open_write(const fs::path& p) {
  return std::make_unique<detail::buffered_file_writer>(*this, p);
}

} // namespace tilefmt::storage
