// tilefmt — what a query returns: a column per field, in one of TileDB's
// layouts (array/read/query.hpp runs queries).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::array {

class query;
class query_batches;

namespace detail {

/// One field of a result, as the readers fill it.
struct result_field {
  std::string name;
  format::Datatype type = format::Datatype::INT32;
  bool var = false, nullable = false;
  column<std::byte> values;         // sized without zeroing: the readers write every byte
  column<std::uint64_t> offsets;    // var: where each cell starts in `values` (likewise)
  std::vector<std::uint8_t> validity;  // nullable
};

} // namespace detail

/// The order of a query's result cells.
enum class query_layout {
  row_major,     ///< the last dimension fastest (C order)
  col_major,     ///< the first dimension fastest (Fortran order)
  global_order,  ///< the schema's tile order over the space tiles, then its cell order
  unordered,     ///< sparse arrays: whatever order is fastest
};

/// The cells a query returned, one column per field: for sparse arrays the
/// dimensions (each cell's coordinates) then the attributes; for dense
/// arrays the attributes. Values are kept as the little-endian bytes TileDB
/// stores; get<T> and get_var<T> convert.
class query_result {
public:
  /// Cells in the result (every field has this many).
  std::uint64_t cell_num() const noexcept { return cells_; }

  /// Field names: dimensions (sparse arrays), then the attributes in the
  /// order the query asked for them.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& f : fields_) out.push_back(f.name);
    return out;
  }

  /// Whether field `name` is var-size (read with get_var) or nullable (has validity()).
  bool var_size(std::string_view name) const { return at(name).var; }
  bool nullable(std::string_view name) const { return at(name).nullable; }

  /// A fixed-size field's values (cell_val_num per cell).
  template <class T>
  column<T> get(std::string_view name) const {
    const auto& f = at(name);
    if (f.var) throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" is var-size: use get_var");
    check_type<T>(f);
    column<T> out(f.values.size() / sizeof(T));
    codec::load_le_array(f.values.data(), out.data(), out.size());
    return out;
  }

  /// A var-size field's cells: offsets (in elements of T) and values.
  template <class T>
  var_column<T> get_var(std::string_view name) const {
    const auto& f = at(name);
    if (!f.var) throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" is fixed-size: use get");
    check_type<T>(f);
    var_column<T> out;
    out.offsets.resize(f.offsets.size());
    for (std::size_t i = 0; i < f.offsets.size(); ++i) out.offsets[i] = f.offsets[i] / sizeof(T);
    out.values.resize(f.values.size() / sizeof(T));
    codec::load_le_array(f.values.data(), out.values.data(), out.values.size());
    return out;
  }

  /// A nullable attribute's validity, a byte per cell (0: null).
  const std::vector<std::uint8_t>& validity(std::string_view name) const {
    const auto& f = at(name);
    if (!f.nullable) throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" is not nullable");
    return f.validity;
  }

  /// The values as stored: little-endian bytes, cells back to back (a
  /// std::vector whose allocator skips zero-filling, array/model/column.hpp).
  const column<std::byte>& bytes(std::string_view name) const { return at(name).values; }
  /// A var-size attribute's byte offsets into bytes(name), one per cell.
  std::span<const std::uint64_t> byte_offsets(std::string_view name) const { return at(name).offsets; }

  /// Moves the fields out, buffers and all: for callers that hand them on
  /// (the Python binding gives them to NumPy) instead of copying them.
  std::vector<detail::result_field> release_fields() && { return std::move(fields_); }

  query_result() = default;

private:
  friend class query;
  friend class query_batches;
  using field = detail::result_field;

  /// A reader's output (read/dense/reader.hpp, read/sparse/reader.hpp).
  query_result(std::vector<field> fields, std::uint64_t cells) : fields_(std::move(fields)), cells_(cells) {}

  const field& at(std::string_view name) const {
    for (const auto& f : fields_)
      if (f.name == name) return f;
    throw std::invalid_argument("tilefmt: query result has no field \"" + std::string(name) + "\"");
  }
  template <class T>
  static void check_type(const field& f) {
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values, not values of " +
                                  std::to_string(sizeof(T)) + " bytes");
  }

  std::vector<field> fields_;
  std::uint64_t cells_ = 0;
};

} // namespace tilefmt::array
