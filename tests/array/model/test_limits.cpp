// array/model/limits.hpp: counts from files multiplied and bounded before
// they size a buffer.
#include "tilefmt/array/model/limits.hpp"

#include <limits>

#include "../../support/testing.hpp"

namespace test_limits {

using tilefmt::format_error;
using tilefmt::array::detail::size_guard;

TEST_CASE("size_guard: products and sums that overflow, sizes over the limit") {
  const size_guard g("arr/__fragment_metadata.tdb", 1000);
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  CHECK(g.product(0, big, "cells") == 0);
  CHECK(g.product(4, 250, "cells") == 1000);
  CHECK(g.sum(big - 1, 1, "cells") == big);
  try {
    (void)g.product(big / 2 + 1, 2, "cells");
    FAIL("no overflow");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()) == "arr/__fragment_metadata.tdb: the number of cells overflows 64 bits at offset 0");
  }
  CHECK_THROWS_AS((void)g.sum(big, 1, "cells"), format_error);
  g.check(1000, "a tile", "a tile");
  try {
    g.check(1001, "a tile of this fragment", "a tile");
    FAIL("no limit");
  } catch (const format_error& e) {
    CHECK(e.file() == "arr/__fragment_metadata.tdb");
    CHECK(e.reason() == "a tile of this fragment would hold 1001 bytes, more than the 1000 a tile may claim "
                        "(open_options::max_allocation)");
  }
}

} // namespace test_limits
