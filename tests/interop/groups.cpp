// Groups both ways between tilefmt and TileDB (groups.py tells the whole
// story):
//
//   interop-groups view DIR    tilefmt's view of the groups under DIR, as JSON
//   interop-groups write DIR   tilefmt writes group trees into DIR (emptied
//                              first) at three format versions, and
//                              DIR/intended.json: each tree's view and the
//                              oldest libtiledb that reads it
//
// The view is groups.py's: every folder's object type, ls of every group,
// walks of the root and of each folder in it, each group's members and
// metadata. groups.py compares it with what a libtiledb release reads.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tilefmt/array/write.hpp"
#include "tilefmt/group/group.hpp"

namespace fs = std::filesystem;
using namespace tilefmt;
using format::ObjectType;

namespace {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string hex(std::span<const std::byte> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto x : b) s += d[std::to_integer<int>(x) >> 4], s += d[std::to_integer<int>(x) & 15];
  return s;
}

std::string type_name(ObjectType t) { return quote(format::codec_enum_name(t)); }

std::string rel(const fs::path& root, const fs::path& p) {
  return p.lexically_normal().lexically_relative(root).string();
}

std::string objects_json(const fs::path& root, const std::vector<std::pair<fs::path, ObjectType>>& list) {
  std::string s = "[";
  for (const auto& [p, t] : list) s += (s.size() > 1 ? ", [" : "[") + quote(rel(root, p)) + ", " + type_name(t) + "]";
  return s + "]";
}

/// Folders under `root`, not `__*` ones, each level in name order.
std::vector<fs::path> folders_under(const fs::path& dir) {
  std::vector<fs::path> here, all;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && !e.is_symlink() && !e.path().filename().string().starts_with("__")) here.push_back(e.path());
  std::sort(here.begin(), here.end());
  for (const auto& p : here) {
    all.push_back(p);
    const auto below = folders_under(p);
    all.insert(all.end(), below.begin(), below.end());
  }
  return all;
}

std::string view(const fs::path& dir) {
  const fs::path root = fs::canonical(dir);
  const auto folders = folders_under(root);
  std::ostringstream objects, ls, groups, walks;
  const char* sep = "";
  const char* gsep = "";
  for (const auto& f : folders) {
    const auto t = group::object_type(f);
    objects << sep << "\n  " << quote(rel(root, f)) << ": " << type_name(t);
    if (t == ObjectType::GROUP) {
      ls << gsep << "\n  " << quote(rel(root, f)) << ": " << objects_json(root, group::ls(f));
      const auto g = group::open(f);
      groups << gsep << "\n  " << quote(rel(root, f)) << ": {\"members\": [";
      const char* msep = "";
      for (const auto& m : g.members()) {
        groups << msep << "[" << quote(rel(root, g.path_of(m))) << ", " << type_name(m.type) << ", "
               << (m.name ? quote(*m.name) : "null") << "]";
        msep = ", ";
      }
      groups << "], \"metadata\": [";
      msep = "";
      for (const auto& [key, e] : g.metadata().entries()) {
        groups << msep << "[" << quote(key) << ", " << static_cast<int>(e.type()) << ", " << quote(hex(e.bytes())) << "]";
        msep = ", ";
      }
      groups << "]}";
      gsep = ",";
    }
    sep = ",";
  }
  std::vector<fs::path> starts{root};
  for (const auto& f : folders)
    if (f.parent_path() == root) starts.push_back(f);
  sep = "";
  for (const auto& s : starts) {
    std::vector<std::pair<fs::path, ObjectType>> pre, post;
    group::walk(s, [&](const fs::path& p, ObjectType t) { return pre.emplace_back(p, t), true; });
    group::walk(s, [&](const fs::path& p, ObjectType t) { return post.emplace_back(p, t), true; },
                group::walk_order::postorder);
    walks << sep << "\n  " << quote(s == root ? "." : rel(root, s)) << ": {\"pre\": " << objects_json(root, pre)
          << ", \"post\": " << objects_json(root, post) << "}";
    sep = ",";
  }
  return "{\"objects\": {" + objects.str() + "},\n\"ls\": {" + ls.str() + "},\n\"walk\": {" + walks.str() +
         "},\n\"groups\": {" + groups.str() + "}}";
}

// ------------------------------------------------------------------ writing

std::uint64_t clock_ms = 1'700'000'000'000;  // each session a later millisecond

array::write_options at(std::uint32_t version) {
  array::write_options o;
  o.format_version = version;
  o.timestamp = ++clock_ms;
  return o;
}

void tiny_array(const fs::path& p, std::uint32_t version) {
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("d", 0, 3, 4)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
  array::create(p, schema, at(std::max<std::uint32_t>(version, format::oldest_written_version)));
}

format::MetadataEntry text(std::string key, std::string_view v) {
  return format::MetadataEntry::of<char>(std::move(key), v, format::Datatype::STRING_UTF8);
}

/// The trees groups.py's cases make, written by tilefmt at `version`, with
/// metadata of the datatypes format `types` has (the oldest release that
/// reads the tree knows them: a release cannot read a datatype newer than it).
void write_tree(const fs::path& tree, std::uint32_t version, std::uint32_t types, const fs::path& outside) {
  group::create(tree / "legacy", at(version));
  tiny_array(tree / "legacy" / "a", version);
  group::create(tree / "legacy" / "sub", at(version));
  tiny_array(tree / "legacy" / "sub" / "b", version);
  fs::create_directories(tree / "legacy" / "plain");
  tiny_array(tree / "legacy" / "plain" / "hidden", version);
  if (version < group::first_details_version) return;

  group::create(tree / "nested", at(version));
  tiny_array(tree / "nested" / "a", version);
  group::create(tree / "nested" / "sub", at(version));
  tiny_array(tree / "nested" / "sub" / "b", version);
  {
    group::group_writer w(tree / "nested" / "sub", at(version));
    w.add("b", std::nullopt, true).put_metadata(format::MetadataEntry::of<std::int64_t>("level", std::vector<std::int64_t>{2}));
    w.commit();
  }
  {
    group::group_writer w(tree / "nested", at(version));
    w.add("a", "a", true).add("sub", "sub", true).add(outside.string(), "ext", false);
    w.put_metadata(format::MetadataEntry::of<std::int64_t>("count", std::vector<std::int64_t>{42}))
        .put_metadata(format::MetadataEntry::of<double>("ratio", std::vector<double>{0.25}))
        .put_metadata(text("title", "a group \xc3\xa9" "crit"))
        .put_metadata(format::MetadataEntry::of<std::int32_t>("shape", std::vector<std::int32_t>{3, 4, 5}))
        .put_metadata(format::MetadataEntry::of<std::uint8_t>("flags", std::vector<std::uint8_t>{1, 0, 1, 1}))
        .put_metadata(format::MetadataEntry::of<char>("letter", std::string_view("x"), format::Datatype::CHAR));
    w.commit();
  }

  const fs::path s = tree / "sessions";
  group::create(s, at(version));
  for (const char* x : {"x", "y", "z"}) tiny_array(s / x, version);
  {
    group::group_writer w(s, at(version));
    w.add("x", "x", true).add("y", "y", true);
    w.put_metadata(format::MetadataEntry::of<std::int64_t>("k1", std::vector<std::int64_t>{1})).put_metadata(text("k2", "first"));
    w.commit();
  }
  {
    group::group_writer w(s, at(version));
    w.remove("y").add("z", std::nullopt, true);
    w.remove_metadata("k1").put_metadata(format::MetadataEntry::of<double>("k3", std::vector<double>{1.5}));
    w.commit();
  }
  {
    group::group_writer w(s, at(version));
    w.add("y", "y2", true).put_metadata(text("k2", "second"));
    w.commit();
  }
  // A key of every datatype the version has (not ANY, which TileDB refuses),
  // three values each, and an empty value.
  group::create(tree / "types", at(version));
  {
    group::group_writer w(tree / "types", at(version));
    for (std::uint8_t code = 0; code <= static_cast<std::uint8_t>(format::Datatype::GEOM_WKT); ++code) {
      const auto t = static_cast<format::Datatype>(code);
      if (t == format::Datatype::ANY || format::first_version(t) > types) continue;
      std::string key(format::codec_enum_name(t));
      std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      auto of = [&]<class T>(T) { return format::MetadataEntry::of<T>(key, std::vector<T>{1, t == format::Datatype::BOOL ? T(0) : T(2), 3}, t); };
      switch (format::datatype_size(t)) {
      case 1: w.put_metadata(of(std::uint8_t{})); break;
      case 2: w.put_metadata(of(std::uint16_t{})); break;
      case 4: w.put_metadata(of(std::uint32_t{})); break;
      default: w.put_metadata(of(std::uint64_t{})); break;
      }
    }
    w.put_metadata(format::MetadataEntry::of<std::int32_t>("empty", std::vector<std::int32_t>{}));
    w.commit();
  }
  if (version < group::first_details_v2_version) return;

  // Metadata of three sessions, consolidated; and consolidated and vacuumed.
  for (const char* name : {"consolidated", "vacuumed"}) {
    const fs::path g = tree / name;
    group::create(g, at(version));
    tiny_array(g / "m", version);
    {
      group::group_writer w(g, at(version));
      w.add("m", "m", true)
          .put_metadata(format::MetadataEntry::of<std::int64_t>("count", std::vector<std::int64_t>{42}))
          .put_metadata(format::MetadataEntry::of<double>("ratio", std::vector<double>{0.25}))
          .put_metadata(text("title", "a group"));
      w.commit();
    }
    {
      group::group_writer w(g, at(version));
      w.remove_metadata("count").put_metadata(format::MetadataEntry::of<double>("ratio", std::vector<double>{0.5}));
      w.commit();
    }
    {
      group::group_writer w(g, at(version));
      w.put_metadata(format::MetadataEntry::of<std::int32_t>("more", std::vector<std::int32_t>{7, 8}));
      w.commit();
    }
    group::consolidate_metadata(g, at(version));
    if (std::string(name) == "vacuumed") group::vacuum_metadata(g);
  }
}

int write(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path root = fs::canonical(dir);
  const fs::path outside = root / "outside";
  tiny_array(outside, format::written_version);
  // Tree, format version, [the oldest libtiledb that reads it, whether its
  // members and metadata are compared]: a group of format 5 is a marker
  // alone; tilefmt lists its folder as its members, as TileDB did before 2.8
  // (later releases find no members in it). Libtiledb 2.15 to 2.17 misread
  // the whole member lists of 2.19 and later (theirs too): the changes-only
  // files of format 20 are for them.
  // Datatypes: those of the oldest reader's format (2.19 to 2.23 write
  // format 21 but know no GEOM types, 2.21's).
  const std::vector<std::tuple<std::string, std::uint32_t, std::uint32_t, std::string>> trees{
      {"legacy", 5, 5, "[[1, 5, 0], false]"},
      {"v1", 16, 12, "[[2, 8, 0], true]"},
      {"v2_changes", 20, 18, "[[2, 15, 0], true]"},
      {"v2", format::written_version, 20, "[[2, 18, 0], true]"},
      {"latest", format::written_version, format::written_version, "[[2, 21, 0], true]"}};
  std::string need, views;
  for (const auto& [name, version, types, oldest] : trees) {
    write_tree(root / name, version, types, outside);
    need += std::string(need.empty() ? "" : ", ") + quote(name) + ": " + oldest;
    views += std::string(views.empty() ? "" : ",\n") + quote(name) + ": " + view(root / name);
  }
  std::ofstream(root / "intended.json") << "{\"trees\": {" << need << "},\n\"views\": {" << views << "}}\n";
  std::cout << "wrote " << trees.size() << " group trees into " << root.string() << "\n";
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "view" && std::string(argv[1]) != "write")) {
    std::cerr << "usage: interop-groups view DIR | interop-groups write DIR\n";
    return 2;
  }
  try {
    if (std::string(argv[1]) == "write") return write(argv[2]);
    std::cout << view(argv[2]) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "interop-groups: " << e.what() << "\n";
    return 1;
  }
}
