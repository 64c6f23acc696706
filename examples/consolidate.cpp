// tilefmt-consolidate: compacting a TileDB array without libtiledb, as
// TileDB's consolidate and vacuum do (tilefmt-inspect's sibling).
//
//   tilefmt-consolidate ARRAY                       fragments into one (array/maintain/consolidate.hpp)
//   tilefmt-consolidate ARRAY --mode MODE           what to consolidate (sm.consolidation.mode):
//       fragments (default), array_meta (--metadata), commits (a .con file listing the
//       commit files) or fragment_meta (a .meta file holding every fragment's footer)
//   tilefmt-consolidate ARRAY --vacuum              then remove what was replaced (array/maintain/vacuum.hpp)
//   tilefmt-consolidate ARRAY --vacuum-only         only remove what earlier consolidations replaced
//   options: --start MS --end MS                    what was written in this time range (default: all)
//            --amplification X                      dense arrays (default 1.0, as TileDB)
//            --purge                                leave deleted cells out (sparse arrays)
//            --steps N --step-min-frags N --step-max-frags N --step-size-ratio X
//                                                   fragments in steps (TileDB's defaults: all in one)
//            --buffer-size BYTES                    accepted as TileDB's; changes no file written
//            --label HEX32                          the new fragment's or file's label (default: random)
//
// Prints what it wrote and removed. Exit status: 0 on success (also when
// there was nothing to consolidate), 1 when the array cannot be read or
// written, 2 on usage errors.
#include <charconv>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <tilefmt/array/maintain/consolidate.hpp>
#include <tilefmt/array/maintain/vacuum.hpp>

namespace fs = std::filesystem;
using namespace tilefmt;

namespace {

int usage() {
  std::cerr << "usage: tilefmt-consolidate ARRAY [--mode fragments|array_meta|commits|fragment_meta | --metadata]\n"
               "                           [--vacuum | --vacuum-only] [--start MS] [--end MS] [--amplification X]\n"
               "                           [--purge] [--steps N] [--step-min-frags N] [--step-max-frags N]\n"
               "                           [--step-size-ratio X] [--buffer-size BYTES] [--label HEX32]\n";
  return 2;
}

bool parse_u32(std::string_view s, std::uint32_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

bool parse_double(const char* s, double& out) {
  try {
    std::size_t n = 0;
    out = std::stod(s, &n);
    return s[n] == '\0';
  } catch (const std::exception&) {
    return false;
  }
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
  std::string mode = "fragments";
  bool vacuum = false, vacuum_only = false;
  array::consolidation_options opt;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    double x = 0;
    if (a == "--metadata") {
      mode = "array_meta";
    } else if (a == "--mode" && has_value) {
      mode = argv[++i];
      if (mode != "fragments" && mode != "array_meta" && mode != "commits" && mode != "fragment_meta") return usage();
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
      if (!parse_double(argv[++i], opt.amplification)) return usage();
    } else if (a == "--steps" && has_value) {
      if (!parse_u32(argv[++i], opt.steps)) return usage();
    } else if (a == "--step-min-frags" && has_value) {
      if (!parse_u32(argv[++i], opt.step_min_frags)) return usage();
    } else if (a == "--step-max-frags" && has_value) {
      if (!parse_u32(argv[++i], opt.step_max_frags)) return usage();
    } else if (a == "--step-size-ratio" && has_value) {
      if (!parse_double(argv[++i], x)) return usage();
      opt.step_size_ratio = static_cast<float>(x);
    } else if (a == "--buffer-size" && has_value) {
      if (!parse_u64(argv[++i], opt.buffer_size) || opt.buffer_size == 0) return usage();
    } else if (a == "--label" && has_value) {
      opt.label = argv[++i];
    } else {
      return usage();
    }
  }
  try {
    if (!vacuum_only) {
      if (mode == "fragments") {
        const auto c = array::consolidate_fragments(root, opt);
        if (c.steps.empty()) std::cout << "nothing to consolidate\n";
        for (const auto& s : c.steps) {
          std::cout << "wrote " << s.name << ", replacing " << s.replaced.size() << ":\n";
          for (const auto& r : s.replaced) std::cout << "  " << r << "\n";
          std::cout << "wrote " << s.vacuum_file.string() << "\n";
        }
      } else {
        const auto c = mode == "array_meta" ? array::consolidate_metadata(root, opt)
                       : mode == "commits"  ? array::consolidate_commits(root, opt)
                                            : array::consolidate_fragment_metadata(root, opt);
        if (c.name.empty()) {
          std::cout << "nothing to consolidate\n";
        } else {
          std::cout << "wrote " << c.name << ", holding " << c.replaced.size() << ":\n";
          for (const auto& r : c.replaced) std::cout << "  " << r << "\n";
          if (!c.vacuum_file.empty()) std::cout << "wrote " << c.vacuum_file.string() << "\n";
        }
      }
    }
    if (vacuum || vacuum_only) {
      if (mode == "fragments") print(array::vacuum_fragments(root));
      else if (mode == "array_meta") print(array::vacuum_metadata(root));
      else if (mode == "commits") print(array::vacuum_commits(root));
      else print(array::vacuum_fragment_metadata(root));
    }
  } catch (const std::exception& e) {
    std::cerr << "tilefmt-consolidate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
