// expect: switch_on<Name, ...> must name a field before it
#include <tilefmt/codec/codec.hpp>
#include <tilefmt/codec/switch.hpp>
struct Record {
  tilefmt::codec::switch_on<"type", tilefmt::codec::alt<1, std::uint16_t>> body;
  std::uint8_t type;
};
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<Record>(b);
}
