// tilefmt._core: groups (include/tilefmt/group/) for tilefmt/_group.py:
// a group's members and metadata, and object_type / ls / walk.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/group/group.hpp"

namespace tilefmt_python {

namespace nb = nanobind;

/// A group opened for reading.
class py_group {
public:
  py_group(const std::string& path, const nb::bytes& key, std::uint64_t t0, std::uint64_t t1,
           std::shared_ptr<tilefmt::storage::backend> storage) {
    tilefmt::array::open_options opt;
    opt.storage = std::move(storage);
    opt.encryption_key.assign(reinterpret_cast<const std::uint8_t*>(key.c_str()),
                              reinterpret_cast<const std::uint8_t*>(key.c_str()) + key.size());
    opt.timestamp_start = t0;
    opt.timestamp_end = t1;
    nb::gil_scoped_release unlocked;
    group_ = std::make_unique<tilefmt::group::group_reader>(path, std::move(opt));
  }

  /// (URI as stored, resolved path or None, why it cannot be followed or
  /// None, name or None, type name, relative) per member.
  nb::list members() const {
    nb::list out;
    for (const auto& m : group_->members()) {
      nb::object path = nb::none(), error = nb::none();
      try {
        path = nb::str(group_->path_of(m).string().c_str());
      } catch (const tilefmt::group::member_error& e) {
        error = nb::str(e.what());
      }
      out.append(nb::make_tuple(m.uri, path, error, m.name ? nb::object(nb::str(m.name->c_str())) : nb::none(),
                                std::string(tilefmt::format::codec_enum_name(m.type)), m.relative));
    }
    return out;
  }

  const tilefmt::group::group_reader& reader() const { return *group_; }
  bool legacy() const { return group_->legacy(); }

private:
  std::unique_ptr<tilefmt::group::group_reader> group_;
};

inline std::string object_type_name(tilefmt::format::ObjectType t) {
  return std::string(tilefmt::format::codec_enum_name(t));
}

/// The objects under `path` as (path, type name) pairs: ls (children) or
/// walk (everything below, pre- or postorder).
inline std::vector<std::pair<std::string, std::string>> objects_under(const tilefmt::storage::backend& st,
                                                                      const std::string& path, bool recurse,
                                                                      bool postorder) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!recurse) {
    for (const auto& [p, t] : tilefmt::group::ls(st, path)) out.emplace_back(p.string(), object_type_name(t));
    return out;
  }
  tilefmt::group::walk(
      st, path,
      [&](const std::filesystem::path& p, tilefmt::format::ObjectType t) {
        out.emplace_back(p.string(), object_type_name(t));
        return true;
      },
      postorder ? tilefmt::group::walk_order::postorder : tilefmt::group::walk_order::preorder);
  return out;
}

} // namespace tilefmt_python
