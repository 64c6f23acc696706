// tilefmt — counts read from a file, multiplied and bounded before they size
// a buffer: a wrapped product or an allocation over
// open_options::max_allocation is a format_error naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "tilefmt/codec/error.hpp"

namespace tilefmt::array::detail {

class size_guard {
public:
  size_guard(std::filesystem::path file, std::uint64_t limit) : file_(std::move(file)), limit_(limit) {}

  /// a * b, or a format_error saying that the number of `what` overflows.
  std::uint64_t product(std::uint64_t a, std::uint64_t b, std::string_view what) const {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) overflow(what);
    return a * b;
  }
  /// a + b, likewise.
  std::uint64_t sum(std::uint64_t a, std::uint64_t b, std::string_view what) const {
    if (b > std::numeric_limits<std::uint64_t>::max() - a) overflow(what);
    return a + b;
  }
  /// Refuses `bytes` over the limit before anything that size is allocated:
  /// "<what> would hold N bytes, more than the L <claimant> may claim".
  void check(std::uint64_t bytes, std::string_view what, std::string_view claimant) const {
    if (bytes <= limit_) return;
    fail(std::string(what) + " would hold " + std::to_string(bytes) + " bytes, more than the " +
         std::to_string(limit_) + " " + std::string(claimant) + " may claim (open_options::max_allocation)");
  }
  std::uint64_t limit() const noexcept { return limit_; }

private:
  [[noreturn]] void overflow(std::string_view what) const {
    fail("the number of " + std::string(what) + " overflows 64 bits");
  }
  [[noreturn]] void fail(std::string reason) const {
    format_error e(std::move(reason), 0);
    e.set_file(file_.string());
    throw e;
  }

  std::filesystem::path file_;
  std::uint64_t limit_;
};

} // namespace tilefmt::array::detail
