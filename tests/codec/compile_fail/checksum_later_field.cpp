// expect: First and Last must name earlier fields
#include <tilefmt/codec/checked.hpp>
#include <tilefmt/codec/codec.hpp>
namespace codec = tilefmt::codec;
struct Sum {
  using value_type = std::uint8_t;
  static constexpr std::string_view name = "sum";
  static std::uint8_t compute(std::span<const std::byte>) { return 0; }
};
struct S {
  std::uint8_t a;
  codec::checksum<Sum, "a", "b"> sum;
  std::uint8_t b;
};
int main() { (void)codec::encode(S{}); }
