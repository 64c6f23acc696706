// expect: count_of<Name, Count>: the struct has no field of that name
#include "tilefmt/codec/codec.hpp"
// A misspelt name (the count is stored before the parts, as in CompressionMD).
struct S {
  tilefmt::codec::count_of<"data_partz", std::uint32_t> num_data_parts;
  std::vector<std::uint32_t> data_parts;
};
auto b = tilefmt::codec::encode(S{});
