// expect: count_of<Name, Count> names its own field: name the container it counts
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::count_of<"num_data_parts", std::uint32_t> num_data_parts;
  std::vector<std::uint32_t> data_parts;
};
auto b = tilefmt::codec::encode(S{});
