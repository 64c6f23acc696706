// tilefmt — a class's implementation behind a pointer whose deleter comes
// with it: a handle class holding an impl_ptr<Impl> compiles, copies and
// destroys without Impl's definition, so that its header need not include
// what Impl needs (the writers' handles in compiled mode).
#pragma once

#include <memory>
#include <utility>

namespace tilefmt::array::detail {

template <class T>
using impl_ptr = std::unique_ptr<T, void (*)(T*) noexcept>;

/// A new T, with the deleter that destroys it: instantiated where T is
/// complete, so that the handle's destructor only calls through a pointer.
template <class T, class... Args>
impl_ptr<T> make_impl(Args&&... args) {
  return impl_ptr<T>(new T(std::forward<Args>(args)...), [](T* p) noexcept { delete p; });
}

} // namespace tilefmt::array::detail
