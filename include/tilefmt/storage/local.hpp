// tilefmt — the computer's own file system as a storage backend.
//
// Files are opened without following a symbolic link in the last component
// and without blocking, then checked with fstat on the open descriptor: a
// FIFO, a device or a link is refused without a read that could hang, and
// nothing can swap the file between the check and the read. Reads use
// pread, so threads share nothing.
//
// Writes go to `<name>.tmp` in the same folder, which is then renamed over
// `<name>`: a reader (and a process killed mid-write) never leaves a part
// of a file under its name. By default (`local{}`, durable) a write is also
// on disk when it returns: the temporary file is fsync'ed before the rename
// and the folder after it, and a folder made is fsync'ed into its parent.
// A fragment's commit marker, written last, can then not outlive a power
// failure that its data files did not. TileDB's POSIX backend fsyncs each
// data and metadata file when it closes it and creates the commit marker
// with O_SYNC, but syncs no folder; this is that and the folders. The cost
// is two fsyncs per file, a millisecond or two each on an SSD: committing a
// dense fragment of ten files (2 MB) took 18 to 37 ms instead of 2 on a
// virtual disk (`crash-writer cost`); `local{local::not_durable}` leaves
// them out (tests, scratch arrays).
// A write that fails removes its temporary file. A file written in pieces
// (open_write) goes the same way: each piece is written to `<name>.tmp` as
// it comes, so only the piece at hand is in memory.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tilefmt/storage/backend.hpp"

namespace tilefmt::storage {

namespace detail {

/// An open descriptor of a regular file, closed on destruction.
class regular_file {
public:
  explicit regular_file(const fs::path& p) : path_(p) {
    fd_ = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd_ < 0) {
      const int err = errno;
      throw io_error(p, err == ELOOP ? "is a symbolic link, which an array may not hold"
                                     : "cannot open: " + std::string(std::strerror(err)));
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw io_error(p, "is not a regular file");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  regular_file(const regular_file&) = delete;
  regular_file& operator=(const regular_file&) = delete;
  ~regular_file() { ::close(fd_); }

  std::uint64_t size() const noexcept { return size_; }

  void read_at(std::uint64_t offset, std::span<std::byte> out) const {
    std::size_t done = 0;
    while (done < out.size()) {
      const ::ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw io_error(path_, n == 0 ? "short read (the file shrank)" : "read failed: " + std::string(std::strerror(errno)));
      done += static_cast<std::size_t>(n);
    }
  }

private:
  fs::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

} // namespace detail

class local final : public backend {
public:
  /// Durable writes (the default): fsync of files and folders, see above.
  static constexpr struct not_durable_t {
  } not_durable{};
  local() = default;
  explicit local(not_durable_t) : durable_(false) {}
  bool durable() const noexcept { return durable_; }

private:
  /// fsync of the file or folder at `p`.
  static void sync_path(const fs::path& p, bool folder) {
    const int fd = ::open(p.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_WRONLY) | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) throw io_error(p, "cannot open to sync: " + std::string(std::strerror(errno)));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw io_error(p, "cannot sync: " + std::string(std::strerror(err)));
  }

  bool durable_ = true;

  std::optional<std::uint64_t> do_file_size(const fs::path& p) const override {
    std::error_code ec;
    auto st = fs::symlink_status(p, ec);
    if (ec || st.type() != fs::file_type::regular) return std::nullopt;
    auto n = fs::file_size(p, ec);
    if (ec) return std::nullopt;
    return n;
  }

  bool do_is_folder(const fs::path& p) const override {
    std::error_code ec;
    return fs::is_directory(p, ec);
  }

  std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const override {
    detail::regular_file f(p);
    if (f.size() > max_bytes)
      throw io_error(p, "holds " + std::to_string(f.size()) + " bytes, more than the " + std::to_string(max_bytes) +
                            " a read may take (open_options::max_allocation)");
    std::vector<std::byte> out(static_cast<std::size_t>(f.size()));
    f.read_at(0, out);
    return out;
  }

  std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const override {
    detail::regular_file f(p);
    check_range(f, p, offset, n);
    std::vector<std::byte> out(static_cast<std::size_t>(n));
    f.read_at(offset, out);
    return out;
  }

  void do_read_range_into(const fs::path& p, std::uint64_t offset, std::span<std::byte> out) const override {
    detail::regular_file f(p);
    check_range(f, p, offset, out.size());
    f.read_at(offset, out);
  }

  static void check_range(const detail::regular_file& f, const fs::path& p, std::uint64_t offset, std::uint64_t n) {
    if (offset > f.size() || n > f.size() - offset)
      throw io_error(p, "needs " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + ", the file has " +
                            std::to_string(f.size()));
  }

  std::vector<entry> do_list(const fs::path& p) const override {
    std::vector<entry> out;
    std::error_code ec;
    if (!fs::is_directory(p, ec)) return out;
    for (auto it = fs::directory_iterator(p, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::error_code kind;
      out.push_back({it->path().filename().string(), it->is_directory(kind)});
    }
    if (ec) throw io_error(p, "cannot list: " + ec.message());
    std::sort(out.begin(), out.end(), [](const entry& a, const entry& b) { return a.name < b.name; });
    return out;
  }

  void do_write(const fs::path& p, std::span<const std::byte> bytes) override {
    file f(p, durable_);
    f.append(bytes);
    f.commit();
  }

  std::unique_ptr<file_writer> do_open_write(const fs::path& p) override { return std::make_unique<file>(p, durable_); }
  bool do_streams_writes() const override { return true; }

  /// A file written to `<name>.tmp` piece by piece (each piece on its way
  /// to the disk at once), then synced and renamed over `<name>` (or, by
  /// commit_as, another name: a rename is a rename).
  class file final : public file_writer {
  public:
    file(const fs::path& p, bool durable) : path_(p), tmp_(p), durable_(durable) {
      tmp_ += ".tmp";
      fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
      if (fd_ < 0) throw io_error(tmp_, "cannot create: " + std::string(std::strerror(errno)));
    }
    ~file() override { discard(); }

  private:
    void do_append(std::span<const std::byte> bytes) override {
      if (fd_ < 0) throw io_error(tmp_, "an earlier write failed");
      std::size_t done = 0;
      while (done < bytes.size()) {
        const ::ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("short write");
        done += static_cast<std::size_t>(n);
      }
    }

    void do_commit() override { do_commit_as(path_); }
    void do_commit_as(const fs::path& path) override {
      if (fd_ < 0) throw io_error(tmp_, "an earlier write failed");
      if (durable_ && ::fsync(fd_) != 0) fail("cannot sync");
      const int fd = std::exchange(fd_, -1);
      if (::close(fd) != 0) {
        const std::string reason = std::string("cannot close: ") + std::strerror(errno);
        ::unlink(tmp_.c_str());
        throw io_error(tmp_, reason);
      }
      if (::rename(tmp_.c_str(), path.c_str()) != 0) {
        const std::string reason = std::string("cannot rename into place: ") + std::strerror(errno);
        ::unlink(tmp_.c_str());
        throw io_error(path, reason);
      }
      if (durable_) sync_path(path.has_parent_path() ? path.parent_path() : fs::path("."), true);
    }

    /// Closes and removes the temporary file (a write failed, or the writer
    /// was dropped uncommitted).
    void discard() noexcept {
      if (fd_ < 0) return;
      ::close(std::exchange(fd_, -1));
      ::unlink(tmp_.c_str());
    }

    [[noreturn]] void fail(const std::string& what) {
      const std::string reason = what + ": " + std::strerror(errno);
      discard();
      throw io_error(tmp_, reason);
    }

    fs::path path_, tmp_;
    bool durable_;
    int fd_ = -1;
  };

  void do_make_folder(const fs::path& p) override {
    // The folders to make, outermost first: each is synced into its parent.
    std::vector<fs::path> missing;
    std::error_code probe;
    for (fs::path q = p; !q.empty() && !fs::is_directory(q, probe); q = q.parent_path()) {
      missing.push_back(q);
      if (q == q.parent_path() || !q.has_relative_path()) break;
    }
    std::error_code ec;
    fs::create_directories(p, ec);
    if (ec) throw io_error(p, "cannot create the folder: " + ec.message());
    if (!durable_) return;
    for (auto it = missing.rbegin(); it != missing.rend(); ++it)
      sync_path(it->has_parent_path() ? it->parent_path() : fs::path("."), true);
  }

  void do_remove(const fs::path& p) override {
    std::error_code ec;
    fs::remove_all(p, ec);
    if (ec) throw io_error(p, "cannot remove: " + ec.message());
  }
};

} // namespace tilefmt::storage
