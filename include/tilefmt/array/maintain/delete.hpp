// tilefmt — deleting cells (format_spec/delete_commit_file.md): a delete
// commit `__commits/<name>.del`, which hides the cells of fragments written
// before it that satisfy the condition, from readers opened at or after its
// timestamp. Nothing is rewritten: consolidation applies deletes to cells.
//
//   using tilefmt::array::field;
//   array::delete_cells("path/to/sparse", field("t") < 100 && field("kind") == "probe");
//
// Part of maintenance (array/maintain.hpp).
#pragma once

#include <stdexcept>
#include <string>

#include "tilefmt/array/model/condition.hpp"
#include "tilefmt/array/read/condition_eval.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/write/new_files.hpp"

namespace tilefmt::array {

namespace detail {

/// The negation TileDB stores (ASTNode::get_negated_tree): every comparison
/// flipped (< and >=, > and <=, == and !=, IN and NOT IN), AND and OR
/// swapped. TileDB cannot negate NOT or a rewritten test (always
/// true/false), and refuses such deletes; so does this.
inline format::ConditionNode negated(format::ConditionNode n) {
  using Op = format::QueryConditionOp;
  using Combine = format::QueryConditionCombinationOp;
  if (n.is_expression()) {
    auto& e = n.expression();
    if (e.combination_op == Combine::NOT)
      throw std::invalid_argument("tilefmt: delete_cells: TileDB cannot store a delete condition with NOT");
    e.combination_op = e.combination_op == Combine::AND ? Combine::OR : Combine::AND;
    for (auto& c : e.children.nodes) c = negated(std::move(c));
    return n;
  }
  auto& op = n.value().op;
  switch (op) {
  case Op::LT: op = Op::GE; break;
  case Op::GE: op = Op::LT; break;
  case Op::GT: op = Op::LE; break;
  case Op::LE: op = Op::GT; break;
  case Op::EQ: op = Op::NE; break;
  case Op::NE: op = Op::EQ; break;
  case Op::IN: op = Op::NOT_IN; break;
  case Op::NOT_IN: op = Op::IN; break;
  default: throw std::invalid_argument("tilefmt: delete_cells: a condition that is always true or false cannot be stored");
  }
  return n;
}

} // namespace detail

/// Deletes the cells of the sparse array at `root` that satisfy `c`, as of
/// the commit's timestamp (`opt.timestamp`, or now): writes the delete
/// commit TileDB writes for the same condition (the negated condition,
/// serialized, in a generic tile of the array's format version). Returns the
/// commit's name. Throws std::invalid_argument for a condition on an
/// attribute with an enumeration (not written yet), for a dense
/// array (TileDB deletes from sparse arrays only), an array before format 16
/// (libtiledb 2.12, the first to read deletes), a condition the schema does
/// not fit, and a timestamp inside a fragment consolidated without per-cell
/// timestamps (as TileDB).
inline std::string delete_cells(const fs::path& root, const condition& c, const write_options& opt = {}) {
  auto st = detail::or_local(opt.storage);
  const listing l = list_array(*st, root);
  if (l.latest_schema.empty()) throw io_error(root, "has no schema file");
  const format::ArraySchema schema = detail::read_schema_for_writing(*st, l.latest_schema, opt.encryption_key);
  const std::uint32_t version = schema.version.value;
  if (!schema.is_sparse()) throw std::invalid_argument("tilefmt: delete_cells: TileDB deletes cells of sparse arrays only");
  if (version < 16 || version > format::written_version)
    throw std::invalid_argument("tilefmt: delete_cells: delete commits need format version 16 to " +
                                std::to_string(format::written_version) + "; the array is version " +
                                std::to_string(version));
  // Conditions on attributes with an enumeration are stored by label, and
  // checking labels needs the enumerations: not written yet.
  auto refuse_enumerations = [&](auto&& self, const format::ConditionNode& n) -> void {
    if (n.is_expression()) {
      for (const auto& child : n.expression().children.nodes) self(self, child);
      return;
    }
    const auto* a = schema.attribute(n.value().field_name.value);
    if (a && !a->enumeration_name.value.value.empty())
      throw std::invalid_argument("tilefmt: delete_cells: \"" + a->name.value +
                                  "\" has an enumeration; deletes by such attributes are not written yet");
  };
  refuse_enumerations(refuse_enumerations, c.node());
  (void)detail::condition_eval(c.node(), schema);  // fields that exist, values of their sizes

  auto [t, label] = detail::name_parts(opt);
  for (const auto& f : l.fragments)
    if (f.name.implied_format_version() < 15 && t >= f.name.t1 && t <= f.name.t2)
      throw std::invalid_argument("tilefmt: delete_cells: the timestamp " + std::to_string(t) +
                                  " falls inside a fragment consolidated without timestamps: " + f.path.filename().string());
  const std::string name = format::make_timestamped_name(t, t, label, version) + ".del";
  const auto bytes = filter::write_generic_tile(codec::encode(detail::negated(c.node())), version, opt.encryption_key);
  st->make_folder(root / "__commits");
  st->write(root / "__commits" / name, bytes);
  return name;
}

} // namespace tilefmt::array
