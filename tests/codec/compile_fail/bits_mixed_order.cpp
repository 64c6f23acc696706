// expect: bits<N> and bits_le<N> cannot share a run
#include <tilefmt/codec/bits.hpp>
#include <tilefmt/codec/codec.hpp>
struct Flags {
  tilefmt::codec::bits<4> a;
  tilefmt::codec::bits_le<4> b;
};
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<Flags>(b);
}
