// expect: Count must be an unsigned integer type
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::counted<std::int32_t, std::string> name;
};
auto b = tilefmt::codec::encode(S{});
