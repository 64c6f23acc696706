// expect: count_of<Name, Count> must name a plain container member
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::count_of<"not_a_container", std::uint32_t> n;
  std::uint64_t not_a_container;
};
auto b = tilefmt::codec::encode(S{});
