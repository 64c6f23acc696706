// expect: count_of<Name, Count> must come before the container it counts
#include "tilefmt/codec/codec.hpp"
struct S {
  std::vector<std::uint32_t> data_parts;
  tilefmt::codec::count_of<"data_parts", std::uint32_t> num_data_parts;
};
auto b = tilefmt::codec::encode(S{});
