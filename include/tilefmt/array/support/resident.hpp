// tilefmt — whether a buffer's pages are already in memory.
//
// A tile decoded around the caches (tile_context::stream_destination) is
// faster only into memory already mapped: a buffer reused from read to
// read runs twice as fast (bench/RESULTS.md in the history, "Byte unshuffle around the
// caches"), but the first write to a fresh page faults it in, and the
// kernel clears the page through the cache, so streaming stores then have
// to push those lines out first (16% slower than ordinary stores).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tilefmt::array::detail {

/// True when every page of `s` is resident (mincore); false where that
/// cannot be asked.
inline bool resident(std::span<const std::byte> s) noexcept {
#if defined(__linux__)
  if (s.empty()) return false;
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return false;
  const auto page = static_cast<std::uintptr_t>(page_size);
  std::uintptr_t at = reinterpret_cast<std::uintptr_t>(s.data()) & ~(page - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(s.data()) + s.size();
  unsigned char in_memory[256];  // a byte a page, a batch at a time
  while (at < end) {
    const std::uintptr_t pages = std::min<std::uintptr_t>((end - at + page - 1) / page, sizeof in_memory);
    if (::mincore(reinterpret_cast<void*>(at), static_cast<std::size_t>(pages * page), in_memory) != 0) return false;
    for (std::uintptr_t k = 0; k < pages; ++k)
      if ((in_memory[k] & 1) == 0) return false;
    at += pages * page;
  }
  return true;
#else
  (void)s;
  return false;
#endif
}

} // namespace tilefmt::array::detail
