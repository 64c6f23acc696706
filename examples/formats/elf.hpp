// ELF64 declared with the codec: the file header, whose e_ident says the
// byte order of everything after it (EI_DATA: 1 little-endian, 2
// big-endian), and the section header table at the offset e_shoff holds,
// e_shnum entries. What lies between the header and the table (program
// headers, section contents) is kept as bytes by at<>, and whatever follows
// the table by rest<>, so a file re-encodes byte for byte; on encode e_shoff
// is computed from where the table lands.
//
// Not covered: 32-bit ELF (EI_CLASS 1), files without a section header table
// (e_shoff 0), and the extended numbering of files with 0xff00 sections or
// more (e_shnum 0, the count in section 0's sh_size).
//
// Reference: System V Application Binary Interface, chapter 4 (ELF header,
// sections), with the ELF-64 Object File Format, version 1.5.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tilefmt/codec/codec.hpp>
#include <tilefmt/codec/offset.hpp>

namespace elf {
namespace codec = tilefmt::codec;

struct SectionHeader {
  codec::ordered<std::uint32_t> name{};  // offset of the name in the section name table
  codec::ordered<std::uint32_t> type{};
  codec::ordered<std::uint64_t> flags{};
  codec::ordered<std::uint64_t> addr{};
  codec::ordered<std::uint64_t> offset{};
  codec::ordered<std::uint64_t> size{};
  codec::ordered<std::uint32_t> link{};
  codec::ordered<std::uint32_t> info{};
  codec::ordered<std::uint64_t> addralign{};
  codec::ordered<std::uint64_t> entsize{};
  friend bool operator==(const SectionHeader&, const SectionHeader&) = default;
};

struct Is64 {
  static constexpr std::string_view description = "ELFCLASS64 (2)";
  bool operator()(std::uint8_t c) const { return c == 2; }
};
struct IsCurrent {
  static constexpr std::string_view description = "EV_CURRENT (1)";
  bool operator()(std::uint8_t v) const { return v == 1; }
};
struct Is64Bytes {
  static constexpr std::string_view description = "the size of an ELF64 section header (64)";
  bool operator()(const codec::ordered<std::uint16_t>& v) const { return v.value == 64; }
};
struct SectionCount {
  std::uint64_t operator()(const auto& file) const { return file.e_shnum.value; }
};

struct File {
  // e_ident
  codec::magic<"\x7f" "ELF"> ei_magic{};
  codec::valid<std::uint8_t, Is64> ei_class{};
  codec::byte_order_field<std::uint8_t, codec::byte_order_if<1, 2>> ei_data{};  // ELFDATA2LSB, ELFDATA2MSB
  codec::valid<std::uint8_t, IsCurrent> ei_version{};
  std::uint8_t ei_osabi{};
  std::uint8_t ei_abiversion{};
  codec::pad<7> ei_pad{};
  // the rest of the header, in the order ei_data names
  codec::ordered<std::uint16_t> e_type{};
  codec::ordered<std::uint16_t> e_machine{};
  codec::ordered<std::uint32_t> e_version{};
  codec::ordered<std::uint64_t> e_entry{};
  codec::ordered<std::uint64_t> e_phoff{};
  codec::derived<codec::ordered<std::uint64_t>> e_shoff{};  // where `sections` lands
  codec::ordered<std::uint32_t> e_flags{};
  codec::ordered<std::uint16_t> e_ehsize{};
  codec::ordered<std::uint16_t> e_phentsize{};
  codec::ordered<std::uint16_t> e_phnum{};
  codec::valid<codec::ordered<std::uint16_t>, Is64Bytes> e_shentsize{};
  codec::ordered<std::uint16_t> e_shnum{};
  codec::ordered<std::uint16_t> e_shstrndx{};
  codec::at<"e_shoff", codec::sized<SectionCount, std::vector<SectionHeader>>> sections{};
  codec::rest<std::vector<std::byte>> trailing{};
  friend bool operator==(const File&, const File&) = default;
};

/// What decoding one section header on its own needs: the file's byte order.
struct Context {
  std::endian byte_order;
};

/// The name of section `s`: a NUL-terminated string in the section name
/// table (section e_shstrndx), read from the file's bytes.
inline std::string section_name(const File& f, std::span<const std::byte> bytes, const SectionHeader& s) {
  const auto& table = f.sections->value;
  if (f.e_shstrndx.value >= table.size())
    throw tilefmt::format_error("e_shstrndx " + std::to_string(f.e_shstrndx.value) + " names no section", 62);
  const SectionHeader& names = table[f.e_shstrndx.value];
  if (s.name.value >= names.size.value) throw tilefmt::format_error("section name offset outside the name table", 0);
  return codec::decode_at<codec::cstring>(bytes, names.offset.value + s.name.value).value;
}

} // namespace elf
