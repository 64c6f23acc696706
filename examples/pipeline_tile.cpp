// A tile written through a filter pipeline fixed at compile time, read back
// by the same pipeline and by a runtime pipeline built from the descriptor a
// schema would store: the bytes are those TileDB writes for these filters.
#include <cstdint>
#include <iostream>
#include <numeric>
#include <vector>

#include <cstring>
#include <tilefmt/filter/bit_width_reduction.hpp>
#include <tilefmt/filter/pipeline.hpp>
#include <tilefmt/filter/positive_delta.hpp>
#include <tilefmt/filter/runtime_pipeline.hpp>
#include <tilefmt/filter/zstd.hpp>
#include <tilefmt/format/array_schema.hpp>
#include <tilefmt/format/print.hpp>

namespace filter = tilefmt::filter;

int main() {
  // Timestamps in ms that grow slowly: what positive delta + bit width reduction are for.
  std::vector<std::int64_t> values(200000);
  std::int64_t t = 1'700'000'000'000;
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = t += static_cast<std::int64_t>(i % 17);

  using P = filter::pipeline<filter::positive_delta<>, filter::bit_width_reduction<>, filter::zstd<3>>;
  std::vector<std::byte> tile = P::encode<std::int64_t>(values);
  std::cout << values.size() * sizeof(std::int64_t) << " bytes of int64 -> a " << tile.size() << "-byte tile ("
            << static_cast<double>(values.size() * sizeof(std::int64_t)) / static_cast<double>(tile.size()) << "x smaller)\n";

  auto back = P::decode<std::int64_t>(tile);
  std::cout << "compile-time pipeline decodes it: " << (back == values ? "identical" : "DIFFERENT") << "\n";

  tilefmt::format::FilterPipeline desc = P::descriptor();
  std::cout << "\nThe pipeline as a schema stores it: " << tilefmt::format::pipeline_to_text(desc, tilefmt::format::written_version)
            << "\n\n";

  filter::runtime_pipeline rp(desc, tilefmt::format::Datatype::INT64, tilefmt::format::written_version);
  auto bytes = rp.decode(tile, rp.context(sizeof(std::int64_t)));
  bool same = bytes.size() == values.size() * 8 && std::memcmp(bytes.data(), values.data(), bytes.size()) == 0;
  std::cout << "runtime pipeline built from it decodes it: " << (same ? "identical" : "DIFFERENT") << "\n";
  bool same_bytes = rp.encode(std::as_bytes(std::span(values)), rp.context(8)) == tile;
  std::cout << "and encodes the same " << tile.size() << " bytes: " << (same_bytes ? "yes" : "NO") << "\n";
  return back == values && same && same_bytes ? 0 : 1;
}
