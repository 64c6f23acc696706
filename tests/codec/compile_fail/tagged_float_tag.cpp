// expect: tagged<Tag, ...>: Tag must be an integer, an enum
#include <tilefmt/codec/codec.hpp>
struct Record {
  tilefmt::codec::tagged<float, tilefmt::codec::alt<1, std::uint16_t>> body;
};
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<Record>(b);
}
