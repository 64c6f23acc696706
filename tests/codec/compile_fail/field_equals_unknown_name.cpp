// expect: field_equals<Name, Value>: the struct has no field of that name
#include "tilefmt/codec/codec.hpp"
struct S {
  std::uint8_t has_note;
  tilefmt::codec::when<tilefmt::codec::field_equals<"has_notes", 1>, std::uint32_t> note;
};
auto b = tilefmt::codec::encode(S{});
