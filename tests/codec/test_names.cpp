#include "tilefmt/codec/names.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace some::deep_ns {
struct Footer {
  std::uint32_t version;
  std::vector<int> file_sizes;
  double x_1;
};
template <class T>
struct WindowMD {
  T value_offset;
  std::uint8_t bit_width;
};
} // namespace some::deep_ns

using namespace tilefmt;

TEST_CASE("field names come from the declaration") {
  using F = some::deep_ns::Footer;
  static_assert(codec::field_name<F, 0> == "version");
  static_assert(codec::field_name<F, 1> == "file_sizes");
  static_assert(codec::field_name<F, 2> == "x_1");
  static_assert(codec::field_names<F>.size() == 3);
  CHECK(codec::field_names<some::deep_ns::WindowMD<std::int32_t>>[1] == "bit_width");
}

TEST_CASE("type names drop namespaces of the outer name") {
  static_assert(codec::type_name<some::deep_ns::Footer> == "Footer");
  CHECK(codec::type_name<some::deep_ns::WindowMD<int>> == "WindowMD<int>");
}
