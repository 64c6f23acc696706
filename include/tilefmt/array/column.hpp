// tilefmt — the buffer a decoded column is returned in.
//
// `column<T>` is a std::vector<T> whose allocator (1) leaves elements
// uninitialised when the vector is sized, because the tile decoder writes
// every byte anyway and zeroing hundreds of MiB first costs a full pass over
// memory, and (2) on Linux asks for transparent huge pages for large buffers:
// a fresh 256 MiB column otherwise takes 65,536 page faults as the decoder
// first touches it, which measured at about 40% of a whole zstd column read.
// (std::allocator can do neither; no packaged library offers this alone.)
#pragma once

#include <cstddef>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilefmt::array {

namespace detail {

template <class T>
struct column_allocator {
  using value_type = T;

  /// Buffers from this size on are aligned to and advised as huge pages.
  static constexpr std::size_t huge_threshold = std::size_t{4} << 20;
  static constexpr std::size_t huge_page = std::size_t{2} << 20;

  column_allocator() noexcept = default;
  template <class U>
  column_allocator(const column_allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < huge_threshold) return std::allocator<T>{}.allocate(n);
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
    void* p = std::aligned_alloc(huge_page, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: where huge pages are off or unavailable this fails and the
    // buffer simply uses normal pages. The huge pages the buffer fills
    // whole, not the last partial one: touching that would make up to 2 MiB
    // resident that the buffer does not use (a 10 MiB result would cost 12).
    if (const std::size_t whole = bytes / huge_page * huge_page; whole != 0) (void)::madvise(p, whole, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < huge_threshold)
      std::allocator<T>{}.deallocate(p, n);
    else
      std::free(p);
  }

  /// Default-initialises (for arithmetic T: leaves the value unset) instead of
  /// value-initialising; construction with arguments is unchanged.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const column_allocator<U>&) const noexcept {
    return true;
  }
};

} // namespace detail

/// A decoded fixed-size column: a std::vector whose elements start
/// uninitialised when sized (fill them before reading) and whose large
/// buffers use huge pages where the system allows.
template <class T>
using column = std::vector<T, detail::column_allocator<T>>;

namespace detail {

/// The bytes of var-size cell `c` among cells stored back to back in
/// `values`, cell i starting at offsets[i] values of `value_size` bytes (no
/// trailing offset: the last cell ends with `values`). The reader, the
/// writers and the tile metadata all slice cells this way.
inline std::span<const std::byte> var_cell(std::span<const std::byte> values, std::span<const std::uint64_t> offsets,
                                           std::size_t c, std::size_t value_size = 1) {
  const std::size_t begin = static_cast<std::size_t>(offsets[c]) * value_size;
  const std::size_t end = c + 1 < offsets.size() ? static_cast<std::size_t>(offsets[c + 1]) * value_size : values.size();
  return values.subspan(begin, end - begin);
}

} // namespace detail

/// A var-size column: `values` holds every cell's values back to back and
/// `offsets[i]` is where cell i starts (in elements of T), with no trailing
/// offset. Read by fragment::read_var, taken by the writers' set_var.
template <class T>
struct var_column {
  std::vector<std::uint64_t> offsets;
  std::vector<T> values;
};

} // namespace tilefmt::array
