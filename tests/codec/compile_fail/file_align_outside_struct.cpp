// expect: align<N> and checksum fields depend on their place in a struct
#include <tilefmt/codec/codec.hpp>
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<tilefmt::codec::file_align<4>>(b);
}
