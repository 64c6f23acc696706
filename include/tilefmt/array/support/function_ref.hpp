// tilefmt — a non-owning reference to a callable (C++26's std::function_ref,
// cut down to what the reader needs).
//
// The tile source's chunk loops take callbacks called once per chunk, the
// condition evaluator one called once per field of a tile, and the thread
// pool's tasks one called once per task. As templates they were
// instantiated once per caller's lambda, each copy the whole loop with its
// checks and error messages (13 copies of the chunk loop, 117 of the
// comparisons, 20 of the pool's task loop: about 340 kB of a query
// program's code at -O3). Taking a function_ref instead keeps one copy, for
// an indirect call per chunk, field or task. Unlike std::function it never
// allocates and never copies the callable: the referenced callable must
// outlive the call it is passed to, which holds for an argument bound to a
// parameter.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace tilefmt::array::detail {

template <class Signature>
class function_ref;

template <class R, class... Args>
class function_ref<R(Args...)> {
public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> && std::is_invocable_r_v<R, F&, Args...>)
  function_ref(F&& f) noexcept  // NOLINT(google-explicit-constructor): passed as a callback argument
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... args) -> R {
          return std::invoke(*static_cast<std::remove_reference_t<F>*>(o), std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace tilefmt::array::detail
