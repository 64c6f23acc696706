// tilefmt WebAssembly module — a read-only storage backend whose files a
// JavaScript object provides: in a browser's Worker, HTTP range requests
// (web/storage.js); in Node, the file system; for a folder the user picks,
// its File objects. The object's functions are synchronous, since the
// reader is (a Worker may block, the page's main thread never runs this):
//
//   size(path)                 -> number of bytes, or null when no file
//   isFolder(path)             -> boolean
//   list(path)                 -> [{name, folder}], sorted by name
//   read(path, offset, length) -> Uint8Array of `length` bytes, or a string
//                                 saying why not
//   mergeReads                 -> true where each request costs a round trip
//
// A JavaScript exception must not cross C++ frames (their destructors would
// not run): the object reports failures as values, and this backend turns
// them into storage::io_error naming the file.
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/storage/backend.hpp"

namespace tilefmt_web {

namespace fs = std::filesystem;
using emscripten::val;

class js_storage final : public tilefmt::storage::backend {
public:
  explicit js_storage(val source)
      : source_(std::move(source)), merge_(source_["mergeReads"].isTrue()) {}

private:
  using io_error = tilefmt::storage::io_error;

  std::optional<std::uint64_t> do_file_size(const fs::path& p) const override {
    const val n = source_.call<val>("size", p.generic_string());
    if (!n.isNumber()) return std::nullopt;
    return static_cast<std::uint64_t>(n.as<double>());
  }
  bool do_is_folder(const fs::path& p) const override {
    return source_.call<val>("isFolder", p.generic_string()).isTrue();
  }
  std::vector<std::byte> do_read(const fs::path& p, std::uint64_t max_bytes) const override {
    const auto n = file_size(p);
    if (!n) throw io_error(p, "no such file");
    if (*n > max_bytes)
      throw io_error(p, "file of " + std::to_string(*n) + " bytes is larger than the " + std::to_string(max_bytes) +
                            " bytes allowed");
    std::vector<std::byte> out(static_cast<std::size_t>(*n));
    do_read_range_into(p, 0, out);
    return out;
  }
  std::vector<std::byte> do_read_range(const fs::path& p, std::uint64_t offset, std::uint64_t n) const override {
    std::vector<std::byte> out(static_cast<std::size_t>(n));
    do_read_range_into(p, offset, out);
    return out;
  }
  void do_read_range_into(const fs::path& p, std::uint64_t offset, std::span<std::byte> out) const override {
    if (out.empty()) return;
    const val bytes = source_.call<val>("read", p.generic_string(), static_cast<double>(offset),
                                        static_cast<double>(out.size()));
    if (bytes.isString()) throw io_error(p, bytes.as<std::string>());
    const auto got = bytes["length"].as<double>();
    if (got != static_cast<double>(out.size()))
      throw io_error(p, "read of " + std::to_string(out.size()) + " bytes at " + std::to_string(offset) + " gave " +
                            std::to_string(static_cast<std::uint64_t>(got)));
    // A view of wasm memory made now (memory may have grown since `out` was
    // allocated, which detaches older views) and filled by one copy.
    val(emscripten::typed_memory_view(out.size(), reinterpret_cast<unsigned char*>(out.data())))
        .call<void>("set", bytes);
  }
  std::vector<tilefmt::storage::entry> do_list(const fs::path& p) const override {
    const val entries = source_.call<val>("list", p.generic_string());
    std::vector<tilefmt::storage::entry> out;
    if (!entries.isArray()) return out;
    const auto n = entries["length"].as<unsigned>();
    out.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      const val e = entries[i];
      out.push_back({e["name"].as<std::string>(), e["folder"].isTrue()});
    }
    return out;
  }
  bool do_prefers_merged_reads() const override { return merge_; }

  [[noreturn]] static void read_only(const fs::path& p) { throw io_error(p, "read-only storage"); }
  void do_write(const fs::path& p, std::span<const std::byte>) override { read_only(p); }
  void do_make_folder(const fs::path& p) override { read_only(p); }
  void do_remove(const fs::path& p) override { read_only(p); }

  val source_;
  bool merge_;
};

} // namespace tilefmt_web
