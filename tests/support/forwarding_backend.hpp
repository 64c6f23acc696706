// A storage backend for tests: every call goes to another backend (`inner`),
// and a hook hears of it first. Tests use it to record the paths a reader
// touches, the order of a writer's files, or to kill the process before a
// change reaches the disk.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tilefmt/storage/backend.hpp"

namespace tilefmt::testing {

template <class Inner>
class forwarding_backend : public storage::backend {
public:
  template <class... A>
  explicit forwarding_backend(A&&... a) : inner(std::forward<A>(a)...) {}

  Inner inner;

protected:
  enum class change { write, make_folder, remove };
  /// Before file_size, is_folder, read, read_range or list of `p`.
  virtual void on_read(const std::filesystem::path&) const {}
  /// Before `p` is written, made or removed. A file written in pieces
  /// (open_write) is `written` when its writer commits: that is when it
  /// appears.
  virtual void on_change(change, const std::filesystem::path&) {}
  /// Before `n` bytes are appended to the file `p` being written in pieces.
  virtual void on_append(const std::filesystem::path&, std::size_t) {}

private:
  using path = std::filesystem::path;
  std::optional<std::uint64_t> do_file_size(const path& p) const final { return on_read(p), inner.file_size(p); }
  bool do_is_folder(const path& p) const final { return on_read(p), inner.is_folder(p); }
  std::vector<std::byte> do_read(const path& p, std::uint64_t max) const final { return on_read(p), inner.read(p, max); }
  std::vector<std::byte> do_read_range(const path& p, std::uint64_t o, std::uint64_t n) const final {
    return on_read(p), inner.read_range(p, o, n);
  }
  std::vector<storage::entry> do_list(const path& p) const final { return on_read(p), inner.list(p); }
  bool do_prefers_merged_reads() const override { return inner.prefers_merged_reads(); }
  bool do_streams_writes() const override { return inner.streams_writes(); }
  void do_write(const path& p, std::span<const std::byte> b) final {
    on_change(change::write, p);
    inner.write(p, b);
  }
  std::unique_ptr<storage::file_writer> do_open_write(const path& p) final {
    return std::make_unique<writer>(*this, p, inner.open_write(p));
  }
  /// The inner backend's writer, with the hook told at commit.
  class writer final : public storage::file_writer {
  public:
    writer(forwarding_backend& b, path p, std::unique_ptr<storage::file_writer> w)
        : b_(b), p_(std::move(p)), w_(std::move(w)) {}

  private:
    void do_append(std::span<const std::byte> bytes) override {
      b_.on_append(p_, bytes.size());
      w_->append(bytes);
    }
    void do_commit() override {
      b_.on_change(change::write, p_);
      w_->commit();
    }
    void do_commit_as(const path& p) override {
      b_.on_change(change::write, p);
      w_->commit_as(p);
    }
    forwarding_backend& b_;
    path p_;
    std::unique_ptr<storage::file_writer> w_;
  };
  void do_make_folder(const path& p) final {
    on_change(change::make_folder, p);
    inner.make_folder(p);
  }
  void do_remove(const path& p) final {
    on_change(change::remove, p);
    inner.remove(p);
  }
};

} // namespace tilefmt::testing
