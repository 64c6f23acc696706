// expect: C arrays cannot be reflected by Boost.PFR; declare the member as std::array<T, N>
#include "tilefmt/codec/codec.hpp"
// A C array directly in a struct is split by Boost.PFR into its elements and
// fails inside PFR; wrapped in an adaptor it reaches the codec's own check.
struct S {
  std::uint32_t version;
  tilefmt::codec::when<tilefmt::codec::field_equals<0, 1u>, int[2]> pair;
};
auto b = tilefmt::codec::encode(S{});
