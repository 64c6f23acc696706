// Writes one fragment into copies of an empty TileDB array with tilefmt and
// prints how long it took and how much memory it needed. Driven by
// bench/compare/compare_write.py, which creates the empty array and the cells with
// TileDB-Py and numpy and writes the same cells with TileDB-Py in the same run.
//
//   bench-write-array TEMPLATE OUT KIND THREADS REPEATS DATA
//
// TEMPLATE is an empty array (schema only), copied to OUT before each write
// (outside the timing; OUT is left holding the last write). KIND is
// dense-row-major or dense-storage (1-D: attributes "a" int32 and "b" float64
// over the whole domain; with a `-stream` suffix, dense_writer::stream():
// each tile appended to its data file as it is encoded), or sparse (2-D: int64 dimensions "x" and "y", the
// same attributes). DATA is a folder of raw little-endian files: a.bin,
// b.bin, and for sparse x.bin, y.bin. The files are read into memory first;
// the timed part is what a program writing the cells does: open the array
// (dense_writer / sparse_writer), set every field, commit. Prints one
// JSON object: best and median wall time, the input bytes, and the peak
// resident memory the writes added (VmHWM minus the resident size after the
// input was read).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "process_memory.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"

namespace {

namespace fs = std::filesystem;

template <class T>
std::vector<T> load(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  const auto size = fs::file_size(p);
  std::vector<T> v(static_cast<std::size_t>(size / sizeof(T)));
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return v;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::cerr << "usage: bench-write-array TEMPLATE OUT dense-row-major|dense-storage|sparse THREADS REPEATS DATA\n";
    return 2;
  }
  const fs::path templ = argv[1], out = argv[2];
  const std::string kind = argv[3];
  const unsigned threads = static_cast<unsigned>(std::stoul(argv[4]));
  const int repeats = std::max(1, std::stoi(argv[5]));
  const fs::path data = argv[6];
  namespace ta = tilefmt::array;
  try {
    const auto a = load<std::int32_t>(data / "a.bin");
    const auto b = load<double>(data / "b.bin");
    std::vector<std::int64_t> x, y;
    if (kind == "sparse") {
      x = load<std::int64_t>(data / "x.bin");
      y = load<std::int64_t>(data / "y.bin");
    } else if (kind != "dense-row-major" && kind != "dense-storage" && kind != "dense-row-major-stream" &&
               kind != "dense-storage-stream") {
      std::cerr << "unknown kind " << kind << "\n";
      return 2;
    }
    const std::uint64_t bytes =
        a.size() * sizeof(a[0]) + b.size() * sizeof(b[0]) + x.size() * sizeof(x[0]) + y.size() * sizeof(y[0]);
    std::vector<double> seconds;
    tilefmt::bench::memory_mark before;
    for (int r = 0; r < repeats; ++r) {
      fs::remove_all(out);
      fs::copy(templ, out, fs::copy_options::recursive);
      if (r == 0) before = tilefmt::bench::memory_mark::now();
      const auto t0 = std::chrono::steady_clock::now();
      if (kind == "sparse") {
        ta::sparse_writer f(out);
        f.threads(threads);
        f.set_coords<std::int64_t>("x", x).set_coords<std::int64_t>("y", y);
        f.set<std::int32_t>("a", a).set<double>("b", b);
        f.commit();
      } else {
        const auto layout = kind.rfind("dense-storage", 0) == 0 ? ta::cell_layout::storage : ta::cell_layout::row_major;
        ta::dense_writer f(out, {{0, static_cast<std::int64_t>(a.size()) - 1}}, layout);
        f.threads(threads);
        if (kind.ends_with("-stream")) f.stream();
        f.set<std::int32_t>("a", a).set<double>("b", b);
        f.commit();
      }
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    tilefmt::bench::print_timing(std::move(seconds), bytes, before, 0);
  } catch (const std::exception& e) {
    std::cerr << "bench-write-array: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
