// tilefmt-consolidate: compacting a TileDB array without libtiledb, as
// TileDB's consolidate and vacuum do (tilefmt-inspect's sibling).
//
//   tilefmt-consolidate ARRAY                       fragments into one (array/consolidate.hpp)
//   tilefmt-consolidate ARRAY --metadata            array metadata files into one
//   tilefmt-consolidate ARRAY --vacuum              then remove what was replaced (array/vacuum.hpp)
//   tilefmt-consolidate ARRAY --vacuum-only         only remove what earlier consolidations replaced
//   options: --start MS --end MS                    what was written in this time range (default: all)
//            --amplification X                      dense arrays (default 1.0, as TileDB)
//            --purge                                leave deleted cells out (sparse arrays)
//
// Prints what it wrote and removed. Exit status: 0 on success (also when
// there was nothing to consolidate), 1 when the array cannot be read or
// written, 2 on usage errors.
#include <charconv>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <tilefmt/array/consolidate.hpp>
#include <tilefmt/array/vacuum.hpp>

namespace fs = std::filesystem;
using namespace tilefmt;

namespace {

int usage() {
  std::cerr << "usage: tilefmt-consolidate ARRAY [--metadata] [--vacuum | --vacuum-only] [--start MS] [--end MS]\n"
               "                           [--amplification X] [--purge]\n";
  return 2;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

void print(const array::vacuum_result& v) {
  for (const auto& p : v.removed) std::cout << "removed " << p.string() << "\n";
  for (const auto& p : v.ignore_files) std::cout << "wrote " << p.string() << "\n";
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const fs::path root = argv[1];
  bool metadata = false, vacuum = false, vacuum_only = false;
  array::consolidation_options opt;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--metadata") {
      metadata = true;
    } else if (a == "--vacuum") {
      vacuum = true;
    } else if (a == "--vacuum-only") {
      vacuum_only = true;
    } else if (a == "--purge") {
      opt.purge_deleted_cells = true;
    } else if (a == "--start" && has_value) {
      if (!parse_u64(argv[++i], opt.timestamp_start)) return usage();
    } else if (a == "--end" && has_value) {
      if (!parse_u64(argv[++i], opt.timestamp_end)) return usage();
    } else if (a == "--amplification" && has_value) {
      try {
        opt.amplification = std::stod(argv[++i]);
      } catch (const std::exception&) {
        return usage();
      }
    } else {
      return usage();
    }
  }
  try {
    if (!vacuum_only) {
      const auto c = metadata ? array::consolidate_metadata(root, opt) : array::consolidate_fragments(root, opt);
      if (c.name.empty()) {
        std::cout << "nothing to consolidate\n";
      } else {
        std::cout << "wrote " << c.name << ", replacing " << c.replaced.size() << ":\n";
        for (const auto& r : c.replaced) std::cout << "  " << r << "\n";
        std::cout << "wrote " << c.vacuum_file.string() << "\n";
      }
    }
    if (vacuum || vacuum_only) print(metadata ? array::vacuum_metadata(root) : array::vacuum_fragments(root));
  } catch (const std::exception& e) {
    std::cerr << "tilefmt-consolidate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
