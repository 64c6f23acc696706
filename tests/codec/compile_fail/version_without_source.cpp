// expect: this struct has version-gated fields (since<>/until<>) but no version_field before them: pass a context with a `version` member
#include "tilefmt/codec/codec.hpp"
struct S {
  std::uint8_t a;
  tilefmt::codec::since<6, std::uint32_t> b;
};
auto b = tilefmt::codec::encode(S{});
