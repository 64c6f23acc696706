// format_spec/filter_pipeline.md: a pipeline's bytes, each filter's options
// as declared structs, and damaged pipelines as errors naming the field.
#include "tilefmt/format/filter_pipeline.hpp"

#include "../support/testing.hpp"

namespace test_filter_pipeline {

using namespace tilefmt;
using format::FilterType;

TEST_CASE("filter pipeline: golden bytes of [BYTESHUFFLE, ZSTD(3)]") {
  format::FilterPipeline p;
  p.max_chunk_size = 65536;
  p.filters.value.push_back(format::Filter::make(FilterType::BYTESHUFFLE));
  p.filters.value.push_back(
      format::Filter::make(FilterType::ZSTD, format::CompressionOptions{format::Compressor::ZSTD, 3}, 22));
  auto bytes = codec::encode(p);
  // u32 max chunk size, u32 filter count, then per filter: u8 type, u32 option bytes, options.
  CHECK(bytes == testing::hex_bytes("00000100 02000000"
                                    "09 00000000"
                                    "02 05000000 02 03000000"));
  CHECK(codec::decode<format::FilterPipeline>(bytes) == p);
  auto opts = p.filters.value[1].options_as<format::CompressionOptions>(22);
  CHECK(opts.level == 3);
}

TEST_CASE("filter pipeline: damaged bytes") {
  auto bytes = testing::hex_bytes("00000100 02000000 09 00000000 02 05000000 02 03000000");
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_THROWS_AS(codec::decode<format::FilterPipeline>(std::span<const std::byte>(bytes).first(n)), format_error);
  auto huge = bytes;
  huge[4] = std::byte{0xff};  // 255 filters declared
  try {
    (void)codec::decode<format::FilterPipeline>(huge);
    FAIL("no error");
  } catch (const format_error& e) {
    CHECK(e.field().find("filters") != std::string::npos);
  }
}

} // namespace test_filter_pipeline
