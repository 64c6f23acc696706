// expect: count_of<Field, Count> must name a plain container member
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::count_of<1, std::uint32_t> n;
  std::uint64_t not_a_container;
};
auto b = tilefmt::codec::encode(S{});
