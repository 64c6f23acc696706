// tilefmt — file access for the array layer: every read and write goes
// through a storage::backend (storage/backend.hpp); errors name the file.
#pragma once

#include <filesystem>
#include <memory>
#include <utility>

#include "tilefmt/codec/error.hpp"
#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/local.hpp"

namespace tilefmt::array {

namespace fs = std::filesystem;

/// A file that should be there is missing, unreadable, or of the wrong kind.
using storage::io_error;

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

namespace detail {

/// `s`, or the local file system when `s` is null.
template <class Backend>
std::shared_ptr<Backend> or_local(std::shared_ptr<Backend> s) {
  if (s) return s;
  return std::make_shared<storage::local>();
}

} // namespace detail

} // namespace tilefmt::array
