// expect: a run of consecutive bit fields must fill whole bytes
#include <tilefmt/codec/bits.hpp>
#include <tilefmt/codec/codec.hpp>
struct Flags {
  tilefmt::codec::bits<3> a;
  tilefmt::codec::bits<4> b;
};
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<Flags>(b);
}
