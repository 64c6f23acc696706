// tilefmt — integer types chosen by width, for the filters that compute on
// values only as wide as their datatype (XOR, DELTA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tilefmt/format/datatype.hpp"

namespace tilefmt::filter::detail {

/// Calls f.template operator()<U>() with U the unsigned integer of `width`
/// bytes; false when width is not 1, 2, 4 or 8.
template <class F>
bool with_unsigned_width(std::size_t width, F&& f) {
  switch (width) {
  case 1: f.template operator()<std::uint8_t>(); return true;
  case 2: f.template operator()<std::uint16_t>(); return true;
  case 4: f.template operator()<std::uint32_t>(); return true;
  case 8: f.template operator()<std::uint64_t>(); return true;
  default: return false;
  }
}

/// INT8, INT16, INT32 or INT64.
inline format::Datatype signed_integer_of_width(std::size_t width) {
  switch (width) {
  case 1: return format::Datatype::INT8;
  case 2: return format::Datatype::INT16;
  case 4: return format::Datatype::INT32;
  case 8: return format::Datatype::INT64;
  default: throw std::invalid_argument("tilefmt: no integer datatype is " + std::to_string(width) + " bytes wide");
  }
}

} // namespace tilefmt::filter::detail
