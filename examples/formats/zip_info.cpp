// Lists a ZIP file's entries as a reader finds them (the end record, then
// the central directory at its offset, then each local header at its
// entry's offset), checks each entry's CRC-32, and checks that re-encoding
// the file's records gives back its bytes.
//
//   zip_info FILE.zip
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "zip.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: zip_info FILE.zip\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto bytes = tilefmt::codec::as_byte_span(raw);
  try {
    zip::Directory d = zip::directory(bytes);
    std::cout << d.central.size() << " entries, central directory at offset " << d.end.directory_offset << " ("
              << d.end.directory_size << " bytes)\n";
    for (std::size_t i = 0; i < d.central.size(); ++i) {
      const zip::CentralEntry& c = d.central[i];
      const auto data = zip::contents(d.local[i], c.local_header_offset);
      const zip::DosDateTime& t = c.modified;
      std::printf("%8zu %s %04u-%02u-%02u %02u:%02u:%02u crc %08x  %s\n", data.size(),
                  c.method == 8 ? "deflated" : "stored  ", 1980u + t.year_from_1980.value, unsigned(t.month.value),
                  unsigned(t.day.value), unsigned(t.hour.value), unsigned(t.minute.value), 2u * t.second_half.value,
                  unsigned(c.crc32), c.name.c_str());
    }
    auto file = tilefmt::codec::decode<zip::File>(bytes);
    auto again = tilefmt::codec::encode(file);
    const bool same = std::equal(again.begin(), again.end(), bytes.begin(), bytes.end());
    std::cout << (same ? "re-encoded: identical\n" : "re-encoded: DIFFERENT\n");
    return same ? 0 : 1;
  } catch (const tilefmt::format_error& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
