// expect: T has a field whose size depends on the data
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::counted<std::uint8_t, std::string> name;
};
constexpr auto n = tilefmt::codec::fixed_wire_size<S>;
