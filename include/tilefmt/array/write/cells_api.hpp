// tilefmt — the set(), set_var() and set<P>() calls every fragment writer
// offers: the typed cells a caller gives, as little-endian bytes for the
// writer's implementation (cell_sink), which checks them. Templates stay here,
// light, so that a program built in compiled mode instantiates them against
// the writers' declarations alone.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/write/tile_encoder.hpp"
#include "tilefmt/format/print.hpp"

namespace tilefmt::array {

namespace detail {

/// What a fragment writer's implementation takes from the cell APIs: cells
/// as little-endian bytes, which it checks, and its encoding threads. The
/// writers' classes are handles holding one (write/dense_writer.hpp).
class cell_sink {
public:
  virtual ~cell_sink() = default;
  /// `n` values of `value_size` bytes for a fixed-size attribute, its
  /// tiles encoded by `encoder` (empty: the schema's pipeline).
  virtual void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                         std::span<const std::uint8_t> validity, const tile_encoder& encoder) = 0;
  /// A var-size attribute's values and where each cell starts.
  virtual void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
                       std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) = 0;
  virtual void encode_threads(unsigned n) = 0;
};

/// The same for a sparse writer, which takes coordinates too.
class coordinate_sink : public cell_sink {
public:
  /// A fixed-size dimension's coordinates as little-endian bytes of
  /// `value_size` (floating point or not, as the caller's type was).
  virtual void put_coords(std::string_view dimension, std::size_t value_size, bool is_float,
                          std::span<const std::byte> bytes) = 0;
  /// A string dimension's coordinates.
  virtual void put_coords(std::string_view dimension, const std::vector<std::string>& coords) = 0;
};

/// The set(), set_var() and set<P>() calls the fragment writers offer;
/// `Fragment` passes the cells to its implementation (`sink()`).
template <class Fragment>
class cells_api {
public:
  /// Threads encoding the fragment's tiles (0, the default: one per core).
  /// The files are the same whatever the count. Set it before the cells: a
  /// dense fragment encodes an attribute's tiles when it is set; a sparse
  /// one sorts its cells and encodes a fixed-size attribute when the
  /// attribute is set after every dimension's coordinates, and everything
  /// else at commit().
  Fragment& threads(unsigned n) {
    self().sink().encode_threads(n);
    return self();
  }

  /// Sets a fixed-size attribute's cells, encoding its tiles with the
  /// schema's filter pipeline (built at run time). T must have the size of
  /// the attribute's type; a cell of cell_val_num values takes that many
  /// elements. Nullable attributes need `validity`, a byte per cell (0 =
  /// null; the values of null cells are stored as given); others take none.
  template <class T>
  Fragment& set(std::string_view attribute, std::span<const T> cells, std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set(): values are numbers, characters or bytes");
    std::vector<std::byte> copy;
    self().sink().put_fixed(attribute, sizeof(T), cells.size(), le_bytes(cells, copy), validity, tile_encoder{});
    return self();
  }
  template <class T>
  Fragment& set(std::string_view attribute, const std::vector<T>& cells, std::span<const std::uint8_t> validity = {}) {
    return set<T>(attribute, std::span<const T>(cells), validity);
  }

  /// Sets an attribute's cells, encoding its tiles with the compile-time
  /// pipeline P, which must be the one the schema declares for it
  /// (P::descriptor() equal to the attribute's filters): the same type that
  /// declared the schema writes the tiles.
  template <class P, class T>
    requires is_pipeline<P>::value
  Fragment& set(std::string_view attribute, std::span<const T> cells, std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set<P>(): values are numbers, characters or bytes");
    const format::Attribute* a = nullptr;
    for (const auto& at : self().schema().attributes)
      if (at.name.value == attribute) a = &at;
    if (a && !(P::descriptor(format::written_version, a->filters.max_chunk_size != 0) == a->filters))
      throw std::invalid_argument(
          "tilefmt: set<P>: attribute \"" + a->name.value + "\" is declared with the filters " +
          format::pipeline_to_text(a->filters, format::written_version) + ", P has " +
          format::pipeline_to_text(P::descriptor(format::written_version), format::written_version));
    filter::encode_options opt;
    if (a) {
      opt.chunking = a->filters.max_chunk_size != 0;
      opt.cell_val_num = a->cell_val_num;
      opt.datatype = a->type;
    }
    opt.version = format::written_version;
    std::vector<std::byte> copy;
    self().sink().put_fixed(attribute, sizeof(T), cells.size(), le_bytes(cells, copy), validity,
                     [opt](std::span<const std::byte> tile, std::vector<std::byte>& out) {
                       // The tile (little-endian bytes, a whole number of
                       // cells) as values of T again, which P stores
                       // little-endian: a view here, a converted copy on
                       // big-endian hosts.
                       if constexpr (std::endian::native == std::endian::little || !codec::wire_scalar<T>) {
                         std::span<const T> values(reinterpret_cast<const T*>(tile.data()), tile.size() / sizeof(T));
                         P::template encode_into<T>(values, out, opt);
                       } else {
                         std::vector<T> values(tile.size() / sizeof(T));
                         codec::load_le_array(tile.data(), values.data(), values.size());
                         P::template encode_into<T>(std::span<const T>(values), out, opt);
                       }
                     });
    return self();
  }
  template <class P, class T>
    requires is_pipeline<P>::value
  Fragment& set(std::string_view attribute, const std::vector<T>& cells, std::span<const std::uint8_t> validity = {}) {
    return set<P, T>(attribute, std::span<const T>(cells), validity);
  }

  /// Sets a var-size attribute's cells: `values` holds every cell's values
  /// back to back and `offsets[c]` is where cell c starts, in elements of T,
  /// with no trailing offset (the shape read_var returns). The var tiles
  /// are encoded with the schema's filters, the offsets with its offsets
  /// filters (or not stored, where RLE or DICTIONARY carry them). Nullable
  /// attributes need `validity` as for set().
  template <class T>
  Fragment& set_var(std::string_view attribute, std::span<const T> values, std::span<const std::uint64_t> offsets,
                    std::span<const std::uint8_t> validity = {}) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set_var(): values are numbers, characters or bytes");
    std::vector<std::byte> copy;
    self().sink().put_var(attribute, sizeof(T), le_bytes(values, copy), offsets, validity);
    return self();
  }
  template <class T>
  Fragment& set_var(std::string_view attribute, const var_column<T>& cells, std::span<const std::uint8_t> validity = {}) {
    return set_var<T>(attribute, std::span<const T>(cells.values), std::span<const std::uint64_t>(cells.offsets), validity);
  }
  /// Sets a var-size string attribute (CHAR, STRING_ASCII, STRING_UTF8, ...
  /// of one byte per character) from one string per cell.
  Fragment& set_var(std::string_view attribute, const std::vector<std::string>& cells,
                    std::span<const std::uint8_t> validity = {}) {
    std::vector<char> values;
    std::vector<std::uint64_t> offsets;
    offsets.reserve(cells.size());
    for (const auto& c : cells) {
      offsets.push_back(values.size());
      values.insert(values.end(), c.begin(), c.end());
    }
    return set_var<char>(attribute, std::span<const char>(values), std::span<const std::uint64_t>(offsets), validity);
  }

private:
  Fragment& self() { return static_cast<Fragment&>(*this); }
};

} // namespace detail

} // namespace tilefmt::array
