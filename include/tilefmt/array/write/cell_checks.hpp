// tilefmt — the checks of the cells a writer's caller gives (set, set_var,
// set_coords): the attribute exists and holds values of that size, fixed or
// var-size as called, nullable ones come with a validity byte per cell, the
// counts agree, offsets start at 0 and never decrease. Every message names
// the writer ("tilefmt: <who>: ...").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "tilefmt/array/model/field.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

class cell_checks {
public:
  /// `schema` must outlive the checks (fragment_builder::checks makes them
  /// for each call).
  cell_checks(const format::ArraySchema& schema, std::uint32_t version, std::string who)
      : schema_(&schema), version_(version), who_(std::move(who)) {}

  /// "tilefmt: <who>: <what>".
  std::string message(const std::string& what) const { return "tilefmt: " + who_ + ": " + what; }

  /// The attribute called `name`, checked against what set() or set_var()
  /// was given: `n` values (fixed) or offsets (var) of `value_size` bytes
  /// for `cells` cells, and a validity byte per cell for nullable ones.
  std::size_t attribute(std::string_view name, std::size_t value_size, std::size_t n, bool var,
                        std::span<const std::uint8_t> validity, std::uint64_t cells) const {
    std::size_t i = 0;
    for (; i < schema_->attributes.size(); ++i)
      if (schema_->attributes[i].name.value == name) break;
    if (i == schema_->attributes.size())
      throw std::invalid_argument(message(std::string("set: the array has no attribute \"").append(name).append("\"")));
    const format::Attribute& a = schema_->attributes[i];
    const std::string who = "set: attribute \"" + a.name.value + "\"";
    if (format::datatype_size(a.type) != value_size)
      throw std::invalid_argument(message(who + " holds " + std::string(format::codec_enum_name(a.type)) +
                                          " values, not " + std::to_string(value_size) + "-byte ones"));
    if (a.is_var() != var)
      throw std::invalid_argument(message(who + " is " + (a.is_var() ? "var-size: use set_var" : "fixed-size: use set")));
    if (a.nullable.value && validity.size() != cells)
      throw std::invalid_argument(message(who + " is nullable and needs a validity byte per cell: " +
                                          std::to_string(cells) + ", got " + std::to_string(validity.size())));
    if (!a.nullable.value && !validity.empty())
      throw std::invalid_argument(message(who + " is not nullable; it takes no validity"));
    const std::uint64_t want = var ? cells : cells * a.cell_val_num;
    if (n != want)
      throw std::invalid_argument(message(who + " needs " + std::to_string(want) + (var ? " offsets" : " values") +
                                          " (" + std::to_string(cells) + " cells), got " + std::to_string(n)));
    return i;
  }

  /// Offsets start at 0, never decrease and stay within the values.
  /// attribute() for a set() of `n` values of a fixed-size attribute,
  /// whose cells are n / cell_val_num unless earlier calls fixed `cells`:
  /// the attribute's index and the call's cell count.
  std::pair<std::size_t, std::uint64_t> fixed_attribute(std::string_view name, std::size_t value_size, std::size_t n,
                                                        std::span<const std::uint8_t> validity,
                                                        std::optional<std::uint64_t> cells) const {
    std::uint64_t count = cells.value_or(0);
    if (!cells)
      for (const auto& a : schema_->attributes)
        if (a.name.value == name && !a.is_var() && a.cell_val_num) count = n / a.cell_val_num;
    return {attribute(name, value_size, n, false, validity, count), count};
  }
  /// attribute() and check_var_offsets() for a set_var() of a cell per offset.
  std::size_t var_attribute(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
                            std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity,
                            std::optional<std::uint64_t> cells) const {
    const std::size_t i = attribute(name, value_size, offsets.size(), true, validity, cells.value_or(offsets.size()));
    check_var_offsets(attribute_field(*schema_, i, version_).name, offsets, values.size() / value_size);
    return i;
  }

  void check_var_offsets(const std::string& field, std::span<const std::uint64_t> offsets, std::size_t values) const {
    for (std::size_t c = 0; c < offsets.size(); ++c) {
      const std::uint64_t prev = c ? offsets[c - 1] : 0;
      if ((c == 0 && offsets[0] != 0) || offsets[c] < prev || offsets[c] > values)
        throw std::invalid_argument(message("set_var: \"" + field + "\": offset " + std::to_string(c) + " is " +
                                            std::to_string(offsets[c]) +
                                            (c == 0 ? " (the first must be 0)" : std::string(", after ") + std::to_string(prev)) +
                                            ", with " + std::to_string(values) + " values"));
    }
  }

private:
  const format::ArraySchema* schema_;
  std::uint32_t version_;
  std::string who_;
};

} // namespace tilefmt::array::detail
