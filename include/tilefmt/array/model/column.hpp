// tilefmt — the buffer a decoded column is returned in.
//
// `column<T>` is a std::vector<T> whose allocator (1) leaves elements
// uninitialised when the vector is sized, because the tile decoder writes
// every byte anyway and zeroing hundreds of MiB first costs a full pass over
// memory, and (2) on Linux asks for transparent huge pages for large buffers:
// a fresh 256 MiB column otherwise takes 65,536 page faults as the decoder
// first touches it, which measured at about 40% of a whole zstd column read.
// (std::allocator can do neither; no packaged library offers this alone.)
// Large buffers are mapped and unmapped directly rather than through malloc:
// glibc raises its mmap threshold to the size of every large block freed, so
// a program's second read would take its 100 MiB result from the heap, where
// freed memory stays resident and the peak grows with each read (measured:
// 1.21x the result for one query, 1.69x from the second on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tilefmt::array {

namespace detail {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool under_address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool under_address_sanitizer = true;
#else
inline constexpr bool under_address_sanitizer = false;
#endif
#else
inline constexpr bool under_address_sanitizer = false;
#endif

/// `bytes` (a multiple of `align`, itself a power of two) of fresh memory at
/// an `align` boundary: mapped directly on Linux, from aligned_alloc
/// elsewhere and under AddressSanitizer (which then sees every access).
inline void* map_aligned(std::size_t bytes, std::size_t align) {
#if defined(__linux__)
  if constexpr (!under_address_sanitizer) {
    if (align <= 4096) {  // mappings are page-aligned already
      void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) throw std::bad_alloc();
      return m;
    }
    void* m = ::mmap(nullptr, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    // Over-map by `align` and give back the unaligned head and the tail.
    auto* const base = static_cast<std::byte*>(m);
    const auto head = (align - reinterpret_cast<std::uintptr_t>(base) % align) % align;
    if (head != 0) (void)::munmap(base, head);
    if (align - head != 0) (void)::munmap(base + head + bytes, align - head);
    return base + head;
  }
#endif
  void* p = std::aligned_alloc(align, bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

/// Releases memory from map_aligned(bytes, ...).
inline void unmap_aligned(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  if constexpr (!under_address_sanitizer) {
    (void)::munmap(p, bytes);
    return;
  }
#endif
  (void)bytes;
  std::free(p);
}

/// Large column mappings given back, kept for the next allocation of
/// about their size. A read in batches allocates the same buffers batch
/// after batch, and the tiles it decodes are of a few sizes; a fresh
/// mapping's pages are faulted in and zeroed by the kernel every time, a
/// kept one is resident already. Bounded, as the pages kept count in the
/// process's memory: 8 MiB in all, the oldest given back first (measured on
/// a DataFrame read in 16 MiB batches: 5% faster at the same peak; 64 MiB
/// kept made it 10% faster and its peak 28 MB higher).
class mapping_cache {
public:
  /// The bytes kept in all (so also the largest mapping kept).
  static constexpr std::size_t max_total = std::size_t{8} << 20;
  static constexpr std::size_t max_count = 16;

  static mapping_cache& instance() {
    // Never destroyed: columns freed by other static destructors still give back.
    static mapping_cache* const c = new mapping_cache;
    return *c;
  }

  /// A kept mapping of at least `bytes` and at most twice that, its tail
  /// past `bytes` given back; null if none.
  void* take(std::size_t bytes) {
    std::byte* p = nullptr;
    std::size_t size = 0;
    {
      const std::lock_guard lock(mutex_);
      std::size_t best = count_;
      for (std::size_t i = 0; i < count_; ++i)
        if (kept_[i].size >= bytes && kept_[i].size / 2 <= bytes && (best == count_ || kept_[i].size < kept_[best].size))
          best = i;
      if (best == count_) return nullptr;
      p = kept_[best].at;
      size = kept_[best].size;
      total_ -= size;
      for (std::size_t i = best; i + 1 < count_; ++i) kept_[i] = kept_[i + 1];
      --count_;
    }
    if (size > bytes) unmap(p + bytes, size - bytes);
    return p;
  }

  /// Keeps mapping `p` of `bytes`, or gives it back.
  void give(void* p, std::size_t bytes) noexcept {
    if (bytes > max_total) return unmap(p, bytes);
    entry out[max_count + 1];
    std::size_t n_out = 0;
    {
      const std::lock_guard lock(mutex_);
      kept_[count_++] = {static_cast<std::byte*>(p), bytes};
      total_ += bytes;
      std::size_t drop = 0;
      while (count_ - drop > max_count || total_ > max_total) {
        out[n_out++] = kept_[drop];
        total_ -= kept_[drop++].size;
      }
      for (std::size_t i = drop; i < count_; ++i) kept_[i - drop] = kept_[i];
      count_ -= drop;
    }
    for (std::size_t i = 0; i < n_out; ++i) unmap(out[i].at, out[i].size);
  }

private:
  struct entry {
    std::byte* at;
    std::size_t size;
  };
  static void unmap(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
    (void)::munmap(p, bytes);
#else
    (void)p, (void)bytes;
#endif
  }

  std::mutex mutex_;
  entry kept_[max_count + 1]{};  // oldest first
  std::size_t count_ = 0, total_ = 0;
};

template <class T>
struct column_allocator {
  using value_type = T;

  /// Buffers from this size on are mappings of their own (kept for reuse
  /// where they may be); from a huge page on, aligned to huge pages and
  /// advised as such. A sparse tile's coordinates (100,000 cells: 800 KB)
  /// came from malloc, which gave them back to the system when freed: a
  /// read of two tiles spent half of its time faulting their pages in.
  static constexpr std::size_t mapped_threshold = std::size_t{256} << 10;
  static constexpr std::size_t huge_page = std::size_t{2} << 20;
  static constexpr std::size_t small_page = std::size_t{4} << 10;
  /// Large buffers are mappings kept for reuse (mapping_cache): on Linux,
  /// not under AddressSanitizer (whose allocator sees every buffer).
#if defined(__linux__)
  static constexpr bool recycles = !under_address_sanitizer;
#else
  static constexpr bool recycles = false;
#endif

  column_allocator() noexcept = default;
  template <class U>
  column_allocator(const column_allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    // Room for rounding up to huge pages and for map_aligned's over-mapping.
    if (n > (std::numeric_limits<std::size_t>::max() - 2 * huge_page) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < mapped_threshold) return std::allocator<T>{}.allocate(n);
    if constexpr (recycles)
      if (void* kept = mapping_cache::instance().take(rounded(bytes))) return static_cast<T*>(kept);
    void* p = map_aligned(rounded(bytes), bytes < huge_page ? small_page : huge_page);
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
    if (n * sizeof(T) < mapped_threshold)
      std::allocator<T>{}.deallocate(p, n);
    else if constexpr (recycles)
      mapping_cache::instance().give(p, rounded(n * sizeof(T)));
    else
      unmap_aligned(p, rounded(n * sizeof(T)));
  }

  static constexpr std::size_t rounded(std::size_t bytes) noexcept {
    const std::size_t unit = bytes < huge_page ? small_page : huge_page;
    return (bytes + unit - 1) / unit * unit;
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

/// Gives back the memory of `c`'s capacity past its size (a buffer sized
/// for an upper bound, written in part, then shrunk). A mapped buffer keeps
/// its capacity: the whole pages past its size go back to the system and
/// read as zeros if touched again. A small one is reallocated when it would
/// hold more than twice its size.
template <class T>
void release_unused(std::vector<T, column_allocator<T>>& c) {
  const std::size_t capacity = c.capacity() * sizeof(T);
  if (capacity < column_allocator<T>::mapped_threshold) {
    if (c.size() < c.capacity() / 2) c.shrink_to_fit();
    return;
  }
#if defined(__linux__)
  if constexpr (!under_address_sanitizer) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    auto* const base = reinterpret_cast<std::byte*>(c.data());
    const std::size_t from = (c.size() * sizeof(T) + page - 1) / page * page;
    const std::size_t to = column_allocator<T>::rounded(capacity);
    if (from < to) (void)::madvise(base + from, to - from, MADV_DONTNEED);
  }
#endif
}

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
