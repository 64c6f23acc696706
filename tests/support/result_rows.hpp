// Query results compared cell by cell in tests: each cell as one string.
#pragma once

#include <string>
#include <vector>

#include "tilefmt/array/read/query_result.hpp"

namespace tilefmt::testing {

/// Each cell of a result as one string of bytes: every field's value (with
/// its size) and validity in turn.
inline std::vector<std::string> rows(const array::query_result& r) {
  std::vector<std::string> out(r.cell_num());
  for (const auto& name : r.names()) {
    const auto& bytes = r.bytes(name);
    const auto& off = r.byte_offsets(name);
    for (std::size_t c = 0; c < out.size(); ++c) {
      std::size_t b = 0, e = 0;
      if (r.var_size(name)) {
        b = off[c], e = c + 1 < off.size() ? off[c + 1] : bytes.size();
      } else {
        const std::size_t size = bytes.size() / out.size();
        b = c * size, e = b + size;
      }
      out[c] += std::to_string(e - b) + ":";
      out[c].append(reinterpret_cast<const char*>(bytes.data()) + b, e - b);
      if (r.nullable(name)) out[c] += static_cast<char>(r.validity(name)[c]);
    }
  }
  return out;
}

} // namespace tilefmt::testing
