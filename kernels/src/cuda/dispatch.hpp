// kernels/src/cuda/dispatch.hpp — the one switch from a launch's run-time codes (libm, element
// types, head dim) to the kernels' template arguments, used by every launcher (attention
// fma-chain and sm90-tensor-core, forward and backward; sparse MLA forward and backward).
//
// A launcher states once what its kernels are instantiated for (a Space: head dims, libms,
// input dtypes; outputs and gradients are the input's dtype or float32) and dispatches with
// templated lambdas, composed:
//
//   return dispatch::head_dim_and_libm<Space>(p, [&]<int D, class L>() { return Unit<D, L>::launch(p, s); });
//   return dispatch::forward_dtypes<Space>(p, [&]<DType In, DType Out>() { ... });
//
// A value the Space does not list is answered by kUnsupported (cudaErrorInvalidValue), the one
// error of this layer, and nothing is launched. Which values a policy offers is a rule of the
// validators (kernels/src/validate/), which refuse first, by name; the launchers restate no rule.
//
// The instantiations are split across translation units at (head dim, libm): a launcher's unit
// (a class template Unit<D, L> with a static launch) is declared in its header and defined in a
// .cuh that only the generated instantiation units include (kernels/src/instantiations/:
// meson.build writes one unit.cu.in per (unit, head dim, libm)). Host-side C++20: no kernel is
// declared here.
#pragma once

#include <cuda_runtime_api.h>

#include <type_traits>

#include "samebits/kernels/attention/contract.hpp"
#include "samebits/kernels/dtype.hpp"

// The libm personalities as the kernels take them (device functors, defined in
// portable/common/attention_common.cuh).
namespace samebits::kernels::attention::cuda {
struct NvccExpLog;
struct CrExpLog;
struct NvccFastExpLog;
}  // namespace samebits::kernels::attention::cuda

namespace samebits::kernels::dispatch {

using attention::Libm;

// What a launch gets for a value its kernels are not instantiated for.
inline constexpr cudaError_t kUnsupported = cudaErrorInvalidValue;

// ---- libm code -> the kernels' functor type ---------------------------------
template <Libm> struct LibmFunctor;
template <> struct LibmFunctor<Libm::nvcc> { using type = attention::cuda::NvccExpLog; };
template <> struct LibmFunctor<Libm::cr> { using type = attention::cuda::CrExpLog; };
template <> struct LibmFunctor<Libm::nvcc_fast> { using type = attention::cuda::NvccFastExpLog; };
template <Libm V> using libm_t = typename LibmFunctor<V>::type;

// ---- the value lists a launcher is instantiated for -------------------------
template <int... Ds> struct HeadDims {
  static constexpr int kSize = sizeof...(Ds);
  static constexpr bool has(int d) { return ((d == Ds) || ...); }
};
template <Libm... Ls> struct Libms {
  static constexpr int kSize = sizeof...(Ls);
  template <class L> static constexpr bool has() { return (std::is_same_v<L, libm_t<Ls>> || ...); }
};
template <DType... Ts> struct DTypes {
  static constexpr bool has(DType t) { return ((t == Ts) || ...); }
};

// One launcher family's instantiations: head dims x libms x input dtypes (x output dtypes: the
// input's or float32). contains<D, L>(): whether a unit (D, L) belongs to it.
template <class HeadDimsT, class LibmsT, class InDTypesT>
struct Space {
  using head_dims = HeadDimsT;
  using libms = LibmsT;
  using in_dtypes = InDTypesT;
  template <int D, class L> static constexpr bool contains() { return head_dims::has(D) && libms::template has<L>(); }
  static constexpr int kUnits = head_dims::kSize * libms::kSize;  // (head dim, libm) pairs
};

// ---- the switches: f.template operator()<X>() for the listed X equal to v ---------------------
template <int... Ds, class F>
constexpr cudaError_t head_dim(HeadDims<Ds...>, int d, F&& f) {
  cudaError_t r = kUnsupported;
  (void)((d == Ds && (r = f.template operator()<Ds>(), true)) || ...);
  return r;
}
template <Libm... Ls, class F>
constexpr cudaError_t libm(Libms<Ls...>, Libm l, F&& f) {
  cudaError_t r = kUnsupported;
  (void)((l == Ls && (r = f.template operator()<libm_t<Ls>>(), true)) || ...);
  return r;
}
template <DType... Ts, class F>
constexpr cudaError_t dtype(DTypes<Ts...>, DType t, F&& f) {
  cudaError_t r = kUnsupported;
  (void)((t == Ts && (r = f.template operator()<Ts>(), true)) || ...);
  return r;
}

// ---- composed -----------------------------------------------------------------------------
// The split point: f.template operator()<D, L>() for p.d and p.libm.
template <class S, class P, class F>
constexpr cudaError_t head_dim_and_libm(const P& p, F&& f) {
  return head_dim(typename S::head_dims{}, p.d, [&]<int D>() {
    return libm(typename S::libms{}, p.libm, [&]<class L>() { return f.template operator()<D, L>(); });
  });
}
// An output or gradient: the input's dtype, or float32 on request.
template <DType In, class F>
constexpr cudaError_t out_dtype(DType t, F&& f) {
  return dtype(DTypes<In, DType::f32>{}, t, static_cast<F&&>(f));
}
// A forward's element types: f.template operator()<In, Out>() for p.in_dtype and p.o_dtype.
template <class S, class P, class F>
constexpr cudaError_t forward_dtypes(const P& p, F&& f) {
  return dtype(typename S::in_dtypes{}, p.in_dtype, [&]<DType In>() {
    return out_dtype<In>(p.o_dtype, [&]<DType Out>() { return f.template operator()<In, Out>(); });
  });
}
// A backward's: f.template operator()<In, OutO, Grad>() for p.in_dtype, p.o_dtype and p.grad_dtype.
template <class S, class P, class F>
constexpr cudaError_t backward_dtypes(const P& p, F&& f) {
  return dtype(typename S::in_dtypes{}, p.in_dtype, [&]<DType In>() {
    return out_dtype<In>(p.o_dtype, [&]<DType OutO>() {
      return out_dtype<In>(p.grad_dtype, [&]<DType Grad>() { return f.template operator()<In, OutO, Grad>(); });
    });
  });
}

// ---- the facility checks itself where it is compiled ---------------------------------------
namespace self_check {
struct P {
  int d;
  Libm libm;
  DType in_dtype, o_dtype, grad_dtype;
};
using S = Space<HeadDims<64, 128>, Libms<Libm::cr, Libm::nvcc>, DTypes<DType::bf16, DType::f32>>;
// The code of the combination f was called for, or -1 when it was not called.
constexpr int backward(P p) {
  int got = -1;
  const cudaError_t e = head_dim_and_libm<S>(p, [&]<int D, class L>() {
    return backward_dtypes<S>(p, [&]<DType In, DType OutO, DType Grad>() {
      got = D * 1000 + (std::is_same_v<L, libm_t<Libm::cr>> ? 100 : 0) + static_cast<int>(In) * 10 +
            static_cast<int>(OutO) * 3 + static_cast<int>(Grad);
      return cudaSuccess;
    });
  });
  return e == cudaSuccess ? got : e == kUnsupported && got == -1 ? -1 : -2;
}
static_assert(backward({128, Libm::cr, DType::bf16, DType::f32, DType::bf16}) == 128111);
static_assert(backward({64, Libm::nvcc, DType::f32, DType::f32, DType::f32}) == 64000);
static_assert(backward({96, Libm::nvcc, DType::bf16, DType::bf16, DType::bf16}) == -1);          // head dim
static_assert(backward({64, Libm::nvcc_fast, DType::bf16, DType::bf16, DType::bf16}) == -1);     // libm
static_assert(backward({64, Libm::nvcc, DType::f16, DType::f16, DType::f16}) == -1);             // input
static_assert(backward({64, Libm::nvcc, DType::f32, DType::bf16, DType::f32}) == -1);            // o
static_assert(backward({64, Libm::nvcc, DType::bf16, DType::bf16, static_cast<DType>(7)}) == -1);  // gradient
static_assert(S::contains<64, libm_t<Libm::cr>>() && !S::contains<64, libm_t<Libm::nvcc_fast>>() &&
              !S::contains<96, libm_t<Libm::cr>>() && S::kUnits == 4);
}  // namespace self_check

}  // namespace samebits::kernels::dispatch
