// tilefmt — which fragments a consolidation step takes, as TileDB 2.30's
// FragmentConsolidator::compute_next_to_consolidate chooses them
// (array/maintain/consolidate.hpp runs the steps).
//
// Fragments are in timestamp order; a step takes a run of consecutive ones,
// between step_min_frags and step_max_frags long, whose adjacent sizes
// differ by no more than step_size_ratio, and (dense arrays) whose union is
// consolidatable: it overlaps no earlier fragment and no fragment written
// before the time range, and holds at most `amplification` times the cells
// of the fragments' tiles. Among the longest such runs it prefers the
// smallest, but keeps an earlier one unless a later one is more than 25%
// smaller, so that equal-sized writes consolidate from the oldest on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilefmt::array::detail {

using nd_ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// A fragment as the step selection sees it.
struct step_fragment {
  std::string name;
  /// FragmentMetadata::fragment_size: the data files' sizes (the footer's
  /// file_sizes, file_var_sizes, file_validity_sizes) and the size of
  /// `__fragment_metadata.tdb`.
  std::uint64_t size = 0;
  /// Dense fragments: the non-empty domain, and it expanded to whole tiles.
  nd_ranges non_empty_domain{}, expanded{};
};

/// sm.consolidation.step_min_frags, step_max_frags, step_size_ratio and
/// amplification; TileDB reads the last two as float.
struct step_limits {
  std::uint32_t min_frags;
  std::uint32_t max_frags;
  float size_ratio;
  float amplification;
};

inline bool overlap(const nd_ranges& a, const nd_ranges& b) {
  for (std::size_t d = 0; d < a.size() && d < b.size(); ++d)
    if (a[d].second < b[d].first || b[d].second < a[d].first) return false;
  return !a.empty() && !b.empty();
}

inline std::uint64_t cell_count(const nd_ranges& r) {
  std::uint64_t n = 1;
  for (const auto& [lo, hi] : r) n *= static_cast<std::uint64_t>(hi - lo) + 1;
  return n;
}

inline void expand(nd_ranges& into, const nd_ranges& r) {
  if (into.empty()) {
    into = r;
    return;
  }
  for (std::size_t d = 0; d < into.size(); ++d)
    into[d] = {std::min(into[d].first, r[d].first), std::max(into[d].second, r[d].second)};
}

/// FragmentConsolidator::are_consolidatable: fragments [start, end] of a
/// dense array, whose non-empty domains unite to `u`.
inline bool consolidatable(const std::vector<step_fragment>& frags, const nd_ranges& anterior, std::size_t start,
                           std::size_t end, const nd_ranges& u, float amplification) {
  if (!anterior.empty() && overlap(u, anterior)) return false;
  for (std::size_t i = 0; i < start; ++i)
    if (overlap(u, frags[i].non_empty_domain)) return false;
  std::uint64_t sum = 0;
  for (std::size_t i = start; i <= end; ++i) sum += cell_count(frags[i].expanded);
  return static_cast<double>(cell_count(u)) / static_cast<double>(sum) <= amplification;
}

/// The first and last index of the fragments the next step consolidates,
/// or nothing. `anterior`: the union of the non-empty domains of the dense
/// fragments written before the time range.
inline std::optional<std::pair<std::size_t, std::size_t>> next_to_consolidate(const std::vector<step_fragment>& frags,
                                                                              const nd_ranges& anterior, bool dense,
                                                                              const step_limits& lim) {
  constexpr std::uint64_t invalid = UINT64_MAX;
  const std::size_t cols = frags.size();
  const std::size_t min = std::min<std::size_t>(lim.min_frags, cols);
  const std::size_t rows = std::min<std::size_t>(lim.max_frags, cols);
  if (rows == 0) return std::nullopt;
  // sizes[i][j]: the total size of fragments j..j+i, or invalid when they
  // cannot be consolidated together; unions[i][j] their union (dense).
  std::vector<std::vector<std::uint64_t>> sizes(rows, std::vector<std::uint64_t>(cols, invalid));
  std::vector<std::vector<nd_ranges>> unions(rows, std::vector<nd_ranges>(cols));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      if (i == 0) {
        sizes[0][j] = frags[j].size;
        unions[0][j] = frags[j].non_empty_domain;
        continue;
      }
      if (i + j >= cols) continue;
      // The ratio in float, as TileDB computes it.
      float ratio = static_cast<float>(frags[i + j - 1].size) / static_cast<float>(frags[i + j].size);
      ratio = ratio <= 1.0f ? ratio : 1.0f / ratio;
      if (!(ratio >= lim.size_ratio) || sizes[i - 1][j] == invalid) continue;
      unions[i][j] = unions[i - 1][j];
      expand(unions[i][j], frags[i + j].non_empty_domain);
      if (dense && !consolidatable(frags, anterior, j, j + i, unions[i][j], lim.amplification)) {
        unions[i][j].clear();
        continue;
      }
      sizes[i][j] = sizes[i - 1][j] + frags[i + j].size;
    }
  for (std::size_t i = rows; i-- > 0 && i + 1 >= min;) {
    std::uint64_t min_size = invalid;
    std::size_t min_col = 0;
    for (std::size_t j = 0; j < cols; ++j)
      if (min_size == invalid || static_cast<double>(sizes[i][j]) < static_cast<double>(min_size) / 1.25) {
        min_size = sizes[i][j];
        min_col = j;
      }
    if (min_size != invalid) return std::pair{min_col, min_col + i};
  }
  return std::nullopt;
}

} // namespace tilefmt::array::detail
