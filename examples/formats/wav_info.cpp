// Prints a WAV file's chunks and format, and checks that re-encoding the
// decoded file gives back its bytes.
//
//   wav_info FILE.wav
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "wav.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: wav_info FILE.wav\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    auto file = tilefmt::codec::decode<wav::File>(raw);
    for (const wav::Chunk& c : file.body->chunks)
      std::cout << "chunk \"" << std::string_view(c.id.data(), 4) << "\": " << c.data.size() << " bytes\n";
    std::cout << tilefmt::codec::to_text(wav::format(file)) << "\n";
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
