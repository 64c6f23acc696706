// tilefmt — a dense read's var-size field put together from the runs of
// cells each tile gave it. A run of a tile's cells one after the other (what
// most reads take: whole tiles, rows of a tile) becomes one block of bytes
// and its offsets, shifted; only runs with a stride (a column of a row-major
// tile) or with cells that failed the condition are taken a cell at a time.
// A record per cell (a view of 16 bytes) cost as much fresh memory as the
// values and offsets themselves, and a serial pass over it. A whole tile
// whose size the fragment's metadata gives is not even read beforehand: it
// is decoded straight into its place once every piece's size is known
// (where a batch has more tiles than threads: reader.hpp's copy_won_cells).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>
#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/array/support/parallel.hpp"

namespace tilefmt::array::detail {

/// Result cells [result, result + len) of a var-size field, taken from the
/// cells first, first + stride, ... of a tile (its bytes `values`, where
/// each cell starts `offsets`, both kept alive by the reader), or, when
/// `deferred` is set, the whole of a tile not read yet, of `bytes` bytes,
/// that the store's `decode` reads. Cells no run covers read as the fill
/// value.
struct var_piece {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t result = 0, len = 0;
  std::size_t first = 0, stride = 1;
  std::span<const std::byte> values;
  std::span<const std::uint64_t> offsets;
  std::size_t deferred = none;
  std::uint64_t bytes = 0;

  std::span<const std::byte> cell(std::size_t j) const { return var_cell(values, offsets, first + j * stride); }
  /// Where cell first + j starts, and where the run's last cell ends (stride 1).
  std::uint64_t start() const { return offsets[first]; }
  std::uint64_t end() const { return first + len < offsets.size() ? offsets[first + len] : values.size(); }
};

/// Fills result field `r` (its offsets and values) with the `n` cells of
/// `pieces` (disjoint runs, in any order); cells no piece covers, and
/// cells whose `failed` flag is set, take `fill` (no deferred piece may
/// hold a failed cell). `decode(deferred, values, offsets)` reads a
/// deferred piece's tile into its place: its bytes and its cells' offsets
/// within them. Values of more than `max_bytes` in all (the sizes of
/// deferred tiles come from fragment metadata, not yet from the tiles) are
/// refused before anything is allocated.
using var_tile_decoder = function_ref<void(std::size_t, std::span<std::byte>, std::span<std::uint64_t>)>;
inline void store_var_pieces(result_field& r, std::vector<var_piece> pieces, std::size_t n,
                             std::span<const std::byte> fill, std::span<const std::uint8_t> failed, unsigned threads,
                             std::optional<var_tile_decoder> decode = std::nullopt,
                             std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max()) {
  std::sort(pieces.begin(), pieces.end(), [](const var_piece& a, const var_piece& b) { return a.result < b.result; });
  // The gaps become pieces of the fill: a one-cell tile taken with stride 0.
  static constexpr std::uint64_t fill_offsets[1] = {0};
  std::vector<var_piece> all;
  all.reserve(2 * pieces.size() + 1);
  std::size_t at = 0;
  auto fill_to = [&](std::size_t to) {
    if (to > at) all.push_back({at, to - at, 0, 0, fill, fill_offsets});
    at = to;
  };
  for (const auto& p : pieces) {
    if (p.len == 0) continue;
    if (p.result < at || p.result + p.len > n)
      throw std::logic_error("tilefmt: dense read: runs of a var-size field overlap");
    if (p.deferred != var_piece::none && !decode)
      throw std::logic_error("tilefmt: dense read: a tile left to decode, and no decoder");
    fill_to(p.result);
    all.push_back(p);
    at = p.result + p.len;
  }
  fill_to(n);

  // A piece is copied as a block when its cells lie one after the other and
  // none failed; otherwise cell by cell.
  const bool any_failed = !failed.empty();
  auto failed_in = [&](const var_piece& p) {
    return any_failed && std::find(failed.begin() + static_cast<std::ptrdiff_t>(p.result),
                                   failed.begin() + static_cast<std::ptrdiff_t>(p.result + p.len),
                                   std::uint8_t{1}) != failed.begin() + static_cast<std::ptrdiff_t>(p.result + p.len);
  };
  auto cell_at = [&](const var_piece& p, std::size_t j) {
    return any_failed && failed[p.result + j] ? fill : p.cell(j);
  };
  std::vector<std::uint8_t> block(all.size());
  std::vector<std::uint64_t> base(all.size() + 1, 0);
  // Groups of pieces of at least `grain` cells share out the work.
  constexpr std::size_t grain = std::size_t{1} << 16;
  std::vector<std::size_t> groups{0};
  for (std::size_t i = 0, cells = 0; i < all.size(); ++i)
    if ((cells += all[i].len) >= grain || i + 1 == all.size()) {
      groups.push_back(i + 1);
      cells = 0;
    }
  const std::size_t group_num = groups.size() - 1;
  parallel_for(group_num, threads, [&](std::size_t g) {
    for (std::size_t i = groups[g]; i < groups[g + 1]; ++i) {
      const var_piece& p = all[i];
      if (p.deferred != var_piece::none) {
        if (failed_in(p)) throw std::logic_error("tilefmt: dense read: a tile left to decode holds failed cells");
        base[i + 1] = p.bytes;
        continue;
      }
      block[i] = p.stride == 1 && !failed_in(p);
      std::uint64_t bytes = 0;
      if (block[i])
        bytes = p.end() - p.start();
      else
        for (std::size_t j = 0; j < p.len; ++j) bytes += cell_at(p, j).size();
      base[i + 1] = bytes;
    }
  });
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (base[i + 1] > max_bytes - base[i])
      throw std::invalid_argument("tilefmt: query: the values of field " + r.name + " hold more than the " +
                                  std::to_string(max_bytes) +
                                  " bytes open_options::max_allocation allows one read (by the fragments' metadata)");
    base[i + 1] += base[i];
  }

  r.offsets.reserve(n + 1);  // room for the end offset Arrow's layout adds (arrow/columns.hpp)
  r.offsets.resize(n);
  r.values.resize(static_cast<std::size_t>(base.back()));
  parallel_for(group_num, threads, [&](std::size_t g) {
    for (std::size_t i = groups[g]; i < groups[g + 1]; ++i) {
      const var_piece& p = all[i];
      std::uint64_t* off = r.offsets.data() + p.result;
      std::byte* to = r.values.data() + base[i];
      if (p.deferred != var_piece::none) {
        (*decode)(p.deferred, std::span(to, static_cast<std::size_t>(p.bytes)), std::span(off, p.len));
        for (std::size_t j = 0; j < p.len; ++j) off[j] += base[i];
        continue;
      }
      if (block[i]) {
        const std::uint64_t start = p.start(), shift = base[i] - start;
        const std::uint64_t* from = p.offsets.data() + p.first;
        for (std::size_t j = 0; j < p.len; ++j) off[j] = from[j] + shift;
        if (const std::uint64_t bytes = p.end() - start; bytes != 0)
          std::memcpy(to, p.values.data() + start, static_cast<std::size_t>(bytes));
        continue;
      }
      std::uint64_t o = base[i];
      for (std::size_t j = 0; j < p.len; ++j) {
        const auto c = cell_at(p, j);
        off[j] = o;
        if (!c.empty()) std::memcpy(to, c.data(), c.size());
        to += c.size();
        o += c.size();
      }
    }
  });
}

} // namespace tilefmt::array::detail
