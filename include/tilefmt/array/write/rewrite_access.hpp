// tilefmt — the one door through which a fragment is written as a rewrite
// of others (consolidation, array/maintain/): what TileDB's consolidator
// gives its writers beyond a user's write, kept out of the writers' public
// API.
//
// - cells as raw little-endian bytes, as a read returns them (put_fixed,
//   put_var, put_coords), checked as set() checks them;
// - a name spanning the time range of the fragments replaced (time_range);
// - a dense fragment over whole space tiles that may reach past the
//   domain, written as TileDB's global-order writer writes it, whose
//   non-empty domain is the union of the replaced ones (dense_rewrite);
// - a sparse fragment's per-cell write times and delete metadata
//   (`__timestamps`, `__delete_timestamps`, `__delete_condition_index`)
//   and the delete commits already applied to its cells.
//
// The writers (and their implementations) name this struct as a friend;
// nothing in write/ knows who uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/write/dense_writer-inl.hpp"
#include "tilefmt/array/write/sparse_writer-inl.hpp"

namespace tilefmt::array::detail {

struct rewrite_access {
  using ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

  /// A dense fragment over `whole_tiles` (space tiles, possibly past the
  /// domain's upper bounds), cells in storage order, whose footer names
  /// `non_empty_domain`.
  static dense_writer dense_rewrite(const fs::path& root, ranges whole_tiles, ranges non_empty_domain,
                                    const write_options& opt) {
    auto impl = make_dense_writer(root, std::move(whole_tiles), cell_layout::storage, opt, true);
    static_cast<dense_writer_impl&>(*impl).non_empty_domain_ = std::move(non_empty_domain);
    return dense_writer(std::move(impl));
  }

  /// Names the fragment `__t1_t2_...`: it stands for the writes of [t1, t2].
  template <class Writer>
  static void time_range(Writer& w, std::uint64_t t1, std::uint64_t t2) {
    w.impl().b_.set_time_range(t1, t2);
  }

  /// Attribute `name`'s cells as `n` values of `value_size` bytes.
  template <class Writer>
  static void put_fixed(Writer& w, std::string_view name, std::size_t value_size, std::size_t n,
                        std::span<const std::byte> bytes, std::span<const std::uint8_t> validity) {
    w.sink().put_fixed(name, value_size, n, bytes, validity, tile_encoder{});
  }

  /// A var-size attribute's values and each cell's first value.
  template <class Writer>
  static void put_var(Writer& w, std::string_view name, std::size_t value_size, std::span<const std::byte> values,
                      std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) {
    w.sink().put_var(name, value_size, values, offsets, validity);
  }

  /// Dimension `d`'s coordinates (fixed-size) as bytes.
  static void put_coords(sparse_writer& w, std::size_t d, std::vector<std::byte> bytes) {
    w.impl().put_coord_bytes(d, std::move(bytes));
  }

  /// Each cell's write time, in the order the cells were given.
  static void cell_times(sparse_writer& w, std::vector<std::uint64_t> written_at) {
    w.impl().special_ = {std::move(written_at)};
  }

  /// After cell_times: each cell's delete time and the index of the delete
  /// commit that removed it (delete metadata, format 15 on).
  static void cell_deletes(sparse_writer& w, std::vector<std::uint64_t> deleted_at,
                           std::vector<std::uint64_t> deleted_by) {
    w.impl().special_.push_back(std::move(deleted_at));
    w.impl().special_.push_back(std::move(deleted_by));
  }

  /// The delete commits (their marker names) already applied to the cells.
  static void processed_conditions(sparse_writer& w, std::vector<std::string> markers) {
    w.impl().processed_conditions_ = std::move(markers);
  }
};

} // namespace tilefmt::array::detail
