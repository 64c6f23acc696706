// tilefmt — errors raised by the codec and everything built on it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tilefmt {

/// Bytes that do not follow the declared format: too short, a count larger
/// than the input can hold, an enum value out of range, a length that
/// disagrees with another. Carries the byte offset where decoding stopped and
/// the path of the field being decoded (`Footer.file_sizes[3]`), built up as
/// the exception travels out of the nested decoders, so the normal path pays
/// nothing for it. `file()` names the file when a higher layer knows it.
class format_error : public std::runtime_error {
public:
  /// The message reads `<path>: <reason> at offset <offset><detail>`, e.g.
  /// `Footer.file_sizes[3]: needs 8 bytes at offset 1234, 2 left`.
  format_error(std::string reason, std::size_t offset, std::string detail = {})
      : std::runtime_error(reason), reason_(std::move(reason)), detail_(std::move(detail)),
        offset_(offset) {
    rebuild();
  }

  /// What went wrong, without the location.
  const std::string& reason() const noexcept { return reason_; }
  /// What follows the offset in the message (", 2 left").
  const std::string& detail() const noexcept { return detail_; }
  /// Byte offset (from the start of the decoded buffer) where it went wrong.
  std::size_t offset() const noexcept { return offset_; }
  /// Dotted field path, e.g. `Footer.file_sizes[3]` (empty when unknown).
  const std::string& field() const noexcept { return path_; }
  /// The file the bytes came from, when known.
  const std::string& file() const noexcept { return file_; }

  const char* what() const noexcept override { return what_.c_str(); }

  /// Prepend an outer field (`name`) or element index to the path.
  void prepend_field(std::string_view name) {
    if (path_.empty())
      path_ = name;
    else if (path_.front() == '[')
      path_.insert(0, name);
    else
      path_.insert(0, std::string(name) + ".");
    rebuild();
  }
  void prepend_index(std::size_t i) {
    // Built by appending: g++ 12 -O3 warns falsely (-Wrestrict) on "[" + to_string(i).
    std::string index(1, '[');
    index += std::to_string(i);
    index += ']';
    if (!path_.empty() && path_.front() != '[') index += ".";
    path_.insert(0, index);
    rebuild();
  }
  /// Shift the offset when the failing buffer was a slice of a larger one.
  void add_offset(std::size_t base) {
    offset_ += base;
    rebuild();
  }
  void set_file(std::string file) {
    file_ = std::move(file);
    rebuild();
  }

private:
  void rebuild() {
    what_.clear();
    if (!file_.empty()) what_ += file_ + ": ";
    if (!path_.empty()) what_ += path_ + ": ";
    what_ += reason_ + " at offset " + std::to_string(offset_) + detail_;
  }

  std::string reason_;
  std::string detail_;
  std::size_t offset_;
  std::string path_;
  std::string file_;
  std::string what_;
};

} // namespace tilefmt
