#include "samebits/oracle/reference.hpp"

#include <mpfr.h>

#include <cmath>
#include <limits>

#include "samebits/libm/fp/bits.hpp"

namespace samebits::oracle {
namespace {

using MpfrFn = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

MpfrFn mpfr_function(Func f) {
  switch (f) {
    case Func::exp: return mpfr_exp;
    case Func::exp2: return mpfr_exp2;
    case Func::exp10: return mpfr_exp10;
    case Func::log: return mpfr_log;
    case Func::log2: return mpfr_log2;
    case Func::log10: return mpfr_log10;
  }
  return mpfr_exp;
}

// Per-thread MPFR variables, initialised once: mpfr_init2 is not free, and the
// sweep calls this millions of times.
struct Scratch {
  mpfr_t x24, y24, y, t;
  Scratch() {
    mpfr_init2(x24, 24);
    mpfr_init2(y24, 24);
    mpfr_init2(y, 256);
    mpfr_init2(t, 256);
  }
  ~Scratch() {
    mpfr_clears(x24, y24, y, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Restores the exponent range on scope exit.
class ExponentRange {
 public:
  ExponentRange(mpfr_exp_t emin, mpfr_exp_t emax)
      : old_emin_(mpfr_get_emin()), old_emax_(mpfr_get_emax()) {
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
  }
  ~ExponentRange() {
    mpfr_set_emin(old_emin_);
    mpfr_set_emax(old_emax_);
  }
  ExponentRange(const ExponentRange&) = delete;
  ExponentRange& operator=(const ExponentRange&) = delete;

 private:
  mpfr_exp_t old_emin_, old_emax_;
};

}  // namespace

bool mpfr_is_thread_safe() { return mpfr_buildopt_tls_p() != 0; }

float cr_mpfr(Func f, float x) {
  const SpecialCase sc = classify(f, x);
  switch (sc.kind) {
    case ExactKind::nan: return fp::from_bits(fp::kCanonicalNaN);
    case ExactKind::pos_inf: return std::numeric_limits<float>::infinity();
    case ExactKind::neg_inf: return -std::numeric_limits<float>::infinity();
    case ExactKind::exact: return sc.value;
    case ExactKind::real: break;
  }
  Scratch& s = scratch();
  mpfr_set_flt(s.x24, x, MPFR_RNDN);  // exact: 24 bits hold any binary32
  ExponentRange range(-148, 128);
  int inex = mpfr_function(f)(s.y24, s.x24, MPFR_RNDN);
  inex = mpfr_check_range(s.y24, inex, MPFR_RNDN);
  mpfr_subnormalize(s.y24, inex, MPFR_RNDN);
  return mpfr_get_flt(s.y24, MPFR_RNDN);  // exact: y24 already fits binary32
}

double exact_ulp_error(Func f, float x, float r) {
  Scratch& s = scratch();
  mpfr_set_flt(s.x24, x, MPFR_RNDN);
  mpfr_function(f)(s.y, s.x24, MPFR_RNDN);  // relative error <= 2^-256
  // Saturate at 2^128: MPFR's own overflow (exp of a huge x) lands here too.
  if (mpfr_inf_p(s.y) || (mpfr_regular_p(s.y) && mpfr_get_exp(s.y) > 128)) {
    mpfr_set_si_2exp(s.y, mpfr_signbit(s.y) ? -1 : 1, 128, MPFR_RNDN);
  }
  // Binade of y: MPFR's exponent e has |y| in [2^(e-1), 2^e).
  long binade = mpfr_zero_p(s.y) ? -126 : static_cast<long>(mpfr_get_exp(s.y)) - 1;
  if (binade < -126) binade = -126;
  if (binade > 127) binade = 127;
  if (std::isinf(r)) {
    mpfr_set_si_2exp(s.t, r > 0 ? 1 : -1, 128, MPFR_RNDN);
  } else {
    mpfr_set_flt(s.t, r, MPFR_RNDN);
  }
  mpfr_sub(s.t, s.t, s.y, MPFR_RNDN);  // |r| < 2^129, y has 256 bits: error ~2^-250 relative
  mpfr_abs(s.t, s.t, MPFR_RNDN);
  mpfr_mul_2si(s.t, s.t, -(binade - 23), MPFR_RNDN);
  return mpfr_get_d(s.t, MPFR_RNDN);
}

}  // namespace samebits::oracle
