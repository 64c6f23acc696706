// expect: count_of<> and field_equals<> name a field rather than number it
#include "tilefmt/codec/codec.hpp"
// The former positional form (field_equals<0, V> gets the same sentence).
struct S {
  tilefmt::codec::count_of<1, std::uint32_t> n;
  std::vector<std::uint32_t> parts;
};
auto b = tilefmt::codec::encode(S{});
