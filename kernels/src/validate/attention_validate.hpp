// kernels/src/validate/attention_validate.hpp — the one validation of the
// attention arguments (docs/kernels/attention.md §2): pure C++ over the Params
// structs (attention/params.hpp), shared by the C++ host API
// (kernels/src/cuda/attention_api.cu), the C ABI (kernels/src/capi/, which
// marshals its C structs into these Params first) and the fuzzer
// (fuzz/fuzz_attention_args.cpp). Host-only, no CUDA and no c_api.h: it builds
// with any compiler, so CI runs it without a GPU. The one question only the
// CUDA runtime can answer, what kind of memory a pointer is, comes in as a
// callback (PointerQuery). Rules that other callers share live in rules.hpp;
// this file composes them over the Params.
//
// Every refusal names the argument it is about; a call refused here launches
// nothing. Status codes are those of api.hpp (and the C ABI's, same numbers).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "samebits/kernels/attention/api.hpp"

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

// Where a problem runs: the GPU kernels, or the CPU reference (which computes
// any valid tensor-core model and reads no device pointer, tile_rows or
// max_seqlen; under fma-chain it reads no dtype).
enum class Target { gpu, reference };

// The problem without its pointers: policy, libm (x policy), scale, the input
// dtype (x policy), D, heads, num_seqs, the host cu_seqlens; the mma
// parameters (valid; on the GPU the hardware's); on the GPU also tile_rows and
// max_seqlen. What the C ABI's samebits_attention_check answers.
Status check_problem_rules(const ProblemParams& p, HostSeqlens host, Target target);
// The dtypes a launch uses beyond in_dtype: o (and the gradients': grad may be null).
Status check_output_dtypes(const ProblemParams& p, DType o, const DType* grad);

// One [rows, heads, D] tensor: null only when empty, aligned to its dtype,
// device memory, positive strides whose (row, head) spans of D elements do not
// overlap (nested in either stride order), largest element offset within
// kMaxElementOffset and the tensor's end inside the address space.
// `op` prefixes the messages (sparse MLA passes its own).
inline constexpr const char* kOp = "samebits attention: ";
Status check_tensor(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name,
                    PointerQuery q, const char* op = kOp);
// A contiguous array of `elements` 4-byte elements (lse, the workspaces).
Status check_pointer(const void* ptr, std::int64_t elements, int align, const char* name, PointerQuery q,
                     const char* op = kOp);

// The bytes an argument's elements occupy, first to last (empty: none). An
// output must not share a byte with an input or another output: the kernels
// read inputs while writing outputs, in no order a caller can rely on. One
// exact alias may be allowed (`alias_of`: the output's name; the backward's
// accum_k_in may be accum_k, attention/params.hpp).
struct Span {
  const char* name = nullptr;
  std::uintptr_t first = 0, last = 0;
  bool empty = true;
  const char* alias_of = nullptr;
};
// After check_tensor accepted it.
Span tensor_span(const void* ptr, DType t, Strides st, std::int64_t rows, int heads, int d, const char* name);
// `bytes` bytes from ptr (after check_pointer, or a size the caller checked).
Span bytes_span(const void* ptr, std::int64_t bytes, const char* name);
// invalid_argument "o overlaps q: ..." for the first output that shares a byte
// with an input or an earlier output; `op` prefixes the message.
Status check_disjoint(std::initializer_list<Span> inputs, std::initializer_list<Span> outputs, const char* op = kOp);

// Everything forward() / backward() check before they launch.
Status check_forward(const ForwardParams& p, HostSeqlens host, PointerQuery q);
Status check_backward(const BackwardParams& p, HostSeqlens host, PointerQuery q);

// backward_workspace_floats() with overflow checks: false when a size does
// not fit int64 (or an argument is negative).
bool workspace_floats_checked(std::int64_t total_q, std::int64_t total_k, int hq, int d, WorkspaceFloats* out);

// A refusal with the op's prefix ("samebits attention: " + what).
Status refusal(const char* op, StatusCode code, const std::string& what);

}  // namespace samebits::kernels::attention::validate
