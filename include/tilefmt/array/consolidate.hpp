// tilefmt — consolidation: the fragments (or array metadata files) of an
// array rewritten as one, as TileDB 2.30's consolidation writes it, so that
// an array written in many small pieces reads from few.
//
//   auto c = array::consolidate_fragments("path/to/array");
//   // c.name: the new fragment; c.replaced: the fragments it stands for
//   array::vacuum_fragments("path/to/array");          // array/vacuum.hpp
//
//   array::consolidate_metadata("path/to/array");      // __meta files likewise
//
// Fragments: those written within [timestamp_start, timestamp_end] (all, by
// default: TileDB's default configuration consolidates every fragment in
// one step), at least two, become one fragment named after the first one's
// start and the last one's end time (`__t1_t2_label_version`), committed
// as any fragment. Then `__commits/<name>.vac` (before format 12,
// `<name>.vac` in the array folder) lists the fragments it replaces; from
// then on readers (TileDB's and tilefmt's) skip them, and vacuuming removes
// them. Until then they stay: reads at earlier times still see them.
//
// - Dense arrays: the union of the fragments' non-empty domains, over whole
//   space tiles; each cell holds the newest fragment's value or the fill
//   value. Nothing is consolidated when the union holds more than
//   `amplification` times the cells of the fragments' own tiles
//   (sm.consolidation.amplification, 1.0 by default).
// - Sparse arrays of format 15 and later: every cell of every fragment,
//   overwritten ones too, each with the time it was written (`__timestamps`),
//   so that reads at earlier times keep their answers; equal coordinates
//   newest first (before format 20, in arrays with duplicates, libtiledb
//   ordered them by no rule reproduced here: same cells, other order).
//   Older formats: the cells a read sees (the newest of equal coordinates).
//   Delete commits (format 16 and later): when one is as new as the first
//   fragment, cells it deleted stay, with the time of the delete and the
//   commit that made it (`__delete_timestamps`, `__delete_condition_index`),
//   so that reads before the delete still see them; the new fragment names
//   every delete commit as applied. With purge_deleted_cells they are left
//   out instead.
//
// Crash safety: the new fragment commits as any write does (its commit
// marker last), then the vacuum file is written. A consolidation killed
// before its fragment commits leaves what a killed writer leaves (nothing a
// reader sees). Killed between the commit and the vacuum file, it leaves
// the new fragment beside the ones it replaces: dense arrays and sparse
// arrays without duplicates read the same (equal cells, the newest wins);
// in sparse arrays that allow duplicates each of its cells then reads
// twice, as with TileDB; removing the new fragment's commit marker undoes
// the consolidation (running it again would keep both copies).
//
// Encrypted arrays: with their key (consolidation_options::encryption_key),
// the new fragment or metadata file is encrypted as any write to them is;
// the vacuum file is plain text, as TileDB writes it. Schema evolutions: the new fragment has the latest schema;
// attributes a fragment lacks read as fill values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/array/array.hpp"
#include "tilefmt/array/detail/consolidator.hpp"
#include "tilefmt/array/metadata_writer.hpp"

namespace tilefmt::array {

struct consolidation_options {
  /// What to consolidate: what was written within [timestamp_start,
  /// timestamp_end], ms since the epoch (sm.consolidation.timestamp_start/end).
  std::uint64_t timestamp_start = 0;
  std::uint64_t timestamp_end = std::numeric_limits<std::uint64_t>::max();
  /// Dense arrays: the most cells the consolidated fragment may hold per
  /// cell of the fragments' tiles (sm.consolidation.amplification).
  double amplification = 1.0;
  /// Sparse arrays: leave out the cells delete commits deleted instead of
  /// keeping them with their delete time (sm.consolidation.purge_deleted_cells).
  bool purge_deleted_cells = false;
  /// The random label of the new fragment or file (32 lowercase
  /// hexadecimal digits); by default a fresh one, as TileDB makes it.
  std::optional<std::string> label{};
  /// Where the array is; null: the local file system.
  std::shared_ptr<storage::backend> storage{};
  /// The AES-256-GCM key of an encrypted array (32 bytes), or empty.
  std::vector<std::uint8_t> encryption_key{};
};

/// What a consolidation wrote.
struct consolidation_result {
  /// The new fragment's (or metadata file's) name; empty when there was
  /// nothing to consolidate.
  std::string name;
  /// The names of the fragments (or files) it replaces, oldest first, as
  /// its vacuum file lists them.
  std::vector<std::string> replaced;
  /// The vacuum file.
  fs::path vacuum_file;
};

namespace detail {

/// How a vacuum file names what it replaces: from format 19 relative to
/// the array (`/__fragments/<name>`), before as a full URI.
inline std::string vacuum_entry(const fs::path& root, const fs::path& p, std::uint32_t version, bool local) {
  if (version >= 19) return "/" + p.lexically_relative(root).generic_string();
  return local ? "file://" + fs::absolute(p).lexically_normal().generic_string() : p.generic_string();
}

inline void write_vacuum_file(storage::backend& st, const fs::path& file, const std::string& text) {
  st.write(file, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

} // namespace detail

/// Consolidates the fragments of the array at `root` written within the
/// options' time range into one (see the header comment). Throws io_error
/// when the array cannot be read and std::invalid_argument for what is not
/// written yet.
inline consolidation_result consolidate_fragments(const fs::path& root, const consolidation_options& opt = {}) {
  auto st = detail::or_local(opt.storage);
  open_options o;
  o.timestamp_start = opt.timestamp_start;
  o.timestamp_end = opt.timestamp_end;
  o.storage = st;
  o.encryption_key = opt.encryption_key;
  detail::check_encryption_key(opt.encryption_key);
  const array_reader arr(root, o);
  std::vector<const fragment*> frags;
  for (const auto& f : arr.fragments())
    if (detail::fully_within(f.name(), opt.timestamp_start, opt.timestamp_end)) frags.push_back(&f);
  consolidation_result out;
  if (frags.size() < 2) return out;
  const auto& schema = arr.schema();
  const std::uint32_t version = schema.version.value;
  write_options w;
  w.label = opt.label;
  w.storage = st;
  w.encryption_key = opt.encryption_key;
  if (schema.is_sparse()) {
    if (version >= 15) {
      out.name = detail::consolidator::sparse_with_timestamps(arr, frags, opt.purge_deleted_cells, w);
    } else {
      out.name = detail::consolidator::sparse_merged(arr, frags, w);
    }
  } else {
    out.name = detail::consolidator::dense(arr, frags, opt.amplification, w);
    if (out.name.empty()) return out;
  }
  std::string text;
  for (const auto* f : frags) {
    out.replaced.push_back(f->path().filename().string());
    text += detail::vacuum_entry(root, f->path(), version, !opt.storage) + "\n";
  }
  out.vacuum_file = version >= 12 ? root / "__commits" / (out.name + ".vac") : root / (out.name + ".vac");
  detail::write_vacuum_file(*st, out.vacuum_file, text);
  return out;
}

/// Consolidates the array metadata files of the array at `root` written
/// within the options' time range: one `__meta/__t1_t2_label` file with
/// the merged keys (deleted ones left out; none at all when every key is
/// deleted), and `__meta/<name>.vac` listing the files it replaces.
inline consolidation_result consolidate_metadata(const fs::path& root, const consolidation_options& opt = {}) {
  auto st = detail::or_local(opt.storage);
  const listing l = list_array(*st, root, opt.timestamp_start, opt.timestamp_end);
  consolidation_result out;
  if (l.metadata.size() < 2) return out;
  const std::uint32_t version = detail::read_schema_for_writing(*st, l.latest_schema, opt.encryption_key).version.value;
  const metadata_map merged = read_metadata_files(*st, l.metadata, {.encryption_key = opt.encryption_key});
  write_options w;
  w.label = opt.label;
  w.storage = st;
  auto [t, label] = detail::name_parts(w);
  out.name = format::make_timestamped_name(l.metadata.front().t1(), l.metadata.back().t2(), label);
  if (merged.size() != 0) {
    format::ArrayMetadata file;
    for (const auto& [key, e] : merged.entries()) file.entries.value.push_back(e);
    st->write(root / "__meta" / out.name, filter::write_generic_tile(codec::encode(file), version, opt.encryption_key));
  }
  std::string text;
  for (const auto& f : l.metadata) {
    out.replaced.push_back(f.path.filename().string());
    text += detail::vacuum_entry(root, f.path, version, !opt.storage) + "\n";
  }
  out.vacuum_file = root / "__meta" / (out.name + ".vac");
  detail::write_vacuum_file(*st, out.vacuum_file, text);
  return out;
}

} // namespace tilefmt::array
