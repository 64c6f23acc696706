// tilefmt — what the object-store backends (s3.hpp, gcs.hpp) share beyond
// their requests: folders made of key prefixes, listings a page at a time,
// and the checks of a ranged read's answer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/s3_request.hpp"

namespace tilefmt::storage::detail {

/// One page of a listing: the objects' keys, the prefixes (folders) below
/// when listed a level at a time, the next page's token (empty on the last).
struct object_page {
  std::vector<std::string> keys, prefixes;
  std::string next;
  bool empty_page = true;
};

/// The prefix of the objects inside folder `key` ("" for a bucket).
inline std::string prefix_of(const std::string& key) { return key.empty() ? key : key + "/"; }

/// The entries of the folder whose objects start with `prefix`, from its
/// pages listed a level at a time (page_of(token)), sorted by name.
template <class PageOf>
std::vector<entry> entries_of(const std::string& prefix, PageOf page_of) {
  std::vector<entry> out;
  std::string token;
  do {
    object_page page = page_of(token);
    for (auto& k : page.keys)
      if (k.size() > prefix.size()) out.push_back({k.substr(prefix.size()), false});
    for (auto& f : page.prefixes) {
      std::string name = f.substr(std::min(prefix.size(), f.size()));
      while (!name.empty() && name.back() == '/') name.pop_back();
      if (!name.empty()) out.push_back({name, true});
    }
    token = std::move(page.next);
  } while (!token.empty());
  std::sort(out.begin(), out.end(), [](const entry& a, const entry& b) { return a.name < b.name; });
  return out;
}

/// Every key of the pages page_of(token) gives, at any depth.
template <class PageOf>
std::vector<std::string> keys_of(PageOf page_of) {
  std::vector<std::string> keys;
  std::string token;
  do {
    object_page page = page_of(token);
    keys.insert(keys.end(), page.keys.begin(), page.keys.end());
    token = std::move(page.next);
  } while (!token.empty());
  return keys;
}

/// Bytes [offset, offset + n) of the object at `p`: size_of() when n is 0
/// (the range must still start inside the object), else get(range header)
/// and its answer checked; fail(what, answer) reports any other status.
template <class SizeOf, class Get, class Fail>
std::vector<std::byte> ranged_read(const fs::path& p, std::uint64_t offset, std::uint64_t n, SizeOf size_of, Get get,
                                   Fail fail) {
  if (n == 0) {
    const std::optional<std::uint64_t> size = size_of();
    if (!size) throw io_error(p, "no such object");
    if (offset > *size) throw io_error(p, "is shorter than " + std::to_string(offset) + " bytes");
    return {};
  }
  if (offset > unlimited - n) throw io_error(p, "a byte range past 2^64");
  http_response r = get("Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + n - 1));
  if (r.status == 404) throw io_error(p, "no such object");
  if (r.status == 416 || (r.status == 206 && r.body.size() != n))
    throw io_error(p, "is shorter than " + std::to_string(offset + n) + " bytes");
  // A server that ignores ranges answers the whole object, which the limit
  // of n bytes turned away unless it is just the range.
  if (r.status == 200 && offset == 0 && r.body.size() == n && !r.too_large) return std::move(r.body);
  if (r.status != 206) fail("GET (byte range)", r);
  return std::move(r.body);
}

} // namespace tilefmt::storage::detail
