// tilefmt — fuzz harnesses of the codec and format layer: array schemas,
// fragment metadata, array metadata, consolidated fragment metadata, names
// and commit files. Whatever decodes is also encoded again, and must decode
// to the same value; dumps are produced as the tools produce them.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/format/group_details.hpp"
#include "tilefmt/group/model/members.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/commit_files.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/legacy.hpp"
#include "tilefmt/format/names.hpp"
#include "tilefmt/format/print.hpp"
#include "tilefmt/format/query_condition.hpp"
#include "tilefmt/storage/memory.hpp"
#include "formats/elf.hpp"
#include "formats/png.hpp"
#include "formats/wav.hpp"
#include "formats/zip.hpp"

namespace tilefmt::fuzz {

// harness_array.cpp: the paths of the schema family that need the filters.
void schema_file(std::span<const std::byte> file, bool legacy_name);
void library_version_schema(const format::LibraryVersionArraySchema& s);
void merged_metadata(const format::ArrayMetadata& m);

namespace {

/// Encodes `v` and decodes the bytes again: the value must come back.
template <class T, class Ctx = codec::no_context>
void round_trip(const T& v, const char* what, const Ctx& ctx = {}) {
  guarded([&] {
    std::vector<std::byte> again = codec::encode(v, ctx);
    if (!(codec::decode<T>(again, ctx) == v)) {
      std::fprintf(stderr, "tilefmt fuzz: %s does not decode to itself after encoding\n", what);
      std::abort();
    }
  });
}

/// Overwrites the u32 at the front of `b` with `v` (a format version).
std::vector<std::byte> with_version(std::span<const std::byte> b, std::uint32_t v) {
  std::vector<std::byte> out(b.begin(), b.end());
  if (out.size() < 4) out.resize(4);
  codec::store_le<std::uint32_t>(out.data(), v);
  return out;
}

/// A fixed-size range as values of every type of its size.
template <class R>
void range_values(const R& r, std::size_t size) {
  guarded([&] {
    switch (size) {
    case 1: (void)r.template as<std::int8_t>(); break;
    case 2: (void)r.template as<std::uint16_t>(); break;
    case 4: (void)r.template as<std::int32_t>(), (void)r.template as<float>(); break;
    case 8: (void)r.template as<std::int64_t>(), (void)r.template as<double>(); break;
    default: (void)r.template as<std::int32_t>(); break;
    }
  });
  (void)r.lo(), (void)r.hi(), (void)r.as_strings();
}

void array_schema(std::span<const std::byte> payload) {
  auto s = codec::decode<format::ArraySchema>(payload);
  (void)format::schema_to_text(s);
  (void)format::schema_to_json(s);
  (void)codec::to_json(s);
  for (std::size_t i = 0; i < s.domain.dimensions.size(); ++i) {
    const auto& d = s.domain.dimensions[i];
    (void)s.dimension_filters(i);
    (void)d.coord_size(), (void)d.is_var();
    range_values(format::Range1D{d.coord_size(), d.domain.value}, d.coord_size());
    guarded([&] { (void)d.tile_extent_as<std::int32_t>(); });
    guarded([&] { (void)d.tile_extent_as<std::uint64_t>(); });
  }
  for (const auto& a : s.attributes) {
    // fill() builds one cell, as large as cell_val_num makes it: the array
    // layer asks for it only once it holds tiles of such cells.
    if (a.is_var() || !a.fill_value->empty() || a.cell_size() <= (std::uint64_t{1} << 20)) (void)a.fill();
    (void)s.attribute(a.name.value);
  }
  if (s.current_domain->empty == false)
    for (std::size_t i = 0; i < s.current_domain->ndrectangle->ranges.size(); ++i)
      range_values(s.current_domain->ndrectangle->ranges[i],
                   i < s.domain.dimensions.size() ? s.domain.dimensions[i].coord_size() : 0);
  round_trip(s, "ArraySchema");
}

void enumeration(std::span<const std::byte> payload) {
  auto e = codec::decode<format::Enumeration>(payload);
  (void)e.offset_values();
  guarded([&] { (void)e.string_values(); });
  (void)codec::to_text(e);
  round_trip(e, "Enumeration");
}

void nd_rectangle(cursor& c) {
  format::NDRectangleContext ctx;
  for (std::size_t n = c.byte() % 5; n > 0; --n) {
    const std::uint8_t b = c.byte();
    ctx.dims.push_back({datatype_from(b & 0x7fu), (b & 0x80u) != 0});
  }
  auto r = codec::decode<format::NDRectangle>(c.rest(), ctx);
  for (std::size_t i = 0; i < r.ranges.size(); ++i) range_values(r.ranges[i], ctx.dims[i].coord_size());
  round_trip(r, "NDRectangle", ctx);
}

} // namespace

/// Input: u8 mode | payload. Mode (low 3 bits): 0 ArraySchema payload, 1
/// Enumeration payload, 2 TileDB 1.3 schema payload, 3 a whole schema file
/// as the array layer reads it (bit 3: named `__array_schema.tdb`, which
/// allows the TileDB 1.3 layout), 4 NDRectangle (u8 dimensions, a byte per
/// dimension as in a FragmentContext, then the ranges). Bit 7: the next byte
/// modulo 26 replaces the payload's version (modes 0 and 2).
void schema(input in) {
  cursor c(in);
  const std::uint8_t mode = c.byte();
  std::uint32_t version = 0;
  const bool set_version = (mode & 0x80u) != 0;
  if (set_version) version = c.byte() % 26u;
  guarded([&] {
    switch (mode & 7u) {
    case 0: {
      auto payload = c.rest();
      if (set_version) return array_schema(with_version(payload, version));
      return array_schema(payload);
    }
    case 1: return enumeration(c.rest());
    case 2: {
      auto payload = c.rest();
      auto s = set_version ? codec::decode<format::LibraryVersionArraySchema>(with_version(payload, version % 4))
                           : codec::decode<format::LibraryVersionArraySchema>(payload);
      round_trip(s, "LibraryVersionArraySchema");
      return library_version_schema(s);
    }
    case 3: return schema_file(c.rest(), (mode & 8u) != 0);
    case 4: return nd_rectangle(c);
    default: return;
    }
  });
}

// ---- Fragment metadata ------------------------------------------------------

namespace {

template <class T>
void section(std::span<const std::byte> payload, const format::FragmentContext& ctx, const char* what) {
  auto v = codec::decode<T>(payload, ctx);
  round_trip(v, what, ctx);
}

template <class View>
void view_section(std::span<const std::byte> payload, const format::FragmentContext& ctx) {
  (void)codec::decode<View>(payload, ctx);
}

void footer(std::span<const std::byte> file, const format::FragmentContext& ctx) {
  (void)format::footer_size(ctx);
  auto loc = format::locate_footer(file, ctx);
  (void)loc;
  auto f = format::read_footer(file, ctx);
  auto flagged = format::with_footer_flags(ctx, f);
  (void)flagged.num_fields();
  (void)codec::to_text(f, ctx);
  for (const auto& r : f.non_empty_domain.ranges) (void)r.lo(), (void)r.hi(), (void)r.as_strings();
  guarded([&] { (void)format::tile_global_order_offsets(f, ctx); });
  round_trip(f, "Footer", ctx);
  guarded([&] {
    auto bytes = format::write_footer(f, ctx);
    if (!(format::read_footer(bytes, ctx) == f)) {
      std::fprintf(stderr, "tilefmt fuzz: write_footer does not read back\n");
      std::abort();
    }
  });
}

template <class M>
void legacy(std::span<const std::byte> payload, const format::FragmentContext& ctx, const char* what) {
  auto m = codec::decode<M>(payload, ctx);
  guarded([&] { (void)format::legacy_non_empty_domain(m, ctx); });
  round_trip(m, what, ctx);
}

} // namespace

/// Input: FragmentContext (harness.hpp) | u8 kind | payload (a section's
/// generic tile payload, or for kind 0 a whole `__fragment_metadata.tdb`).
void fragment_metadata(input in) {
  cursor c(in);
  const format::FragmentContext ctx = read_context(c);
  const std::uint8_t kind = c.byte();
  const auto payload = c.rest();
  guarded([&] {
    switch (kind % 18u) {
    case 0: return footer(payload, ctx);
    case 1: return section<format::RTree>(payload, ctx, "RTree");
    case 2: return view_section<format::RTreeView>(payload, ctx);
    case 3: return section<format::TileOffsets>(payload, ctx, "TileOffsets");
    case 4: return view_section<format::TileOffsetsView>(payload, ctx);
    case 5: return section<format::TileSizes>(payload, ctx, "TileSizes");
    case 6: return section<format::TileMinMax>(payload, ctx, "TileMinMax");
    case 7: return view_section<format::TileMinMaxView>(payload, ctx);
    case 8: return section<format::TileSums>(payload, ctx, "TileSums");
    case 9: return section<format::TileNullCounts>(payload, ctx, "TileNullCounts");
    case 10: return section<format::FragmentMinMaxSumNullCount>(payload, ctx, "FragmentMinMaxSumNullCount");
    case 11: return section<format::ProcessedConditions>(payload, ctx, "ProcessedConditions");
    case 12: return section<format::TileGlobalOrderOffsets>(payload, ctx, "TileGlobalOrderOffsets");
    case 13: return legacy<format::LegacyFragmentMetadata>(payload, ctx, "LegacyFragmentMetadata");
    case 14: return legacy<format::LibraryVersionFragmentMetadata>(payload, ctx, "LibraryVersionFragmentMetadata");
    case 15: (void)format::footer_schema_name(payload); return;
    case 16: return section<format::MBR>(payload, ctx, "MBR");
    case 17: return view_section<format::MBRView>(payload, ctx);
    }
  });
}

// ---- Array metadata -----------------------------------------------------------

namespace {

template <class T>
void value_as(const format::MetadataEntry& e) {
  guarded([&] { (void)e.as<T>(); });
}

} // namespace

/// Input: an array metadata payload.
void array_metadata(input in) {
  guarded([&] {
    auto m = codec::decode<format::ArrayMetadata>(std::as_bytes(in));
    for (const auto& e : m.entries) {
      (void)m.find(e.key.value);
      if (e.deleted()) continue;
      value_as<std::int8_t>(e), value_as<std::uint8_t>(e), value_as<std::int16_t>(e), value_as<std::uint16_t>(e);
      value_as<std::int32_t>(e), value_as<std::uint32_t>(e), value_as<std::int64_t>(e), value_as<std::uint64_t>(e);
      value_as<float>(e), value_as<double>(e), value_as<char>(e), value_as<char16_t>(e), value_as<char32_t>(e);
      value_as<std::byte>(e);
      guarded([&] { (void)e.as_string(); });
      (void)format::values_to_text(e.type(), e.bytes(), true);
    }
    round_trip(m, "ArrayMetadata");
    merged_metadata(m);
  });
}

// ---- Group details -----------------------------------------------------------

/// Input: a group details payload, applied to a member list twice (as two
/// files) and each member resolved against a group folder.
void group_details(input in) {
  guarded([&] {
    auto d = codec::decode<format::GroupDetails>(std::as_bytes(in));
    round_trip(d, "GroupDetails");
    group::member_list list;
    try {
      list.apply(d, "/g/__group/a");
      list.apply(d, "/g/__group/b");
    } catch (const group::member_error&) {
      return;  // a version TileDB never wrote
    }
    for (const auto& m : list.members()) {
      (void)m.key();
      try {
        const auto p = group::resolve("/g", m);
        // Followed relative members stay inside the group.
        if (m.relative && p.string().rfind("/g/", 0) != 0) std::abort();
      } catch (const group::member_error&) {
      }
    }
  });
}

// ---- Consolidated fragment metadata ----------------------------------------

/// Input: FragmentContext | a consolidated fragment metadata payload.
void consolidated_fragment_metadata(input in) {
  cursor c(in);
  const format::FragmentContext ctx = read_context(c);
  guarded([&] {
    auto m = codec::decode<format::ConsolidatedFragmentMetadata>(c.rest());
    (void)format::consolidated_list_size(m);
    for (std::size_t i = 0; i < m.fragments.size(); ++i) {
      (void)format::consolidated_offset_field(m, i);
      guarded([&] {
        auto f = codec::decode<format::Footer>(format::consolidated_footer(m, i), ctx);
        (void)format::with_footer_flags(ctx, f);
        round_trip(f, "Footer", ctx);
      });
    }
    round_trip(m, "ConsolidatedFragmentMetadata");
  });
}

// ---- Names and commit files -------------------------------------------------

namespace {

void name(std::string_view n) {
  guarded([&] {
    auto t = format::parse_timestamped_name(n);
    (void)t.implied_format_version();
    auto again = format::parse_timestamped_name(t.str());
    if (!(again == t)) {
      std::fprintf(stderr, "tilefmt fuzz: a timestamped name does not parse back from str()\n");
      std::abort();
    }
  });
  (void)format::is_timestamped_name(n);
  guarded([&] { format::check_file_name(n); });
  guarded([&] { format::check_schema_file_name(n); });
}

/// The commit folder's reading in the array layer: `.con`, `.ign` and `.vac`
/// files in a storage::memory.
void commit_folder(cursor& c) {
  static const char* const extensions[] = {".con", ".ign", ".vac"};
  auto st = std::make_shared<storage::memory>();
  st->make_folder("a/__commits");
  std::vector<array::fs::path> files;
  for (int i = 0; i < 3 && !c.empty(); ++i) {
    const std::uint8_t b = c.byte();
    const array::fs::path p = "a/__commits/__" + std::to_string(b & 15u) + "_" + std::to_string(b & 15u) +
                       "_0123456789abcdef0123456789abcdef_22" + extensions[(b >> 4) % 3];
    st->write(p, c.take(c.u32() & 0xffffu));
    files.push_back(p);
  }
  auto ignored = array::detail::ignored_commits(*st, files);
  (void)array::detail::consolidated_commits(*st, files, ignored);
  (void)array::detail::vacuumed(*st, files, 0, 100);
  (void)array::detail::vacuumed(*st, files, 0, 100, true);
}

} // namespace

/// Input: u8 mode | bytes. Modes: 0 a timestamped name (and the file name
/// checks), 1 a vacuum / ignore file, 2 a consolidated commits file, 3 a
/// commit folder (up to three files: u8 name byte, u32 size, bytes), 4 a
/// name built from three numbers and a label, 5 the condition of a delete
/// commit (the payload of its generic tile), 6 an update commit's payload.
void commit_files(input in) {
  cursor c(in);
  const std::uint8_t mode = c.byte();
  guarded([&] {
    switch (mode % 7u) {
    case 0: return name(text_of(c.rest()));
    case 1: {
      auto l = codec::decode<format::PathList>(c.rest());
      for (const auto& p : l.paths()) guarded([&] { (void)format::vacuum_entry_name(p); });
      (void)codec::to_json(l);
      return round_trip(l, "PathList");
    }
    case 2: {
      auto cc = codec::decode<format::ConsolidatedCommits>(c.rest());
      (void)codec::to_text(cc);
      return round_trip(cc, "ConsolidatedCommits");
    }
    case 3: return commit_folder(c);
    case 4: {
      const std::uint64_t t1 = c.u32(), t2 = c.u32();
      const std::uint32_t v = c.u32();
      auto label = text_of(c.take(32));
      const auto version = (v & 1u) ? std::optional<std::uint32_t>(v >> 1) : std::nullopt;
      auto n = format::make_timestamped_name(t1, t2, label, version);
      name(n);
      (void)format::make_enumeration_file_name(label, v);
      (void)format::format_label(v, static_cast<std::uint32_t>(t1), t2);
      return;
    }
    case 5: {
      auto cond = codec::decode<format::ConditionNode>(c.rest());
      (void)codec::to_text(cond);
      return round_trip(cond, "ConditionNode");
    }
    case 6: {
      auto update = codec::decode<format::UpdateCommit>(c.rest());
      (void)codec::to_json(update);
      return round_trip(update, "UpdateCommit");
    }
    }
  });
}

/// Records aligned to the file, not to themselves (codec::file_align), in a
/// sequence: each record's padding depends on where the one before ended.
struct FileAlignedRecord {
  codec::counted<std::uint8_t, std::string> name;
  codec::file_align<4> pad{};
  std::uint32_t value;
  codec::counted<std::uint8_t, std::vector<std::byte>> data;
  codec::file_align<8, codec::pad_bytes::any> tail{};
  friend bool operator==(const FileAlignedRecord&, const FileAlignedRecord&) = default;
};
struct FileAligned {
  std::uint8_t lead;
  codec::rest<std::vector<FileAlignedRecord>> records;
  friend bool operator==(const FileAligned&, const FileAligned&) = default;
};

/// The codec as a language for other formats (examples/formats): what
/// decodes as WAV, PNG, ZIP or ELF (or as records aligned to the file) must
/// encode to exactly the input bytes (the file-aligned records: up to the
/// padding they skip unchecked), and dump; a ZIP's directory found through
/// its offsets must hold the records the sequence holds, and its entries'
/// contents inflate or fail with a format_error.
void codec_formats(input in) {
  const auto bytes = std::as_bytes(in);
  auto exact = [&]<class File>(const char* what) {
    guarded([&] {
      const auto file = codec::decode<File>(bytes);
      (void)codec::to_text(file);
      if (codec::encode(file) != std::vector<std::byte>(bytes.begin(), bytes.end())) {
        std::fprintf(stderr, "tilefmt fuzz: a %s file does not encode to its bytes\n", what);
        std::abort();
      }
    });
  };
  exact.template operator()<wav::File>("WAV");
  exact.template operator()<png::File>("PNG");
  exact.template operator()<zip::File>("ZIP");
  exact.template operator()<elf::File>("ELF");
  guarded([&] {
    const auto file = codec::decode<FileAligned>(bytes);
    (void)codec::to_text(file);
    if (codec::encoded_size(file) != bytes.size()) {
      std::fprintf(stderr, "tilefmt fuzz: file-aligned records do not size to their bytes\n");
      std::abort();
    }
    round_trip(file, "FileAligned");
  });
  guarded([&] {
    const zip::Directory d = zip::directory(bytes);
    for (std::size_t i = 0; i < d.local.size(); ++i) {
      guarded([&] { (void)zip::contents(d.local[i], d.central[i].local_header_offset); });
      (void)codec::to_text(d.central[i]);
    }
  });
}

} // namespace tilefmt::fuzz
