// expect: C arrays cannot be reflected by Boost.PFR; declare the member as std::array<T, N>
#include "tilefmt/codec/codec.hpp"
// A C array directly in a format struct: found before Boost.PFR would split it
// into its elements.
struct S {
  std::uint32_t version;
  std::uint8_t magic[4];
  std::uint64_t size;
};
auto b = tilefmt::codec::encode(S{});
