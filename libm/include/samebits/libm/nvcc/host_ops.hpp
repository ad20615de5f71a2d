// samebits/libm/nvcc/host_ops.hpp — the PTX instructions of nvcc/ptx.hpp,
// computed on the host with IEEE binary32 arithmetic (fma included), for the
// host path of samebits::nvcc. The `.ftz` forms flush subnormal inputs and
// results to sign-preserving zero, as PTX defines them.
//
// Every product here either ends an expression or feeds an fma as a factor,
// so -ffp-contract=fast has nothing to fuse. The MUFU instructions
// (ex2.approx, lg2.approx) are not here: they need a model of the hardware.
#pragma once

#include <cstdint>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/libm/platform.hpp"

namespace samebits::nvcc::host {

SAMEBITS_FUNC float flush(float a) {
  const std::uint32_t b = fp::to_bits(a);
  return (b & 0x7f800000u) == 0 ? fp::from_bits(b & 0x80000000u) : a;
}
template <bool Ftz>
SAMEBITS_FUNC float in(float a) { return Ftz ? flush(a) : a; }

template <bool Ftz>
SAMEBITS_FUNC float fma_rn(float a, float b, float c) {
  return in<Ftz>(__builtin_fmaf(in<Ftz>(a), in<Ftz>(b), in<Ftz>(c)));
}
template <bool Ftz>
SAMEBITS_FUNC float add(float a, float b) { return in<Ftz>(in<Ftz>(a) + in<Ftz>(b)); }
template <bool Ftz>
SAMEBITS_FUNC float mul(float a, float b) { return in<Ftz>(in<Ftz>(a) * in<Ftz>(b)); }
SAMEBITS_FUNC float cvt_rn_f32_s32(std::int32_t a) { return static_cast<float>(a); }  // never subnormal
template <bool Ftz>
SAMEBITS_FUNC bool setp_lt(float a, float b) { return in<Ftz>(a) < in<Ftz>(b); }
template <bool Ftz>
SAMEBITS_FUNC bool setp_eq(float a, float b) { return in<Ftz>(a) == in<Ftz>(b); }

}  // namespace samebits::nvcc::host
