// tilefmt — query conditions, written as C++ expressions:
//
//   using tilefmt::array::field;
//   auto c = field("a") > 5 && (field("s") == "x" || field("n").is_null());
//   auto r = arr.query().where(c).read();
//
// A condition holds the same tree a delete commit stores
// (format/query_condition.hpp); the query checks it against the schema
// (fields that exist, values of the field's type) when it runs. Values are
// compared as the field's type, so give them in it: field("f32") < 1.5f,
// field("u8") == std::uint8_t{3}; strings compare byte by byte.
//
// An attribute with an enumeration compares by label when given strings,
// as TileDB-Py's conditions do: field("color") == "red" becomes the test
// of red's index (a label the enumeration lacks: == holds for no cell, !=
// for every cell; IN drops it); given numbers, it compares the indices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/query_condition.hpp"

namespace tilefmt::array {

class condition {
public:
  /// A condition from its stored form (a delete commit's, say); with
  /// `labels`, every value that tests an attribute with an enumeration
  /// names labels (TileDB's "use enumeration").
  explicit condition(format::ConditionNode node, bool labels = false)
      : node_(std::move(node)), labels_(leaf_count(node_), labels) {}

  const format::ConditionNode& node() const noexcept { return node_; }
  /// Per value node, in depth-first order: whether its value names
  /// enumeration labels (see above).
  const std::vector<bool>& labels() const noexcept { return labels_; }

  friend condition operator&&(condition a, condition b) { return combine(format::QueryConditionCombinationOp::AND, std::move(a), std::move(b)); }
  friend condition operator||(condition a, condition b) { return combine(format::QueryConditionCombinationOp::OR, std::move(a), std::move(b)); }
  friend condition operator!(condition a) {
    format::ConditionNode n;
    n.node.value = format::ConditionExpression{};
    n.expression().combination_op = format::QueryConditionCombinationOp::NOT;
    n.expression().children.nodes.push_back(std::move(a.node_));
    return condition(std::move(n), std::move(a.labels_));
  }

private:
  friend class field;
  condition(format::ConditionNode node, std::vector<bool> labels) : node_(std::move(node)), labels_(std::move(labels)) {}

  static std::size_t leaf_count(const format::ConditionNode& n) {
    if (!n.is_expression()) return 1;
    std::size_t k = 0;
    for (const auto& c : n.expression().children.nodes) k += leaf_count(c);
    return k;
  }

  static condition combine(format::QueryConditionCombinationOp op, condition a, condition b) {
    format::ConditionNode n;
    n.node.value = format::ConditionExpression{};
    n.expression().combination_op = op;
    // a && b && c: one node of three operands, as TileDB builds it. The
    // value nodes keep their depth-first order, and with it their labels.
    std::vector<bool> labels = std::move(a.labels_);
    labels.insert(labels.end(), b.labels_.begin(), b.labels_.end());
    for (auto* c : {&a, &b}) {
      auto& x = c->node_;
      if (x.is_expression() && x.expression().combination_op == op)
        for (auto& child : x.expression().children.nodes) n.expression().children.nodes.push_back(std::move(child));
      else
        n.expression().children.nodes.push_back(std::move(x));
    }
    return condition(std::move(n), std::move(labels));
  }

  format::ConditionNode node_;
  std::vector<bool> labels_;
};

/// A field (attribute or dimension) in a condition.
class field {
public:
  explicit field(std::string name) : name_(std::move(name)) {}

  template <class T> condition operator<(const T& v) const { return compare(format::QueryConditionOp::LT, v); }
  template <class T> condition operator<=(const T& v) const { return compare(format::QueryConditionOp::LE, v); }
  template <class T> condition operator>(const T& v) const { return compare(format::QueryConditionOp::GT, v); }
  template <class T> condition operator>=(const T& v) const { return compare(format::QueryConditionOp::GE, v); }
  template <class T> condition operator==(const T& v) const { return compare(format::QueryConditionOp::EQ, v); }
  template <class T> condition operator!=(const T& v) const { return compare(format::QueryConditionOp::NE, v); }

  condition is_null() const { return node(format::QueryConditionOp::EQ, {}); }
  condition not_null() const { return node(format::QueryConditionOp::NE, {}); }

  /// The field's value is one of `values` (IN), or none of them (NOT IN).
  template <class T>
  condition in(const std::vector<T>& values) const {
    return set(format::QueryConditionOp::IN, values);
  }
  template <class T>
  condition not_in(const std::vector<T>& values) const {
    return set(format::QueryConditionOp::NOT_IN, values);
  }

private:
  /// A value's bytes as stored: little-endian numbers, a string's bytes.
  template <class T>
  static std::vector<std::byte> bytes(const T& v) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      std::vector<std::byte> b(sizeof(T));
      codec::store_le<T>(b.data(), v);
      return b;
    } else {
      const std::string_view s(v);
      const auto* p = reinterpret_cast<const std::byte*>(s.data());
      return {p, p + s.size()};
    }
  }

  /// Strings name labels (for attributes with an enumeration).
  template <class T>
  static constexpr bool is_text = !(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);

  template <class T>
  condition compare(format::QueryConditionOp op, const T& v) const {
    return node(op, bytes(v), is_text<T>);
  }

  template <class T>
  condition set(format::QueryConditionOp op, const std::vector<T>& values) const {
    format::ConditionNode n;
    n.node.value = format::ConditionValue{};
    n.value().op = op;
    n.value().field_name.value = name_;
    std::vector<std::uint64_t> offsets;
    for (const auto& v : values) {
      offsets.push_back(n.value().value.value.size());
      const auto b = bytes(v);
      n.value().value.value.insert(n.value().value.value.end(), b.begin(), b.end());
    }
    n.value().offsets->value.resize(offsets.size() * 8);
    for (std::size_t i = 0; i < offsets.size(); ++i) codec::store_le<std::uint64_t>(n.value().offsets->value.data() + 8 * i, offsets[i]);
    return condition(std::move(n), std::vector<bool>{is_text<T>});
  }

  condition node(format::QueryConditionOp op, std::vector<std::byte> value, bool label = false) const {
    format::ConditionNode n;
    n.node.value = format::ConditionValue{};
    n.value().op = op;
    n.value().field_name.value = name_;
    n.value().value.value = std::move(value);
    return condition(std::move(n), std::vector<bool>{label});
  }

  std::string name_;
};

} // namespace tilefmt::array
