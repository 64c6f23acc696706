// tilefmt — a filter pipeline fixed at compile time.
//
//   using P = filter::pipeline<filter::positive_delta<>, filter::bit_width_reduction<>, filter::zstd<3>>;
//   std::vector<std::byte> tile = P::encode<std::int64_t>(values);
//   std::vector<std::int64_t> back = P::decode<std::int64_t>(tile);
//   format::FilterPipeline desc = P::descriptor();   // what a schema stores
//
// The stages sit in a tuple: no virtual call per chunk. The bytes are those
// TileDB writes for the same filters, chunk by chunk.
#pragma once

#include <bit>
#include <cstddef>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/filter/chunking.hpp"
#include "tilefmt/filter/detail/runner.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/filter_pipeline.hpp"
#include "tilefmt/format/tile.hpp"

namespace tilefmt::filter {

struct encode_options {
  /// Chunking on: chunks of up to 64 KiB (stored as max_chunk_size 65536).
  /// Off: the whole tile is one chunk (stored as 0). A pipeline with WEBP
  /// never chunks (one image per tile), as TileDB's writer decides.
  bool chunking = true;
  /// Format version the tile is written for (some filters differ by version).
  std::uint32_t version = format::written_version;
  /// Values per cell: chunks never split a cell.
  std::uint32_t cell_val_num = 1;
  /// The field's datatype, when it is not the one of the C++ type (dates...).
  std::optional<format::Datatype> datatype{};
  /// AES-256-GCM key (32 bytes) for a pipeline ending in
  /// encryption_aes256gcm; only viewed, never copied.
  std::span<const std::uint8_t> encryption_key{};
};

struct decode_options {
  std::uint32_t version = format::written_version;
  std::uint32_t cell_val_num = 1;
  std::optional<format::Datatype> datatype{};
  bool verify_checksums = true;
  std::span<const std::uint8_t> encryption_key{};
};

namespace detail {

template <class T>
concept stage = requires(const T& s, forward_io& f, reverse_io& r, format::Datatype d) {
  { T::filter_type } -> std::convertible_to<format::FilterType>;
  { s.output_type(d) } -> std::same_as<format::Datatype>;
  s.forward(f);
  s.reverse(r);
  { s.descriptor(std::uint32_t{}) } -> std::same_as<format::Filter>;
};

template <class... F>
struct tuple_stages {
  const std::tuple<F...>& stages;
  static constexpr std::size_t size() noexcept { return sizeof...(F); }
  template <class Fn>
  void visit(std::size_t i, Fn&& fn) const {
    visit_impl(i, fn, std::index_sequence_for<F...>{});
  }

private:
  template <class Fn, std::size_t... I>
  void visit_impl(std::size_t i, Fn& fn, std::index_sequence<I...>) const {
    ((i == I ? (fn(std::get<I>(stages)), 0) : 0), ...);
  }
};

template <class T>
format::Datatype field_type(const std::optional<format::Datatype>& given) {
  if (given) {
    if (format::datatype_size(*given) != sizeof(T))
      throw std::invalid_argument("tilefmt: datatype " + std::string(format::codec_enum_name(*given)) +
                                  " does not have the size of the C++ value type");
    return *given;
  }
  return format::datatype_of<T>();
}

} // namespace detail

template <class... F>
class pipeline {
  static_assert((detail::stage<F> && ...),
                "tilefmt::filter::pipeline<F...>: every F must be a filter stage (byteshuffle, zstd<>, ...)");

public:
  static constexpr std::size_t size = sizeof...(F);

  /// The pipeline as a schema stores it.
  static format::FilterPipeline descriptor(std::uint32_t version = format::written_version, bool chunking = true) {
    format::FilterPipeline p;
    p.max_chunk_size = chunking ? static_cast<std::uint32_t>(max_tile_chunk_size) : 0;
    std::apply([&](const auto&... s) { (p.filters.value.push_back(s.descriptor(version)), ...); }, stages());
    return p;
  }

  /// Filters `values` as one fixed-size tile. Numbers are stored
  /// little-endian, as in every TileDB file, whatever the host's order.
  template <class T>
  static std::vector<std::byte> encode(std::span<const T> values, const encode_options& opt = {}) {
    std::vector<std::byte> out;
    encode_into<T>(values, out, opt);
    return out;
  }
  /// The same into `out` (contents replaced, capacity reused: no fresh
  /// buffer per tile when tiles are encoded one after another).
  template <class T>
  static void encode_into(std::span<const T> values, std::vector<std::byte>& out, const encode_options& opt = {}) {
    static_assert(std::is_trivially_copyable_v<T>, "tilefmt::filter::pipeline: values must be trivially copyable");
    format::Datatype type = detail::field_type<T>(opt.datatype);
    tile_context ctx;
    ctx.version = opt.version;
    ctx.cell_size = sizeof(T) * opt.cell_val_num;
    ctx.encryption_key = opt.encryption_key;
    // The stages read and write little-endian values: a big-endian host's
    // numbers are converted first (a copy only there).
    std::vector<std::byte> swapped;
    bytes_view raw = std::as_bytes(values);
    if constexpr (needs_swap<T>) {
      swapped.resize(values.size_bytes());
      codec::store_le_array(swapped.data(), values.data(), values.size());
      raw = swapped;
    }
    detail::tuple_stages<F...> seq{stages()};
    detail::runner run(seq);
    run.set_input_type(type);
    const bool chunking = opt.chunking && ((F::filter_type != format::FilterType::WEBP) && ...);
    detail::encode_tile_into(run, ctx, raw, fixed_chunks(raw.size(), ctx.cell_size, chunking), out);
  }
  template <class T>
  static std::vector<std::byte> encode(const std::vector<T>& values, const encode_options& opt = {}) {
    return encode<T>(std::span<const T>(values), opt);
  }

  /// Decodes a tile this pipeline produced into `out` (exactly its size).
  template <class T>
  static void decode_into(bytes_view tile, std::span<T> out, const decode_options& opt = {}) {
    auto view = codec::decode<format::TileView>(tile);
    tile_context ctx{opt.version, sizeof(T) * opt.cell_val_num, opt.verify_checksums, opt.encryption_key};
    detail::tuple_stages<F...> seq{stages()};
    detail::runner run(seq);
    run.set_input_type(detail::field_type<T>(opt.datatype));
    detail::decode_tile(run, ctx, view, std::as_writable_bytes(out));
    if constexpr (needs_swap<T>) {
      // Each little-endian value to the host's order, in place.
      for (T& v : out) v = codec::load_le<T>(reinterpret_cast<const std::byte*>(&v));
    }
  }

  template <class T>
  static std::vector<T> decode(bytes_view tile, const decode_options& opt = {}) {
    auto view = codec::decode<format::TileView>(tile);
    std::size_t n = detail::unfiltered_size(view);
    if (n % sizeof(T) != 0)
      throw format_error("tile holds " + std::to_string(n) + " bytes, not a whole number of values", 0);
    std::vector<T> out(n / sizeof(T));
    decode_into<T>(tile, std::span<T>(out), opt);
    return out;
  }

private:
  template <class T>
  static constexpr bool needs_swap = std::endian::native == std::endian::big && sizeof(T) > 1 && codec::wire_scalar<T>;

  static const std::tuple<F...>& stages() {
    static const std::tuple<F...> s{};
    return s;
  }
};

} // namespace tilefmt::filter
