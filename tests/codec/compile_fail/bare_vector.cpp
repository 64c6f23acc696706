// expect: a container member needs its length
#include "tilefmt/codec/codec.hpp"
struct S {
  std::uint32_t n;
  std::vector<int> v;
};
auto b = tilefmt::codec::encode(S{});
