// Writes the seed inputs of every fuzz target from the test arrays:
//   fuzz-make-seeds tests/data OUT_DIR      (OUT_DIR/<target>/<hash>)
#include <cstdio>

#include "fuzz.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DATA_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::size_t n = tilefmt::fuzz::make_seeds(argv[1], argv[2]);
  std::printf("%zu seeds in %s\n", n, argv[2]);
  return n == 0 ? 1 : 0;
}
