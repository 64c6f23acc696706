// Prints an ELF64 file's header and section headers (in either byte
// order), and checks that re-encoding the decoded file gives back its bytes.
//
//   elf_info FILE
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "elf.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: elf_info FILE\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto bytes = tilefmt::codec::as_byte_span(raw);
  try {
    auto file = tilefmt::codec::decode<elf::File>(bytes);
    std::printf("%s-endian, type %u, machine %u, entry 0x%llx, %u section headers at offset %llu\n",
                file.ei_data.value == 1 ? "little" : "big", unsigned(file.e_type.value),
                unsigned(file.e_machine.value), static_cast<unsigned long long>(file.e_entry.value),
                unsigned(file.e_shnum.value), static_cast<unsigned long long>(file.e_shoff->value));
    for (std::size_t i = 0; i < file.sections->size(); ++i) {
      const elf::SectionHeader& s = file.sections->value[i];
      std::printf("[%2zu] %-20s type %2u offset %8llu size %8llu\n", i, elf::section_name(file, bytes, s).c_str(),
                  unsigned(s.type.value), static_cast<unsigned long long>(s.offset.value),
                  static_cast<unsigned long long>(s.size.value));
    }
    auto again = tilefmt::codec::encode(file);
    const bool same = std::equal(again.begin(), again.end(), bytes.begin(), bytes.end());
    std::cout << (same ? "re-encoded: identical\n" : "re-encoded: DIFFERENT\n");
    return same ? 0 : 1;
  } catch (const tilefmt::format_error& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
