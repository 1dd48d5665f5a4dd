// FunctionRef: a non-owning reference to something callable, for callbacks that are called
// before the call that receives them returns (a push writer, a visitor). Unlike std::function it
// never allocates and costs one indirect call, so it suits hot paths; the referenced callable
// must outlive the FunctionRef (pass a lambda straight into the parameter).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace redistp {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, Args...>)
      FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): meant to bind lambdas implicitly
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* obj, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(obj))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

}  // namespace redistp
