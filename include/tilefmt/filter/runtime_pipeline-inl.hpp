// tilefmt — the members of filter::runtime_pipeline that run its stages
// (runtime_pipeline.hpp includes this file unless TILEFMT_DECLARE_ONLY;
// codec/compiled.hpp). Each instantiates the chunk runner over every stage a
// stored pipeline can name, so a program built against the compiled
// component links their one copy instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"

namespace tilefmt::filter {

TILEFMT_FUNC std::vector<any_stage> runtime_pipeline::make_stages(const format::FilterPipeline& p,
                                                                 std::uint32_t version) {
  std::vector<any_stage> stages;
  stages.reserve(p.filters.size());
  for (std::size_t i = 0; i < p.filters.size(); ++i) {
    try {
      stages.push_back(detail::stage_from_filter<any_stage>(p.filters[i], version));
    } catch (format_error& e) {
      e.prepend_field("filters[" + std::to_string(i) + "]");
      throw;
    }
  }
  return stages;
}

TILEFMT_FUNC format::FilterPipeline runtime_pipeline::descriptor() const {
  format::FilterPipeline p;
  p.max_chunk_size = chunking_ ? static_cast<std::uint32_t>(max_tile_chunk_size) : 0;
  for (const auto& s : stages_) std::visit([&](const auto& st) { p.filters.value.push_back(st.descriptor(version_)); }, s);
  return p;
}

TILEFMT_FUNC void runtime_pipeline::decode_into(const format::TileView& tile, std::span<std::byte> out,
                                                const tile_context& ctx) const {
  detail::vector_stages seq{stages_};
  detail::runner run(seq);
  run.set_input_type(type_);
  detail::decode_tile(run, ctx, tile, out);
}

TILEFMT_FUNC void runtime_pipeline::chunk_decoder::decode(bytes_view metadata, bytes_view data,
                                                          std::span<std::byte> dest) {
  run_.reverse_chunk(ctx_, metadata, data, dest);
}

TILEFMT_FUNC void runtime_pipeline::chunk_decoder::decode_pieces(bytes_view metadata, bytes_view data,
                                                                 std::size_t size,
                                                                 std::span<const chunk_piece> pieces) {
  run_.reverse_chunk_pieces(ctx_, metadata, data, size, pieces);
}

TILEFMT_FUNC std::vector<std::byte> runtime_pipeline::decode(bytes_view tile_bytes, const tile_context& ctx) const {
  auto tile = codec::decode<format::TileView>(tile_bytes);
  std::vector<std::byte> out(detail::unfiltered_size(tile));
  decode_into(tile, out, ctx);
  return out;
}

TILEFMT_FUNC std::vector<std::byte> runtime_pipeline::encode(bytes_view data, const tile_context& ctx) const {
  return encode_chunks(data, ctx, fixed_chunks(data.size(), ctx.cell_size, tile_chunking(false)));
}

TILEFMT_FUNC void runtime_pipeline::encode_into(bytes_view data, const tile_context& ctx,
                                                std::vector<std::byte>& out) const {
  detail::vector_stages seq{stages_};
  detail::runner run(seq);
  run.set_input_type(type_);
  detail::encode_tile_into(run, ctx, data, fixed_chunks(data.size(), ctx.cell_size, tile_chunking(false)), out);
}

TILEFMT_FUNC std::vector<std::byte> runtime_pipeline::encode_var(bytes_view data, std::span<const std::uint64_t> offsets,
                                                                const tile_context& ctx) const {
  tile_context with_offsets = ctx;
  with_offsets.offsets = offsets;
  return encode_chunks(data, with_offsets,
                       var_chunks(data.size(), offsets, format::datatype_size(type_), tile_chunking(true)));
}

TILEFMT_FUNC bool runtime_pipeline::tile_chunking(bool is_var) const {
  format::FilterPipeline kinds;
  kinds.max_chunk_size = chunking_ ? static_cast<std::uint32_t>(max_tile_chunk_size) : 0;
  kinds.filters.value.reserve(stages_.size());
  for (const auto& s : stages_)
    kinds.filters.value.push_back(
        format::Filter{std::visit([](const auto& st) { return std::decay_t<decltype(st)>::filter_type; }, s), {}});
  return use_tile_chunking(kinds, is_var, type_, version_);
}

TILEFMT_FUNC std::vector<std::byte> runtime_pipeline::encode_chunks(bytes_view data, const tile_context& ctx,
                                                                   const std::vector<chunk_range>& chunks) const {
  detail::vector_stages seq{stages_};
  detail::runner run(seq);
  run.set_input_type(type_);
  return detail::encode_tile(run, ctx, data, chunks);
}

} // namespace tilefmt::filter
