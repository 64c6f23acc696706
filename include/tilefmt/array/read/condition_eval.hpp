// tilefmt — a query condition (format/query_condition.hpp) evaluated over the
// cells of one tile, with TileDB's rules (tiledb/sm/query/query_condition.cc):
//
// - Numbers compare as the field's type; strings (var-size fields, CHAR and
//   the string types) byte by byte, shorter first on a common prefix.
// - A condition value of no bytes stands for null: `== null` holds for null
//   cells, `!= null` for the others. A null cell fails every other
//   comparison, IN and NOT_IN included.
// - A field the fragment's schema does not have (added later by schema
//   evolution) fails every comparison.
//
// The same evaluator serves query conditions and the delete conditions of
// delete commits (which store the condition of the cells to keep).
#pragma once

#include <algorithm>
#include <cmath>
#include <ranges>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/read/fragment.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/query_condition.hpp"

namespace tilefmt::array::detail {

class condition_eval {
public:
  /// What the condition needs of a field, from the array's schema.
  struct field_type {
    format::Datatype type = format::Datatype::INT32;
    bool var = false, nullable = false;
    std::size_t cell_size = 0;  // fixed-size fields
    bool string() const noexcept {
      return var || type == format::Datatype::CHAR || format::is_string(type);
    }
  };

  /// Checks every field and value of `root` against `schema` (fields that
  /// exist; values of the field's size; IN sets whose offsets fit).
  condition_eval(format::ConditionNode root, const format::ArraySchema& schema) : root_(std::move(root)) {
    for (const auto& d : schema.domain.dimensions.value)
      fields_[d.name.value] = {d.type.value, d.is_var(), false, d.is_var() ? 0 : format::datatype_size(d.type.value)};
    for (const auto& a : schema.attributes.value)
      fields_[a.name.value] = {a.type, a.is_var(), a.nullable.value, a.is_var() ? 0 : static_cast<std::size_t>(a.cell_size())};
    check(root_);
  }

  const format::ConditionNode& root() const noexcept { return root_; }
  /// The fields the condition reads.
  std::vector<std::string> field_names() const {
    std::vector<std::string> out;
    collect_names(root_, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  /// 1 for each cell of `cells` (positions in the tile) that satisfies the
  /// condition, else 0. `tile_of(name)` gives the tile of a field, or
  /// nullptr when the fragment does not have the field.
  /// (One evaluator for every caller: `tile_of` is a function_ref, not a
  /// template parameter, so that the comparisons for each type and
  /// operator are compiled once per program, not once per caller.)
  using tile_lookup = function_ref<const tile_data*(const std::string&)>;
  std::vector<std::uint8_t> evaluate(std::span<const std::uint64_t> cells, tile_lookup tile_of) const {
    return run({cells.data(), 0, cells.size()}, tile_of);
  }
  /// The same for the cells `first .. first + count` of the tile.
  std::vector<std::uint8_t> evaluate_range(std::uint64_t first, std::size_t count, tile_lookup tile_of) const {
    return run({nullptr, first, count}, tile_of);
  }

private:
  using Op = format::QueryConditionOp;
  using Combine = format::QueryConditionCombinationOp;

  struct positions;
  std::vector<std::uint8_t> run(const positions& cells, tile_lookup tile_of) const {
    std::vector<std::uint8_t> out(cells.count);
    std::vector<std::byte> scratch;
    if (cells.count != 0) eval(root_, cells, tile_of, out.data(), scratch);
    return out;
  }

  static std::invalid_argument error(const std::string& what) {
    return std::invalid_argument("tilefmt: query condition: " + what);
  }

  void check(const format::ConditionNode& n) const {
    if (n.is_expression()) {
      const auto& e = n.expression();
      if (e.children.nodes.empty()) throw error("an expression without operands");
      if (e.combination_op == Combine::NOT && e.children.nodes.size() != 1)
        throw error("NOT takes one operand, not " + std::to_string(e.children.nodes.size()));
      for (const auto& c : e.children.nodes) check(c);
      return;
    }
    const auto& v = n.value();
    if (v.op == Op::ALWAYS_TRUE || v.op == Op::ALWAYS_FALSE) return;
    const auto it = fields_.find(v.field_name.value);
    if (it == fields_.end()) throw error("the array has no field \"" + v.field_name.value + "\"");
    const auto& f = it->second;
    if (!f.string() && f.cell_size != format::datatype_size(f.type))
      throw error("field \"" + v.field_name.value + "\" holds several values per cell, which conditions do not compare");
    const auto& value = v.value.value;
    if (v.op == Op::IN || v.op == Op::NOT_IN) {
      const auto offsets = set_offsets(v);
      if (!f.string())
        for (std::size_t i = 0; i < offsets.size(); ++i) {
          const std::uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : value.size();
          if (end - offsets[i] != f.cell_size)
            throw error("a member of the set for \"" + v.field_name.value + "\" has " +
                        std::to_string(end - offsets[i]) + " bytes, the field's values " + std::to_string(f.cell_size));
        }
      return;
    }
    if (value.empty()) {  // a null test
      if (v.op != Op::EQ && v.op != Op::NE) throw error("null compares with == and != only");
      return;
    }
    if (!f.string() && value.size() != f.cell_size)
      throw error("the value for \"" + v.field_name.value + "\" has " + std::to_string(value.size()) +
                  " bytes, the field's values " + std::to_string(f.cell_size));
  }

  /// An IN set's member offsets: u64 each, ascending, inside the value.
  static std::vector<std::uint64_t> set_offsets(const format::ConditionValue& v) {
    const auto& raw = v.offsets->value;
    if (raw.size() % 8 != 0) throw error("the set offsets of \"" + v.field_name.value + "\" are not u64 values");
    std::vector<std::uint64_t> out(raw.size() / 8);
    codec::load_le_array(raw.data(), out.data(), out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] > v.value.value.size() || (i > 0 && out[i] < out[i - 1]))
        throw error("the set offsets of \"" + v.field_name.value + "\" are out of order or past the values");
    return out;
  }

  static void collect_names(const format::ConditionNode& n, std::vector<std::string>& out) {
    if (n.is_expression()) {
      for (const auto& c : n.expression().children.nodes) collect_names(c, out);
    } else if (n.value().op != Op::ALWAYS_TRUE && n.value().op != Op::ALWAYS_FALSE) {
      out.push_back(n.value().field_name.value);
    }
  }

  /// The cells a condition is evaluated over: `count` positions in the
  /// tile, either `first, first + 1, ...` or those of `list`.
  struct positions {
    const std::uint64_t* list = nullptr;
    std::uint64_t first = 0;
    std::size_t count = 0;
    std::uint64_t at(std::size_t k) const noexcept { return list ? list[k] : first + k; }
    /// One past the largest position (0 for no cells).
    std::uint64_t end() const noexcept {
      if (!list) return count == 0 ? 0 : first + count;
      std::uint64_t e = 0;
      for (std::size_t k = 0; k < count; ++k) e = std::max(e, list[k] + 1);
      return e;
    }
  };

  /// Whole tiles at a time: each value node compares every cell in one
  /// tight loop per field type and operator (blocks of a fixed length, which
  /// compilers vectorise even at -O2), into a byte per cell; AND, OR and NOT
  /// combine those bytes.
  void eval(const format::ConditionNode& n, const positions& cells, tile_lookup tile_of, std::uint8_t* out,
            std::vector<std::byte>& scratch) const {
    if (!n.is_expression()) return compare(n.value(), cells, tile_of, out, scratch);
    const auto& e = n.expression();
    eval(e.children.nodes.front(), cells, tile_of, out, scratch);
    if (e.combination_op == Combine::NOT) {
      for (std::size_t k = 0; k < cells.count; ++k) out[k] ^= 1;
      return;
    }
    const bool both = e.combination_op == Combine::AND;
    std::vector<std::uint8_t> next(cells.count);
    for (std::size_t c = 1; c < e.children.nodes.size(); ++c) {
      // Decided already: every cell fails an AND, or passes an OR.
      const std::uint8_t settled = both ? 0 : 1;
      if (std::all_of(out, out + cells.count, [&](std::uint8_t b) { return b == settled; })) return;
      eval(e.children.nodes[c], cells, tile_of, next.data(), scratch);
      if (both)
        for (std::size_t k = 0; k < cells.count; ++k) out[k] &= next[k];
      else
        for (std::size_t k = 0; k < cells.count; ++k) out[k] |= next[k];
    }
  }

  static void sort_unique(std::vector<std::uint64_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }

  /// out[k] = cmp(value k, rhs) over `n` values of T stored back to back at `p`.
  template <class T, class Cmp>
  static void compare_values(const std::byte* p, std::size_t n, T rhs, std::uint8_t* out, Cmp cmp) {
    // Through local arrays: `out` and `p` (byte types) may alias, which
    // would keep the compiler from vectorising the comparisons.
    constexpr std::size_t block = 64;
    std::size_t k = 0;
    for (; k + block <= n; k += block) {
      T v[block];
      std::uint8_t r[block];
      for (std::size_t j = 0; j < block; ++j) v[j] = codec::load_le<T>(p + (k + j) * sizeof(T));
      for (std::size_t j = 0; j < block; ++j) r[j] = cmp(v[j], rhs) ? 1 : 0;
      std::memcpy(out + k, r, block);
    }
    for (; k < n; ++k) out[k] = cmp(codec::load_le<T>(p + k * sizeof(T)), rhs) ? 1 : 0;
  }

  template <class T>
  static void compare_op(Op op, const std::byte* p, std::size_t n, T rhs, std::uint8_t* out) {
    switch (op) {
    case Op::LT: return compare_values(p, n, rhs, out, std::less<>{});
    case Op::LE: return compare_values(p, n, rhs, out, std::less_equal<>{});
    case Op::GT: return compare_values(p, n, rhs, out, std::greater<>{});
    case Op::GE: return compare_values(p, n, rhs, out, std::greater_equal<>{});
    case Op::EQ: return compare_values(p, n, rhs, out, std::equal_to<>{});
    case Op::NE: return compare_values(p, n, rhs, out, std::not_equal_to<>{});
    default: std::fill_n(out, n, std::uint8_t{0});
    }
  }

  /// The values of `cells` in a fixed-size tile, back to back: the tile's
  /// own bytes for a range of cells, else gathered into `scratch`.
  static const std::byte* fixed_cells(const tile_data& t, std::size_t size, const positions& cells,
                                      std::vector<std::byte>& scratch, const std::string& name) {
    if (cells.end() > t.values.size() / size)
      throw format_error("a tile of field " + name + " holds fewer cells than the condition reads", 0);
    if (!cells.list) return t.values.data() + cells.first * size;
    scratch.resize(cells.count * size);
    for (std::size_t k = 0; k < cells.count; ++k)
      std::memcpy(scratch.data() + k * size, t.values.data() + cells.list[k] * size, size);
    return scratch.data();
  }

  /// Cell `i` of a var-size tile, its offsets checked.
  static std::string_view var_text(const tile_data& t, std::uint64_t i, const std::string& name) {
    const std::uint64_t begin = t.offsets[static_cast<std::size_t>(i)];
    const std::uint64_t end = i + 1 < t.offsets.size() ? t.offsets[static_cast<std::size_t>(i) + 1] : t.values.size();
    if (begin > end || end > t.values.size())
      throw format_error("a tile of field " + name + " has a cell outside its values", 0);
    return {reinterpret_cast<const char*>(t.values.data()) + begin, static_cast<std::size_t>(end - begin)};
  }

  static std::string_view as_text(std::span<const std::byte> b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

  void compare(const format::ConditionValue& v, const positions& cells, tile_lookup tile_of, std::uint8_t* out,
               std::vector<std::byte>& scratch) const {
    const std::size_t n = cells.count;
    if (v.op == Op::ALWAYS_TRUE || v.op == Op::ALWAYS_FALSE) {
      std::fill_n(out, n, static_cast<std::uint8_t>(v.op == Op::ALWAYS_TRUE ? 1 : 0));
      return;
    }
    const std::string& name = v.field_name.value;
    const field_type& f = fields_.find(name)->second;
    const tile_data* t = tile_of(name);
    if (!t) {  // not in this fragment's schema
      std::fill_n(out, n, std::uint8_t{0});
      return;
    }
    if (f.var && cells.end() > t->offsets.size())
      throw format_error("a tile of field " + name + " holds fewer cells than the condition reads", 0);
    const bool set = v.op == Op::IN || v.op == Op::NOT_IN;
    // null_at(k): cell k is null (cells past a short validity tile are not).
    auto null_at = [&](std::size_t k) {
      const std::uint64_t i = cells.at(k);
      return f.nullable && i < t->validity.size() && t->validity[static_cast<std::size_t>(i)] == 0;
    };
    if (!set && v.value.value.empty()) {  // null test
      const std::uint8_t is_eq = v.op == Op::EQ ? 1 : 0;
      if (!f.nullable) {
        std::fill_n(out, n, static_cast<std::uint8_t>(is_eq ? 0 : 1));
        return;
      }
      for (std::size_t k = 0; k < n; ++k) out[k] = null_at(k) == (is_eq != 0) ? 1 : 0;
      return;
    }
    const std::span<const std::byte> value(v.value.value);
    std::vector<std::span<const std::byte>> members;
    if (set) {
      const auto offsets = set_offsets(v);
      for (std::size_t i = 0; i < offsets.size(); ++i)
        members.push_back(value.subspan(offsets[i], (i + 1 < offsets.size() ? offsets[i + 1] : value.size()) - offsets[i]));
    }
    const bool in = v.op == Op::IN;
    if (f.string()) {
      auto text = [&](std::size_t k) {
        if (f.var) return var_text(*t, cells.at(k), name);
        const auto i = static_cast<std::size_t>(cells.at(k));
        return std::string_view(reinterpret_cast<const char*>(t->values.data()) + i * f.cell_size, f.cell_size);
      };
      if (!f.var && cells.end() > t->values.size() / f.cell_size)
        throw format_error("a tile of field " + name + " holds fewer cells than the condition reads", 0);
      auto each = [&](auto&& test) {
        for (std::size_t k = 0; k < n; ++k) out[k] = test(text(k)) ? 1 : 0;
      };
      if (set) {
        std::vector<std::string_view> sorted;
        for (const auto& m : members) sorted.push_back(as_text(m));
        std::sort(sorted.begin(), sorted.end());
        each([&](std::string_view s) { return std::binary_search(sorted.begin(), sorted.end(), s) == in; });
      } else {
        const std::string_view rhs = as_text(value);
        switch (v.op) {
        case Op::LT: each([&](std::string_view s) { return s < rhs; }); break;
        case Op::LE: each([&](std::string_view s) { return s <= rhs; }); break;
        case Op::GT: each([&](std::string_view s) { return s > rhs; }); break;
        case Op::GE: each([&](std::string_view s) { return s >= rhs; }); break;
        case Op::EQ: each([&](std::string_view s) { return s == rhs; }); break;
        case Op::NE: each([&](std::string_view s) { return s != rhs; }); break;
        default: std::fill_n(out, n, std::uint8_t{0});
        }
      }
    } else {
      const bool typed = format::visit_datatype(f.type, [&]<class T>() {
        if constexpr (std::is_arithmetic_v<T>) {
          const std::byte* p = fixed_cells(*t, sizeof(T), cells, scratch, name);
          if (!set) return compare_op<T>(v.op, p, n, codec::load_le<T>(value.data()), out);
          // Members and cells as order keys, so that sorting the members is
          // compiled once, not once per type; a float zero as +0.0 (-0.0 ==
          // 0.0). A NaN member equals no cell, nor a NaN cell any member.
          auto number = [](T x) {
            if constexpr (std::is_floating_point_v<T>) return !std::isnan(x);
            else return (void)x, true;
          };
          auto key = [](T x) {
            if constexpr (std::is_floating_point_v<T>)
              if (x == T{0}) x = T{0};
            return order_key(x);
          };
          std::vector<std::uint64_t> sorted;
          for (const auto& m : members) {
            const T x = codec::load_le<T>(m.data());
            if (number(x)) sorted.push_back(key(x));
          }
          sort_unique(sorted);
          for (std::size_t k = 0; k < n; ++k) {
            const T x = codec::load_le<T>(p + k * sizeof(T));
            out[k] = (number(x) && std::binary_search(sorted.begin(), sorted.end(), key(x))) == in ? 1 : 0;
          }
        } else {
          throw error("field \"" + name + "\" has values conditions cannot compare");
        }
      });
      if (!typed) throw error("field \"" + name + "\" has values conditions cannot compare");
    }
    // A null cell fails every comparison, IN and NOT_IN included.
    if (!f.nullable) return;
    if (!cells.list && cells.first + n <= t->validity.size()) {
      const std::uint8_t* valid = t->validity.data() + cells.first;
      for (std::size_t k = 0; k < n; ++k) out[k] &= valid[k] != 0 ? 1 : 0;
      return;
    }
    for (std::size_t k = 0; k < n; ++k)
      if (null_at(k)) out[k] = 0;
  }

  format::ConditionNode root_;
  std::map<std::string, field_type, std::less<>> fields_;
};

/// The enumeration's values, as bytes (format::Enumeration: fixed-size
/// values back to back, or var-size ones with offsets).
inline std::vector<std::span<const std::byte>> enumeration_values(const format::Enumeration& e) {
  const std::span<const std::byte> data(e.data.value);
  std::vector<std::span<const std::byte>> out;
  if (e.is_var()) {
    const auto off = e.offset_values();
    for (std::size_t i = 0; i < off.size(); ++i) {
      const std::uint64_t end = i + 1 < off.size() ? off[i + 1] : data.size();
      if (off[i] > end || end > data.size())
        throw format_error("enumeration " + e.name.value + ": value " + std::to_string(i) + " lies outside its data", 0);
      out.push_back(data.subspan(static_cast<std::size_t>(off[i]), static_cast<std::size_t>(end - off[i])));
    }
    return out;
  }
  const std::size_t size = format::datatype_size(e.type) * e.cell_val_num;
  if (size == 0) throw format_error("enumeration " + e.name.value + ": values of no bytes", 0);
  for (std::size_t at = 0; at + size <= data.size(); at += size) out.push_back(data.subspan(at, size));
  return out;
}

/// `root` with the values of its label tests (labels[k] for the k-th value
/// node, depth first) turned into tests of the labels' indices, as TileDB
/// rewrites them (ASTNodeVal::rewrite_for_schema): a label the enumeration
/// lacks makes == always false and != always true and drops out of IN and
/// NOT IN; <, <=, > and >= need an ordered enumeration. Value nodes on
/// fields without an enumeration, and null tests, stay as they are.
/// `enumeration_of(name)` reads an enumeration.
template <class EnumerationOf>
format::ConditionNode resolve_labels(format::ConditionNode root, const std::vector<bool>& labels,
                                     const format::ArraySchema& schema, EnumerationOf&& enumeration_of) {
  using Op = format::QueryConditionOp;
  std::size_t leaf = 0;
  std::map<std::string, format::Enumeration, std::less<>> read;
  auto visit = [&](auto&& self, format::ConditionNode& n) -> void {
    if (n.is_expression()) {
      for (auto& c : n.expression().children.nodes) self(self, c);
      return;
    }
    const bool label = leaf < labels.size() && labels[leaf];
    ++leaf;
    auto& v = n.value();
    const bool set = v.op == Op::IN || v.op == Op::NOT_IN;
    if (!label || (!set && v.value.value.empty()) || v.op == Op::ALWAYS_TRUE || v.op == Op::ALWAYS_FALSE) return;
    const auto* attr = schema.attribute(v.field_name.value);
    if (!attr || attr->enumeration_name.value.value.empty()) return;
    const std::string& name = attr->enumeration_name.value.value;
    auto it = read.find(name);
    if (it == read.end()) it = read.emplace(name, enumeration_of(name)).first;
    const auto& e = it->second;
    if (!e.ordered && (v.op == Op::LT || v.op == Op::LE || v.op == Op::GT || v.op == Op::GE))
      throw std::invalid_argument("tilefmt: query condition: \"" + v.field_name.value + "\" is compared by label with <, <=, > or >=, "
                                  "and its enumeration \"" + name + "\" is not ordered");
    const auto values = enumeration_values(e);
    auto index_of = [&](std::span<const std::byte> label_bytes) -> std::optional<std::uint64_t> {
      for (std::size_t i = 0; i < values.size(); ++i)
        if (std::equal(values[i].begin(), values[i].end(), label_bytes.begin(), label_bytes.end())) return i;
      return std::nullopt;
    };
    // An index as the attribute's integer type stores it.
    auto index_bytes = [&](std::uint64_t i) {
      std::vector<std::byte> out;
      const bool integral = format::visit_integer_type(attr->type, [&]<class T>() {
        if (!std::in_range<T>(i))
          throw std::invalid_argument("tilefmt: query condition: the index of a label of \"" + v.field_name.value +
                                      "\" does not fit its type");
        out.resize(sizeof(T));
        codec::store_le<T>(out.data(), static_cast<T>(i));
      });
      if (!integral)
        throw std::invalid_argument("tilefmt: query condition: \"" + v.field_name.value +
                                    "\" has an enumeration but no integer type");
      return out;
    };
    if (!set) {
      const auto i = index_of(v.value.value);
      if (!i) {
        v.op = v.op == Op::NE ? Op::ALWAYS_TRUE : Op::ALWAYS_FALSE;
        v.value.value = index_bytes(0);
      } else {
        v.value.value = index_bytes(*i);
      }
      return;
    }
    const auto& raw = v.offsets->value;
    std::vector<std::uint64_t> offsets(raw.size() / 8);
    codec::load_le_array(raw.data(), offsets.data(), offsets.size());
    std::vector<std::byte> members, member_offsets;
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      const std::uint64_t end = k + 1 < offsets.size() ? offsets[k + 1] : v.value.value.size();
      if (offsets[k] > end || end > v.value.value.size())
        throw std::invalid_argument("tilefmt: query condition: the set offsets of \"" + v.field_name.value +
                                    "\" are out of order or past the values");
      const auto i = index_of(std::span<const std::byte>(v.value.value).subspan(static_cast<std::size_t>(offsets[k]),
                                                                              static_cast<std::size_t>(end - offsets[k])));
      if (!i) continue;
      const auto b = index_bytes(*i);
      member_offsets.resize(member_offsets.size() + 8);
      codec::store_le<std::uint64_t>(member_offsets.data() + member_offsets.size() - 8, members.size());
      members.insert(members.end(), b.begin(), b.end());
    }
    v.value.value = std::move(members);
    v.offsets->value = std::move(member_offsets);
  };
  visit(visit, root);
  return root;
}

} // namespace tilefmt::array::detail
