// common/types.cuh — `--type NAME` to a C++ type, in one place. A version lists the element types
// it runs (a TypeList) and registers one launcher a type (Launchers); the lesson's glue asks
// dispatch_type once per case for the Trial of that type, instead of comparing strings itself:
//
//   using Types = course::TypeList<int32_t, float>;
//   course::Launchers<scan::Launcher, int32_t, float> fns{scan_int, scan_float};
//   def.cli.dtypes = course::type_names(Types{});            // what --help lists and --type accepts
//   def.make_trial = [=](const course::Options& o, const course::Case& c) {
//       return course::dispatch_type(c.dtype, Types{}, [&](auto tag) -> std::unique_ptr<course::Trial> {
//           using T = typename decltype(tag)::type;
//           return std::make_unique<ScanTrial<T>>(o, c, fns.get<T>());
//       });
//   };
// The names are inputs.h's TypeName<T>::get() (the CSV's dtype column and the .npy reader use the
// same); a lesson with other element types specializes TypeName for them (lesson 01: the 16-bit ones).
#pragma once
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "device.cuh"   // UsageError
#include "inputs.h"     // TypeName<T>

namespace course {

template <class... Ts> struct TypeList {};
template <class T> struct Tag { using type = T; };   // a type passed as a value to a generic lambda

// The names of a list, in its order (the first is the default --type).
template <class... Ts> std::vector<std::string> type_names(TypeList<Ts...>) { return {TypeName<Ts>::get()...}; }

// f(Tag<T>{}) for the T of the list whose name is `name`; a name not in the list is a usage error.
template <class F, class T, class... Rest>
auto dispatch_type(const std::string& name, TypeList<T, Rest...>, F&& f) -> decltype(f(Tag<T>{})) {
    if (name == TypeName<T>::get()) return f(Tag<T>{});
    if constexpr (sizeof...(Rest) > 0) {
        return dispatch_type(name, TypeList<Rest...>{}, std::forward<F>(f));
    } else {
        throw UsageError("--type '" + name + "' is not one this program runs");
    }
}

// One launcher a type: Launcher<T> is the lesson's launcher signature for element type T.
template <template <class> class Launcher, class... Ts> struct Launchers {
    std::tuple<Launcher<Ts>...> fns;
    explicit Launchers(Launcher<Ts>... f) : fns(f...) {}
    template <class T> const Launcher<T>& get() const { return std::get<Launcher<T>>(fns); }
    static TypeList<Ts...> types() { return {}; }
};

}   // namespace course
