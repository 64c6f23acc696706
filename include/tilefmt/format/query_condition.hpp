// tilefmt — the serialized query condition of delete commits and update
// commits: format_spec/delete_commit_file.md, update_commit_file.md. A
// `__commits/<timestamped_name>.del` file is a generic tile whose payload is
// one ConditionNode, the root of a tree; a `.upd` file's payload is an
// UpdateCommit, the same tree followed by the values.
//
// Where the code and the spec differ (tiledb/sm/query/deletes_and_updates/
// serialization.cc): IN and NOT_IN value nodes carry the offsets of their
// set's members after the value (u64 size, then that many bytes of u64
// offsets); the ops also include ALWAYS_TRUE and ALWAYS_FALSE.
//
// The tree nests: a decoder refuses more than max_condition_depth levels, so
// that a hostile file cannot exhaust the stack (TileDB's conditions are as
// deep as the expressions users write).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tilefmt/codec/codec.hpp"

namespace tilefmt::format {

/// "Node type".
enum class ConditionNodeType : std::uint8_t { EXPRESSION = 0, VALUE = 1 };
constexpr bool codec_enum_valid(ConditionNodeType t) { return static_cast<std::uint8_t>(t) <= 1; }
constexpr std::string_view codec_enum_name(ConditionNodeType t) {
  constexpr std::string_view names[] = {"EXPRESSION", "VALUE"};
  return codec_enum_valid(t) ? names[static_cast<std::uint8_t>(t)] : "INVALID";
}

/// "Op" of a value node (tiledb_query_condition_op_t).
enum class QueryConditionOp : std::uint8_t {
  LT = 0,
  LE = 1,
  GT = 2,
  GE = 3,
  EQ = 4,
  NE = 5,
  IN = 6,
  NOT_IN = 7,
  ALWAYS_TRUE = 253,
  ALWAYS_FALSE = 254,
};
constexpr bool codec_enum_valid(QueryConditionOp o) {
  const auto v = static_cast<std::uint8_t>(o);
  return v <= 7 || v == 253 || v == 254;
}
constexpr std::string_view codec_enum_name(QueryConditionOp o) {
  constexpr std::string_view names[] = {"LT", "LE", "GT", "GE", "EQ", "NE", "IN", "NOT_IN"};
  const auto v = static_cast<std::uint8_t>(o);
  if (v <= 7) return names[v];
  return o == QueryConditionOp::ALWAYS_TRUE ? "ALWAYS_TRUE" : o == QueryConditionOp::ALWAYS_FALSE ? "ALWAYS_FALSE" : "INVALID";
}

/// "Combination op" of an expression node.
enum class QueryConditionCombinationOp : std::uint8_t { AND = 0, OR = 1, NOT = 2 };
constexpr bool codec_enum_valid(QueryConditionCombinationOp o) { return static_cast<std::uint8_t>(o) <= 2; }
constexpr std::string_view codec_enum_name(QueryConditionCombinationOp o) {
  constexpr std::string_view names[] = {"AND", "OR", "NOT"};
  return codec_enum_valid(o) ? names[static_cast<std::uint8_t>(o)] : "INVALID";
}

/// Whether a value node carries set offsets (IN, NOT_IN).
struct is_set_op {
  template <class Parent>
  bool operator()(const Parent& p) const {
    return p.op == QueryConditionOp::IN || p.op == QueryConditionOp::NOT_IN;
  }
};

/// "Value nodes" (after the node type): a comparison of a field with a
/// value, as the field's bytes (an empty value compares with null). IN and
/// NOT_IN: the members back to back in `value`, each starting at its offset.
struct ConditionValue {
  QueryConditionOp op = QueryConditionOp::EQ;
  codec::counted<std::uint32_t, std::string> field_name;
  codec::counted<std::uint64_t, std::vector<std::byte>> value;
  codec::when<is_set_op, codec::counted<std::uint64_t, std::vector<std::byte>>> offsets;
  friend bool operator==(const ConditionValue&, const ConditionValue&) = default;
};

struct ConditionNode;

/// The children of an expression node: "Num children" (u64), then the
/// nodes. Its own codec (below), because the type nests itself, which the
/// codec's compile-time walk of a record's types cannot follow; it also
/// bounds the depth.
class ConditionChildren {
public:
  ConditionChildren() = default;
  std::vector<ConditionNode> nodes;
  friend bool operator==(const ConditionChildren&, const ConditionChildren&);
};

/// "Expression nodes" (after the node type): children combined by AND, OR
/// or NOT (one child).
struct ConditionExpression {
  QueryConditionCombinationOp combination_op = QueryConditionCombinationOp::AND;
  ConditionChildren children;
  friend bool operator==(const ConditionExpression&, const ConditionExpression&) = default;
};

/// One node of the tree: its type, then the node the type selects. The type
/// is written from the node held (a default node holds a value node), so
/// the two cannot disagree; read it with is_expression().
struct ConditionNode {
  codec::derived<ConditionNodeType> node_type;
  codec::switch_on<"node_type", codec::alt<ConditionNodeType::VALUE, ConditionValue>,
                   codec::alt<ConditionNodeType::EXPRESSION, ConditionExpression>>
      node;

  bool is_expression() const noexcept { return std::holds_alternative<ConditionExpression>(node.value); }
  /// The node held (std::bad_variant_access when it is the other kind).
  ConditionValue& value() { return std::get<ConditionValue>(node.value); }
  const ConditionValue& value() const { return std::get<ConditionValue>(node.value); }
  ConditionExpression& expression() { return std::get<ConditionExpression>(node.value); }
  const ConditionExpression& expression() const { return std::get<ConditionExpression>(node.value); }
  friend bool operator==(const ConditionNode&, const ConditionNode&) = default;
};

inline bool operator==(const ConditionChildren& a, const ConditionChildren& b) { return a.nodes == b.nodes; }

/// One of the "update values" of an update commit
/// (format_spec/update_commit_file.md): a field and the bytes its cells are
/// to take.
struct UpdateValue {
  codec::counted<std::uint64_t, std::string> field_name;
  codec::counted<std::uint64_t, std::vector<std::byte>> value;
  friend bool operator==(const UpdateValue&, const UpdateValue&) = default;
};

/// The payload of an update commit (`__commits/<timestamped_name>.upd`):
/// the condition, negated as a delete commit's is, then "Number of values"
/// (u64) and the values.
struct UpdateCommit {
  ConditionNode condition;
  codec::counted<std::uint64_t, std::vector<UpdateValue>> values;
  friend bool operator==(const UpdateCommit&, const UpdateCommit&) = default;
};

/// The deepest tree a decoder accepts.
inline constexpr std::uint32_t max_condition_depth = 64;

} // namespace tilefmt::format

namespace tilefmt::codec {

template <>
struct traits<format::ConditionChildren> {
  static constexpr std::size_t min_size = sizeof(std::uint64_t);

  template <class S>
  static void decode(reader& r, format::ConditionChildren& v, S& st) {
    thread_local std::uint32_t depth = 0;
    if (depth >= format::max_condition_depth)
      r.fail("a query condition nested more than " + std::to_string(format::max_condition_depth) + " levels deep");
    const std::uint64_t n = r.read<std::uint64_t>();
    // A node takes at least its type byte: no more nodes than bytes left.
    if (n > r.remaining()) r.fail("num children " + std::to_string(n) + " exceeds the " +
                                  std::to_string(r.remaining()) + " bytes left");
    ++depth;
    struct leave {
      ~leave() { --depth; }
    } on_exit;
    v.nodes.clear();
    v.nodes.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
      try {
        traits<format::ConditionNode>::decode(r, v.nodes.emplace_back(), st);
      } catch (format_error& e) {
        e.prepend_field("nodes[" + std::to_string(i) + "]");
        throw;
      }
    }
  }
  template <class S>
  static void encode(writer& w, const format::ConditionChildren& v, S& st) {
    w.write<std::uint64_t>(v.nodes.size());
    for (const auto& c : v.nodes) traits<format::ConditionNode>::encode(w, c, st);
  }
  template <class S>
  static std::size_t size(const format::ConditionChildren& v, S& st) {
    std::size_t n = sizeof(std::uint64_t);
    for (const auto& c : v.nodes) n += traits<format::ConditionNode>::size(c, st);
    return n;
  }
};

} // namespace tilefmt::codec
