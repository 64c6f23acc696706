// array/read/fill.hpp: unwritten cells of a dense tile take the
// attribute's fill value and fill validity.
#include "tilefmt/array/read/fill.hpp"

#include "../../support/testing.hpp"

namespace test_fill {

using namespace tilefmt;

TEST_CASE("fixed, var-size and validity fill") {
  std::vector<std::byte> fill(2);
  codec::store_le<std::int16_t>(fill.data(), -2);
  const auto a = format::make_attribute({.name = "a", .type = format::Datatype::INT16, .nullable = true,
                                         .fill_value = fill, .fill_valid = true});
  const std::vector<bool> written{true, false, true};
  std::vector<std::byte> values = testing::hex_bytes("0100 0200 0300");
  array::detail::fill_fixed_cells(a, 2, written, values);
  CHECK(values == testing::hex_bytes("0100 feff 0300"));
  CHECK_THROWS_AS(array::detail::fill_fixed_cells(a, 4, written, values), format_error);
  std::vector<std::uint8_t> validity{0, 0, 0};
  array::detail::fill_validity(a, written, validity);
  CHECK(validity == std::vector<std::uint8_t>{0, 1, 0});

  const auto s = format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                         .cell_val_num = format::var_num, .fill_value = testing::text_bytes("NA")});
  const std::vector<std::byte> text = testing::text_bytes("xyyzzz");
  array::column<std::byte> chars(text.begin(), text.end());
  std::vector<std::uint64_t> offsets{0, 1, 3};
  array::detail::fill_var_cells(s, written, chars, offsets);
  CHECK(std::vector<std::byte>(chars.begin(), chars.end()) == testing::text_bytes("xNAzzz"));
  CHECK(offsets == std::vector<std::uint64_t>{0, 1, 3});
}

} // namespace test_fill
