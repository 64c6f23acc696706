#include "tilefmt/codec/error.hpp"

#include <doctest/doctest.h>

namespace test_error {

using tilefmt::format_error;

TEST_CASE("format_error message: path, reason, offset, detail, file") {
  format_error e("needs 8 bytes", 1234, ", 2 left");
  CHECK(std::string(e.what()) == "needs 8 bytes at offset 1234, 2 left");
  e.prepend_index(3);
  e.prepend_field("file_sizes");
  e.prepend_field("Footer");
  CHECK(e.field() == "Footer.file_sizes[3]");
  CHECK(std::string(e.what()) == "Footer.file_sizes[3]: needs 8 bytes at offset 1234, 2 left");
  e.add_offset(100);
  CHECK(e.offset() == 1334);
  e.set_file("__fragment_metadata.tdb");
  CHECK(std::string(e.what()) == "__fragment_metadata.tdb: Footer.file_sizes[3]: needs 8 bytes at offset 1334, 2 left");
  CHECK(e.reason() == "needs 8 bytes");
}

TEST_CASE("format_error path: indices between fields") {
  format_error e("bad", 0);
  e.prepend_field("compressed_length");
  e.prepend_index(2);
  e.prepend_field("data_parts");
  CHECK(e.field() == "data_parts[2].compressed_length");
  format_error nested("bad", 0);
  nested.prepend_index(1);
  nested.prepend_index(0);
  CHECK(nested.field() == "[0][1]");
}

} // namespace test_error
