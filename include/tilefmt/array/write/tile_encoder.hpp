// tilefmt — how cells reach a writer: as little-endian bytes (le_bytes),
// each fixed-size tile encoded by the schema's run-time pipeline or by a
// compile-time one the caller named (tile_encoder). Light: the writers'
// declarations use it.
#pragma once

#include <bit>
#include <cstddef>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include "tilefmt/codec/endian.hpp"
#include "tilefmt/filter/pipeline.hpp"

namespace tilefmt::array::detail {

template <class P>
struct is_pipeline : std::false_type {};
template <class... F>
struct is_pipeline<filter::pipeline<F...>> : std::true_type {};

/// Encodes one fixed-size tile (given by set<P>) into its second argument
/// (contents replaced, capacity reused); empty: the field's pipeline from
/// the schema, built at run time.
using tile_encoder = std::function<void(std::span<const std::byte>, std::vector<std::byte>&)>;

/// The cells of a fragment as little-endian bytes: a view of them on
/// little-endian hosts, a converted copy in `copy` elsewhere.
template <class T>
std::span<const std::byte> le_bytes(std::span<const T> values, std::vector<std::byte>& copy) {
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1) {
    return std::as_bytes(values);
  } else {
    copy.resize(values.size_bytes());
    codec::store_le_array(copy.data(), values.data(), values.size());
    return copy;
  }
}

} // namespace tilefmt::array::detail
