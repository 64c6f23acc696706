// tilefmt — a cache that computes each value once and is safe to use from
// many threads: what an opened array keeps behind its `const` members.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace tilefmt::array::detail {

/// Values by key, made on first use by the caller's function. References
/// returned stay valid for the map's life (values are never replaced or
/// erased). Two threads asking for the same missing key may both make it;
/// the first one stored wins, so `make` must be a pure function of the key.
template <class K, class V>
class once_map {
public:
  template <class Make>
  const V& get(const K& key, Make&& make) const {
    {
      std::lock_guard lock(mutex_);
      if (auto it = values_.find(key); it != values_.end()) return *it->second;
    }
    // Made outside the lock: making a value may read and decode a file.
    auto value = std::make_unique<const V>(make());
    std::lock_guard lock(mutex_);
    return *values_.try_emplace(key, std::move(value)).first->second;
  }

  /// Stores a value made elsewhere (before any get of that key).
  void put(const K& key, V value) {
    std::lock_guard lock(mutex_);
    values_.insert_or_assign(key, std::make_unique<const V>(std::move(value)));
  }

private:
  mutable std::mutex mutex_;
  mutable std::map<K, std::unique_ptr<const V>> values_;
};

} // namespace tilefmt::array::detail
