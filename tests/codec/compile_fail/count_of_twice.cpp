// expect: two count_of<> members name the same container
#include "tilefmt/codec/codec.hpp"
struct S {
  tilefmt::codec::count_of<"data_parts", std::uint32_t> num_metadata_parts;  // meant "metadata_parts"
  tilefmt::codec::count_of<"data_parts", std::uint32_t> num_data_parts;
  std::vector<std::uint32_t> metadata_parts;
  std::vector<std::uint32_t> data_parts;
};
auto b = tilefmt::codec::encode(S{});
