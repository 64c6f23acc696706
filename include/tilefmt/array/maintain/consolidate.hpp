// tilefmt — consolidation: the fragments (or array metadata files) of an
// array rewritten as one, as TileDB 2.30's consolidation writes it, so that
// an array written in many small pieces reads from few.
//
//   auto c = array::consolidate_fragments("path/to/array");
//   // c.name: the new fragment; c.replaced: the fragments it stands for
//   array::vacuum_fragments("path/to/array");          // array/maintain/vacuum.hpp
//
//   array::consolidate_metadata("path/to/array");      // __meta files likewise
//   array::consolidate_commits("path/to/array");       // commit files into one .con
//   array::consolidate_fragment_metadata("path/to/array");  // footers into one .meta
//
// TileDB's sm.consolidation.mode: fragments, array_meta, commits and
// fragment_meta respectively; each has its vacuum in array/maintain/vacuum.hpp.
//
// Fragments: those written within [timestamp_start, timestamp_end] (all, by
// default: TileDB's default configuration consolidates every fragment in
// one step; consolidation_options::steps and the step_ options choose runs
// of them step by step as TileDB does), at least two, become one fragment named after the first one's
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
// the new fragment, metadata file or consolidated fragment metadata is
// encrypted as any write to them is; vacuum and `.con` files are plain, as
// TileDB writes them. Schema evolutions: the new fragment has the latest schema;
// attributes a fragment lacks read as fill values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/maintain/consolidation_steps.hpp"
#include "tilefmt/array/maintain/consolidator.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/model/metadata_files.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write/metadata_writer.hpp"
#include "tilefmt/format/commit_files.hpp"

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
  /// Fragments in steps (sm.consolidation.steps, step_min_frags,
  /// step_max_frags, step_size_ratio; TileDB's defaults): at most `steps`
  /// consolidations, each of a run of consecutive fragments, at least
  /// `step_min_frags` and at most `step_max_frags` long (both capped at the
  /// number of fragments), whose neighbours' sizes differ by a ratio of at
  /// least `step_size_ratio` (maintain/consolidation_steps.hpp). The
  /// defaults take every fragment in one step.
  std::uint32_t steps = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t step_min_frags = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t step_max_frags = std::numeric_limits<std::uint32_t>::max();
  float step_size_ratio = 0.0f;
  /// sm.consolidation.buffer_size (bytes; 0: TileDB's sm.mem budget): how
  /// much TileDB reads and writes at a time. It bounds TileDB's memory, not
  /// what it writes (the files are the same: tests/data/consolidation_modes
  /// steps_* were made with 1000 bytes), and tilefmt reads each fragment's
  /// columns whole, so here it is accepted and changes nothing.
  std::uint64_t buffer_size = 0;
  /// The random label of the new fragment or file (32 lowercase
  /// hexadecimal digits); by default a fresh one, as TileDB makes it.
  std::optional<std::string> label{};
  /// Fragments in several steps: the labels of the new fragments, step by
  /// step (`label`, when given, is the first step's); fresh ones after.
  std::vector<std::string> step_labels{};
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
  /// Fragments: every step's new fragment, fragments replaced and vacuum
  /// file, in order (name, replaced and vacuum_file above are the last
  /// step's).
  struct step {
    std::string name;
    std::vector<std::string> replaced;
    fs::path vacuum_file;
  };
  std::vector<step> steps{};
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

namespace detail {

/// The fragments of `arr` as the step selection sees them.
inline std::vector<step_fragment> step_fragments(const array_reader& arr, const std::vector<const fragment*>& frags) {
  std::vector<step_fragment> out;
  const auto& dims = arr.schema().domain.dimensions.value;
  for (const auto* f : frags) {
    step_fragment s{f->path().filename().string()};
    const auto& footer = f->footer();
    for (auto n : footer.file_sizes.value) s.size += n;
    for (auto n : footer.file_var_sizes.value) s.size += n;
    for (auto n : footer.file_validity_sizes.value) s.size += n;
    s.size += arr.storage().file_size(f->path() / "__fragment_metadata.tdb").value_or(0);
    if (f->dense()) {
      s.non_empty_domain = consolidator::int_ranges(f->non_empty_domain(), dims);
      for (std::size_t d = 0; d < dims.size(); ++d) s.expanded.push_back(consolidator::to_tiles(dims[d], s.non_empty_domain[d]));
    }
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace detail

/// Consolidates the fragments of the array at `root` written within the
/// options' time range, in one step or several (see the header comment and
/// the options). Throws io_error when the array cannot be read and
/// std::invalid_argument for what is not written yet.
inline consolidation_result consolidate_fragments(const fs::path& root, const consolidation_options& opt = {}) {
  if (opt.step_min_frags > opt.step_max_frags)
    throw std::invalid_argument("tilefmt: step_min_frags is larger than step_max_frags");
  if (!(opt.step_size_ratio >= 0.0f && opt.step_size_ratio <= 1.0f))
    throw std::invalid_argument("tilefmt: step_size_ratio must be in [0, 1]");
  if (!(opt.amplification >= 0)) throw std::invalid_argument("tilefmt: amplification must not be negative");
  auto st = detail::or_local(opt.storage);
  detail::check_encryption_key(opt.encryption_key);
  const detail::step_limits limits{opt.step_min_frags, opt.step_max_frags, opt.step_size_ratio,
                                   static_cast<float>(opt.amplification)};
  consolidation_result out;
  for (std::uint32_t step = 0; step < opt.steps; ++step) {
    // The array as the step finds it: what earlier steps replaced is gone.
    open_options o;
    o.timestamp_end = opt.timestamp_end;
    o.storage = st;
    o.encryption_key = opt.encryption_key;
    const array_reader all = array::open(root, o);
    const bool dense = !all.schema().is_sparse();
    std::vector<const fragment*> frags;
    detail::nd_ranges anterior;  // dense fragments before the time range
    for (const auto& f : all.fragments()) {
      if (f.timestamp_start() < opt.timestamp_start) {
        if (dense && f.dense())
          detail::expand(anterior, detail::consolidator::int_ranges(f.non_empty_domain(), all.schema().domain.dimensions.value));
      } else if (f.timestamp_end() <= opt.timestamp_end) {
        frags.push_back(&f);
      }
    }
    if (frags.size() <= 1) break;
    const auto pick = detail::next_to_consolidate(detail::step_fragments(all, frags), anterior, dense, limits);
    if (!pick || pick->first == pick->second) break;
    const std::vector<const fragment*> chosen(frags.begin() + static_cast<std::ptrdiff_t>(pick->first),
                                              frags.begin() + static_cast<std::ptrdiff_t>(pick->second) + 1);
    write_options w;
    if (step < opt.step_labels.size()) w.label = opt.step_labels[step];
    else if (step == 0) w.label = opt.label;
    w.storage = st;
    w.encryption_key = opt.encryption_key;
    const auto& schema = all.schema();
    const std::uint32_t version = schema.version.value;
    std::string name;
    if (schema.is_sparse() && version >= 15) {
      // The cells are read fragment by fragment; the delete commits are
      // those of the time range.
      open_options r = o;
      r.timestamp_start = opt.timestamp_start;
      const array_reader arr = array::open(root, r);
      std::vector<const fragment*> these;
      for (const auto* c : chosen)
        for (const auto& f : arr.fragments())
          if (f.path() == c->path()) these.push_back(&f);
      name = detail::consolidator::sparse_with_timestamps(arr, these, opt.purge_deleted_cells, w);
    } else {
      // The others read the array across the chosen fragments: opened over
      // their time range, it holds exactly them.
      open_options r = o;
      r.timestamp_start = chosen.front()->timestamp_start();
      r.timestamp_end = chosen.back()->timestamp_end();
      const array_reader arr = array::open(root, r);
      std::vector<const fragment*> these;
      for (const auto& f : arr.fragments())
        if (detail::fully_within(f.name(), r.timestamp_start, r.timestamp_end)) these.push_back(&f);
      bool same = these.size() == chosen.size();
      for (std::size_t i = 0; same && i < these.size(); ++i) same = these[i]->path() == chosen[i]->path();
      if (!same)
        throw std::invalid_argument("tilefmt: not written: a step whose fragments' time range holds other fragments");
      if (schema.is_sparse()) name = detail::consolidator::sparse_merged(arr, these, w);
      else name = detail::consolidator::dense(arr, these, opt.amplification, w);
      if (name.empty()) break;
    }
    consolidation_result::step s{name, {}, {}};
    std::string text;
    for (const auto* f : chosen) {
      s.replaced.push_back(f->path().filename().string());
      text += detail::vacuum_entry(root, f->path(), version, !opt.storage) + "\n";
    }
    s.vacuum_file = version >= 12 ? root / "__commits" / (name + ".vac") : root / (name + ".vac");
    detail::write_vacuum_file(*st, s.vacuum_file, text);
    out.name = s.name;
    out.replaced = s.replaced;
    out.vacuum_file = s.vacuum_file;
    out.steps.push_back(std::move(s));
  }
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

/// Consolidates the commit files of the array at `root` (TileDB's
/// sm.consolidation.mode "commits"; format 12 and later): one
/// `__commits/__t1_t2_label_version.con` lists every commit the earlier
/// `.con` files list (less those an ignore file names) and every commit
/// marker (`.wrt`, and `.ok` left from before format 12) and delete commit
/// (`.del`, its file's bytes embedded) not in them; update commits
/// (`.upd`) stay as they are. t1 and t2 are those of the first and last
/// commit listed. Time ranges do not apply: TileDB takes every commit.
/// Readers then need none of the listed files; vacuum_commits removes them.
/// `replaced` lists the commits (as the `.con` names them); there is no
/// vacuum file. Throws std::invalid_argument before format 12, as TileDB
/// refuses, and io_error when a listed delete commit's file is gone (TileDB
/// fails likewise: a consolidation after vacuuming a `.con` that holds one).
inline consolidation_result consolidate_commits(const fs::path& root, const consolidation_options& opt = {}) {
  auto st = detail::or_local(opt.storage);
  const listing l = list_array(*st, root);
  const std::uint32_t version = detail::read_schema_for_writing(*st, l.latest_schema, opt.encryption_key).version.value;
  if (version < 12) throw std::invalid_argument("tilefmt: commits are consolidated from format 12 on");
  const auto in_commits = detail::files_in(*st, root / "__commits");
  const auto lines = detail::consolidated_commit_lines(*st, in_commits, detail::ignored_commits(*st, in_commits));
  const std::set<std::string> listed(lines.begin(), lines.end());
  std::vector<std::string> commits = lines;
  for (const auto& p : detail::files_with(*st, root, ".ok"))
    if (listed.count(p.filename().string()) == 0) commits.push_back(p.filename().string());
  for (const auto& p : in_commits) {
    const std::string line = "__commits/" + p.filename().string();
    if ((p.extension() == ".wrt" || p.extension() == ".del") && listed.count(line) == 0) commits.push_back(line);
  }
  consolidation_result out;
  if (commits.empty()) return out;
  format::ConsolidatedCommits con;
  for (const auto& c : commits) {
    format::ConsolidatedCommit e{{c}, {}};
    if (c.ends_with(".del")) e.delete_condition_tile.value.value = st->read(detail::commit_path(root, c));
    con.commits.value.push_back(std::move(e));
  }
  auto stem = [&](const std::string& c) {
    const auto slash = c.find_last_of('/');
    return format::parse_timestamped_name(slash == std::string::npos ? c : c.substr(slash + 1));
  };
  write_options w;
  w.label = opt.label;
  const auto [t, label] = detail::name_parts(w);
  out.name = format::make_timestamped_name(stem(commits.front()).t1, stem(commits.back()).t2, label, version) + ".con";
  st->write(root / "__commits" / out.name, codec::encode(con));
  out.replaced = std::move(commits);
  return out;
}

/// Consolidates the footers of the array's fragments into one file
/// (TileDB's sm.consolidation.mode "fragment_meta"), from which TileDB
/// opens the array without reading each fragment's metadata:
/// `__fragment_meta/__t1_t2_label_version.meta` (before format 12, in the
/// array folder), a generic tile holding each fragment's name and footer
/// (format::ConsolidatedFragmentMetadata), t1 and t2 those of the first
/// and last fragment. Every fragment the array shows is included (time
/// ranges do not apply, as in TileDB), when there are at least two;
/// `replaced` lists them. The fragments stay: nothing is vacuumed but
/// older `.meta` files (vacuum_fragment_metadata).
inline consolidation_result consolidate_fragment_metadata(const fs::path& root, const consolidation_options& opt = {}) {
  auto st = detail::or_local(opt.storage);
  open_options o;
  o.storage = st;
  o.encryption_key = opt.encryption_key;
  detail::check_encryption_key(opt.encryption_key);
  const array_reader arr = array::open(root, o);
  std::vector<const fragment*> frags;
  for (const auto& f : arr.fragments())
    if (f.format_version() > 2) frags.push_back(&f);  // from 3, fragments have footers
  consolidation_result out;
  if (frags.size() < 2) return out;
  const std::uint32_t version = arr.schema().version.value;
  std::vector<std::pair<std::string, std::vector<std::byte>>> footers;
  for (const auto* f : frags) {
    // Format 9 on, the folder's name; before, the fragment's URI.
    std::string name = version >= 9 || opt.storage ? f->path().filename().string()
                                                   : "file://" + fs::absolute(f->path()).lexically_normal().generic_string();
    footers.emplace_back(std::move(name), codec::encode(f->footer(), f->footer_context()));
    out.replaced.push_back(f->path().filename().string());
  }
  const auto payload = codec::encode(format::make_consolidated_fragment_metadata(footers));
  write_options w;
  w.label = opt.label;
  const auto [t, label] = detail::name_parts(w);
  out.name = format::make_timestamped_name(frags.front()->timestamp_start(), frags.back()->timestamp_end(), label,
                                           version) + ".meta";
  const fs::path dir = version >= 12 ? root / "__fragment_meta" : root;
  st->make_folder(dir);
  st->write(dir / out.name, filter::write_generic_tile(payload, version, opt.encryption_key));
  return out;
}

} // namespace tilefmt::array
