// Every committed TileDB array (tests/data/tiledb) copied into a backend
// and read there, for the object-store tests: each must read as from disk,
// or fail where the disk copy fails (a filter this build lacks).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "result_rows.hpp"
#include "testing.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/storage/copy.hpp"
#include "tilefmt/storage/local.hpp"

namespace tilefmt::testing {

namespace fs = std::filesystem;

/// Copies each array under `data` (its <name>/array folders) to at(name)
/// in `st` and checks it there; returns how many were checked.
inline std::size_t check_committed_arrays(const std::shared_ptr<storage::backend>& st, const fs::path& data,
                                          const std::function<fs::path(const std::string&)>& at) {
  storage::local disk;
  std::size_t arrays = 0;
  auto outcome = [](const array::array_reader& arr) {
    try {
      return rows(arr.query().read());
    } catch (const std::exception& x) {
      return std::vector<std::string>{std::string("error: ") + x.what()};
    }
  };
  for (const auto& e : fs::directory_iterator(data)) {
    if (!fs::is_directory(e.path() / "array")) continue;
    const std::string name = e.path().filename().string();
    CAPTURE(name);
    const fs::path remote = at(name);
    storage::copy_tree(disk, e.path() / "array", *st, remote);
    const auto key = test_array_key(e.path() / "array");
    auto a = array::open(remote, {.encryption_key = key, .storage = st});
    auto b = array::open(e.path() / "array", {.encryption_key = key});
    REQUIRE(a.fragments().size() == b.fragments().size());
    const auto remote_rows = outcome(a), local_rows = outcome(b);
    CHECK(remote_rows.size() == local_rows.size());
    if (!local_rows.empty() && local_rows.front().starts_with("error: "))
      CHECK(remote_rows.front().starts_with("error: "));
    else
      CHECK(remote_rows == local_rows);
    ++arrays;
  }
  return arrays;
}

} // namespace tilefmt::testing
