// tilefmt — zero-copy views over little-endian arrays inside a buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <vector>

#include "tilefmt/codec/wire.hpp"

namespace tilefmt::codec {

/// A read-only view of `n` little-endian T stored at `data` (any alignment).
/// Use it as the container of `counted<>`, `sized<>` or `rest<>` to decode a
/// large array without copying: the view points into the decoded buffer, so
/// that buffer must outlive it. Elements are loaded on access, which makes
/// the view correct on any host and any alignment; `as_span()` gives a plain
/// span when the host is little-endian and the bytes are aligned for T.
template <wire_scalar T>
class le_span {
public:
  using value_type = T;

  class iterator {
  public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;

    iterator() = default;
    explicit iterator(const std::byte* p) : p_(p) {}
    T operator*() const noexcept { return load_le<T>(p_); }
    T operator[](difference_type i) const noexcept { return load_le<T>(p_ + i * sizeof(T)); }
    iterator& operator++() noexcept { p_ += sizeof(T); return *this; }
    iterator operator++(int) noexcept { auto t = *this; ++*this; return t; }
    iterator& operator--() noexcept { p_ -= sizeof(T); return *this; }
    iterator operator--(int) noexcept { auto t = *this; --*this; return t; }
    iterator& operator+=(difference_type d) noexcept { p_ += d * static_cast<difference_type>(sizeof(T)); return *this; }
    iterator& operator-=(difference_type d) noexcept { return *this += -d; }
    friend iterator operator+(iterator a, difference_type d) noexcept { return a += d; }
    friend iterator operator+(difference_type d, iterator a) noexcept { return a += d; }
    friend iterator operator-(iterator a, difference_type d) noexcept { return a -= d; }
    friend difference_type operator-(iterator a, iterator b) noexcept {
      return (a.p_ - b.p_) / static_cast<difference_type>(sizeof(T));
    }
    friend auto operator<=>(const iterator&, const iterator&) = default;

  private:
    const std::byte* p_ = nullptr;
  };

  le_span() = default;
  le_span(const std::byte* data, std::size_t n) noexcept : data_(data), n_(n) {}

  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  T operator[](std::size_t i) const noexcept { return load_le<T>(data_ + i * sizeof(T)); }
  iterator begin() const noexcept { return iterator(data_); }
  iterator end() const noexcept { return iterator(data_ + n_ * sizeof(T)); }
  std::span<const std::byte> bytes() const noexcept { return {data_, n_ * sizeof(T)}; }

  /// The elements as a span of T, without a copy, when that is possible.
  std::optional<std::span<const T>> as_span() const noexcept {
    if constexpr (!detail::host_is_little && sizeof(T) > 1) return std::nullopt;
    if (reinterpret_cast<std::uintptr_t>(data_) % alignof(T) != 0) return std::nullopt;
    return std::span<const T>(reinterpret_cast<const T*>(data_), n_);
  }

  std::vector<T> to_vector() const {
    std::vector<T> v(n_);
    load_le_array(data_, v.data(), n_);
    return v;
  }

  friend bool operator==(const le_span& a, const le_span& b) noexcept {
    // Byte equality, so that NaN payloads compare as stored.
    return a.n_ == b.n_ && (a.n_ == 0 || std::memcmp(a.data_, b.data_, a.n_ * sizeof(T)) == 0);
  }

private:
  const std::byte* data_ = nullptr;
  std::size_t n_ = 0;
};

} // namespace tilefmt::codec
