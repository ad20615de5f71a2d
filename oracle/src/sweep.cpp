#include "samebits/oracle/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

#include "samebits/libm/fp/bits.hpp"
#include "samebits/oracle/filter.hpp"
#include "samebits/oracle/reference.hpp"
#include "samebits/oracle/specials.hpp"

namespace samebits::oracle {

// ---------------------------------------------------------------------------
// Ranges

namespace {

bool looks_like_encoding(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  for (char c : s.substr(2))
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::uint32_t parse_encoding(std::string_view s) {
  if (s.size() > 10) throw std::invalid_argument("encoding '" + std::string(s) + "' has more than 8 hex digits");
  return static_cast<std::uint32_t>(std::stoul(std::string(s.substr(2)), nullptr, 16));
}

float parse_value(std::string_view s) {
  const std::string str(s);
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(str.c_str(), &end);
  if (str.empty() || end != str.c_str() + str.size())
    throw std::invalid_argument("'" + str + "' is neither a float value nor an encoding 0xHHHHHHHH");
  if (std::isnan(v)) throw std::invalid_argument("a value range cannot have a NaN end; use encodings");
  return v;
}

}  // namespace

std::vector<EncodingRange> parse_range(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    throw std::invalid_argument("range '" + std::string(text) + "' must have the form A:B");
  const std::string_view a = text.substr(0, colon), b = text.substr(colon + 1);
  if (looks_like_encoding(a) && looks_like_encoding(b)) {
    const std::uint32_t lo = parse_encoding(a), hi = parse_encoding(b);
    if (lo > hi) throw std::invalid_argument("encoding range '" + std::string(text) + "' has A > B");
    return {EncodingRange{lo, hi, 1}};
  }
  if (looks_like_encoding(a) != looks_like_encoding(b))
    throw std::invalid_argument("range '" + std::string(text) + "' mixes an encoding and a value");
  const float lo = parse_value(a), hi = parse_value(b);
  if (lo > hi) throw std::invalid_argument("value range '" + std::string(text) + "' has A > B");
  // Numeric order, in which -0 == +0: a range containing 0 holds both zeros.
  std::vector<EncodingRange> out;
  if (lo <= 0.0f) {  // sign-bit-set encodings grow as the value falls
    const std::uint32_t from = hi >= 0.0f ? 0x80000000u : fp::to_bits(hi);
    const std::uint32_t to = lo == 0.0f ? 0x80000000u : fp::to_bits(lo);
    out.push_back({from, to, 1});
  }
  if (hi >= 0.0f) {
    const std::uint32_t from = lo <= 0.0f ? 0u : fp::to_bits(lo);
    const std::uint32_t to = hi == 0.0f ? 0u : fp::to_bits(hi);
    out.push_back({from, to, 1});
  }
  std::sort(out.begin(), out.end(),
            [](const EncodingRange& x, const EncodingRange& y) { return x.first < y.first; });
  return out;
}

// ---------------------------------------------------------------------------
// Subjects

void FunctionSubject::evaluate(const EncodingRange& r, std::uint64_t n, float* out) const {
  for (std::uint64_t i = 0; i < n; ++i) out[i] = fn_(fp::from_bits(r.at(i)));
}

void BufferSubject::evaluate(const EncodingRange& r, std::uint64_t n, float* out) const {
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t e = r.at(i);
    out[i] = out_[(e - base_.first) / base_.stride];
  }
}

bool BufferSubject::covers(std::uint32_t e) const {
  return e >= base_.first && e <= base_.last && (e - base_.first) % base_.stride == 0;
}

// ---------------------------------------------------------------------------
// Scoring one result

namespace {

struct Scored {
  Score score;
  bool fallback = false;  // the filter declined; MPFR gave the reference
};

// running_max: the largest exact error this caller has seen; a fast estimate
// that could reach it, or that lies near a histogram edge, is made exact.
Scored score_impl(Func f, float x, float r, bool use_filter, bool exact_ulp, double running_max) {
  const SpecialCase sc = classify(f, x);
  const std::uint32_t rb = fp::to_bits(r);
  const bool r_nan = std::isnan(r);
  auto verdict = [](bool ok) {
    return Score{ok ? Outcome::correctly_rounded : Outcome::wrong_class, 0.0};
  };
  switch (sc.kind) {
    case ExactKind::nan: return {verdict(r_nan)};
    case ExactKind::pos_inf: return {verdict(rb == fp::kPosInf)};
    case ExactKind::neg_inf: return {verdict(rb == fp::kNegInf)};
    case ExactKind::exact:
      if (r_nan) return {verdict(false)};
      if (rb == fp::to_bits(sc.value)) return {verdict(true)};
      return {Score{Outcome::not_correctly_rounded, fast_ulp_error(sc.value, r)}};
    case ExactKind::real: break;
  }
  if (r_nan) return {verdict(false)};
  Scored out;
  float cr;
  double approx = 0.0;
  bool decided = false, binade_known = false;
  if (use_filter) {
    const FilterResult fr = filter_reference(f, x);
    decided = fr.decided;
    binade_known = fr.binade_known;
    cr = fr.cr;
    approx = fr.approx;
  }
  if (!decided) {
    cr = cr_mpfr(f, x);
    out.fallback = use_filter;
  }
  if (rb == fp::to_bits(cr)) return out;  // correctly rounded, ulp not computed
  out.score.outcome = Outcome::not_correctly_rounded;
  if (decided && binade_known && !exact_ulp) {
    const double e = fast_ulp_error(approx, r);
    const bool near_max = e + kFastUlpTolerance >= running_max;
    const bool near_edge = ulp_bin(e - kFastUlpTolerance) != ulp_bin(e + kFastUlpTolerance);
    out.score.ulp = (near_max || near_edge) ? exact_ulp_error(f, x, r) : e;
  } else {
    out.score.ulp = exact_ulp_error(f, x, r);
  }
  return out;
}

struct Partial {
  std::uint64_t inputs = 0, cr = 0, not_cr = 0, wrong_class = 0, fallbacks = 0;
  double max_ulp = -1.0;
  std::uint32_t max_in = 0, max_got = 0;
  std::array<std::uint64_t, kUlpBins> hist{};
  std::vector<std::uint32_t> wrong;

  static constexpr std::size_t kKeep = 8;
  void add_wrong(std::uint32_t e) {
    wrong.push_back(e);
    if (wrong.size() > 4 * kKeep) trim();
  }
  void trim() {
    std::sort(wrong.begin(), wrong.end());
    wrong.erase(std::unique(wrong.begin(), wrong.end()), wrong.end());
    if (wrong.size() > kKeep) wrong.resize(kKeep);
  }
  void consider_max(double e, std::uint32_t in, std::uint32_t got) {
    if (e > max_ulp || (e == max_ulp && in < max_in)) {
      max_ulp = e;
      max_in = in;
      max_got = got;
    }
  }
};

}  // namespace

Score score_one(Func f, float x, float r, bool use_filter, bool exact_ulp) {
  return score_impl(f, x, r, use_filter, exact_ulp, 0.0).score;
}

float reference_value(Func f, float x, bool use_filter) {
  if (classify(f, x).kind == ExactKind::real && use_filter) {
    const FilterResult fr = filter_reference(f, x);
    if (fr.decided) return fr.cr;
  }
  return cr_mpfr(f, x);
}

// ---------------------------------------------------------------------------
// The sweep

SweepResult sweep(Func f, const Subject& subject, const SweepOptions& options) {
  if (!mpfr_is_thread_safe())
    throw std::runtime_error("MPFR was built without thread-local storage; the oracle needs it");
  // The filter relies on double->float conversion with gradual underflow.
  {
    volatile double tiny = 0x1p-149;
    if (static_cast<float>(tiny) == 0.0f)
      throw std::runtime_error("flush-to-zero is on (MXCSR FTZ/DAZ); the oracle needs IEEE subnormals");
  }
  const auto t0 = std::chrono::steady_clock::now();

  std::vector<EncodingRange> ranges = options.ranges;
  std::vector<std::uint64_t> prefix{0};
  for (const auto& r : ranges) {
    if (r.stride == 0 || r.first > r.last) throw std::invalid_argument("empty or malformed encoding range");
    prefix.push_back(prefix.back() + r.size());
  }
  const std::uint64_t total = prefix.back();
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  constexpr std::uint64_t kChunk = 1u << 16;
  const std::uint64_t chunks = (total + kChunk - 1) / kChunk;
  if (threads > chunks) threads = static_cast<unsigned>(std::max<std::uint64_t>(1, chunks));

  std::atomic<std::uint64_t> next{0}, done{0};
  std::vector<Partial> partials(threads);
  std::vector<std::exception_ptr> errors(threads);

  auto worker = [&](unsigned t) {
    try {
      Partial& p = partials[t];
      std::vector<float> out(kChunk);
      for (;;) {
        const std::uint64_t c = next.fetch_add(1);
        if (c >= chunks) break;
        std::uint64_t g = c * kChunk;
        const std::uint64_t g_end = std::min(total, g + kChunk);
        while (g < g_end) {
          // The chunk may span ranges: take the piece inside one range.
          const std::size_t ri =
              static_cast<std::size_t>(std::upper_bound(prefix.begin(), prefix.end(), g) - prefix.begin()) - 1;
          const EncodingRange& r = ranges[ri];
          const std::uint64_t li = g - prefix[ri];
          const std::uint64_t m = std::min(g_end, prefix[ri + 1]) - g;
          const EncodingRange sub{r.at(li), r.last, r.stride};
          subject.evaluate(sub, m, out.data());
          for (std::uint64_t i = 0; i < m; ++i) {
            const std::uint32_t xb = sub.at(i);
            const float res = out[i];
            const Scored s = score_impl(f, fp::from_bits(xb), res, options.use_filter, false, p.max_ulp);
            ++p.inputs;
            p.fallbacks += s.fallback;
            switch (s.score.outcome) {
              case Outcome::correctly_rounded:
                ++p.cr;
                ++p.hist[0];
                break;
              case Outcome::not_correctly_rounded:
                ++p.not_cr;
                ++p.hist[ulp_bin(s.score.ulp)];
                p.consider_max(s.score.ulp, xb, fp::to_bits(res));
                break;
              case Outcome::wrong_class:
                ++p.wrong_class;
                p.add_wrong(xb);
                break;
            }
          }
          done.fetch_add(m, std::memory_order_relaxed);
          g += m;
        }
      }
    } catch (...) {
      errors[t] = std::current_exception();
      next.store(chunks);  // stop the others
    }
  };

  std::atomic<unsigned> finished{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      worker(t);
      finished.fetch_add(1);
    });
  if (options.progress) {
    while (finished.load() < threads) {
      options.progress(done.load(std::memory_order_relaxed), total);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    options.progress(done.load(), total);
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);

  SweepResult res;
  res.func = f;
  res.threads = threads;
  res.filtered = options.use_filter;
  Partial all;
  for (Partial& p : partials) {
    all.inputs += p.inputs;
    all.cr += p.cr;
    all.not_cr += p.not_cr;
    all.wrong_class += p.wrong_class;
    all.fallbacks += p.fallbacks;
    for (int k = 0; k < kUlpBins; ++k) all.hist[k] += p.hist[k];
    if (p.max_ulp >= 0) all.consider_max(p.max_ulp, p.max_in, p.max_got);
    all.wrong.insert(all.wrong.end(), p.wrong.begin(), p.wrong.end());
  }
  all.trim();
  res.inputs = all.inputs;
  res.correctly_rounded = all.cr;
  res.not_correctly_rounded = all.not_cr;
  res.wrong_class = all.wrong_class;
  res.mpfr_fallbacks = all.fallbacks;
  res.histogram = all.hist;
  res.wrong_class_inputs = all.wrong;
  if (all.max_ulp >= 0) {
    res.max_ulp = all.max_ulp;
    res.max_ulp_input = all.max_in;
    res.max_ulp_got = all.max_got;
    res.max_ulp_expected = fp::to_bits(cr_mpfr(f, fp::from_bits(all.max_in)));
  }
  if (options.special_table) {
    for (const SpecialInput& s : special_inputs(f)) {
      if (!subject.covers(s.encoding)) continue;
      float got;
      subject.evaluate(EncodingRange{s.encoding, s.encoding, 1}, 1, &got);
      const float x = fp::from_bits(s.encoding);
      SpecialRow row;
      row.label = s.label;
      row.input = s.encoding;
      row.expected = fp::to_bits(cr_mpfr(f, x));
      row.got = fp::to_bits(got);
      row.score = score_one(f, x, got, false, true);
      res.specials.push_back(std::move(row));
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace samebits::oracle
