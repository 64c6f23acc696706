// tilefmt — who owns what an exported ArrowSchema or ArrowArray points to:
// the private data behind each struct, freed by its release callback.
//
// Arrow's rules (the C data interface, "Memory management"): the consumer
// calls release once on the struct it was given; a release releases the
// children and the dictionary it owns, unless the consumer moved them out
// (their release already null), and sets its own release to null. Buffers
// stay valid until the release of the array that points to them: an array's
// buffers are kept by a shared pointer (`keep`) to the query result's
// columns, shared by a field's array and its children, so that a child
// moved out and released later keeps them too.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/arrow/c_data.hpp"

namespace tilefmt::arrow::detail {

struct schema_owner {
  std::string format, name, metadata;
  std::vector<ArrowSchema*> children;
  ArrowSchema* dictionary = nullptr;
};

/// The release callback of a struct (ArrowSchema or ArrowArray) whose
/// private data is an `Owner` holding its children and dictionary.
template <class T, class Owner>
void release_owned(T* s) {
  if (s == nullptr || s->release == nullptr) return;
  auto* o = static_cast<Owner*>(s->private_data);
  for (T* c : o->children) {
    if (c->release) c->release(c);  // not moved out by the consumer
    delete c;
  }
  if (o->dictionary) {
    if (o->dictionary->release) o->dictionary->release(o->dictionary);
    delete o->dictionary;
  }
  delete o;
  s->release = nullptr;
}

inline void release_schema(ArrowSchema* s) { release_owned<ArrowSchema, schema_owner>(s); }

/// Fills `out` as a schema of `format` named `name`, owning `children` and
/// `dictionary` (made with new).
inline void make_schema(ArrowSchema* out, std::string format, std::string name, std::string metadata,
                        std::int64_t flags, std::vector<ArrowSchema*> children, ArrowSchema* dictionary = nullptr) {
  auto o = std::make_unique<schema_owner>();
  o->format = std::move(format);
  o->name = std::move(name);
  o->metadata = std::move(metadata);
  o->children = std::move(children);
  o->dictionary = dictionary;
  out->format = o->format.c_str();
  out->name = o->name.c_str();
  out->metadata = o->metadata.empty() ? nullptr : o->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<std::int64_t>(o->children.size());
  out->children = o->children.empty() ? nullptr : o->children.data();
  out->dictionary = o->dictionary;
  out->release = &release_schema;
  out->private_data = o.release();
}

struct array_owner {
  std::shared_ptr<void> keep;  // what the buffers point into
  std::vector<const void*> buffers;
  std::vector<ArrowArray*> children;
  ArrowArray* dictionary = nullptr;
};

inline void release_array(ArrowArray* a) { release_owned<ArrowArray, array_owner>(a); }

/// Fills `out` as an array of `length` values over `buffers`, kept alive by
/// `keep`, owning `children` and `dictionary` (made with new).
inline void make_array(ArrowArray* out, std::int64_t length, std::int64_t null_count, std::shared_ptr<void> keep,
                       std::vector<const void*> buffers, std::vector<ArrowArray*> children = {},
                       ArrowArray* dictionary = nullptr) {
  auto o = std::make_unique<array_owner>();
  o->keep = std::move(keep);
  o->buffers = std::move(buffers);
  o->children = std::move(children);
  o->dictionary = dictionary;
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<std::int64_t>(o->buffers.size());
  out->n_children = static_cast<std::int64_t>(o->children.size());
  out->buffers = o->buffers.data();
  out->children = o->children.empty() ? nullptr : o->children.data();
  out->dictionary = o->dictionary;
  out->release = &release_array;
  out->private_data = o.release();
}

/// A struct made with new, released and deleted if not handed on.
template <class T>
struct owned {
  T* p = new T{};
  owned() = default;
  explicit owned(T* q) noexcept : p(q) {}
  owned(const owned&) = delete;
  owned& operator=(const owned&) = delete;
  ~owned() {
    if (p) {
      if (p->release) p->release(p);
      delete p;
    }
  }
  T* get() noexcept { return p; }
  T* hand_on() noexcept { return std::exchange(p, nullptr); }
};

} // namespace tilefmt::arrow::detail
