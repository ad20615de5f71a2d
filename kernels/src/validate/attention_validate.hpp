// kernels/src/validate/attention_validate.hpp — the one validation of the
// attention arguments (docs/kernels/attention.md §2), shared by the C++ host
// API (kernels/src/cuda/attention_api.cu) and the C ABI
// (kernels/src/capi/c_api.cpp). Host-only C++, no CUDA: it builds with any
// compiler, so CI and the fuzzer (fuzz/fuzz_attention_args.cpp) run it
// without a GPU. The one question only the CUDA runtime can answer, what kind
// of memory a pointer is, comes in as a callback (PointerQuery).
//
// Every refusal names the argument it is about; a call refused here launches
// nothing. Status codes are those of api.hpp (and the C ABI's, same numbers).
#pragma once

#include <cstdint>

#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/c_api.h"
#include "samebits/libm/mma/sm90.hpp"

namespace samebits::kernels::attention::validate {

// What a (non-null, aligned) pointer is, as the CUDA runtime says.
enum class MemoryKind {
  device,    // device memory, or managed: the kernels may read and write it
  host,      // a pointer the runtime knows, but not device memory
  not_cuda,  // the runtime does not know it (cudaPointerGetAttributes failed)
};

// The pointer-kind question. A null query asks nothing: only null and
// alignment are checked (the C ABI built without CUDA, which launches nothing).
struct PointerQuery {
  MemoryKind (*kind)(const void* ptr, void* ctx) = nullptr;
  void* ctx = nullptr;
};

// The largest element offset a tensor may reach: element offsets are int64 in
// the kernels, and byte offsets (up to 4 bytes an element) must fit as well.
inline constexpr std::int64_t kMaxElementOffset = INT64_MAX / 4;

// The problem (shape, sequences, codes, limits of the launch), on the host
// copies of cu_seqlens.
Status check_problem(const ProblemParams& p, HostSeqlens host);

// One [rows, heads, D] tensor: null only when empty, aligned to its dtype,
// device memory, positive strides whose (row, head) spans of D elements do not
// overlap (nested in either stride order), largest element offset within
// kMaxElementOffset and the tensor's end inside the address space.
Status check_tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name,
                    PointerQuery q);
// A contiguous fp32 array of `elements` (lse, the backward's workspaces).
Status check_pointer(const void* ptr, std::int64_t elements, int align, const char* name, PointerQuery q);

// Everything forward() / backward() check before they launch.
Status check_forward(const ForwardParams& p, HostSeqlens host, PointerQuery q);
Status check_backward(const BackwardParams& p, HostSeqlens host, PointerQuery q);

// backward_workspace_floats() with overflow checks: false when a size does
// not fit int64 (or an argument is negative).
bool workspace_floats_checked(std::int64_t total_q, std::int64_t total_k, int hq, int d, WorkspaceFloats* out);

// --- The C ABI (c_api.h): its own field checks, messages prefixed by `fn`. ---

// What both the reference and the kernels need of a problem (the codes, hq and
// hkv, causal, scale, the host cu_seqlens): the reference entry points check
// only this.
Status check_c_problem(const samebits_attention_problem* p, const char* fn);
// The model's parameters of the C struct (null: the defaults). Enum codes are
// carried over unchecked (out-of-range ones stay out of range):
// mma::sm90::invalid_argument says what is wrong.
mma::sm90::Params mma_params_of(const samebits_mma_params* m);
// What the reference entry points check beyond check_c_problem: under
// sm90-tensor-core, in_dtype (bf16 or f16).
Status check_c_reference_policy(const samebits_attention_problem* p, const char* fn);
// The dtype codes a launch uses (in_dtype and o_dtype; grad_dtype when
// `backward`).
Status check_c_dtypes(const samebits_attention_problem* p, const char* fn, bool backward);
// The backward's workspace: size, alignment, and the accum_*_in pair.
Status check_c_workspace(const samebits_attention_problem* p, const char* fn, const void* workspace,
                         std::int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in);

// samebits_attention_backward_workspace_bytes / _accum_offset: -1 when the
// arguments are negative or a size overflows int64.
std::int64_t c_workspace_bytes(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d);
std::int64_t c_accum_offset(std::int64_t total_q, std::int64_t total_k, std::int32_t hq, std::int32_t d,
                            std::int32_t which);

// The C ABI's arguments as the host API's parameters (after check_c_problem
// and check_c_dtypes; the backward's workspace carved as c_accum_offset says).
ForwardParams c_forward_params(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                               samebits_tensor3 v, samebits_tensor3 o, float* lse);
BackwardParams c_backward_params(const samebits_attention_problem* p, samebits_tensor3 q, samebits_tensor3 k,
                                 samebits_tensor3 v, samebits_tensor3 o, samebits_tensor3 dout, const float* lse,
                                 samebits_tensor3 dq, samebits_tensor3 dk, samebits_tensor3 dv, void* workspace,
                                 std::int64_t workspace_bytes, const float* accum_k_in, const float* accum_v_in);

// samebits_attention_backward_stored_ds_workspace_bytes: the workspace with the stored D^S after
// its other parts (at a multiple of 256 bytes); -1 for the fma-chain policy or on overflow.
std::int64_t c_stored_ds_offset(const samebits_attention_problem* p);
std::int64_t c_stored_ds_workspace_bytes(const samebits_attention_problem* p);

}  // namespace samebits::kernels::attention::validate
