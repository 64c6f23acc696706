// expect: field_equals<Name, Value> must name a field before the when<> it gates
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::when<tilefmt::codec::field_equals<"has_note", 1>, std::uint32_t> note;
  std::uint8_t has_note;
};
auto b = tilefmt::codec::encode(S{});
