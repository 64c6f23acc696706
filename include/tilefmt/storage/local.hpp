// tilefmt — the computer's own file system as a storage backend.
//
// Files are opened without following a symbolic link in the last component
// and without blocking, then checked with fstat on the open descriptor: a
// FIFO, a device or a link is refused without a read that could hang, and
// nothing can swap the file between the check and the read. Reads use
// pread, so threads share nothing.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
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
private:
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
    if (offset > f.size() || n > f.size() - offset)
      throw io_error(p, "needs " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + ", the file has " +
                            std::to_string(f.size()));
    std::vector<std::byte> out(static_cast<std::size_t>(n));
    f.read_at(offset, out);
    return out;
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
    fs::path tmp = p;
    tmp += ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      if (!f) throw io_error(tmp, "cannot create");
      if (!bytes.empty() && !f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
        throw io_error(tmp, "short write");
      f.flush();
      if (!f) throw io_error(tmp, "short write");
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if (ec) throw io_error(p, "cannot rename into place: " + ec.message());
  }

  void do_make_folder(const fs::path& p) override {
    std::error_code ec;
    fs::create_directories(p, ec);
    if (ec) throw io_error(p, "cannot create the folder: " + ec.message());
  }

  void do_remove(const fs::path& p) override {
    std::error_code ec;
    fs::remove_all(p, ec);
    if (ec) throw io_error(p, "cannot remove: " + ec.message());
  }
};

} // namespace tilefmt::storage
