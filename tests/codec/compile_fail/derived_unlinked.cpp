// expect: derived<U>: no later field of the struct names this one
#include <tilefmt/codec/codec.hpp>
#include <tilefmt/codec/switch.hpp>
struct Record {
  tilefmt::codec::derived<std::uint8_t> type;
  std::uint32_t value;
};
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<Record>(b);
}
