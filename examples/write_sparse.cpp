// Writes a sparse TileDB array: readings of a few sensors at irregular
// times, given in the order they arrived. The writer sorts them into
// TileDB's global order, cuts data tiles of the schema's capacity and
// builds the R-tree over them.
//
//   write_sparse PATH       (PATH must not exist yet)
//
// TileDB (e.g. TileDB-Py: tiledb.open(PATH)[:]) reads the result.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "tilefmt/array/write.hpp"
#include "tilefmt/filter/bit_width_reduction.hpp"
#include "tilefmt/filter/zstd.hpp"
#include "tilefmt/format/print.hpp"

using namespace tilefmt;

using Levels = filter::pipeline<filter::bit_width_reduction<>, filter::zstd<3>>;  // int32 readings

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_sparse PATH\n";
    return 2;
  }
  try {
    // Time in seconds over a day (tiles of an hour), sensor ids 0-63 (tiles of 16).
    auto schema = format::make_array_schema(
        {.type = format::ArrayType::SPARSE,
         .dimensions = {format::make_dimension<std::int64_t>("time", 0, 86399, 3600),
                        format::make_dimension<std::int32_t>("sensor", 0, 63, 16)},
         .attributes = {format::make_attribute(
                            {.name = "level", .type = format::Datatype::INT32, .filters = Levels::descriptor()}),
                        format::make_attribute({.name = "note",
                                                .type = format::Datatype::STRING_ASCII,
                                                .cell_val_num = format::var_num,
                                                .nullable = true})}});
    schema.capacity = 64;
    array::create(argv[1], schema);

    // Readings as they arrived: sensors report out of order.
    std::vector<std::int64_t> time;
    std::vector<std::int32_t> sensor, level;
    std::vector<std::string> note;
    std::vector<std::uint8_t> has_note;
    for (std::int32_t i = 0; i < 1000; ++i) {
      time.push_back((static_cast<std::int64_t>(i) * 7919) % 86400);
      sensor.push_back((i * 37) % 64);
      level.push_back(1000 + (i * 13) % 250);
      note.push_back(i % 50 == 0 ? "calibrated" : "");
      has_note.push_back(i % 50 == 0);
    }
    array::sparse_writer frag(argv[1]);
    frag.set_coords("time", time).set_coords("sensor", sensor);
    frag.set<Levels>("level", level).set_var("note", note, has_note);
    std::string name = frag.commit();

    std::cout << "created " << argv[1] << " (sparse, capacity " << schema.capacity << ")\n"
              << "  level  INT32 " << format::pipeline_to_text(Levels::descriptor(), tilefmt::format::written_version)
              << "\n"
              << "  note   STRING_ASCII var, nullable\n"
              << "wrote fragment __fragments/" << name << ": " << frag.cell_num() << " cells\n";
  } catch (const std::exception& e) {
    std::cerr << "write_sparse: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
