// tilefmt._core: keeping an array in shape from Python (tilefmt/_maintain.py
// gives them TileDB-Py's forms): consolidation and vacuuming in each of
// TileDB's modes, deleting cells by a condition, deleting fragments or the
// whole array, and schema evolution.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilefmt/array/maintain.hpp"

#include "query_args.hpp"
#include "schema_args.hpp"
#include "storage.hpp"

namespace tilefmt_python {

/// Consolidation options from TileDB's sm.consolidation.* settings (their
/// names without the prefix, values as text); an unknown one is refused.
inline tilefmt::array::consolidation_options consolidation_of(const std::map<std::string, std::string>& settings) {
  tilefmt::array::consolidation_options o;
  for (const auto& [k, v] : settings) {
    if (k == "timestamp_start") o.timestamp_start = std::stoull(v);
    else if (k == "timestamp_end") o.timestamp_end = std::stoull(v);
    else if (k == "amplification") o.amplification = std::stod(v);
    else if (k == "purge_deleted_cells") o.purge_deleted_cells = v == "true" || v == "1";
    else if (k == "steps") o.steps = static_cast<std::uint32_t>(std::stoul(v));
    else if (k == "step_min_frags") o.step_min_frags = static_cast<std::uint32_t>(std::stoul(v));
    else if (k == "step_max_frags") o.step_max_frags = static_cast<std::uint32_t>(std::stoul(v));
    else if (k == "step_size_ratio") o.step_size_ratio = std::stof(v);
    else if (k == "buffer_size") o.buffer_size = std::stoull(v);
    else throw std::invalid_argument("tilefmt: unknown consolidation setting \"sm.consolidation." + k + "\"");
  }
  return o;
}

/// Consolidates the array at `path` in TileDB's `mode` ("fragments",
/// "fragment_meta", "commits", "array_meta"); returns the names written
/// (one a step for fragments), none when there was nothing to do.
inline std::vector<std::string> consolidate(const std::string& path, const std::string& mode,
                                            const std::map<std::string, std::string>& settings,
                                            tilefmt::array::write_options opt) {
  namespace ta = tilefmt::array;
  auto o = consolidation_of(settings);
  o.storage = opt.storage;
  o.encryption_key = opt.encryption_key;
  ta::consolidation_result r;
  if (mode == "fragments") r = ta::consolidate_fragments(path, o);
  else if (mode == "fragment_meta") r = ta::consolidate_fragment_metadata(path, o);
  else if (mode == "commits") r = ta::consolidate_commits(path, o);
  else if (mode == "array_meta") r = ta::consolidate_metadata(path, o);
  else throw std::invalid_argument("tilefmt: sm.consolidation.mode must be fragments, fragment_meta, commits or array_meta, not \"" + mode + "\"");
  std::vector<std::string> names;
  for (const auto& s : r.steps) names.push_back(s.name);
  if (names.empty() && !r.name.empty()) names.push_back(r.name);
  return names;
}

/// Vacuums the array at `path` in TileDB's `mode`; returns how many files
/// and folders it removed.
inline std::size_t vacuum(const std::string& path, const std::string& mode,
                          std::shared_ptr<tilefmt::storage::backend> st) {
  namespace ta = tilefmt::array;
  if (mode == "fragments") return ta::vacuum_fragments(path, st).removed.size();
  if (mode == "fragment_meta") return ta::vacuum_fragment_metadata(path, st).removed.size();
  if (mode == "commits") return ta::vacuum_commits(path, st).removed.size();
  if (mode == "array_meta") return ta::vacuum_metadata(path, st).removed.size();
  throw std::invalid_argument("tilefmt: sm.vacuum.mode must be fragments, fragment_meta, commits or array_meta, not \"" + mode + "\"");
}

/// The module's maintenance functions.
inline void def_maintenance(nb::module_& m) {
  using namespace nb::literals;
  namespace ta = tilefmt::array;
  m.def(
      "consolidate",
      [](const std::string& path, const std::string& mode, const std::map<std::string, std::string>& settings,
         const nb::bytes& key, const config_map& config) {
        auto opt = writing(path, key, config);
        nb::gil_scoped_release unlocked;
        return consolidate(path, mode, settings, std::move(opt));
      },
      "path"_a, "mode"_a, "settings"_a, "key"_a, "config"_a);
  m.def(
      "vacuum",
      [](const std::string& path, const std::string& mode, const config_map& config) {
        auto st = storage_for(path, config);
        nb::gil_scoped_release unlocked;
        return vacuum(path, mode, std::move(st));
      },
      "path"_a, "mode"_a, "config"_a);
  m.def(
      "delete_fragments",
      [](const std::string& path, std::uint64_t start, std::uint64_t end, const config_map& config) {
        auto st = storage_for(path, config);
        nb::gil_scoped_release unlocked;
        return ta::delete_fragments(path, start, end, std::move(st)).removed.size();
      },
      "path"_a, "timestamp_start"_a, "timestamp_end"_a, "config"_a);
  m.def(
      "delete_array",
      [](const std::string& path, const config_map& config) {
        auto st = storage_for(path, config);
        nb::gil_scoped_release unlocked;
        return ta::delete_array(path, std::move(st)).removed.size();
      },
      "path"_a, "config"_a);
  m.def(
      "delete_cells",
      [](const std::string& path, nb::handle cond, std::optional<std::uint64_t> timestamp, const nb::bytes& key,
         const config_map& config) {
        auto opt = writing(path, key, config);
        opt.timestamp = timestamp;
        auto c = condition_of(cond);
        nb::gil_scoped_release unlocked;
        return ta::delete_cells(path, c, opt);
      },
      "path"_a, "cond"_a, "timestamp"_a.none(), "key"_a, "config"_a);
  m.def(
      "evolve_schema",
      [](const std::string& path, const nb::list& added, const std::vector<std::string>& dropped,
         std::optional<std::uint64_t> timestamp, const nb::bytes& key, const config_map& config) {
        ta::schema_evolution e;
        for (nb::handle h : added) e.add_attribute(attribute_of(nb::cast<nb::dict>(h)));
        for (const auto& name : dropped) e.drop_attribute(name);
        auto opt = writing(path, key, config);
        opt.timestamp = timestamp;
        nb::gil_scoped_release unlocked;
        return e.evolve(path, opt);
      },
      "path"_a, "added"_a, "dropped"_a, "timestamp"_a.none(), "key"_a, "config"_a);
}

} // namespace tilefmt_python
