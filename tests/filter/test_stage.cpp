// What every filter stage builds on: parts lists, scratch buffers, metadata
// read and written through the codec (errors naming the filter), and the
// integer type TileDB computes a datatype in.
#include "tilefmt/filter/stage.hpp"

#include "../support/testing.hpp"

namespace test_stage {

using namespace tilefmt;

namespace {
struct TwoCounts {  // a metadata struct as a filter declares one
  std::uint32_t first;
  std::uint64_t second;
};

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  return "?";
}
std::string integer_type_of(format::Datatype t) {
  std::string out = "none";
  format::visit_integer_type(t, [&]<class T>() { out = type_name<T>(); });
  return out;
}
} // namespace

TEST_CASE("stage: part lists spill past four parts and keep their order") {
  std::vector<std::byte> bytes(10);
  filter::part_list parts;
  CHECK(parts.empty());
  for (std::size_t i = 0; i < 6; ++i) parts.push_back(filter::bytes_view(bytes).first(i));
  CHECK(parts.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(parts[i].size() == i);
  CHECK(parts.total_bytes() == 15);
  filter::part_list more;
  more.append(parts);
  CHECK(more.size() == 6);
  CHECK(more[5].size() == 5);
  parts.clear();
  CHECK(parts.total_bytes() == 0);
}

TEST_CASE("stage: metadata round trip, and truncated metadata names the filter") {
  std::vector<std::byte> buf;
  auto md = filter::write_metadata(buf, TwoCounts{7, 1ull << 40});
  CHECK(md.size() == 12);
  TwoCounts back{};
  CHECK(filter::read_metadata(format::FilterType::BITSHUFFLE, md, back) == 12);
  CHECK(back.first == 7);
  CHECK(back.second == 1ull << 40);
  try {
    filter::read_metadata(format::FilterType::BITSHUFFLE, md.first(9), back);
    FAIL("no error");
  } catch (const format_error& e) {
    CHECK(e.field().find("BITSHUFFLE filter metadata") == 0);
    CHECK(e.offset() == 4);
  }
  CHECK(filter::scratch::sized(buf, 3).size() == 3);
  CHECK(buf.size() >= 12);  // sizing down keeps the capacity
}

TEST_CASE("stage: the integer type a datatype computes in") {
  using D = format::Datatype;
  CHECK(integer_type_of(D::CHAR) == "int8");
  CHECK(integer_type_of(D::STRING_ASCII) == "uint8");
  CHECK(integer_type_of(D::STRING_UTF16) == "uint16");
  CHECK(integer_type_of(D::UINT32) == "uint32");
  CHECK(integer_type_of(D::DATETIME_MS) == "int64");
  CHECK(integer_type_of(D::TIME_NS) == "int64");
  CHECK(integer_type_of(D::FLOAT32) == "none");
}

} // namespace test_stage
