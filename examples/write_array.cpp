// Writes a TileDB array: a 2D dense array whose two numeric attributes are
// filtered by compile-time pipelines (the pipeline types declare the
// schema's filters and then encode the tiles themselves), and a var-size
// string attribute, nullable, under TileDB's dictionary filter.
//
//   write_array PATH        (PATH must not exist yet)
//
// TileDB (e.g. TileDB-Py: tiledb.open(PATH)[:]) reads the result.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "tilefmt/array/write.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/zstd.hpp"
#include "tilefmt/format/print.hpp"

using namespace tilefmt;

using Counts = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;      // int32
using Readings = filter::pipeline<filter::bitshuffle, filter::lz4<>>;       // float64

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_array PATH\n";
    return 2;
  }
  try {
    // 16 x 12 cells in space tiles of 8 x 4.
    auto schema = format::make_array_schema(
        {.type = format::ArrayType::DENSE,
         .dimensions = {format::make_dimension<std::int32_t>("row", 1, 16, 8),
                        format::make_dimension<std::int32_t>("col", 1, 12, 4)},
         .attributes = {
             format::make_attribute(
                 {.name = "count", .type = format::Datatype::INT32, .filters = Counts::descriptor()}),
             format::make_attribute(
                 {.name = "reading", .type = format::Datatype::FLOAT64, .filters = Readings::descriptor()}),
             format::make_attribute({.name = "station",
                                     .type = format::Datatype::STRING_ASCII,
                                     .cell_val_num = format::var_num,
                                     .nullable = true,
                                     .filters = format::compression_pipeline(format::FilterType::DICTIONARY)})}});
    std::string schema_name = array::create(argv[1], schema);

    // The top half of the array: rows 1-8, every column (three tiles).
    array::dense_writer frag(argv[1], {{1, 8}, {1, 12}}, array::cell_layout::storage);
    std::vector<std::int32_t> count;
    std::vector<double> reading;
    std::vector<std::string> station;
    std::vector<std::uint8_t> station_known;  // validity: 0 = null
    const std::vector<std::string> names{"north", "harbour", "airfield"};
    for (std::uint64_t i = 0; i < frag.cell_num(); ++i) {  // storage order: tile by tile
      auto rc = frag.cell_coordinates(i);
      count.push_back(static_cast<std::int32_t>(rc[0] * 100 + rc[1]));
      reading.push_back(20.0 + 0.25 * static_cast<double>(rc[0]) - 0.125 * static_cast<double>(rc[1]));
      station.push_back(names[static_cast<std::size_t>(rc[1] % 3)]);
      station_known.push_back(rc[1] != 7);  // column 7 has no station
    }
    frag.set<Counts>("count", count).set<Readings>("reading", reading).set_var("station", station, station_known);
    std::string name = frag.commit();

    std::cout << "created " << argv[1] << "\n"
              << "  schema   __schema/" << schema_name << "\n"
              << "  count    INT32   "
              << format::pipeline_to_text(Counts::descriptor(), tilefmt::format::written_version) << "\n"
              << "  reading  FLOAT64 "
              << format::pipeline_to_text(Readings::descriptor(), tilefmt::format::written_version) << "\n"
              << "  station  STRING_ASCII var, nullable, DICTIONARY\n"
              << "wrote fragment __fragments/" << name << "\n"
              << "  subarray row [1, 8], col [1, 12]: " << frag.tile_num() << " tiles of " << frag.cells_per_tile()
              << " cells\n"
              << "  first cells (row, col): count, reading, station\n";
    for (std::uint64_t i = 0; i < 4; ++i) {
      auto rc = frag.cell_coordinates(i);
      std::cout << "    (" << rc[0] << ", " << rc[1] << "): " << count[i] << ", " << reading[i] << ", "
                << (station_known[i] ? station[i] : "null") << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "write_array: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
