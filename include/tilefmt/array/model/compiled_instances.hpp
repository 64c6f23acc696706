// tilefmt — the template specializations the compiled component
// (codec/compiled.hpp) instantiates once: the run-time filter pipeline's
// tile loops and the decoders of the format's large structs, the
// instantiations that cost most in a reader's or writer's translation unit
// (clang -ftime-trace; docs/performance.md, "Compile time").
//
// With TILEFMT_COMPILED these are explicit instantiation declarations
// (extern template): the including translation unit calls the library's
// copy and does not instantiate them. src/compiled/instances.cpp compiles
// the same list as explicit instantiation definitions. Header-only builds
// see nothing here. Only non-inline function templates can be listed: an
// inline one would still be instantiated where it is used.
//
// The headers that define those templates' callers (read/tile_source.hpp,
// create-inl.hpp) include this file last, after the templates' definitions.
#pragma once

#include "tilefmt/codec/compiled.hpp"

// Header-only builds include nothing more.
#if defined(TILEFMT_COMPILED_INSTANTIATE) || defined(TILEFMT_DECLARE_ONLY)

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/filter/detail/checksum.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/filter_metadata.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/generic_tile.hpp"
#include "tilefmt/format/legacy.hpp"
#include "tilefmt/format/query_condition.hpp"
#include "tilefmt/format/tile.hpp"

#if defined(TILEFMT_COMPILED_INSTANTIATE)
#define TILEFMT_INSTANCE template
#else
#define TILEFMT_INSTANCE extern template
#endif

namespace tilefmt::filter::detail {

TILEFMT_INSTANCE void decode_tile<vector_stages>(runner<vector_stages>&, const tile_context&, const format::TileView&,
                                                 std::span<std::byte>);
TILEFMT_INSTANCE void encode_tile_into<vector_stages>(runner<vector_stages>&, const tile_context&, bytes_view,
                                                      const std::vector<chunk_range>&, std::vector<std::byte>&);
TILEFMT_INSTANCE any_stage stage_from_filter<any_stage, 0>(const format::Filter&, std::uint32_t);
TILEFMT_INSTANCE void checksum_reverse<md5_hash>(reverse_io&, format::FilterType);
TILEFMT_INSTANCE void checksum_reverse<sha256_hash>(reverse_io&, format::FilterType);

} // namespace tilefmt::filter::detail

namespace tilefmt::filter {

TILEFMT_INSTANCE std::size_t read_metadata<format::EncryptionMD, codec::no_context>(format::FilterType, bytes_view,
                                                                                    format::EncryptionMD&,
                                                                                    const codec::no_context&);
TILEFMT_INSTANCE bytes_view write_metadata<format::DictionaryMD, codec::no_context>(std::vector<std::byte>&,
                                                                                    const format::DictionaryMD&,
                                                                                    const codec::no_context&);

} // namespace tilefmt::filter::detail

namespace tilefmt::codec {

// Every decode<T> and decode_into<T> form ends in this one.
TILEFMT_INSTANCE void decode_into<format::ArraySchema, no_context>(reader&, format::ArraySchema&, const no_context&);
TILEFMT_INSTANCE void decode_into<format::LibraryVersionArraySchema, no_context>(reader&, format::LibraryVersionArraySchema&,
                                                                                 const no_context&);
TILEFMT_INSTANCE void decode_into<format::Enumeration, no_context>(reader&, format::Enumeration&, const no_context&);
TILEFMT_INSTANCE void decode_into<format::Footer, format::FragmentContext>(reader&, format::Footer&,
                                                                           const format::FragmentContext&);
TILEFMT_INSTANCE void decode_into<format::LegacyFragmentMetadata, format::FragmentContext>(
    reader&, format::LegacyFragmentMetadata&, const format::FragmentContext&);
TILEFMT_INSTANCE void decode_into<format::LibraryVersionFragmentMetadata, format::FragmentContext>(
    reader&, format::LibraryVersionFragmentMetadata&, const format::FragmentContext&);
TILEFMT_INSTANCE void decode_into<format::LibraryVersionTile, no_context>(reader&, format::LibraryVersionTile&,
                                                                          const no_context&);
TILEFMT_INSTANCE void decode_into<format::GenericTileHeader, no_context>(reader&, format::GenericTileHeader&,
                                                                         const no_context&);
TILEFMT_INSTANCE void decode_into<format::ArrayMetadata, no_context>(reader&, format::ArrayMetadata&, const no_context&);
TILEFMT_INSTANCE void decode_into<format::ConditionNode, no_context>(reader&, format::ConditionNode&, const no_context&);
TILEFMT_INSTANCE void decode_into<format::TileView, no_context>(reader&, format::TileView&, const no_context&);
TILEFMT_INSTANCE void decode_into<format::FooterPrefix, no_context>(reader&, format::FooterPrefix&, const no_context&);

// Every encode<T> form ends in these two.
#define TILEFMT_ENCODE_INSTANCE(T, Ctx)                                           \
  TILEFMT_INSTANCE std::size_t encoded_size<T, Ctx>(const T&, const Ctx&); \
  TILEFMT_INSTANCE void encode_into<T, Ctx>(const T&, writer&, const Ctx&)
TILEFMT_ENCODE_INSTANCE(format::ArraySchema, no_context);
TILEFMT_ENCODE_INSTANCE(format::Enumeration, no_context);
TILEFMT_ENCODE_INSTANCE(format::ConditionNode, no_context);
TILEFMT_ENCODE_INSTANCE(format::ArrayMetadata, no_context);
TILEFMT_ENCODE_INSTANCE(format::Footer, format::FragmentContext);
TILEFMT_ENCODE_INSTANCE(format::RTree, format::FragmentContext);
TILEFMT_ENCODE_INSTANCE(format::TileMinMax, format::FragmentContext);
TILEFMT_ENCODE_INSTANCE(format::TileNullCounts, format::FragmentContext);
TILEFMT_ENCODE_INSTANCE(format::FragmentMinMaxSumNullCount, format::FragmentContext);
#undef TILEFMT_ENCODE_INSTANCE

} // namespace tilefmt::codec

#undef TILEFMT_INSTANCE

#endif // TILEFMT_COMPILED_INSTANTIATE || TILEFMT_DECLARE_ONLY
