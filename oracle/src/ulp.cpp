#include "samebits/oracle/ulp.hpp"

#include <cmath>

namespace samebits::oracle {

double fast_ulp_error(double y, float r) {
  double ay = std::fabs(y);
  if (ay >= 0x1p128) {
    ay = 0x1p128;
    y = std::copysign(0x1p128, y);
  }
  int binade = ay == 0.0 ? -126 : std::ilogb(ay);
  if (binade < -126) binade = -126;
  if (binade > 127) binade = 127;
  const double rr = std::isinf(r) ? std::copysign(0x1p128, static_cast<double>(r))
                                  : static_cast<double>(r);
  return std::ldexp(std::fabs(rr - y), 23 - binade);
}

int ulp_bin(double ulp) {
  if (!(ulp > 0.5)) return 0;
  // (2^(k-2), 2^(k-1)] -> k
  int e;
  const double m = std::frexp(ulp, &e);  // ulp = m 2^e, m in [0.5, 1)
  int k = (m == 0.5) ? e : e + 1;  // an exact power of two closes its bin
  if (k < 1) k = 1;
  if (k >= kUlpBins) k = kUlpBins - 1;
  return k;
}

double ulp_bin_upper(int k) {
  if (k >= kUlpBins - 1) return INFINITY;
  return std::ldexp(1.0, k - 1);
}

}  // namespace samebits::oracle
