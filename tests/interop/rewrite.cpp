// Writes tilefmt's twin of every corpus array it can: the same schema at the
// array's own format version, each fragment's cells through tilefmt's
// writer with the original's timestamp and label, so that the libtiledb of
// that version can read the twin (reverse_check_c.py, reverse_check.py)
// and the files can be compared byte for byte with TileDB's (an encrypted
// array's twin is encrypted with its key). Schema evolutions, the array
// metadata and delete commits are copied file by file too, and consolidated
// fragment metadata is consolidated again (and, on a copy of TileDB's own
// fragments, compared with TileDB's `.meta`). An array TileDB consolidated but did not vacuum gets twins of the
// fragments (or metadata files) the consolidation replaced, then tilefmt
// consolidates them with TileDB's label: its consolidated fragment, commit
// and vacuum file are compared with TileDB's like any other file.
//
//   interop-rewrite MANIFEST OUTDIR [MIN_VERSION MAX_VERSION]
//
// OUTDIR/twins.txt lists the twins (`manifest.py twins` makes their manifest,
// in the corpus manifest's form, from the originals' entries). Per array one
// line: `twin`, with how many of the original's files are
// byte-identical, or `skip` with the reason (a feature the writer does not
// write: vacuumed consolidations). Exit status 1 when a twin cannot be written
// for any other reason.
#include <boost/json/src.hpp>

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/maintain/consolidate.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include <tuple>

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace tilefmt;

namespace {

struct skip : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string str(const json::value& v) { return std::string(v.as_string().c_str()); }

/// A field's cells in storage order, as the fragment's tiles hold them:
/// values, byte offsets (var), validity.
using cells = array::detail::raw_cells;
cells read_field(const array::fragment& frag, const std::string& name) { return array::detail::read_cells(frag, name); }

/// Calls f.template operator()<U>() with U an unsigned integer of `size` bytes.
template <class F>
void with_size(std::size_t size, F&& f) {
  switch (size) {
  case 1: f.template operator()<std::uint8_t>(); break;
  case 2: f.template operator()<std::uint16_t>(); break;
  case 4: f.template operator()<std::uint32_t>(); break;
  case 8: f.template operator()<std::uint64_t>(); break;
  default: throw skip("values of " + std::to_string(size) + " bytes");
  }
}

template <class U>
std::vector<U> as_values(std::span<const std::byte> bytes) {
  std::vector<U> v(bytes.size() / sizeof(U));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = codec::load_le<U>(bytes.data() + i * sizeof(U));
  return v;
}

/// Sets every attribute of `out` (a dense_writer or sparse_writer) from
/// `cells_of(name)`: the values' bytes as unsigned integers of the
/// attribute's value size (the writer checks sizes only).
template <class Fragment, class Cells>
void set_attributes(Fragment& out, const format::ArraySchema& schema, Cells&& cells_of) {
  for (const auto& a : schema.attributes) {
    const cells c = cells_of(a.name.value);
    with_size(format::datatype_size(a.type), [&]<class U>() {
      const auto values = as_values<U>(c.values);
      if (a.is_var()) {
        std::vector<std::uint64_t> offsets(c.offsets.size());
        for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = c.offsets[i] / sizeof(U);
        out.template set_var<U>(a.name.value, std::span<const U>(values), std::span<const std::uint64_t>(offsets),
                                c.validity);
      } else {
        out.template set<U>(a.name.value, std::span<const U>(values), c.validity);
      }
    });
  }
}

template <class F>
void with_coordinate_type(format::Datatype t, F&& f) {
  if (t == format::Datatype::FLOAT32) return f.template operator()<float>();
  if (t == format::Datatype::FLOAT64) return f.template operator()<double>();
  with_size(format::datatype_size(t), f);
}

/// The schema files of an array from format 10 (oldest first), or none.
std::vector<fs::path> schema_files(const fs::path& root) {
  std::vector<fs::path> out;
  if (fs::is_directory(root / "__schema"))
    for (const auto& e : fs::directory_iterator(root / "__schema"))
      if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// The AES-256-GCM key of an encrypted original (its twin is written with
/// it), or empty.
using key_bytes = std::vector<std::uint8_t>;

std::vector<std::byte> generic_tile_payload(const fs::path& p, const key_bytes& key) {
  return filter::read_generic_tile(storage::local{}.read(p), {.encryption_key = key}).payload;
}

/// A consolidation with the label of TileDB's file `named` (its name or
/// its vacuum file's), with `key`.
array::consolidation_options consolidation_as(const fs::path& named, const key_bytes& key) {
  array::consolidation_options o;
  o.label = format::parse_timestamped_name(named.stem().string()).uuid;
  o.encryption_key = key;
  return o;
}

format::ArraySchema schema_of_file(const fs::path& p, const key_bytes& key) {
  return codec::decode<format::ArraySchema>(generic_tile_payload(p, key));
}

format::Enumeration enumeration_file(const fs::path& root, const std::string& name, const key_bytes& key) {
  return codec::decode<format::Enumeration>(generic_tile_payload(root / "__schema" / "__enumerations" / name, key));
}

/// The evolution from schema `a` to schema `b`: enumerations added,
/// extended and dropped, attributes added and dropped, the current domain.
array::schema_evolution evolution(const fs::path& root, const format::ArraySchema& a, const format::ArraySchema& b,
                                  const key_bytes& key) {
  array::schema_evolution e;
  auto ref = [](const format::ArraySchema& s, const std::string& name) -> const format::EnumerationRef* {
    for (const auto& r : s.enumerations.value.value)
      if (r.name.value == name) return &r;
    return nullptr;
  };
  for (const auto& r : b.enumerations.value.value) {
    const auto* old = ref(a, r.name.value);
    if (!old) e.add_enumeration(enumeration_file(root, r.filename.value, key));
    else if (old->filename.value != r.filename.value) e.extend_enumeration(enumeration_file(root, r.filename.value, key));
  }
  for (const auto& r : a.enumerations.value.value)
    if (!ref(b, r.name.value)) e.drop_enumeration(r.name.value);
  if (!(a.current_domain.value == b.current_domain.value)) e.expand_current_domain(b.current_domain.value.ndrectangle.value);
  for (const auto& x : b.attributes)
    if (!a.attribute(x.name.value)) e.add_attribute(x);
  for (const auto& x : a.attributes)
    if (!b.attribute(x.name.value)) e.drop_attribute(x.name.value);
  return e;
}

void write_twin(const array::array_reader& arr, const fs::path& root, const array::open_options& open_opt,
                const fs::path& out, std::uint32_t version) {
  // The schema files with their names (timestamps and labels) from version
  // 10; the array's one schema before.
  const std::vector<fs::path> schemas = version >= 10 ? schema_files(root) : std::vector<fs::path>{};
  const key_bytes& key = open_opt.encryption_key;
  array::write_options create_opt{.format_version = version, .encryption_key = key};
  format::ArraySchema first = arr.schema();
  if (!schemas.empty()) {
    const auto n = format::parse_timestamped_name(schemas[0].filename().string());
    create_opt.timestamp = n.t1;
    create_opt.label = n.uuid;
    first = schema_of_file(schemas[0], key);
  }
  // The enumerations the first schema names, with their file names.
  for (const auto& ref : first.enumerations.value.value) {
    const fs::path p = root / "__schema" / "__enumerations" / ref.filename.value;
    if (!fs::exists(p)) throw skip("an enumeration file is missing");
    create_opt.enumerations.push_back(codec::decode<format::Enumeration>(generic_tile_payload(p, key)));
  }
  first.enumerations.value.value.clear();
  array::create(out, first, create_opt);
  // Schema evolutions and fragments, in timestamp order (a schema before a
  // fragment of the same millisecond: it is in force for it).
  std::vector<std::tuple<std::uint64_t, int, std::size_t>> events;
  for (std::size_t i = 1; i < schemas.size(); ++i)
    events.emplace_back(format::parse_timestamped_name(schemas[i].filename().string()).t1, 0, i);
  for (std::size_t i = 0; i < arr.fragments().size(); ++i) events.emplace_back(arr.fragments()[i].timestamp_start(), 1, i);
  std::sort(events.begin(), events.end());
  for (const auto& [t, kind, i] : events) {
    if (kind == 0) {
      const auto n = format::parse_timestamped_name(schemas[i].filename().string());
      evolution(root, schema_of_file(schemas[i - 1], key), schema_of_file(schemas[i], key), key)
          .evolve(out, {.timestamp = n.t1, .label = n.uuid, .encryption_key = key});
      continue;
    }
    const auto& frag = arr.fragments()[i];
    const auto& schema = frag.schema();
    if (frag.timestamp_start() != frag.timestamp_end()) throw skip("a consolidated fragment");
    if (frag.has_timestamps() || frag.has_delete_meta()) throw skip("per-cell timestamps or delete metadata");
    const array::write_options opt{.timestamp = frag.timestamp_start(), .label = frag.name().uuid, .encryption_key = key};
    if (frag.dense()) {
      // The cells the fragment wrote, read alone at its timestamp, row-major
      // over its non-empty domain: the writer fills the rest of its tiles as
      // TileDB did.
      std::vector<std::pair<std::int64_t, std::int64_t>> box;
      for (std::size_t d = 0; d < schema.domain.dimensions.size(); ++d)
        format::visit_integer_type(schema.domain.dimensions[d].type.value, [&]<class T>() {
          auto [lo, hi] = frag.non_empty_domain().ranges.at(d).template as<T>();
          box.emplace_back(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
        });
      array::open_options alone = open_opt;
      alone.timestamp_start = alone.timestamp_end = frag.timestamp_end();
      const auto only = array::open(root, alone);
      if (only.fragments().size() != 1) throw skip("fragments sharing a timestamp");
      const auto r = only.query().subarray(box).layout(array::query_layout::row_major).read();
      array::dense_writer df(out, box, array::cell_layout::row_major, opt);
      set_attributes(df, schema, [&](const std::string& name) {
        cells c;
        const auto& bytes = r.bytes(name);
        c.values.assign(bytes.begin(), bytes.end());
        if (r.var_size(name)) c.offsets.assign(r.byte_offsets(name).begin(), r.byte_offsets(name).end());
        if (r.nullable(name)) c.validity.assign(r.validity(name).begin(), r.validity(name).end());
        return c;
      });
      df.commit(opt);
    } else {
      array::sparse_writer sf(out, opt);
      for (const auto& d : schema.domain.dimensions) {
        const cells c = read_field(frag, d.name.value);
        if (d.is_var()) {
          std::vector<std::string> strings;
          for (std::size_t i = 0; i < c.offsets.size(); ++i) {
            const std::size_t e = i + 1 < c.offsets.size() ? c.offsets[i + 1] : c.values.size();
            strings.emplace_back(reinterpret_cast<const char*>(c.values.data()) + c.offsets[i], e - c.offsets[i]);
          }
          sf.set_coords(d.name.value, strings);
          continue;
        }
        with_coordinate_type(d.type.value, [&]<class T>() {
          std::vector<T> v(c.values.size() / sizeof(T));
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = codec::load_le<T>(c.values.data() + i * sizeof(T));
          sf.set_coords<T>(d.name.value, v);
        });
      }
      set_attributes(sf, schema, [&](const std::string& name) { return read_field(frag, name); });
      sf.commit(opt);
    }
  }
}

/// The one vacuum file in `dir`, if any: a consolidation not vacuumed.
std::optional<fs::path> vacuum_file(const fs::path& dir) {
  std::optional<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".vac") {
      if (out) throw skip("several consolidations");
      out = e.path();
    }
  return out;
}

/// The original's array metadata files, written again entry by entry with
/// their timestamps and labels (oldest first, as readers apply them); a
/// consolidated file named by a vacuum file is consolidated again.
void copy_metadata(const fs::path& original, const fs::path& out, const key_bytes& key) {
  if (!fs::is_directory(original / "__meta")) return;
  const auto vac = vacuum_file(original / "__meta");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(original / "__meta"))
    if (e.is_regular_file() && e.path().extension() != ".vac" && (!vac || e.path().filename() != vac->stem()))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const auto n = format::parse_timestamped_name(f.filename().string());
    if (n.t1 != n.t2) throw skip("consolidated array metadata, vacuumed");
    array::metadata_writer m(out, {.encryption_key = key});
    for (const auto& e : codec::decode<format::ArrayMetadata>(generic_tile_payload(f, key)).entries.value) m.put(e);
    m.commit({.timestamp = n.t1, .label = n.uuid, .encryption_key = key});
  }
  if (vac) {
    array::consolidate_metadata(out, consolidation_as(*vac, key));
  }
}

/// A copy of an array TileDB consolidated but did not vacuum, as it was
/// before: without the consolidated fragment, its commit and vacuum file.
/// Returns the consolidated fragment's label.
std::string before_consolidation(const fs::path& original, const fs::path& vac, const fs::path& copy) {
  fs::remove_all(copy);
  fs::create_directories(copy.parent_path());
  fs::copy(original, copy, fs::copy_options::recursive);
  const std::string name = vac.stem().string();
  fs::remove(copy / fs::relative(vac, original));
  for (const fs::path& p : {copy / "__fragments" / name, copy / name, copy / "__commits" / (name + ".wrt"),
                            copy / (name + ".ok")})
    fs::remove_all(p);
  return format::parse_timestamped_name(name).uuid;
}

/// The original's delete commits, written again from their conditions with
/// their timestamps and labels (TileDB stores the negated condition).
void copy_deletes(const fs::path& original, const fs::path& out, const key_bytes& key) {
  if (!fs::is_directory(original / "__commits")) return;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(original / "__commits")) {
    if (e.path().extension() == ".del") files.push_back(e.path());
    if (e.path().extension() == ".upd") throw skip("update commits");
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const auto n = format::parse_timestamped_name(f.stem().string());
    auto stored = codec::decode<format::ConditionNode>(generic_tile_payload(f, key));
    array::delete_cells(out, array::condition(array::detail::negated(std::move(stored)), true),
                        {.timestamp = n.t1, .label = n.uuid, .encryption_key = key});
  }
}

/// The consolidated fragment metadata file (`.meta`) of an array, if any:
/// in the array folder before format 12, in `__fragment_meta/` after.
std::optional<fs::path> fragment_meta_file(const fs::path& root) {
  std::optional<fs::path> out;
  for (const fs::path& dir : {root, root / "__fragment_meta"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".meta") {
        if (out) throw skip("several consolidated fragment metadata files");
        out = e.path();
      }
  }
  return out;
}

/// A `.meta` payload with every fragment named by its folder alone: before
/// format 9 TileDB names them by absolute URI, which holds the folder the
/// array was made in.
std::vector<std::byte> with_folder_names(std::span<const std::byte> payload) {
  const auto c = codec::decode<format::ConsolidatedFragmentMetadata>(payload);
  std::vector<std::pair<std::string, std::vector<std::byte>>> footers;
  for (std::size_t i = 0; i < c.fragments.value.size(); ++i) {
    const auto footer = format::consolidated_footer(c, i);
    footers.emplace_back(fs::path(c.fragments.value[i].name.value).filename().string(),
                         std::vector<std::byte>(footer.begin(), footer.end()));
  }
  return codec::encode(format::make_consolidated_fragment_metadata(footers));
}

/// Where TileDB made an array, from the fragment URIs its `.meta` holds
/// before format 9, when that folder is free to make again (the corpus
/// generator works in a folder it renames afterwards); else none.
std::optional<fs::path> folder_made_in(std::span<const std::byte> payload) {
  const auto c = codec::decode<format::ConsolidatedFragmentMetadata>(payload);
  if (c.fragments.value.empty()) return std::nullopt;
  const std::string& uri = c.fragments.value.front().name.value;
  if (!uri.starts_with("file:///")) return std::nullopt;
  const fs::path folder = fs::path(uri.substr(7)).parent_path();
  if (fs::exists(folder)) return std::nullopt;
  return folder;
}

/// tilefmt consolidates the fragment metadata of TileDB's own fragments (a
/// copy of the original without its `.meta`) with TileDB's label; the file
/// must be TileDB's byte for byte. Before format 9 the file holds the
/// fragments' absolute URIs, so the copy goes where TileDB made the array
/// when that folder is free; otherwise the payloads are compared with the
/// URIs reduced to the folders' names.
struct meta_check {
  bool equal;
  std::string what;  // how it was compared, or what differs
};
meta_check consolidate_fragment_meta_again(const fs::path& original, const fs::path& meta, fs::path copy,
                                            std::uint32_t version, const key_bytes& key) {
  std::optional<fs::path> made;  // the outermost folder made for the copy, removed after
  if (version < 9)
    if (const auto folder = folder_made_in(generic_tile_payload(meta, key))) {
      made = *folder;
      while (!fs::exists(made->parent_path())) made = made->parent_path();
      copy = *folder;
    }
  struct remove_after {
    std::optional<fs::path> p;
    ~remove_after() {
      if (p) fs::remove_all(*p);
    }
  } cleanup{made};
  fs::remove_all(copy);
  fs::create_directories(copy.parent_path());
  fs::copy(original, copy, fs::copy_options::recursive);
  const fs::path rel = fs::relative(meta, original);
  fs::remove(copy / rel);
  const auto r = array::consolidate_fragment_metadata(copy, consolidation_as(meta, key));
  if (fs::path(r.name) != rel.filename()) return {false, "tilefmt named it " + r.name};
  const auto theirs = storage::local{}.read(meta);
  const auto ours = storage::local{}.read(copy / rel);
  if ((version >= 9 || made) && key.empty())
    return theirs == ours ? meta_check{true, "byte for byte"} : meta_check{false, "the bytes differ"};
  // Encrypted (random IVs) or URIs: the payloads, names reduced to folders.
  const auto a = generic_tile_payload(meta, key), b = generic_tile_payload(copy / rel, key);
  if (with_folder_names(a) != with_folder_names(b)) return {false, "the payloads differ"};
  return {true, key.empty() ? "the payload, URIs reduced to folder names" : "the decrypted payload"};
}

/// Files of `original` that `twin` has with the same bytes (or, with
/// `sizes_only`, as many bytes), and all files.
std::pair<std::size_t, std::size_t> identical_files(const fs::path& original, const fs::path& twin,
                                                    std::vector<std::string>& differing, bool sizes_only) {
  std::size_t same = 0, all = 0;
  for (const auto& e : fs::recursive_directory_iterator(original)) {
    if (!e.is_regular_file()) continue;
    ++all;
    const fs::path rel = fs::relative(e.path(), original);
    const fs::path other = twin / rel;
    if (fs::exists(other) && (sizes_only ? fs::file_size(e.path()) == fs::file_size(other)
                                          : storage::local{}.read(e.path()) == storage::local{}.read(other)))
      ++same;
    else
      differing.push_back(rel.string());
  }
  return {same, all};
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::cerr << "usage: interop-rewrite MANIFEST OUTDIR [MIN_VERSION MAX_VERSION]\n";
    return 2;
  }
  const fs::path manifest_path = fs::absolute(argv[1]);
  if (!fs::exists(manifest_path)) {
    std::cout << "interop-rewrite: no corpus at " << manifest_path.string() << " (run scripts/interop.sh); skipping\n";
    return 77;
  }
  const fs::path base = manifest_path.parent_path();
  const fs::path out = fs::absolute(argv[2]);
  const std::uint32_t lo = argc == 5 ? static_cast<std::uint32_t>(std::stoul(argv[3])) : format::oldest_written_version;
  const std::uint32_t hi = argc == 5 ? static_cast<std::uint32_t>(std::stoul(argv[4])) : format::written_version;
  fs::remove_all(out);
  fs::create_directories(out);
  auto text = storage::local{}.read(manifest_path);
  auto manifest = json::parse(std::string_view(reinterpret_cast<const char*>(text.data()), text.size())).as_object();

  // The twins, one "id<TAB>path" per line; manifest.py twins makes their
  // manifest from the corpus's (in Python: its floats round-trip exactly).
  std::ofstream twins(out / "twins.txt");
  std::map<std::uint32_t, std::pair<std::size_t, std::size_t>> files_by_version;  // identical, all
  std::map<std::uint32_t, std::pair<std::size_t, std::size_t>> encrypted_by_version;  // as large, all
  int twins_written = 0, skipped = 0, failed = 0, metas_equal = 0;
  for (const auto& av : manifest.at("arrays").as_array()) {
    const auto& a = av.as_object();
    const std::string id = a.contains("id") ? str(a.at("id")) : str(a.at("name"));
    if (!a.at("format_version").is_number()) continue;
    const auto version = a.at("format_version").to_number<std::uint32_t>();
    if (version < lo || version > hi) continue;
    const fs::path twin = out / "arrays" / id;
    try {
      key_bytes key;
      if (!a.at("encryption").is_null())
        for (const char c : str(a.at("encryption").as_object().at("key"))) key.push_back(static_cast<std::uint8_t>(c));
      const array::open_options open_opt{.encryption_key = key};
      const fs::path original = base / str(a.at("path"));
      // Consolidated, not vacuumed: the twin starts from the fragments the
      // consolidation replaced.
      auto vac = vacuum_file(original / "__commits");
      if (!vac) vac = vacuum_file(original);
      const fs::path source = vac ? out / "before" / id : original;
      std::string label;
      if (vac) label = before_consolidation(original, *vac, source);
      const auto arr = array::open(source, open_opt);
      if (vac && arr.schema().allows_dups.value && version < 20)
        throw skip("consolidated duplicates: libtiledb before 2.17 orders equal coordinates by its merge heap");
      if (arr.fragments().empty() && !fs::is_directory(original / "__meta")) throw skip("no fragments");
      if (arr.fragments().size() + (vac ? 1 : 0) != a.at("fragments").as_array().size())
        throw skip("fragments TileDB no longer lists");
      fs::create_directories(twin.parent_path());
      write_twin(arr, source, open_opt, twin, version);
      copy_metadata(original, twin, key);
      copy_deletes(original, twin, key);
      if (vac) {
        array::consolidation_options o;
        o.label = label;
        o.amplification = 10000;  // as generate.py consolidates
        o.encryption_key = key;
        try {
          array::consolidate_fragments(twin, o);
        } catch (const std::invalid_argument& e) {
          throw skip(std::string("consolidation: ") + e.what());
        }
      }
      // AES-GCM's random IVs make every encrypted tile differ: their
      // files are compared by size (the same plaintext through the same
      // filters), and counted apart.
      const bool encrypted = !key.empty();
      // TileDB's fragment metadata consolidation, redone on its fragments
      // and done on the twin's (which TileDB then opens through it).
      if (const auto meta = fragment_meta_file(original)) {
        array::consolidate_fragment_metadata(twin, consolidation_as(*meta, key));
        const auto m = consolidate_fragment_meta_again(original, *meta, out / "meta" / id, version, key);
        std::cout << (m.equal ? "meta    " : "FAIL    ") << id << " (format " << version << "): "
                  << (m.equal ? "tilefmt's fragment metadata consolidation is TileDB's, " : "") << m.what << "\n";
        if (m.equal) ++metas_equal;
        else ++failed;
      }
      std::vector<std::string> differing;
      auto [same, all] = identical_files(original, twin, differing, encrypted);
      auto& tally = (encrypted ? encrypted_by_version : files_by_version)[version];
      tally.first += same;
      tally.second += all;
      std::cout << "twin    " << id << " (format " << version << "): " << same << " of " << all
                << (encrypted ? " files as large as TileDB's (encrypted)" : " files byte-identical");
      for (std::size_t i = 0; i < differing.size() && i < 3; ++i) std::cout << (i ? ", " : "; differ: ") << differing[i];
      std::cout << (differing.size() > 3 ? ", ..." : "") << "\n";
      twins << id << "\t" << fs::relative(twin, out).string() << "\n";
      ++twins_written;
    } catch (const skip& s) {
      fs::remove_all(twin);
      std::cout << "skip    " << id << ": " << s.what() << "\n";
      ++skipped;
    } catch (const std::exception& e) {
      std::cout << "FAIL    " << id << ": " << e.what() << "\n";
      ++failed;
    }
  }
  for (const auto& [v, f] : files_by_version)
    std::cout << "interop-rewrite: format " << v << ": " << f.first << " of " << f.second
              << " files byte-identical with TileDB's\n";
  for (const auto& [v, f] : encrypted_by_version)
    std::cout << "interop-rewrite: format " << v << ", encrypted: " << f.first << " of " << f.second
              << " files as large as TileDB's\n";
  std::cout << "interop-rewrite: " << twins_written << " twins written, " << skipped << " skipped, " << failed
            << " failed; " << metas_equal << " fragment metadata consolidations as TileDB's\n";
  return failed ? 1 : 0;
}
