// Compile-time probe: the translation unit of a program that creates a dense
// array and writes one fragment (bench/compile_time.sh times its compile;
// tests/compiled reads it back with reader.cpp).
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tilefmt/array/write.hpp>

namespace array = tilefmt::array;
namespace format = tilefmt::format;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  auto schema = format::make_array_schema({.type = format::ArrayType::DENSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 8, 4)},
                                           .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
  array::create(argv[1], schema);
  array::dense_writer frag(argv[1], {{1, 8}});
  frag.set("a", std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
  std::puts(frag.commit().c_str());
  return 0;
}
