// tilefmt — reading and writing whole files, with errors that name them.
// Writes are crash-safe: a temporary name in the same folder, then rename.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "tilefmt/codec/error.hpp"

namespace tilefmt::array {

namespace fs = std::filesystem;

/// A file that should be there is missing or unreadable.
class io_error : public std::runtime_error {
public:
  io_error(const fs::path& p, const std::string& what) : std::runtime_error(p.string() + ": " + what), path_(p) {}
  const fs::path& path() const noexcept { return path_; }

private:
  fs::path path_;
};

/// The whole file.
inline std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary | std::ios::ate);
  if (!f) throw io_error(p, "cannot open");
  std::streamoff n = f.tellg();
  if (n < 0) throw io_error(p, "cannot determine the size");
  std::vector<std::byte> out(static_cast<std::size_t>(n));
  f.seekg(0);
  if (n && !f.read(reinterpret_cast<char*>(out.data()), n)) throw io_error(p, "short read");
  return out;
}

/// `n` bytes at `offset`; an error naming the file when the file is shorter.
inline std::vector<std::byte> read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) {
  std::error_code ec;
  std::uint64_t size = fs::file_size(p, ec);
  if (ec) throw io_error(p, "cannot open: " + ec.message());
  if (offset > size || n > size - offset)
    throw io_error(p, "needs " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + ", the file has " +
                          std::to_string(size));
  std::ifstream f(p, std::ios::binary);
  if (!f) throw io_error(p, "cannot open");
  std::vector<std::byte> out(static_cast<std::size_t>(n));
  f.seekg(static_cast<std::streamoff>(offset));
  if (n && !f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n))) throw io_error(p, "short read");
  return out;
}

/// Writes `bytes` to a temporary file next to `p` and renames it into place,
/// so a reader never sees a partial file.
inline void write_file_atomic(const fs::path& p, std::span<const std::byte> bytes) {
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

/// Runs `f` and, if it throws a format_error, adds the file name to it.
template <class F>
decltype(auto) naming_file(const fs::path& p, F&& f) {
  try {
    return f();
  } catch (format_error& e) {
    if (e.file().empty()) e.set_file(p.string());
    throw;
  }
}

} // namespace tilefmt::array
