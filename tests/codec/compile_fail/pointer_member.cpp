// expect: a format struct cannot hold pointers or references
#include "tilefmt/codec/codec.hpp"
struct S {
  const int* p;
};
auto b = tilefmt::codec::encode(S{});
