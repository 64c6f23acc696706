// tilefmt — what the fuzz harnesses share: reading an input field by field,
// the exceptions that count as a refusal, the FragmentContext a few input
// bytes describe, and the packed form of a whole array.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "fuzz.hpp"
#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/storage/backend.hpp"

namespace tilefmt::fuzz {

/// The most one file, tile or decompressed part may claim in the harnesses
/// (open_options::max_allocation, generic_tile_options::max_tile_size).
inline constexpr std::uint64_t max_allocation = std::uint64_t{64} << 20;

/// Runs `f`; the library's refusals of bad input end it quietly, anything
/// else escapes to libFuzzer. std::overflow_error is SUM's answer to values
/// whose sum does not fit (array/read/aggregate.hpp, as TileDB's).
template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const format_error&) {
  } catch (const storage::io_error&) {
  } catch (const std::invalid_argument&) {
  } catch (const std::overflow_error&) {
  }
}

/// Reads an input front to back; past its end every read gives zeros.
class cursor {
public:
  explicit cursor(input in) : in_(in) {}

  std::uint8_t byte() { return at_ < in_.size() ? in_[at_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{byte()} << (8 * i);
    return v;
  }
  /// The next `n` bytes, or as many as are left.
  std::span<const std::byte> take(std::size_t n) {
    n = std::min(n, in_.size() - at_);
    auto out = std::as_bytes(in_.subspan(at_, n));
    at_ += n;
    return out;
  }
  std::span<const std::byte> rest() { return take(in_.size() - at_); }
  bool empty() const noexcept { return at_ >= in_.size(); }

private:
  input in_;
  std::size_t at_ = 0;
};

inline std::span<const std::byte> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
inline std::string_view text_of(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

/// A datatype from one byte (any byte names a valid type).
inline format::Datatype datatype_from(std::uint8_t b) {
  return static_cast<format::Datatype>(b % format::detail::datatypes.size());
}

// ---- FragmentContext from input bytes -------------------------------------
//
//   u8 version | u8 shape | u8 dimension x (1 + shape & 3)
//
// shape: bits 0-1 dimensions - 1, bits 2-4 attributes, bit 5 timestamps,
// bit 6 delete metadata. Each dimension byte: bits 0-6 the datatype (modulo
// the number of types), bit 7 var-size.

inline format::FragmentContext read_context(cursor& c) {
  format::FragmentContext ctx;
  ctx.version = c.byte();
  const std::uint8_t shape = c.byte();
  const std::size_t dims = 1 + (shape & 3u);
  ctx.num_attributes = (shape >> 2) & 7u;
  ctx.has_timestamps = (shape & 0x20u) != 0;
  ctx.has_delete_meta = (shape & 0x40u) != 0;
  for (std::size_t d = 0; d < dims; ++d) {
    const std::uint8_t b = c.byte();
    ctx.dims.push_back({datatype_from(b & 0x7fu), (b & 0x80u) != 0});
  }
  return ctx;
}

/// The bytes read_context reads back as `ctx`; false when `ctx` has more
/// dimensions or attributes than they can say.
inline bool write_context(const format::FragmentContext& ctx, std::vector<std::byte>& out) {
  if (ctx.dims.empty() || ctx.dims.size() > 4 || ctx.num_attributes > 7 || ctx.version > 255) return false;
  auto put = [&](unsigned v) { out.push_back(static_cast<std::byte>(v)); };
  put(ctx.version);
  put(static_cast<unsigned>(ctx.dims.size() - 1) | static_cast<unsigned>(ctx.num_attributes << 2) |
      (ctx.has_timestamps ? 0x20u : 0u) | (ctx.has_delete_meta ? 0x40u : 0u));
  for (const auto& d : ctx.dims) put(static_cast<unsigned>(d.type) | (d.var_size ? 0x80u : 0u));
  return true;
}

// ---- A whole array as one input -------------------------------------------
//
// A list of entries to the end of the input, each
//
//   u16 path length | path | u32 size | bytes
//
// with paths relative to the array folder; a path ending in '/' is a folder
// (its size is 0). A length running past the end takes what is left.

struct packed_entry {
  std::string path;
  std::vector<std::byte> bytes;
  bool folder = false;
};

inline void pack(const std::vector<packed_entry>& entries, std::vector<std::byte>& out) {
  auto put_le = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  };
  for (const auto& e : entries) {
    const std::string path = e.folder ? e.path + "/" : e.path;
    put_le(path.size(), 2);
    auto p = bytes_of(path);
    out.insert(out.end(), p.begin(), p.end());
    put_le(e.folder ? 0 : e.bytes.size(), 4);
    if (!e.folder) out.insert(out.end(), e.bytes.begin(), e.bytes.end());
  }
}

inline std::vector<packed_entry> unpack(cursor& c) {
  std::vector<packed_entry> out;
  while (!c.empty()) {
    packed_entry e;
    const std::size_t n = c.byte() | std::size_t{c.byte()} << 8;
    e.path = std::string(text_of(c.take(n)));
    const auto bytes = c.take(c.u32());
    e.folder = !e.path.empty() && e.path.back() == '/';
    if (e.folder)
      e.path.pop_back();
    else
      e.bytes.assign(bytes.begin(), bytes.end());
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace tilefmt::fuzz
