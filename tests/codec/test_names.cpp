#include "tilefmt/codec/fixed_string.hpp"
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
template <class Bytes>
struct BasicTable {
  Bytes data;
};
struct Plain {
  int x;
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
  // Error paths and dumps name the format's table, not the C++ template.
  CHECK(codec::display_name<some::deep_ns::WindowMD<int>> == "WindowMD");
  CHECK(codec::display_name<some::deep_ns::BasicTable<std::vector<std::byte>>> == "Table");
  CHECK(codec::display_name<some::deep_ns::Plain> == "Plain");
  CHECK(codec::display_name<some::deep_ns::Footer> == "Footer");
}

TEST_CASE("field positions are found by name") {
  using F = some::deep_ns::Footer;
  static_assert(codec::field_index<F>("version") == 0);
  static_assert(codec::field_index<F>("x_1") == 2);
  static_assert(codec::field_index<F>("x") == codec::no_such_field);
  static_assert(codec::field_index<F>("x_1 ") == codec::no_such_field);
  static_assert(codec::field_index<F>("") == codec::no_such_field);
  static_assert(codec::field_index<some::deep_ns::WindowMD<double>>("bit_width") == 1);
  // A struct local to a function is named too.
  struct Local {
    int first;
    int second;
  };
  static_assert(codec::field_index<Local>("second") == 1);
  CHECK(codec::field_names<Local>[0] == "first");
}

TEST_CASE("fixed_string holds a literal as a template argument") {
  constexpr codec::fixed_string s = "data_parts";
  static_assert(sizeof(s.chars) == 11);
  static_assert(s.view() == "data_parts");
  static_assert(std::string_view(s).size() == 10);
  CHECK(s.view() == "data_parts");
}
