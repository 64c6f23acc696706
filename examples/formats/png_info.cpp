// Prints a PNG file's chunks and header (IHDR), with every CRC verified, and
// checks that re-encoding the decoded file gives back its bytes.
//
//   png_info FILE.png
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "png.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: png_info FILE.png\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    auto file = tilefmt::codec::decode<png::File>(raw);
    for (const png::Chunk& c : file.chunks)
      std::cout << "chunk " << std::string_view(c.type.data(), 4) << ": " << c.data.size() << " bytes, CRC "
                << c.crc.value << "\n";
    std::cout << tilefmt::codec::to_text(png::header(file)) << "\n";
    auto again = tilefmt::codec::encode(file);
    const bool same = again.size() == raw.size() && std::equal(again.begin(), again.end(), raw.begin(),
                                                               [](std::byte a, char b) { return a == std::byte(b); });
    std::cout << (same ? "re-encoded: identical\n" : "re-encoded: DIFFERENT\n");
    return same ? 0 : 1;
  } catch (const tilefmt::format_error& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
