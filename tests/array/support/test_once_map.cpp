// The cache behind an opened array's const members: each value made once per
// key (as far as callers can tell), references stable, safe from many threads.
#include "tilefmt/array/support/once_map.hpp"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "../../support/testing.hpp"

namespace test_once_map {

using tilefmt::array::detail::once_map;

TEST_CASE("once_map: values by key, stable references") {
  once_map<int, std::string> m;
  int made = 0;
  const std::string& a = m.get(1, [&] { ++made; return std::string("one"); });
  const std::string& b = m.get(1, [&] { ++made; return std::string("other"); });
  CHECK(&a == &b);
  CHECK(a == "one");
  CHECK(made == 1);
  for (int k = 2; k < 100; ++k) (void)m.get(k, [&] { return std::to_string(k); });
  CHECK(a == "one");  // still valid after many insertions
  m.put(500, "put");
  CHECK(m.get(500, [] { return std::string("not made"); }) == "put");
}

TEST_CASE("once_map: many threads, one value per key") {
  once_map<int, std::vector<int>> m;
  std::atomic<int> made{0};
  std::vector<const std::vector<int>*> seen(8 * 50);
  std::vector<std::thread> pool;
  for (int w = 0; w < 8; ++w)
    pool.emplace_back([&, w] {
      for (int k = 0; k < 50; ++k)
        seen[static_cast<std::size_t>(w * 50 + k)] = &m.get(k, [&] {
          ++made;
          return std::vector<int>(100, k);
        });
    });
  for (auto& t : pool) t.join();
  for (int w = 1; w < 8; ++w)
    for (int k = 0; k < 50; ++k) CHECK(seen[static_cast<std::size_t>(w * 50 + k)] == seen[static_cast<std::size_t>(k)]);
  CHECK((*seen[7])[99] == 7);
  CHECK(made >= 50);  // a race may make a value twice; one of them is kept
}

} // namespace test_once_map
