// mufu_model_check — samebits::nvcc::model (libm nvcc/mufu_model.hpp) against the GPU's own MUFU
// instructions, for every one of the 2^32 inputs, encoding for encoding:
//   model::ex2_approx_ftz vs ex2.approx.ftz.f32    model::ex2_approx vs ex2.approx.f32
//   model::lg2_approx_ftz vs lg2.approx.ftz.f32    model::lg2_approx vs lg2.approx.f32
// Run it on your own GPU to re-validate the model there (it was measured on an H200, sm_90).
// Harness and options: tests/device/harness/bitwise_sweep.hpp.
#include <memory>
#include <vector>

#include <samebits/libm/nvcc/mufu_model.hpp>
#include <samebits/libm/arch/nvptx.hpp>

#include "harness/device_function.cuh"

namespace {
namespace m = samebits::nvcc::model;
namespace ptx = samebits::arch::nvptx;
SAMEBITS_DEVICE_FUNCTOR(Ex2Ftz, ptx::ex2_approx<true>(x))
SAMEBITS_DEVICE_FUNCTOR(Ex2, ptx::ex2_approx<false>(x))
SAMEBITS_DEVICE_FUNCTOR(Lg2Ftz, ptx::lg2_approx<true>(x))
SAMEBITS_DEVICE_FUNCTOR(Lg2, ptx::lg2_approx<false>(x))
struct ModelEx2Ftz { float operator()(float x) const { return m::ex2_approx_ftz(x); } };
struct ModelEx2 { float operator()(float x) const { return m::ex2_approx(x); } };
struct ModelLg2Ftz { float operator()(float x) const { return m::lg2_approx_ftz(x); } };
struct ModelLg2 { float operator()(float x) const { return m::lg2_approx(x); } };
}  // namespace

int main(int argc, char** argv) {
  namespace dt = samebits::device_test;
  const dt::Options options = dt::parse_options(argc, argv);
  const dt::HostSubject<ModelEx2Ftz> ex2ftz;
  const dt::HostSubject<ModelEx2> ex2;
  const dt::HostSubject<ModelLg2Ftz> lg2ftz;
  const dt::HostSubject<ModelLg2> lg2;
  auto check = [](const char* instr, dt::DeviceEval dev, const samebits::oracle::Subject& model) {
    return dt::Check{instr, "default",
                     {{instr, dev, nullptr}, {"samebits::nvcc::model", nullptr, &model}},
                     {{0, 1, "model_vs_instruction"}}};
  };
  const std::vector<dt::Check> checks = {check("ex2.approx.ftz.f32", dt::eval<Ex2Ftz>, ex2ftz),
                                         check("ex2.approx.f32", dt::eval<Ex2>, ex2),
                                         check("lg2.approx.ftz.f32", dt::eval<Lg2Ftz>, lg2ftz),
                                         check("lg2.approx.f32", dt::eval<Lg2>, lg2)};
  return dt::run("mufu_model_check", checks, options);
}
