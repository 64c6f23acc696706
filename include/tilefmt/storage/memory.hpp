// tilefmt — a storage backend in memory: paths mapped to bytes.
//
// For tests and fuzzing (an array unpacked from bytes, opened without
// touching a disk) and for arrays built in memory before they are copied
// elsewhere. Paths are compared after lexical normalisation, '/' separated.
// A file written in pieces (open_write) is the backend's default: its bytes
// gathered, then one write at commit (they end up in memory either way).
#pragma once

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "tilefmt/storage/backend.hpp"

namespace tilefmt::storage {

class memory final : public backend {
private:
  std::optional<std::uint64_t> do_file_size(const fs::path& p) const override {
    std::shared_lock lock(mutex_);
    auto it = files_.find(key(p));
    if (it == files_.end()) return std::nullopt;
    return it->second.size();
  }

  bool do_is_folder(const fs::path& p) const override {
    std::shared_lock lock(mutex_);
    return folders_.count(key(p)) != 0;
  }

  std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const override {
    std::shared_lock lock(mutex_);
    const auto& bytes = file(p);
    if (bytes.size() > max_bytes)
      throw io_error(p, "holds " + std::to_string(bytes.size()) + " bytes, more than the " + std::to_string(max_bytes) +
                            " a read may take (open_options::max_allocation)");
    return bytes;
  }

  std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const override {
    std::shared_lock lock(mutex_);
    const auto& bytes = file(p);
    if (offset > bytes.size() || n > bytes.size() - offset)
      throw io_error(p, "needs " + std::to_string(n) + " bytes at offset " + std::to_string(offset) + ", the file has " +
                            std::to_string(bytes.size()));
    auto first = bytes.begin() + static_cast<std::ptrdiff_t>(offset);
    return std::vector<std::byte>(first, first + static_cast<std::ptrdiff_t>(n));
  }

  std::vector<entry> do_list(const fs::path& p) const override {
    std::shared_lock lock(mutex_);
    std::vector<entry> out;
    const std::string dir = key(p);
    if (folders_.count(dir) == 0) return out;
    const std::string prefix = dir.empty() || dir == "/" ? dir : dir + "/";
    auto children = [&](const auto& names, bool folder) {
      for (auto it = names.lower_bound(prefix); it != names.end(); ++it) {
        const std::string& k = key_of(*it);
        if (k.compare(0, prefix.size(), prefix) != 0) break;
        std::string rest = k.substr(prefix.size());
        if (!rest.empty() && rest.find('/') == std::string::npos) out.push_back({rest, folder});
      }
    };
    children(files_, false);
    children(folders_, true);
    std::sort(out.begin(), out.end(), [](const entry& a, const entry& b) { return a.name < b.name; });
    return out;
  }

  void do_write(const fs::path& p, std::span<const std::byte> bytes) override {
    std::unique_lock lock(mutex_);
    const std::string k = key(p);
    if (folders_.count(k) != 0) throw io_error(p, "is a folder");
    if (folders_.count(parent(k)) == 0) throw io_error(p, "cannot create: no folder " + parent(k));
    files_[k].assign(bytes.begin(), bytes.end());
  }

  void do_make_folder(const fs::path& p) override {
    std::unique_lock lock(mutex_);
    for (std::string k = key(p);; k = parent(k)) {
      if (files_.count(k) != 0) throw io_error(p, "cannot create the folder: " + k + " is a file");
      folders_.insert(k);
      if (k.empty() || k == "/") break;
    }
  }

  void do_remove(const fs::path& p) override {
    std::unique_lock lock(mutex_);
    const std::string k = key(p);
    files_.erase(k);
    if (folders_.erase(k) == 0) return;
    const std::string prefix = k + "/";
    std::erase_if(files_, [&](const auto& f) { return f.first.compare(0, prefix.size(), prefix) == 0; });
    std::erase_if(folders_, [&](const auto& f) { return f.compare(0, prefix.size(), prefix) == 0; });
  }

public:
  /// Every file, by normalised path (for tests and tools).
  std::map<std::string, std::vector<std::byte>> files() const {
    std::shared_lock lock(mutex_);
    return files_;
  }

private:
  /// The normalised form of a path: "a/b/c", "/a/b" for absolute ones, ""
  /// for the current folder.
  static std::string key(const fs::path& p) {
    std::string s = p.lexically_normal().generic_string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    if (s == ".") s.clear();
    return s;
  }
  static std::string parent(const std::string& k) {
    auto slash = k.find_last_of('/');
    if (slash == std::string::npos) return "";
    return slash == 0 ? "/" : k.substr(0, slash);
  }
  static const std::string& key_of(const std::string& k) { return k; }
  static const std::string& key_of(const std::pair<const std::string, std::vector<std::byte>>& f) { return f.first; }

  const std::vector<std::byte>& file(const fs::path& p) const {
    auto it = files_.find(key(p));
    if (it == files_.end()) throw io_error(p, folders_.count(key(p)) ? "is not a regular file" : "cannot open: no such file");
    return it->second;
  }

  mutable std::shared_mutex mutex_;
  std::map<std::string, std::vector<std::byte>> files_;
  std::set<std::string> folders_{""};
};

} // namespace tilefmt::storage
