// expect: C arrays cannot be reflected by Boost.PFR; declare the member as std::array<T, N>
#include "tilefmt/codec/codec.hpp"
// A C array wrapped in an adaptor (c_array_member.cpp has one directly in the
// struct).
struct S {
  std::uint32_t version;
  tilefmt::codec::when<tilefmt::codec::field_equals<"version", 1u>, int[2]> pair;
};
auto b = tilefmt::codec::encode(S{});
