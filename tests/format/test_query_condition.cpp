// The delete conditions of delete commits (format/query_condition.hpp): the
// two TileDB 2.30 wrote for tests/data/time_travel/sparse_deletes (stored
// negated: the cells to keep), a tree of every node kind, set offsets, and
// damaged bytes; update commits (the one TileDB wrote is decoded in
// tests/array/maintain/test_delete.cpp).
#include "tilefmt/format/query_condition.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "../support/testing.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/filter/generic_tile.hpp"

namespace test_query_condition {

using namespace tilefmt;
namespace fs = std::filesystem;
using O = format::QueryConditionOp;

namespace {
std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int x : v) out.push_back(static_cast<std::byte>(x));
  return out;
}

format::ConditionNode value_node(O op, std::string field, std::vector<std::byte> value) {
  format::ConditionNode n;
  n.node.value = format::ConditionValue{};
  n.value().op = op;
  n.value().field_name.value = std::move(field);
  n.value().value.value = std::move(value);
  return n;
}
} // namespace

TEST_CASE("delete commits TileDB wrote: the negated conditions") {
  const fs::path commits = fs::path(TILEFMT_TEST_DATA) / "time_travel" / "sparse_deletes" / "array" / "__commits";
  std::vector<format::ConditionNode> got;
  for (const auto& e : fs::directory_iterator(commits))
    if (e.path().extension() == ".del") {
      std::ifstream in(e.path(), std::ios::binary);
      std::vector<char> raw((std::istreambuf_iterator<char>(in)), {});
      std::vector<std::byte> file(raw.size());
      std::memcpy(file.data(), raw.data(), raw.size());
      got.push_back(codec::decode<format::ConditionNode>(filter::read_generic_tile(file).payload));
    }
  REQUIRE(got.size() == 2);
  std::sort(got.begin(), got.end(), [](const auto& a, const auto& b) { return a.value().field_name.value < b.value().field_name.value; });
  // delete a < 0: kept a >= 0 (int64); delete s == 'beta': kept s != 'beta'.
  CHECK(got[0] == value_node(O::GE, "a", bytes_of({0, 0, 0, 0, 0, 0, 0, 0})));
  CHECK(got[1] == value_node(O::NE, "s", bytes_of({'b', 'e', 't', 'a'})));
}

TEST_CASE("condition trees: every node kind round-trips, byte for byte") {
  auto in = value_node(O::IN, "x", bytes_of({1, 0, 2, 0}));
  in.value().offsets->value = bytes_of({0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0});
  format::ConditionNode root;
  root.node.value = format::ConditionExpression{};
  root.expression().combination_op = format::QueryConditionCombinationOp::OR;
  format::ConditionNode no;
  no.node.value = format::ConditionExpression{};
  no.expression().combination_op = format::QueryConditionCombinationOp::NOT;
  no.expression().children.nodes.push_back(value_node(O::EQ, "n", {}));
  root.expression().children.nodes = {in, no};
  const auto bytes = codec::encode(root);
  // OR (1 + 1 + 8) | IN node (1 + 1 + 4 + 1 + 8 + 4 + 8 + 16) | NOT (1 + 1 + 8) | EQ null (1 + 1 + 4 + 1 + 8)
  CHECK(bytes.size() == 10 + 43 + 10 + 15);
  const auto expected = bytes_of({0, 1, 2, 0, 0, 0, 0, 0, 0, 0,                     // expression, OR, 2 children
                                  1, 6, 1, 0, 0, 0, 'x', 4, 0, 0, 0, 0, 0, 0, 0,  // value, IN, "x", 4 bytes
                                  1, 0, 2, 0,                                      // the members
                                  16, 0, 0, 0, 0, 0, 0, 0,                         // 16 bytes of offsets
                                  0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,  // 0, 2
                                  0, 2, 1, 0, 0, 0, 0, 0, 0, 0,                    // expression, NOT, 1 child
                                  1, 4, 1, 0, 0, 0, 'n', 0, 0, 0, 0, 0, 0, 0, 0}); // value, EQ, "n", null
  CHECK(bytes == expected);
  CHECK(codec::decode<format::ConditionNode>(bytes) == root);
}

TEST_CASE("damaged conditions: clear errors, no unbounded recursion or allocation") {
  // An unknown op.
  auto bad_op = bytes_of({1, 9, 1, 0, 0, 0, 'x', 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK_THROWS_AS(codec::decode<format::ConditionNode>(bad_op), format_error);
  // An unknown node type and combination op.
  CHECK_THROWS_AS(codec::decode<format::ConditionNode>(bytes_of({2})), format_error);
  CHECK_THROWS_AS(codec::decode<format::ConditionNode>(bytes_of({0, 3, 0, 0, 0, 0, 0, 0, 0, 0})), format_error);
  // 2^60 children claimed by ten bytes.
  CHECK_THROWS_AS(codec::decode<format::ConditionNode>(bytes_of({0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10})), format_error);
  // NOT(NOT(NOT(...))) a hundred thousand levels deep.
  std::vector<std::byte> deep;
  for (int i = 0; i < 100000; ++i) {
    const auto level = bytes_of({0, 2, 1, 0, 0, 0, 0, 0, 0, 0});
    deep.insert(deep.end(), level.begin(), level.end());
  }
  try {
    (void)codec::decode<format::ConditionNode>(deep);
    FAIL("no error");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()).find("nested more than 64 levels deep") != std::string::npos);
  }
  // Every truncation of a good tree fails cleanly.
  auto root = value_node(O::LT, "a", bytes_of({1, 2, 3, 4}));
  const auto good = codec::encode(root);
  for (std::size_t n = 0; n < good.size(); ++n)
    CHECK_THROWS_AS(codec::decode<format::ConditionNode>(std::span<const std::byte>(good).first(n)), format_error);
}

TEST_CASE("update commits: the condition, then the values; damaged ones fail cleanly") {
  format::UpdateCommit u;
  u.condition = value_node(O::GE, "a", bytes_of({0, 0, 0, 0, 0, 0, 0, 0}));
  u.values.value.push_back({{"a"}, {bytes_of({7, 0, 0, 0, 0, 0, 0, 0})}});
  u.values.value.push_back({{"label"}, {bytes_of({'n', 'e', 'w'})}});
  const auto bytes = codec::encode(u);
  // The condition as a delete commit stores it, then the spec's table.
  auto expect = codec::encode(u.condition);
  const auto tail = bytes_of({2, 0, 0, 0, 0, 0, 0, 0,                    // number of values
                              1, 0, 0, 0, 0, 0, 0, 0, 'a',               // field name size, name
                              8, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0,  // value size, value
                              5, 0, 0, 0, 0, 0, 0, 0, 'l', 'a', 'b', 'e', 'l',
                              3, 0, 0, 0, 0, 0, 0, 0, 'n', 'e', 'w'});
  expect.insert(expect.end(), tail.begin(), tail.end());
  CHECK(bytes == expect);
  CHECK(codec::decode<format::UpdateCommit>(bytes) == u);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_THROWS_AS(codec::decode<format::UpdateCommit>(std::span<const std::byte>(bytes).first(n)), format_error);
  // 2^60 values claimed by the last eight bytes.
  auto many = codec::encode(u.condition);
  const auto count = bytes_of({0, 0, 0, 0, 0, 0, 0, 0x10});
  many.insert(many.end(), count.begin(), count.end());
  CHECK_THROWS_AS(codec::decode<format::UpdateCommit>(many), format_error);
}

} // namespace test_query_condition
