// expect: at<Name, T> must name a field before it
#include <tilefmt/codec/codec.hpp>
struct Record {
  tilefmt::codec::at<"where", std::uint16_t> value;
  std::uint32_t where;
};
int main() {
  std::vector<std::byte> b;
  (void)tilefmt::codec::decode<Record>(b);
}
