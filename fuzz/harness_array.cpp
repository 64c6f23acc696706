// tilefmt — fuzz harnesses that need the filters: generic tiles, filter
// pipelines, schema files as the array layer reads them, and whole arrays in
// a storage::memory; and the seeds of every target, taken from tests/data.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "harness.hpp"
#include "tilefmt/array/model/legacy.hpp"
#include "tilefmt/array/model/schema_file.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/group_details.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/legacy.hpp"
#include "tilefmt/format/print.hpp"
#include "tilefmt/storage/local.hpp"
#include "tilefmt/storage/memory.hpp"
#include "tilefmt/filter/encryption_aes256gcm.hpp"

namespace tilefmt::fuzz {

namespace {

namespace fs = std::filesystem;

/// The key the harnesses use when an input asks for one: the key of the
/// encrypted test arrays (tests/data/tiledb/encrypted_*), so that their seeds
/// reach the decoders behind the decryption.
constexpr std::array<std::uint8_t, 32> fuzz_key{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a',
                                                'b', 'c', 'd', 'e', 'F', '0', '1', '2', '3', '4', '5',
                                                '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'F'};

constexpr const char* schema_file_name = "__1_1_0123456789abcdef0123456789abcdef";

} // namespace

// ---- Schema files (the array layer's side of the schema harness) ---------------

void schema_file(std::span<const std::byte> file, bool legacy_name) {
  storage::memory st;
  st.make_folder("a/__schema");
  const fs::path p = legacy_name ? fs::path("a/__array_schema.tdb") : fs::path("a/__schema") / schema_file_name;
  st.write(p, file);
  auto s = array::detail::read_schema(st, p, {.max_tile_size = max_allocation});
  (void)format::schema_to_text(s);
}

void library_version_schema(const format::LibraryVersionArraySchema& old) {
  auto s = array::detail::from_library_version(old);
  (void)format::schema_to_json(s);
  guarded([&] { (void)codec::encode(s); });
}

void merged_metadata(const format::ArrayMetadata& m) {
  array::metadata_map map;
  map.apply(m);
  map.apply(m);
  (void)map.to_text();
  (void)map.to_json();
}

// ---- Generic tiles --------------------------------------------------------------

/// Input: u8 flags | a generic tile. Flags: bit 0 skip checksum
/// verification, bit 1 give the key, bit 2 read it as TileDB 1.3 wrote
/// generic tiles.
void generic_tile(input in) {
  cursor c(in);
  const std::uint8_t flags = c.byte();
  const auto bytes = c.rest();
  guarded([&] {
    if (flags & 4u) {
      (void)array::detail::library_version_generic_tile(bytes, max_allocation);
      return;
    }
    filter::generic_tile_options opt;
    opt.verify_checksums = (flags & 1u) == 0;
    if (flags & 2u) opt.encryption_key = fuzz_key;
    opt.max_tile_size = max_allocation;
    auto g = filter::read_generic_tile(bytes, opt);
    if (g.stored_size > bytes.size()) {
      std::fprintf(stderr, "tilefmt fuzz: a generic tile says it is stored in more bytes than it was given\n");
      std::abort();
    }
    // What the writer makes of the payload reads back as it.
    if (g.payload.size() <= (std::size_t{1} << 16)) {
      auto again = filter::read_generic_tile(filter::write_generic_tile(g.payload));
      if (again.payload != g.payload) {
        std::fprintf(stderr, "tilefmt fuzz: write_generic_tile does not read back\n");
        std::abort();
      }
    }
  });
}

// ---- Filter pipelines -----------------------------------------------------------

/// Input: u8 datatype | u8 version | u8 cell size (255: a u32 follows) |
/// u8 flags | (flags bit 2: u16 cells) | FilterPipeline as stored | a tile
/// (u64 chunk count, chunks). Flags: bit 0 skip checksum verification, bit 1
/// give the key, bit 2 rebuild var string offsets (for that many cells; 0:
/// as many as the tile holds), bit 3 append the encryption stage.
void filter_pipeline(input in) {
  cursor c(in);
  const format::Datatype type = datatype_from(c.byte());
  const std::uint32_t version = c.byte();
  std::size_t cell_size = c.byte();
  if (cell_size == 255) cell_size = c.u32();
  const std::uint8_t flags = c.byte();
  std::vector<std::uint64_t> rebuilt;
  if (flags & 4u) rebuilt.resize(c.byte() | std::size_t{c.byte()} << 8);
  const auto rest = c.rest();
  guarded([&] {
    codec::reader r(rest);
    auto p = codec::decode<format::FilterPipeline>(r);
    filter::runtime_pipeline rp(p, type, version);
    if (flags & 8u) rp.append(filter::encryption_aes256gcm{});
    (void)rp.descriptor();
    auto tile = codec::decode<format::TileView>(rest.subspan(r.offset()));
    // The array layer checks a tile's size against what it expects, which
    // max_allocation bounds, before it allocates.
    const std::size_t size = filter::detail::unfiltered_size(tile);
    if (size > max_allocation) return;
    std::vector<std::byte> out(size);
    filter::tile_context ctx = rp.context(cell_size);
    ctx.verify_checksums = (flags & 1u) == 0;
    if (flags & 2u) ctx.encryption_key = fuzz_key;
    if (flags & 4u) ctx.rebuilt_offsets = &rebuilt;
    ctx.max_part_size = max_allocation;
    rp.decode_into(tile, out, ctx);
    if (flags & 4u)
      for (std::size_t i = 0; i < rebuilt.size(); ++i)
        if (rebuilt[i] > out.size() || (i && rebuilt[i] < rebuilt[i - 1])) return;
  });
}

// ---- Whole arrays -------------------------------------------------------------------

namespace {

template <class T>
void read_typed(const array::fragment& frag, const array::field_info& f) {
  guarded([&] {
    if (f.var())
      (void)frag.read_var<T>(f.name);
    else
      (void)frag.read<T>(f.name);
  });
}

void read_field(const array::fragment& frag, const array::field_info& f) {
  std::size_t tiles = 0;
  guarded([&] { tiles = frag.tile_num(); });
  // A few tiles one by one (the first ones and the last), then the column.
  for (std::size_t i = 0; i < tiles; ++i) {
    if (i == 8 && tiles > 9) i = tiles - 1;
    guarded([&] { (void)frag.read_tile(f, i); });
  }
  if (!f.var()) guarded([&] { (void)frag.read_bytes(f.name); });
  switch (format::datatype_size(f.type)) {
  case 1: read_typed<std::uint8_t>(frag, f); break;
  case 2: read_typed<std::uint16_t>(frag, f); break;
  case 4: read_typed<std::uint32_t>(frag, f); break;
  case 8: read_typed<std::uint64_t>(frag, f); break;
  default: read_typed<std::uint8_t>(frag, f); break;
  }
  if (f.nullable) guarded([&] { (void)frag.read_validity(f.name); });
}

void read_fragment(const array::fragment& frag) {
  (void)frag.dense(), (void)frag.format_version(), (void)frag.non_empty_domain();
  std::size_t tiles = 0;
  guarded([&] {
    tiles = frag.tile_num();
    (void)frag.cell_num();
    (void)frag.full_tile_cells();
  });
  for (std::size_t i = 0; i < tiles && i < 4; ++i) {
    guarded([&] { (void)frag.tile_cells(i); });
    guarded([&] { (void)frag.fully_written(i); });
    guarded([&] { (void)frag.written_cells(i); });
  }
  std::vector<array::field_info> fields;
  guarded([&] { fields = frag.fields(); });
  guarded([&] {
    auto special = frag.special_fields();
    fields.insert(fields.end(), special.begin(), special.end());
  });
  for (const auto& f : fields) guarded([&] { read_field(frag, f); });
  guarded([&] { (void)frag.read_timestamps(); });
  guarded([&] { (void)frag.read_delete_timestamps(); });
  guarded([&] { (void)frag.read_delete_condition_index(); });
  guarded([&] { (void)frag.processed_conditions(); });
}

/// Unpacks a packed array (harness.hpp) into `st` under `root`.
void unpack_into(cursor& c, storage::memory& st, const fs::path& root) {
  st.make_folder(root);
  for (const auto& e : unpack(c)) {
    guarded([&] {
      const fs::path p = root / e.path;
      if (e.folder) {
        st.make_folder(p);
      } else {
        st.make_folder(p.parent_path());
        st.write(p, e.bytes);
      }
    });
  }
}

} // namespace

/// Input: u8 flags | a packed array (harness.hpp). Flags: bit 0 skip
/// damaged fragments, bit 1 skip checksum verification, bit 2 give the key,
/// bit 3 read every tile a piece at a time (open_options::tile_read_window).
void whole_array(input in) {
  cursor c(in);
  const std::uint8_t flags = c.byte();
  auto st = std::make_shared<storage::memory>();
  unpack_into(c, *st, "a");
  array::open_options opt;
  opt.skip_damaged_fragments = (flags & 1u) != 0;
  opt.verify_checksums = (flags & 2u) == 0;
  if (flags & 4u) opt.encryption_key.assign(fuzz_key.begin(), fuzz_key.end());
  if (flags & 8u) opt.tile_read_window = 1;
  opt.threads = 1;
  opt.max_allocation = max_allocation;
  opt.storage = st;
  guarded([&] {
    auto arr = array::open("a", opt);
    (void)format::schema_to_text(arr.schema());
    (void)arr.metadata().to_text();
    (void)arr.metadata().to_json();
    for (const auto& entry : arr.metadata().entries())
      guarded([&] { (void)arr.metadata().get_string(entry.first); });
    for (const auto& frag : arr.fragments()) read_fragment(frag);
    // Enumerations (and, below, a condition on each enumerated attribute by label).
    for (const auto& e : arr.schema().enumerations.value.value)
      guarded([&] { (void)array::detail::enumeration_values(arr.enumeration(e.name.value)); });
    // Queries over a corner of the domain (at most 16 cells a side for
    // integers), and over that corner and the far end, in each layout.
    array::query corner = arr.query(), two = arr.query();
    const auto& dims = arr.schema().domain.dimensions.value;
    for (std::size_t d = 0; d < dims.size(); ++d)
      guarded([&] {
        format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
          const auto [lo, hi] = dims[d].domain_as<T>();
          if (!(lo <= hi)) return;
          T end = hi;
          if constexpr (std::is_integral_v<T>) {
            if (array::dense_grid::distance(lo, hi) > 15) end = static_cast<T>(lo + T{15});
          } else {
            end = static_cast<T>(lo + (hi - lo) / 16);
          }
          corner.add_range(d, lo, end);
          two.add_range(d, lo, end).add_range(d, hi, hi);
        });
      });
    for (const auto& a : arr.schema().attributes.value)
      if (!a.enumeration_name.value.value.empty())
        guarded([&] { (void)array::query(corner).where(array::field(a.name.value) != "label").read(); });
    // Aggregates: over the whole domain (whole tiles from their stored
    // metadata, the rest folded from the tiles), the corner, and every cell;
    // and the stored tile metadata itself.
    for (const auto& a : arr.schema().attributes.value) {
      const std::string& name = a.name.value;
      using array::aggregate_op;
      for (auto op : {aggregate_op::sum, aggregate_op::min, aggregate_op::max, aggregate_op::mean,
                      aggregate_op::null_count}) {
        guarded([&] { (void)arr.query().aggregate({{op, name}, {aggregate_op::count, ""}}); });
        guarded([&] { (void)array::query(corner).aggregate(op, name); });
        guarded([&] { (void)arr.query().use_tile_metadata(false).aggregate(op, name); });
      }
      for (const auto& frag : arr.fragments())
        guarded([&] {
          for (std::size_t t = 0; t < frag.tile_num() && t < 64; ++t) (void)frag.tile_metadata(name, t);
        });
    }
    for (auto layout : {array::query_layout::row_major, array::query_layout::col_major,
                        array::query_layout::global_order, array::query_layout::unordered}) {
      guarded([&] { (void)corner.layout(layout).read(); });
      guarded([&] { (void)two.layout(layout).read(); });
      guarded([&] {  // in parts of a few cells
        auto parts = two.batches(64);
        for (int i = 0; i < 64 && parts.next(); ++i) {
        }
      });
    }
  });
}

// ---- Seeds ------------------------------------------------------------------------------

namespace {

class seed_writer {
public:
  explicit seed_writer(fs::path out) : out_(std::move(out)) {}

  void add(const std::string& target, std::span<const std::byte> bytes) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (std::byte b : bytes) h = (h ^ std::to_integer<std::uint64_t>(b)) * 1099511628211ull;
    char name[17];
    std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h));
    if (!seen_.insert(target + "/" + name).second) return;
    fs::create_directories(out_ / target);
    std::ofstream f(out_ / target / name, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ++count_;
  }
  /// A seed made of a prefix and a body.
  void add(const std::string& target, std::vector<std::byte> prefix, std::span<const std::byte> body) {
    prefix.insert(prefix.end(), body.begin(), body.end());
    add(target, prefix);
  }
  std::size_t count() const noexcept { return count_; }

private:
  fs::path out_;
  std::set<std::string> seen_;
  std::size_t count_ = 0;
};

std::vector<std::byte> prefix(std::initializer_list<unsigned> v) {
  std::vector<std::byte> out;
  for (unsigned b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::vector<std::byte> read_file(const fs::path& p) { return storage::local{}.read(p); }

/// The generic tile at `offset` of `file`: its stored bytes and its payload.
/// The key of the array whose seeds are being made (fuzz_key for the
/// encrypted test arrays, else none; set by array_seeds), and the generic
/// tiles of its files read with it.
std::span<const std::uint8_t> seed_key;
filter::generic_tile read_seed_tile(std::span<const std::byte> bytes) {
  return filter::read_generic_tile(bytes, {.encryption_key = seed_key});
}
/// `flags` for a seed that needs the key, else 0.
unsigned if_keyed(unsigned flags) { return seed_key.empty() ? 0u : flags; }

std::pair<std::span<const std::byte>, std::vector<std::byte>> tile_at(std::span<const std::byte> file,
                                                                      std::uint64_t offset) {
  if (offset >= file.size()) return {};
  auto g = read_seed_tile(file.subspan(static_cast<std::size_t>(offset)));
  return {file.subspan(static_cast<std::size_t>(offset), g.stored_size), std::move(g.payload)};
}

void schema_seeds(seed_writer& w, const fs::path& root, const array::listing& l) {
  std::vector<fs::path> files = l.schemas;
  const fs::path enums = root / "__schema" / "__enumerations";
  if (fs::is_directory(enums))
    for (const auto& e : fs::directory_iterator(enums)) files.push_back(e.path());
  for (const auto& p : files) {
    const auto bytes = read_file(p);
    const bool legacy = p.filename() == "__array_schema.tdb";
    const bool enumeration = p.parent_path().filename() == "__enumerations";
    if (!enumeration) w.add("schema", prefix({legacy ? 3u | 8u : 3u}), bytes);
    try {
      auto g = read_seed_tile(bytes);
      w.add("schema", prefix({enumeration ? 1u : 0u}), g.payload);
      w.add("generic_tile", prefix({if_keyed(2)}), bytes);
    } catch (const format_error&) {
      if (auto payload = array::detail::library_version_generic_tile(bytes, max_allocation)) {
        w.add("schema", prefix({2}), *payload);
        w.add("generic_tile", prefix({4}), bytes);
      }
    }
  }
}

format::FragmentContext context_of(const array::fragment& frag) {
  format::FragmentContext ctx;
  ctx.version = frag.format_version();
  ctx.num_attributes = frag.schema().attributes.size();
  for (const auto& d : frag.schema().domain.dimensions) ctx.dims.push_back({d.type.value, d.is_var()});
  ctx.has_timestamps = frag.has_timestamps();
  ctx.has_delete_meta = frag.has_delete_meta();
  return ctx;
}

void fragment_seeds(seed_writer& w, const array::fragment& frag) {
  const format::FragmentContext ctx = context_of(frag);
  std::vector<std::byte> ctx_bytes;
  if (!write_context(ctx, ctx_bytes)) return;
  auto with_kind = [&](unsigned kind) {
    auto p = ctx_bytes;
    p.push_back(static_cast<std::byte>(kind));
    return p;
  };
  const auto meta = read_file(frag.path() / "__fragment_metadata.tdb");
  if (ctx.version < 3) {
    try {
      auto g = read_seed_tile(meta);
      w.add("fragment_metadata", with_kind(13), g.payload);
      w.add("generic_tile", prefix({if_keyed(2)}), meta);
    } catch (const format_error&) {
      if (auto payload = array::detail::library_version_generic_tile(meta, max_allocation)) {
        w.add("fragment_metadata", with_kind(14), *payload);
        w.add("generic_tile", prefix({4}), meta);
      }
    }
    return;
  }
  w.add("fragment_metadata", with_kind(0), meta);
  if (ctx.version >= 10) w.add("fragment_metadata", with_kind(15), meta);
  const auto& f = frag.footer();
  w.add("fragment_metadata", with_kind(16), codec::encode(f.non_empty_domain, ctx));
  auto sections = [&](const std::vector<std::uint64_t>& offsets, std::initializer_list<unsigned> kinds) {
    for (std::uint64_t off : offsets) {
      auto [stored, payload] = tile_at(meta, off);
      if (stored.empty()) continue;
      w.add("generic_tile", prefix({if_keyed(2)}), stored);
      for (unsigned k : kinds) w.add("fragment_metadata", with_kind(k), payload);
    }
  };
  sections({f.rtree_offset}, {1, 2});
  sections(f.tile_offsets.value, {3, 4});
  sections(f.tile_var_offsets.value, {3});
  sections(f.tile_var_sizes.value, {5});
  sections(f.tile_validity_offsets.value, {3});
  sections(f.tile_min_offsets.value, {6, 7});
  sections(f.tile_max_offsets.value, {6});
  sections(f.tile_sum_offsets.value, {8});
  sections(f.tile_null_count_offsets.value, {9});
  if (ctx.version >= 12) sections({f.fragment_min_max_sum_null_count_offset.value}, {10});
  if (ctx.version >= 16) sections({f.processed_conditions_offset.value}, {11});
  if (auto go = format::tile_global_order_offsets(f, ctx)) {
    w.add("fragment_metadata", with_kind(12), codec::encode(*go, ctx));
    sections(go->min_offsets.value, {6});
    sections(go->max_offsets.value, {6});
  }
}

/// The first tile of each data file of each field, with the pipeline that
/// unfilters it.
void filter_seeds(seed_writer& w, const array::fragment& frag) {
  const auto version = frag.format_version();
  if (version < 3) return;
  const auto& schema = frag.schema();
  const auto& footer = frag.footer();
  const auto meta = read_file(frag.path() / "__fragment_metadata.tdb");
  std::vector<array::field_info> fields = frag.fields();
  for (const auto& f : frag.special_fields()) fields.push_back(f);
  using DF = format::DataFile;
  for (const auto& f : fields) {
    for (DF which : {DF::fixed, DF::var, DF::validity}) {
      if ((which == DF::var && !f.var()) || (which == DF::validity && !f.nullable)) continue;
      const auto& offsets = which == DF::fixed ? footer.tile_offsets.value
                            : which == DF::var ? footer.tile_var_offsets.value
                                               : footer.tile_validity_offsets.value;
      const auto& sizes = which == DF::fixed ? footer.file_sizes.value
                          : which == DF::var ? footer.file_var_sizes.value
                                             : footer.file_validity_sizes.value;
      if (f.footer_index >= offsets.size() || f.footer_index >= sizes.size()) continue;
      auto [stored, payload] = tile_at(meta, offsets[f.footer_index]);
      auto tiles = codec::decode<format::TileOffsets>(payload, context_of(frag)).offsets.value;
      if (tiles.empty()) continue;
      const std::uint64_t end = tiles.size() > 1 ? tiles[1] : sizes[f.footer_index];
      const fs::path file = frag.path() / f.file_name(version, which);
      if (!fs::is_regular_file(file) || end < tiles[0]) continue;
      const auto tile = storage::local{}.read_range(file, tiles[0], end - tiles[0]);
      const format::FilterPipeline* p = f.filters;
      format::Datatype type = f.type;
      std::size_t cell_size = which == DF::var ? format::datatype_size(f.type) : f.cell_size();
      if (which == DF::validity) p = &schema.validity_filters.value, type = format::Datatype::UINT8, cell_size = 1;
      if (which == DF::fixed && f.var()) p = &schema.offsets_filters, type = format::Datatype::UINT64, cell_size = 8;
      const bool rebuilt = which == DF::var && filter::skip_offsets_filtering(*f.filters, f.type, schema.version.value);
      if (cell_size >= 255 || version > 255) continue;
      const unsigned flags = (rebuilt ? 4u : 0u) | if_keyed(2 | 8);
      auto seed = prefix({static_cast<unsigned>(type), version, static_cast<unsigned>(cell_size), flags});
      if (rebuilt) {
        const auto cells = frag.tile_cells(0);
        seed.push_back(static_cast<std::byte>(cells & 0xff));
        seed.push_back(static_cast<std::byte>((cells >> 8) & 0xff));
      }
      auto pipeline = codec::encode(*p);
      seed.insert(seed.end(), pipeline.begin(), pipeline.end());
      w.add("filter_pipeline", seed, tile);
    }
  }
}

void commit_seeds(seed_writer& w, const fs::path& root) {
  std::vector<std::byte> folder;
  int in_folder = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    w.add("commit_files", prefix({0}), bytes_of(e.path().filename().string()));
    if (!e.is_regular_file()) continue;
    const auto ext = e.path().extension();
    if (ext == ".del") {
      w.add("commit_files", prefix({5}), read_seed_tile(read_file(e.path())).payload);
      continue;
    }
    unsigned mode = ext == ".vac" || ext == ".ign" ? 1 : ext == ".con" ? 2 : 0;
    if (mode == 0) continue;
    const auto bytes = read_file(e.path());
    w.add("commit_files", prefix({mode}), bytes);
    if (in_folder < 3 && bytes.size() <= 0xffff) {
      const unsigned kind = ext == ".con" ? 0 : ext == ".ign" ? 1 : 2;
      folder.push_back(static_cast<std::byte>(1u | kind << 4));
      for (int i = 0; i < 4; ++i) folder.push_back(static_cast<std::byte>(bytes.size() >> (8 * i)));
      folder.insert(folder.end(), bytes.begin(), bytes.end());
      ++in_folder;
    }
  }
  if (!folder.empty()) w.add("commit_files", prefix({3}), folder);
}

/// `payload` as a generic tile without filters: the fuzzer can change its
/// fields in place, which it cannot do through a compressor.
std::vector<std::byte> plain_generic_tile(std::span<const std::byte> payload, std::uint32_t version) {
  return filter::write_generic_tile<filter::pipeline<>>(payload, version);
}

/// The generic tile that is the whole of `file`, stored without filters.
std::optional<std::vector<std::byte>> plain_file(std::span<const std::byte> file) {
  try {
    auto g = read_seed_tile(file);
    if (g.stored_size != file.size()) return std::nullopt;
    return plain_generic_tile(g.payload, g.header.version.value);
  } catch (const format_error&) {
    return std::nullopt;
  }
}

/// A `__fragment_metadata.tdb` with every section stored without filters
/// and the footer's offsets moved to match.
std::optional<std::vector<std::byte>> plain_fragment_metadata(std::span<const std::byte> file,
                                                              format::FragmentContext ctx) {
  if (ctx.version < 3) return plain_file(file);
  try {
    auto footer = format::read_footer(file, ctx);
    ctx = format::with_footer_flags(ctx, footer);
    std::vector<std::uint64_t*> offsets{&footer.rtree_offset};
    for (auto* v : {&footer.tile_offsets.value, &footer.tile_var_offsets.value, &footer.tile_var_sizes.value,
                    &footer.tile_validity_offsets.value, &footer.tile_min_offsets.value, &footer.tile_max_offsets.value,
                    &footer.tile_sum_offsets.value, &footer.tile_null_count_offsets.value})
      for (auto& o : *v) offsets.push_back(&o);
    if (ctx.version >= 12) offsets.push_back(&footer.fragment_min_max_sum_null_count_offset.value);
    if (ctx.version >= 16) offsets.push_back(&footer.processed_conditions_offset.value);
    auto global_order = format::tile_global_order_offsets(footer, ctx);
    if (global_order)
      for (auto* v : {&global_order->min_offsets.value, &global_order->max_offsets.value})
        for (auto& o : *v) offsets.push_back(&o);
    std::map<std::uint64_t, std::uint64_t> moved;
    for (auto* o : offsets) moved[*o] = 0;
    std::vector<std::byte> out;
    for (auto& [from, to] : moved) {
      auto g = read_seed_tile(file.subspan(static_cast<std::size_t>(from)));
      to = out.size();
      auto t = plain_generic_tile(g.payload, g.header.version.value);
      out.insert(out.end(), t.begin(), t.end());
    }
    for (auto* o : offsets) *o = moved.at(*o);
    if (global_order)
      for (auto& s : footer.optional_sections.value)
        if (s.identifier == format::tile_global_order_offsets_section) s = format::make_optional_section(*global_order, ctx);
    auto f = format::write_footer(footer, ctx);
    out.insert(out.end(), f.begin(), f.end());
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// The test arrays under a folder named `encrypted_*` are encrypted with
/// fuzz_key.
bool encrypted_test_array(const fs::path& root) {
  return std::any_of(root.begin(), root.end(), [](const fs::path& p) { return p.string().starts_with("encrypted_"); });
}

void array_seeds(seed_writer& w, const fs::path& root) {
  const bool encrypted = encrypted_test_array(root);
  array::open_options opt{.threads = 1};
  if (encrypted) opt.encryption_key.assign(fuzz_key.begin(), fuzz_key.end());
  seed_key = encrypted ? std::span<const std::uint8_t>(fuzz_key) : std::span<const std::uint8_t>{};
  // The whole array, packed; then again with its generic tiles unfiltered.
  std::vector<packed_entry> entries;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    packed_entry p;
    p.path = fs::relative(e.path(), root).generic_string();
    p.folder = e.is_directory();
    if (!p.folder) p.bytes = read_file(e.path());
    entries.push_back(std::move(p));
  }
  // Every other array's seed reads its tiles a piece at a time (flag 8).
  static unsigned seeded = 0;
  const unsigned piecewise = seeded++ % 2 ? 8u : 0u;
  auto add_packed = [&](const std::vector<packed_entry>& list) {
    std::vector<std::byte> packed = prefix({if_keyed(4) | piecewise});
    pack(list, packed);
    if (packed.size() <= (std::size_t{1} << 20)) w.add("array", packed);
  };
  add_packed(entries);
  try {
    auto arr = array::open(root, opt);
    std::map<std::string, format::FragmentContext> contexts;
    for (const auto& frag : arr.fragments())
      contexts[fs::relative(frag.path() / "__fragment_metadata.tdb", root).generic_string()] = context_of(frag);
    bool changed = false;
    for (auto& e : entries) {
      if (e.folder) continue;
      const fs::path p(e.path);
      const std::string dir = p.parent_path().filename().string();
      std::optional<std::vector<std::byte>> plain;
      if (auto it = contexts.find(e.path); it != contexts.end())
        plain = plain_fragment_metadata(e.bytes, it->second);
      else if (dir == "__schema" || dir == "__enumerations" || dir == "__meta" || p.extension() == ".meta")
        plain = plain_file(e.bytes);
      if (plain) e.bytes = std::move(*plain), changed = true;
    }
    if (changed) {
      // The copy must read as the original does.
      storage::memory mem;
      mem.make_folder("a");
      for (const auto& e : entries) {
        if (e.folder) {
          mem.make_folder(fs::path("a") / e.path);
        } else {
          mem.make_folder((fs::path("a") / e.path).parent_path());
          mem.write(fs::path("a") / e.path, e.bytes);
        }
      }
      auto copy_opt = opt;
      copy_opt.storage = std::shared_ptr<storage::memory>(&mem, [](auto*) {});
      auto copy = array::open("a", copy_opt);
      bool same = copy.fragments().size() == arr.fragments().size() &&
                  copy.metadata().entries() == arr.metadata().entries() && copy.schema() == arr.schema();
      for (std::size_t i = 0; same && i < copy.fragments().size(); ++i)
        for (const auto& f : copy.fragments()[i].fields())
          for (std::size_t t = 0; same && t < copy.fragments()[i].tile_num(); ++t)
            same = copy.fragments()[i].read_tile(f, t).values == arr.fragments()[i].read_tile(f, t).values;
      if (same)
        add_packed(entries);
      else
        std::fprintf(stderr, "fuzz seeds: %s: the unfiltered copy reads differently\n", root.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz seeds: %s: no unfiltered copy: %s\n", root.c_str(), e.what());
  }

  commit_seeds(w, root);
  auto l = array::list_array(root);
  schema_seeds(w, root, l);
  for (const auto& m : l.metadata) {
    const auto bytes = read_file(m.path);
    w.add("generic_tile", prefix({if_keyed(2)}), bytes);
    w.add("array_metadata", read_seed_tile(bytes).payload);
  }
  auto arr = array::open(root, opt);
  for (const auto& frag : arr.fragments()) {
    fragment_seeds(w, frag);
    filter_seeds(w, frag);
  }
  if (!arr.fragments().empty()) {
    std::vector<std::byte> ctx_bytes;
    if (write_context(context_of(arr.fragments().back()), ctx_bytes))
      for (const auto& m : l.fragment_meta) {
        const auto bytes = read_file(m.path);
        w.add("generic_tile", prefix({if_keyed(2)}), bytes);
        w.add("consolidated_fragment_metadata", ctx_bytes, read_seed_tile(bytes).payload);
      }
  }
}

} // namespace

std::size_t make_seeds(const char* data_dir, const char* out_dir) {
  seed_writer w(out_dir);
  std::vector<fs::path> roots;
  for (const auto& e : fs::recursive_directory_iterator(data_dir))
    if (e.is_directory() && array::is_array(e.path())) roots.push_back(e.path());
  std::sort(roots.begin(), roots.end());
  for (const auto& root : roots) {
    try {
      array_seeds(w, root);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz seeds: %s: %s\n", root.c_str(), e.what());
    }
  }
  // Group details: a version 2 file (named and unnamed, relative and
  // absolute, a deletion) and a version 1 file, as TileDB writes them.
  {
    auto member = [](std::string uri, std::string name, format::ObjectType t, bool relative, bool deleted,
                     std::uint32_t version) {
      format::GroupMember m;
      m.version.value = version;
      m.type = t;
      m.relative = relative;
      m.uri.value = std::move(uri);
      m.name_set = !name.empty();
      m.name->value = std::move(name);
      m.deleted.value = deleted;
      return m;
    };
    format::GroupDetails v2;
    v2.members.value = {member("arr", "arr", format::ObjectType::ARRAY, true, false, 2),
                        member("file:///data/other", "", format::ObjectType::GROUP, false, false, 2),
                        member("../up", "up", format::ObjectType::ARRAY, true, true, 2)};
    w.add("group_details", codec::encode(v2));
    format::GroupDetails v1;
    v1.version = 1;
    v1.members.value = {member("sub", "sub", format::ObjectType::GROUP, true, false, 1)};
    w.add("group_details", codec::encode(v1));
  }
  // The codec's example formats: the WAV, PNG, ZIP and ELF files of tests/data/formats.
  const fs::path formats = fs::path(data_dir) / "formats";
  if (fs::is_directory(formats))
    for (const auto& e : fs::directory_iterator(formats))
      if (const auto x = e.path().extension(); x == ".wav" || x == ".png" || x == ".zip" || x == ".elf")
        w.add("codec_formats", read_file(e.path()));
  // What servers answer, the shapes the storage backends read (the first
  // byte picks the parser: harness_storage.cpp).
  auto answer = [&](unsigned parser, std::string_view text) {
    std::vector<std::byte> seed{static_cast<std::byte>(parser)};
    for (const char c : text) seed.push_back(static_cast<std::byte>(c));
    w.add("storage_answers", seed);
  };
  answer(0, "<?xml version=\"1.0\"?><ListBucketResult><Prefix>a/</Prefix><Contents><Key>a/x &amp; y</Key>"
            "<Size>3</Size></Contents><CommonPrefixes><Prefix>a/b/</Prefix></CommonPrefixes><IsTruncated>true"
            "</IsTruncated><NextContinuationToken>t+1</NextContinuationToken></ListBucketResult>");
  answer(0, "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>K</AccessKeyId><SecretAccessKey>S"
            "</SecretAccessKey><SessionToken>T</SessionToken><Expiration>2026-11-30T06:00:00Z</Expiration>"
            "</Credentials></AssumeRoleResult></AssumeRoleResponse>");
  answer(0, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>");
  answer(1, R"({"kind": "storage#objects", "prefixes": ["a/b/"], "items": [{"name": "a/x", "size": "3"}],)"
            R"( "nextPageToken": "p"})");
  answer(2, R"({"type": "service_account", "client_email": "a@b.iam.gserviceaccount.com",)"
            R"( "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "token_uri": "https://t"})");
  answer(3, "# tilefmt listing 1\n181 __schema/__1_1_0123456789abcdef0123456789abcdef\n0 __commits/x.wrt\n");
  answer(4, "2026-11-30T06:00:05Z");
  return w.count();
}

} // namespace tilefmt::fuzz
